/*
 * main.c - the clearsim command: subcommand dispatch, help text, error
 * messages and exit codes.
 *
 * Notes
 *  - The only file that prints errors and exits. Every error is one line on
 *    stderr, prefixed "clearsim: " (and the subcommand), naming the option or
 *    the file:line:col the loader reported.
 *  - Exit codes: 0 success; 1 runtime error (machine file missing or
 *    invalid, run failure, output failure); 2 usage error (unknown
 *    subcommand or option, bad option value, an option the workload or the
 *    machine rejects).
 *  - --output FILE goes through sim/outfile.c (temporary + rename). SIGINT,
 *    SIGTERM and SIGHUP remove the temporaries (outfile_cleanup_signal) and
 *    then end the process by the same signal, as if unhandled.
 *  - Parsing is in sim/cli.c, printing in sim/report.c, the prediction in
 *    sim/run.c.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/callers.h"
#include "sim/cmd_common.h"
#include "sim/cfg.h"
#include "sim/cli.h"
#include "sim/cmd_model.h"
#include "sim/cmd_detect.h"
#include "sim/cmd_native.h"
#include "sim/cmd_report.h"
#include "sim/cmd_tools.h"
#include "sim/host.h"
#include "sim/outfile.h"
#include "sim/report.h"
#include "sim/run.h"
#include "sim/units.h"
#include "sim/workload.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define ERR_LEN 1024

#define errorf(...) cmd_errorf(NULL, __VA_ARGS__)

/* Flush stdout; a write error (full disk, closed pipe) is a runtime error. */
static int finish_output(void)
{
    outfile_t *none = NULL;
    return cmd_finish_output(NULL, &none);
}

/* ------------------------------------------------------------------------ */
/* help                                                                      */

static void usage_main(FILE *out);

typedef struct command {
    const char *name;
    const char *summary; /* one line for 'clearsim --help' */
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
} command_t;

static int cmd_run(int argc, char **argv);
static int cmd_machines(int argc, char **argv);
static int cmd_functions(int argc, char **argv);
static void usage_run(FILE *out);
static void usage_machines(FILE *out);
static void usage_functions(FILE *out);

/* Every command, in the order 'clearsim --help' lists them. */
static const command_t commands[] = {
    {"run", "predict one run of 'perf bench mem memset' or 'perf bench mem mmap'", cmd_run,
     usage_run},
    {"machines", "list the bundled machine files", cmd_machines, usage_machines},
    {"functions", "list the clearing kernels (functions)", cmd_functions, usage_functions},
    {"native", "run the same workload natively on this host (measured)", cmd_native,
     cmd_native_usage},
    {"detect", "print a machine file (YAML) for this host", cmd_detect, cmd_detect_usage},
    {"sweep", "run 'run' over ranges of options, in parallel, shardable", cmd_sweep_main,
     cmd_sweep_usage},
    {"tune", "recommend non-temporal thresholds and an extent cap", cmd_tune_main, cmd_tune_usage},
    {"plot", "draw a csv of sweep, tune or a crosscheck with gnuplot", cmd_plot_main,
     cmd_plot_usage},
    {"calibrate", "fit a machine file's timing parameters to measured cases", cmd_calibrate_main,
     cmd_calibrate_usage},
    {"crosscheck", "measure the default sweep natively and compare it with the model",
     cmd_crosscheck_main, cmd_crosscheck_usage},
    {"report", "generate docs/PREDICTIONS.md (predictions for every machine)", cmd_report_main,
     cmd_report_usage},
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
          "See 'clearsim <command> --help' for the options of each command.\n",
          out);
}

static void usage_run(FILE *out)
{
    wl_spec_t d;
    run_opts_t o;
    char size[32], cap[32], page[32];
    wl_spec_init(&d);
    run_opts_init(&o);
    unit_format_size(d.size_bytes, size, sizeof size);
    unit_format_size(d.extent_cap_bytes, cap, sizeof cap);
    unit_format_size(d.page_bytes, page, sizeof page);

    fprintf(out,
            "usage: clearsim run --machine NAME|PATH|host [options]\n"
            "\n"
            "Predict one run of 'perf bench mem memset' or 'perf bench mem mmap' on a modelled\n"
            "machine: throughput, perf counters and per-level traffic.\n"
            "Sizes take B, KB, MB, GB, TB (binary, as perf: 1KB = 1024 B) or KiB, MiB, ...\n"
            "\n"
            "  --machine NAME|PATH|host  the machine (required): a bundled name (see\n"
            "                            'clearsim machines'), a YAML file, or 'host' for the\n"
            "                            bundled file that matches this CPU\n"
            "  --workload memset|mmap    the benchmark (default %s)\n"
            "  -s, --size SIZE           bytes cleared per loop, at most 1TB (default %s)\n"
            "  -k, --chunk SIZE          memset: bytes per call, at most --size (default: the\n"
            "                            whole size in one call)\n"
            "  -l, --loops N             passes over the buffer / map-unmap cycles (default %u)\n"
            "  -f, --function NAME       the clearing kernel (see 'clearsim functions'); default:\n"
            "                            rep_stosb on x86_64 (rep_stosq without ERMS, unrolled\n"
            "                            without either), memset on arm64\n"
            "      --fill N              memset: byte value 0..255, decimal or 0x.. (default %u)\n"
            "      --caller C            how the kernel is called. memset: chunked (calls of\n"
            "                            --chunk bytes; default) or repeat (one call over the\n"
            "                            whole buffer per loop). mmap: page (clear_page per\n"
            "                            4 KiB subpage; default) or extent (clear_pages over\n"
            "                            the folio)\n"
            "  -p, --page 4KB|2MB|1GB    mmap: page size (default %s)\n"
            "      --fault demand|populate  mmap: fault on first touch or at map time\n"
            "                            (default %s)\n"
            "      --preempt none|voluntary|full|lazy  mmap: preemption model; extents are\n"
            "                            capped under none and voluntary (default %s)\n"
            "      --extent-cap SIZE     mmap: the extent cap (default %s)\n"
            "      --format text|csv|json  output format (default text; see docs/JSON.md)\n"
            "      --exact               simulate every operation (no steady-state\n"
            "                            extrapolation)\n"
            "      --seed N              seed of random replacement (default %llu)\n"
            "      --output FILE         write the report to FILE (atomically: a temporary\n"
            "                            file renamed over FILE on success; FILE is left as\n"
            "                            it was on any error or interrupt); '-' is stdout\n"
            "  -q, --quiet               no progress report on stderr\n"
            "  -h, --help                show this help\n",
            wl_kind_name(d.kind), size, (unsigned)d.loops, (unsigned)d.fill, page,
            wl_fault_name(d.fault), caller_preempt_name(d.preempt), cap,
            (unsigned long long)o.seed);
}

static void usage_machines(FILE *out)
{
    fputs("usage: clearsim machines [--format text|json]\n"
          "\n"
          "List the bundled machine files (name, ISA, CPU model, description).\n"
          "The configs directory is $CLEARSIM_CONFIGS, else the source tree's configs/.\n"
          "\n"
          "      --format text|json  output format (default text; see docs/JSON.md)\n"
          "  -h, --help              show this help\n",
          out);
}

static void usage_functions(FILE *out)
{
    fputs("usage: clearsim functions [--format text|json]\n"
          "\n"
          "List the clearing kernels: name, ISA (x86_64, arm64 or any), the CPU features\n"
          "they need, and what they do.\n"
          "\n"
          "      --format text|json  output format (default text; see docs/JSON.md)\n"
          "  -h, --help              show this help\n",
          out);
}

/* ------------------------------------------------------------------------ */
/* subcommands                                                               */

static int cmd_run(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    cli_run_t *r = malloc(sizeof *r);
    run_result_t *res = malloc(sizeof *res);
    cfg_machine_t *m = NULL;
    outfile_t *of = NULL;
    FILE *out = stdout;
    int rc = EXIT_RUNTIME;
    if (!r || !res) {
        errorf("run: out of memory");
        goto out;
    }
    switch (cli_parse_run(argc, argv, r, err, sizeof err)) {
    case CLI_HELP:
        usage_run(stdout);
        rc = finish_output();
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("run: %s", err);
        rc = EXIT_USAGE;
        goto out;
    }

    m = cmd_machine_open("run", r->machine, r->quiet, NULL);
    if (!m)
        goto out;
    cli_apply_defaults(r, m);
    if (wl_validate(&r->spec, m, err, sizeof err) != 0) {
        errorf("run: %s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    /* open the output before the run, so that a bad --output fails at once */
    if (r->output[0]) {
        of = outfile_open(r->output, err, sizeof err);
        if (!of) {
            errorf("run: --output %s", err);
            goto out;
        }
        out = outfile_fp(of);
    }
    r->opts.progress = !r->quiet && isatty(STDERR_FILENO);
    memset(res, 0, sizeof *res);
    if (run_predict(m, &r->spec, &r->opts, res, err, sizeof err) != 0) {
        errorf("run: %s", err);
        goto out;
    }
    if (report_run(out, r->format, res, err, sizeof err) != 0) {
        errorf("run: %s", err);
        goto out;
    }
    rc = cmd_finish_output("run", &of);
out:
    outfile_abort(of);
    if (m)
        cfg_machine_destroy(m);
    free(res);
    free(r);
    return rc;
}

static int cmd_functions(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    report_format_t fmt;
    switch (cli_parse_list(argc, argv, &fmt, err, sizeof err)) {
    case CLI_HELP:
        usage_functions(stdout);
        return finish_output();
    case CLI_OK:
        break;
    default:
        errorf("functions: %s", err);
        return EXIT_USAGE;
    }
    if (report_functions(stdout, fmt, err, sizeof err) != 0) {
        errorf("functions: %s", err);
        return EXIT_RUNTIME;
    }
    return finish_output();
}

static int cmd_machines(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    report_format_t fmt;
    switch (cli_parse_list(argc, argv, &fmt, err, sizeof err)) {
    case CLI_HELP:
        usage_machines(stdout);
        return finish_output();
    case CLI_OK:
        break;
    default:
        errorf("machines: %s", err);
        return EXIT_USAGE;
    }

    static char names[CLI_MACHINES_MAX][CFG_NAME_MAX];
    size_t n = 0;
    cfg_error_t lerr = {{0}};
    if (cfg_machine_list(names, CLI_MACHINES_MAX, &n, &lerr) != 0) {
        errorf("machines: %s", lerr.msg);
        return EXIT_RUNTIME;
    }
    cfg_machine_t **ms = calloc(n ? n : 1, sizeof *ms);
    size_t loaded = 0;
    int rc = EXIT_OK;
    if (!ms) {
        errorf("machines: out of memory");
        return EXIT_RUNTIME;
    }
    for (size_t i = 0; i < n; i++) {
        char path[CLI_MACHINE_ARG_MAX];
        cfg_error_t cerr = {{0}};
        cfg_machine_t *m = NULL;
        if (cfg_machine_resolve(names[i], path, sizeof path, &cerr) == 0)
            m = cfg_machine_load(path, &cerr);
        if (!m) {
            /* list the others, then fail */
            errorf("%s", cerr.msg);
            rc = EXIT_RUNTIME;
            continue;
        }
        ms[loaded++] = m;
    }
    if (report_machines(stdout, fmt, (const cfg_machine_t *const *)ms, loaded, err, sizeof err) !=
        0) {
        errorf("machines: %s", err);
        rc = EXIT_RUNTIME;
    }
    for (size_t i = 0; i < loaded; i++)
        cfg_machine_destroy(ms[i]);
    free(ms);
    int out = finish_output();
    return rc != EXIT_OK ? rc : out;
}

static const command_t *find_command(const char *name)
{
    for (const command_t *c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* A bounded, printable copy of an argument for a message. */
static const char *shown(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s);
    if (strlen(s) >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    return buf;
}

/* SIGINT, SIGTERM, SIGHUP: drop the temporaries of --output, then die of the
 * signal (the default action), so that the caller sees the interrupt. */
static void on_interrupt(int sig)
{
    outfile_cleanup_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_interrupts(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        /* a signal ignored by whoever started us (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    char a[80];
    catch_interrupts();
    if (argc < 2) {
        errorf("no command given; see 'clearsim --help'");
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        if (argc > 2) {
            errorf("unexpected argument '%s' after %s", shown(argv[2], a, sizeof a), cmd);
            return EXIT_USAGE;
        }
        usage_main(stdout);
        return finish_output();
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        if (argc > 2) {
            errorf("unexpected argument '%s' after %s", shown(argv[2], a, sizeof a), cmd);
            return EXIT_USAGE;
        }
        printf("clearsim %s\n", CLEARSIM_VERSION);
        return finish_output();
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc == 2) {
            usage_main(stdout);
            return finish_output();
        }
        const command_t *c = find_command(argv[2]);
        if (!c || argc > 3) {
            errorf("help: %s '%s'; see 'clearsim --help'",
                   c ? "unexpected argument" : "unknown command",
                   shown(c ? argv[3] : argv[2], a, sizeof a));
            return EXIT_USAGE;
        }
        c->usage(stdout);
        return finish_output();
    }
    if (cmd[0] == '-') {
        errorf("unrecognized option '%s'; see 'clearsim --help'", shown(cmd, a, sizeof a));
        return EXIT_USAGE;
    }
    const command_t *c = find_command(cmd);
    if (!c) {
        errorf("unknown command '%s'; see 'clearsim --help'", shown(cmd, a, sizeof a));
        return EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
