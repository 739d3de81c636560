/*
 * cmd_tune.c - `clearsim tune`: options, help text and errors around
 * sim/tune.c.
 *
 * Notes
 *  - The size distribution is --sizes DIST or --sizes-file FILE (not both);
 *    the default is the powers of two from 4 KiB to 1 GiB, equal weights.
 *  - --output FILE goes through sim/outfile.c (a temporary renamed over FILE
 *    once the whole report is written).
 *  - Exit status: 0 success, 1 runtime error (machine file, a run, output),
 *    2 usage error.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cmd_common.h"
#include "sim/cfg.h"
#include "sim/cli.h"
#include "sim/cmd_tools.h"
#include "sim/host.h"
#include "sim/outfile.h"
#include "sim/progress.h"
#include "sim/sweep.h"
#include "sim/tune.h"
#include "sim/units.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("tune", __VA_ARGS__)

void cmd_tune_usage(FILE *out)
{
    fputs("usage: clearsim tune --machine NAME|PATH|host [options]\n"
          "\n"
          "Recommend where to switch from temporal clearing (rep stosb / stp) to\n"
          "non-temporal (movnti / stnp) or line zeroing (clzero / dc zva), counting the\n"
          "re-fetch of what the consumer touches after the clear, and how large a clearing\n"
          "extent may be under a scheduling-latency budget.\n"
          "\n"
          "  --machine NAME|PATH|host  the machine (required)\n"
          "  --sizes DIST          clear sizes: SIZE[:WEIGHT],... or LO..HI:xF (default\n"
          "                        4KB..1GB:x2, equal weights)\n"
          "  --sizes-file FILE     sizes and weights from FILE.csv (header size,weight) or\n"
          "                        FILE.yaml (a mapping SIZE: WEIGHT)\n"
          "  --reuse R|subpage     after each clear the consumer touches the fraction R\n"
          "                        (0..1) of it, or only its first 4KiB (default 0)\n"
          "  --window SIZE         the consumer touches at most SIZE bytes (default: no limit)\n"
          "  --preempt none|voluntary|full|lazy  preemption model of the extent cap\n"
          "                        (default voluntary)\n"
          "  --latency-budget T    the longest one extent may take, e.g. 1ms, 500us\n"
          "                        (default 1ms)\n"
          "  -j, --jobs N          threads (default 1); the output does not depend on N\n"
          "      --format text|csv|json  output (default text; csv is the curve; see\n"
          "                        docs/JSON.md)\n"
          "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
          "      --exact           simulate every operation (slow for large sizes)\n"
          "      --seed N          seed of random replacement\n"
          "  -q, --quiet           no progress report on stderr\n"
          "  -h, --help            show this help\n"
          "\n"
          "Every size costs a few model runs over a buffer larger than the caches; use\n"
          "--jobs and a --sizes list that covers the sizes you care about.\n",
          out);
}

enum {
    O_MACHINE = 0x100,
    O_SIZES,
    O_SIZES_FILE,
    O_REUSE,
    O_WINDOW,
    O_PREEMPT,
    O_BUDGET,
    O_FORMAT,
    O_EXACT,
    O_SEED,
};

static const struct option tune_options[] = {
    {"machine", required_argument, NULL, O_MACHINE},
    {"sizes", required_argument, NULL, O_SIZES},
    {"sizes-file", required_argument, NULL, O_SIZES_FILE},
    {"reuse", required_argument, NULL, O_REUSE},
    {"window", required_argument, NULL, O_WINDOW},
    {"preempt", required_argument, NULL, O_PREEMPT},
    {"latency-budget", required_argument, NULL, O_BUDGET},
    {"jobs", required_argument, NULL, 'j'},
    {"format", required_argument, NULL, O_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"exact", no_argument, NULL, O_EXACT},
    {"seed", required_argument, NULL, O_SEED},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct tune_args {
    const char *machine;
    const char *sizes, *sizes_file;
    const char *output;
    report_format_t format;
    bool quiet;
    tune_opts_t o;
} tune_args_t;

static int parse_args(int argc, char **argv, tune_args_t *a, char *err, size_t errlen)
{
    static const char *const preempts[] = {"none", "voluntary", "full", "lazy", NULL};
    static const caller_preempt_t preempt_values[] = {CALLER_PREEMPT_NONE, CALLER_PREEMPT_VOLUNTARY,
                                                      CALLER_PREEMPT_FULL, CALLER_PREEMPT_LAZY};
    static const char *const formats[] = {"text", "csv", "json", NULL};
    static const report_format_t format_values[] = {REPORT_FMT_TEXT, REPORT_FMT_CSV,
                                                    REPORT_FMT_JSON};
    bool help = false;
    char why[256];
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hqj:o:", tune_options, NULL)) != -1) {
        uint64_t v;
        int i;
        unit_time_t t = {0};
        switch (c) {
        case 'h':
            help = true;
            break;
        case 'q':
            a->quiet = true;
            break;
        case O_MACHINE:
            if (optarg[0] == '\0') {
                snprintf(err, errlen, "--machine '': give a machine name, a file or 'host'");
                return CLI_USAGE;
            }
            a->machine = optarg;
            break;
        case O_SIZES:
            a->sizes = optarg;
            break;
        case O_SIZES_FILE:
            a->sizes_file = optarg;
            break;
        case O_REUSE:
            if (strcmp(optarg, "subpage") == 0) {
                a->o.reuse_subpage = true;
                break;
            }
            a->o.reuse_subpage = false;
            if (unit_parse_double(optarg, &a->o.reuse_fraction, why, sizeof why) != 0 ||
                !(a->o.reuse_fraction >= 0 && a->o.reuse_fraction <= 1)) {
                snprintf(err, errlen, "--reuse '%.64s': give a fraction from 0 to 1, or subpage",
                         optarg);
                return CLI_USAGE;
            }
            break;
        case O_WINDOW:
            if (cli_parse_size("--window", optarg, &v, err, errlen) != CLI_OK)
                return CLI_USAGE;
            a->o.window_bytes = v;
            break;
        case O_PREEMPT:
            if (cli_parse_choice("--preempt", optarg, preempts, &i, err, errlen) != CLI_OK)
                return CLI_USAGE;
            a->o.preempt = preempt_values[i];
            break;
        case O_BUDGET:
            if (unit_parse_time(optarg, &t, why, sizeof why) != 0) {
                snprintf(err, errlen, "--latency-budget '%.64s': %s", optarg, why);
                return CLI_USAGE;
            }
            if (t.cycles || !(t.value > 0)) {
                snprintf(err, errlen, "--latency-budget '%.64s': %s", optarg,
                         t.cycles ? "give a time (ns, us, ms, s), not cycles"
                                  : "must be greater than 0");
                return CLI_USAGE;
            }
            a->o.latency_budget_ns = t.value;
            break;
        case 'j':
            if (cli_parse_uint("--jobs", optarg, 1, SWEEP_JOBS_MAX, &v, err, errlen) != CLI_OK)
                return CLI_USAGE;
            a->o.jobs = (unsigned)v;
            break;
        case O_FORMAT:
            if (cli_parse_choice("--format", optarg, formats, &i, err, errlen) != CLI_OK)
                return CLI_USAGE;
            a->format = format_values[i];
            break;
        case 'o':
            if (optarg[0] == '\0') {
                snprintf(err, errlen, "--output '': give a file name");
                return CLI_USAGE;
            }
            a->output = optarg;
            break;
        case O_EXACT:
            a->o.run.exact = true;
            break;
        case O_SEED:
            if (cli_parse_uint("--seed", optarg, 0, UINT64_MAX, &v, err, errlen) != CLI_OK)
                return CLI_USAGE;
            a->o.run.seed = v;
            break;
        default:
            return cli_getopt_failure(c, tune_options, argc, argv, err, errlen);
        }
    }
    if (cli_leftover_args(argc, argv, err, errlen) != CLI_OK)
        return CLI_USAGE;
    if (help)
        return CLI_HELP;
    if (!a->machine) {
        snprintf(err, errlen, "--machine is required; see 'clearsim machines'");
        return CLI_USAGE;
    }
    if (a->sizes && a->sizes_file) {
        snprintf(err, errlen, "give --sizes or --sizes-file, not both");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cmd_tune_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    int rc = EXIT_RUNTIME;
    tune_args_t a = {.format = REPORT_FMT_TEXT};
    tune_size_t *sizes = NULL;
    size_t n_sizes = 0;
    cfg_machine_t *m = NULL;
    outfile_t *of = NULL;
    tune_result_t res = {0};
    bool have_res = false;

    run_opts_init(&a.o.run);
    a.o.jobs = 1;
    a.o.preempt = CALLER_PREEMPT_VOLUNTARY;
    a.o.latency_budget_ns = 1e6;
    switch (parse_args(argc, argv, &a, err, sizeof err)) {
    case CLI_HELP:
        cmd_tune_usage(stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_RUNTIME;
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        return EXIT_USAGE;
    }
    int src = a.sizes        ? tune_parse_sizes(a.sizes, &sizes, &n_sizes, err, sizeof err)
              : a.sizes_file ? tune_load_sizes(a.sizes_file, &sizes, &n_sizes, err, sizeof err)
                             : tune_default_sizes(&sizes, &n_sizes, err, sizeof err);
    if (src != 0) {
        errorf("%s", err);
        /* a bad --sizes is a usage error; an unreadable or bad file a runtime one */
        rc = a.sizes ? EXIT_USAGE : EXIT_RUNTIME;
        goto out;
    }
    m = cmd_machine_open("tune", a.machine, a.quiet, NULL);
    if (!m)
        goto out;
    if (a.output) {
        of = outfile_open(a.output, err, sizeof err);
        if (!of) {
            errorf("--output %s", err);
            goto out;
        }
    }
    a.o.sizes = sizes;
    a.o.n_sizes = n_sizes;
    a.o.progress = !a.quiet && progress_tty();
    if (tune_run(m, &a.o, &res, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    have_res = true;
    if (tune_print(of ? outfile_fp(of) : stdout, a.format, &res, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (cmd_finish_output("tune", &of) != CMD_EXIT_OK)
        goto out;
    rc = EXIT_OK;
out:
    outfile_abort(of);
    if (have_res)
        tune_result_free(&res);
    if (m)
        cfg_machine_destroy(m);
    free(sizes);
    return rc;
}
