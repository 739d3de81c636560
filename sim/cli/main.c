/*
 * main.c - the clearsim command: the dispatch table of its subcommands, the
 * top-level help and version, and the signals that must not leave
 * temporary files behind.
 *
 * Notes
 *  - Each subcommand parses, runs and prints on its own (sim/cli/cmd_*.c)
 *    and returns its exit code (sim/cli/cmd_common.h).
 *  - Every terminating signal of outfile_signals[] (SIGINT, SIGTERM, SIGHUP,
 *    SIGQUIT, SIGPIPE, SIGXFSZ, ...) removes the temporaries of --output
 *    (outfile_cleanup_signal) and then ends the process by the same signal,
 *    as if unhandled.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/machine/datadir.h"
#include "sim/machine/suggest.h"
#include "sim/output/outfile.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

typedef struct command {
    const char *name;
    const char *summary; /* one line for 'clearsim --help' */
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
} command_t;

#define CMD(name, summary)                                                                         \
    {                                                                                              \
#name, summary, cmd_##name##_main, cmd_##name##_usage                                      \
    }

/* Every command, in the order 'clearsim --help' lists them. */
static const command_t commands[] = {
    CMD(run, "predict one run of 'perf bench mem memset' or 'perf bench mem mmap'"),
    CMD(bench, "predict perf bench mem memset|mmap from perf's own command line"),
    CMD(explain, "what bounds a prediction, and which single change helps it most"),
    CMD(machines, "list the bundled machine files"),
    CMD(functions, "list the clearing kernels (functions)"),
    CMD(native, "run the same workload natively on this host (measured)"),
    CMD(detect, "print a machine file (YAML) for this host"),
    CMD(sweep, "run 'run' over ranges of options, in parallel, shardable"),
    CMD(tune, "recommend non-temporal thresholds and an extent cap"),
    CMD(plot, "draw a csv of sweep, tune or a crosscheck with gnuplot"),
    CMD(calibrate, "fit a machine file's timing parameters to measured cases"),
    CMD(crosscheck, "measure the default sweep natively and compare it with the model"),
    CMD(report, "generate docs/PREDICTIONS.md, or docs/VALIDATION.md (--validation)"),
    CMD(check, "compare a machine file's microbenchmark figures with the model"),
    CMD(validate, "score the predictions against every published figure (data/published)"),
    {NULL, NULL, NULL, NULL},
};

static void usage_main(FILE *out)
{
    fputs("usage: clearsim <command> [options]\n"
          "\n"
          "Predicts how fast a CPU clears memory (Linux clear_page/clear_pages, rep stosb,\n"
          "MOVNTI, CLZERO, arm64 DC ZVA/STP/STNP/MOPS, memset) by running the real clearing\n"
          "kernels through a trace-driven model of a machine described in a YAML file.\n"
          "\n"
          "Commands:\n",
          out);
    for (const command_t *c = commands; c->name; c++)
        fprintf(out, "  %-12s %s\n", c->name, c->summary);
    fputs("  help [CMD]   show the help of a command\n"
          "\n"
          "Options:\n"
          "  -h, --help      show this help\n"
          "  -V, --version   print the version\n"
          "\n"
          "Exit status: 0 success, 1 runtime error (machine file, run, output),\n"
          "2 usage error (unknown command or option, bad option value).\n"
          "See 'clearsim <command> --help' for the options of each command.\n"
          "\n"
          "Data files (machine files and size distributions in configs/, plot templates\n"
          "in plots/) are in the data directory: $CLEARSIM_DATA_DIR when set, else\n"
          "'" CLEARSIM_BIN_TO_DATA "' next to the clearsim binary (an installed clearsim),\n"
          "else "
          "the source tree when clearsim runs from its build tree, else\n"
          "'" CLEARSIM_INSTALL_DATADIR "'.\n",
          out);
}

static const command_t *find_command(const char *name)
{
    for (const command_t *c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* The command nearest to an unknown one (sim/machine/suggest.h), or NULL. */
static const char *nearest_command(const char *name)
{
    suggest_t sg;
    suggest_init(&sg, name);
    for (const command_t *c = commands; c->name; c++)
        suggest_offer(&sg, c->name);
    suggest_offer(&sg, "help");
    return suggest_best(&sg);
}

/* A bounded, printable copy of an argument for a message. */
static const char *shown(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s);
    if (strlen(s) >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    return buf;
}

/* A terminating signal: drop the temporaries of --output, then die of the
 * signal (the default action), so that the caller sees the interrupt. */
static void on_interrupt(int sig)
{
    outfile_cleanup_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_interrupts(void)
{
    for (size_t i = 0; i < outfile_n_signals; i++) {
        struct sigaction old, sa;
        /* a signal ignored by whoever started us (nohup, a background job) stays ignored */
        if (sigaction(outfile_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        /* a second signal waits until the first one's cleanup is done */
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < outfile_n_signals; k++)
            sigaddset(&sa.sa_mask, outfile_signals[k]);
        sigaction(outfile_signals[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    char a[80];
    catch_interrupts();
    if (argc < 2) {
        cmd_errorf(NULL, "no command given; see 'clearsim --help'");
        return CMD_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    bool top_help = strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0;
    bool version = strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0;
    if (top_help || version) {
        if (argc > 2) {
            cmd_errorf(NULL, "unexpected argument '%s' after %s", shown(argv[2], a, sizeof a), cmd);
            return CMD_EXIT_USAGE;
        }
        if (top_help)
            usage_main(stdout);
        else
            printf("clearsim %s\n", CLEARSIM_VERSION);
        return cmd_finish_stdout(NULL);
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc == 2) {
            usage_main(stdout);
            return cmd_finish_stdout(NULL);
        }
        const command_t *c = find_command(argv[2]);
        if (!c || argc > 3) {
            cmd_errorf(NULL, "help: %s '%s'; see 'clearsim --help'",
                       c ? "unexpected argument" : "unknown command",
                       shown(c ? argv[3] : argv[2], a, sizeof a));
            return CMD_EXIT_USAGE;
        }
        c->usage(stdout);
        return cmd_finish_stdout(NULL);
    }
    if (cmd[0] == '-') {
        cmd_errorf(NULL, "unrecognized option '%s'; see 'clearsim --help'",
                   shown(cmd, a, sizeof a));
        return CMD_EXIT_USAGE;
    }
    const command_t *c = find_command(cmd);
    if (!c) {
        char hint[96];
        cmd_errorf(NULL, "unknown command '%s'%s; see 'clearsim --help'", shown(cmd, a, sizeof a),
                   suggest_hint(nearest_command(cmd), hint, sizeof hint));
        return CMD_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
