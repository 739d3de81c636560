/*
 * cmd_tune.c - `clearsim tune`: options, help text and errors around
 * sim/study/tune.c.
 *
 * Notes
 *  - The size distribution is one of --dist NAME, --sizes LIST or
 *    --sizes-file FILE; the default is the shipped TUNE_DEFAULT_DIST.
 *  - --output FILE goes through sim/output/outfile.c (a temporary renamed over FILE
 *    once the whole report is written).
 *  - Exit status: 0 success, 1 runtime error (machine file, a run, output),
 *    2 usage error.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/output/pool.h"
#include "sim/cli/cmd_common.h"
#include "sim/machine/cfg.h"
#include "sim/cli/options.h"
#include "sim/cli/commands.h"
#include "sim/machine/optval.h"
#include "models/base/errbuf.h"
#include "sim/host/host.h"
#include "sim/output/outfile.h"
#include "sim/engine/progress.h"
#include "sim/engine/workload.h"
#include "sim/study/sweep.h"
#include "sim/study/tune.h"
#include "sim/machine/units.h"

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
          "  --dist NAME           a shipped size distribution, configs/sizes/NAME.csv (default\n"
          "                        " TUNE_DEFAULT_DIST "; clear-pages follows --preempt; an\n"
          "                        unknown name lists them)\n"
          "  --sizes LIST          clear sizes: SIZE[:WEIGHT],... or LO..HI:xF (equal weights)\n"
          "  --sizes-file FILE     sizes and weights from FILE.csv (header size,weight) or\n"
          "                        FILE.yaml (a mapping SIZE: WEIGHT)\n"
          "  --reuse R|subpage     after each clear the consumer touches the fraction R\n"
          "                        (0..1) of it, or only its first 4KiB (default 0)\n"
          "  --window SIZE         the consumer touches at most SIZE bytes (default: no limit)\n"
          "  --delay SIZE          with --reuse subpage: the faulting thread touches the first\n"
          "                        4KiB at once and the rest (up to --window) after SIZE\n"
          "                        bytes of other traffic\n"
          "  --min-gain F          a band of the policy must be cheaper than its neighbours\n"
          "                        by more than F (default 0.01) at one size at least\n"
          "  --preempt none|voluntary|full|lazy  preemption model of the extent cap\n"
          "                        (default voluntary)\n"
          "  --latency-budget T    the longest one extent may take, e.g. 1ms, 500us\n"
          "                        (default 1ms)\n"
          "  -j, --jobs N          threads (default: online CPUs); the output does not depend\n"
          "                        on N\n"
          "      --format text|csv|json  output (default text; csv is the curve; see\n"
          "                        docs/JSON.md)\n"
          "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
          "      --exact           simulate every operation (slow for large sizes)\n"
          "      --seed N          seed of random replacement\n"
          "      --set KEY=VALUE   override a machine-file key after loading (as 'run')\n"
          "      --libc NAME-VERSION  memset's dispatch from that C library's table\n"
          "  -q, --quiet           no progress report on stderr\n"
          "  -h, --help            show this help\n"
          "\n"
          "Every size costs a few model runs over a buffer larger than the caches; use\n"
          "--jobs and a --sizes list that covers the sizes you care about.\n",
          out);
}

typedef struct tune_args {
    run_point_t point; /* --machine, --preempt, --exact, --seed */
    const char *sizes, *sizes_file, *dist;
    const char *output;
    report_format_t format;
    bool quiet;
    tune_opts_t o;
} tune_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    tune_args_t *a = ctx;
    char why[256];
    uint64_t v;
    unit_time_t t = {0};
    switch (id) {
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_SIZES:
        a->sizes = arg;
        return 0;
    case CLI_O_SIZES_FILE:
        return optval_text(opt, arg, "a file name", &a->sizes_file, err, errlen);
    case CLI_O_REUSE:
        if (strcmp(arg, "subpage") == 0) {
            a->o.reuse_subpage = true;
            return 0;
        }
        a->o.reuse_subpage = false;
        if (unit_parse_double(arg, &a->o.reuse_fraction, why, sizeof why) != 0 ||
            !(a->o.reuse_fraction >= 0 && a->o.reuse_fraction <= 1))
            return errbuf_set(err, errlen,
                              "--reuse '%.64s': give a fraction from 0 to 1, or subpage", arg);
        return 0;
    case CLI_O_DIST:
        return optval_text(opt, arg, "a distribution name", &a->dist, err, errlen);
    case CLI_O_MIN_GAIN:
        if (unit_parse_double(arg, &a->o.min_gain, why, sizeof why) != 0 ||
            !(a->o.min_gain >= 0 && a->o.min_gain < 1))
            return errbuf_set(err, errlen, "--min-gain '%.64s': give a fraction from 0 to 1", arg);
        return 0;
    case CLI_O_DELAY:
        if (optval_size(opt, arg, &v, err, errlen) != 0)
            return -1;
        a->o.delay_bytes = v;
        return 0;
    case CLI_O_WINDOW:
        if (optval_size(opt, arg, &v, err, errlen) != 0)
            return -1;
        a->o.window_bytes = v;
        return 0;
    case CLI_O_LATENCY_BUDGET:
        if (unit_parse_time(arg, &t, why, sizeof why) != 0)
            return errbuf_set(err, errlen, "--latency-budget '%.64s': %s", arg, why);
        if (t.cycles || !(t.value > 0))
            return errbuf_set(err, errlen, "--latency-budget '%.64s': %s", arg,
                              t.cycles ? "give a time (ns, us, ms, s), not cycles"
                                       : "must be greater than 0");
        a->o.latency_budget_ns = t.value;
        return 0;
    case CLI_O_JOBS:
        return cli_take_jobs(opt, arg, &a->o.jobs, err, errlen);
    case CLI_O_FORMAT:
        return cli_take_format(opt, arg, report_format_names, &a->format, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

static int parse_args(int argc, char **argv, tune_args_t *a, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {
        CLI_O_SIZES,    CLI_O_SIZES_FILE,     CLI_O_DIST, CLI_O_REUSE,  CLI_O_WINDOW, CLI_O_DELAY,
        CLI_O_MIN_GAIN, CLI_O_LATENCY_BUDGET, CLI_O_JOBS, CLI_O_FORMAT, CLI_O_OUTPUT, CLI_O_QUIET,
        CLI_O_END};
    static const char *const keys[] = {"machine", "preempt", "exact", "seed", "set", "libc", NULL};
    /* tune's own defaults for what it takes from the run point */
    a->point.spec.preempt = a->o.preempt;
    a->point.opts = a->o.run;
    cli_spec_t spec = {opts, keys, &a->point, on_option, a, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc != CLI_OK)
        return rc;
    a->o.preempt = a->point.spec.preempt;
    a->o.run.exact = a->point.opts.exact;
    a->o.run.seed = a->point.opts.seed;
    if (!a->point.machine[0]) {
        errbuf_set(err, errlen, "--machine is required; see 'clearsim machines'");
        return CLI_USAGE;
    }
    if ((a->sizes != NULL) + (a->sizes_file != NULL) + (a->dist != NULL) > 1) {
        errbuf_set(err, errlen, "give only one of --dist, --sizes and --sizes-file");
        return CLI_USAGE;
    }
    if (a->o.delay_bytes > WL_DELAY_RING_BYTES) {
        errbuf_set(err, errlen, "--delay: at most 512GiB");
        return CLI_USAGE;
    }
    if (a->o.delay_bytes && !a->o.reuse_subpage) {
        errbuf_set(err, errlen, "--delay needs --reuse subpage (the faulting thread's case)");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cmd_tune_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    int rc = CMD_EXIT_RUNTIME;
    tune_args_t a = {.format = REPORT_FMT_TEXT};
    tune_size_t *sizes = NULL;
    size_t n_sizes = 0;
    machine_t *m = NULL;
    outfile_t *of = NULL;
    tune_result_t res = {0};
    bool have_res = false;

    point_init(&a.point);
    run_opts_init(&a.o.run);
    a.o.jobs = cli_default_jobs();
    a.o.preempt = CALLER_PREEMPT_VOLUNTARY;
    a.o.latency_budget_ns = 1e6;
    a.o.min_gain = TUNE_MIN_GAIN;
    switch (parse_args(argc, argv, &a, err, sizeof err)) {
    case CLI_HELP:
        cmd_tune_usage(stdout);
        return cmd_finish_stdout("tune");
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        return CMD_EXIT_USAGE;
    }
    int src;
    if (a.sizes) {
        src = tune_parse_sizes(a.sizes, &sizes, &n_sizes, err, sizeof err);
        if (strlen(a.sizes) + 9 < sizeof a.o.dist_source)
            snprintf(a.o.dist_source, sizeof a.o.dist_source, "--sizes %s", a.sizes);
        else /* too long to quote: say what it is */
            snprintf(a.o.dist_source, sizeof a.o.dist_source, "--sizes (a list of %zu sizes)",
                     n_sizes);
    } else if (a.sizes_file) {
        src = tune_load_sizes(a.sizes_file, &sizes, &n_sizes, err, sizeof err);
        if (strlen(a.sizes_file) < sizeof a.o.dist_name)
            snprintf(a.o.dist_name, sizeof a.o.dist_name, "%s", a.sizes_file);
        else /* too long to keep whole: its file name */
            snprintf(a.o.dist_name, sizeof a.o.dist_name, "...%s",
                     a.sizes_file + strlen(a.sizes_file) - (sizeof a.o.dist_name - 4));
        if (src == 0)
            tune_sizes_source(a.sizes_file, a.o.dist_source, sizeof a.o.dist_source);
    } else {
        src = tune_dist_load(a.dist ? a.dist : TUNE_DEFAULT_DIST, a.o.preempt, &sizes, &n_sizes,
                             a.o.dist_name, sizeof a.o.dist_name, a.o.dist_source,
                             sizeof a.o.dist_source, err, sizeof err);
    }
    if (src != 0) {
        errorf("%s", err);
        /* a bad --sizes or --dist is a usage error; an unreadable or bad file a runtime
         * one */
        rc =
            a.sizes || (a.dist && strstr(err, "--dist") == err) ? CMD_EXIT_USAGE : CMD_EXIT_RUNTIME;
        goto out;
    }
    bool usage = false;
    m = cmd_machine_open_point("tune", &a.point, a.quiet, NULL, &usage);
    if (!m) {
        if (usage)
            rc = CMD_EXIT_USAGE;
        goto out;
    }
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
    rc = CMD_EXIT_OK;
out:
    outfile_abort(of);
    if (have_res)
        tune_result_free(&res);
    if (m)
        cfg_machine_destroy(m);
    free(sizes);
    return rc;
}
