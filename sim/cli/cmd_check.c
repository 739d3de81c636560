/*
 * cmd_check.c - `clearsim check FILE`: run the model's own microbenchmarks
 * on a machine file and compare them with the figures the file keeps
 * (sim/study/microbench.h).
 *
 * Notes
 *  - FILE is a machine name or path, as --machine takes (host too).
 *  - The file is loaded at microbench.clock when that differs from its
 *    core.freq, so that each figure is predicted at the clock it was
 *    measured at.
 *  - Exit status: 0 when every figure is within the tolerance
 *    (microbench.tolerance, or --tolerance), 1 when one is not or the file
 *    has no figures, 2 for a usage error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/base/errbuf.h"
#include "sim/cli/cmd_common.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/machine/cfg.h"
#include "sim/machine/optval.h"
#include "sim/machine/units.h"
#include "sim/study/microbench.h"

#define errorf(...) cmd_errorf("check", __VA_ARGS__)

void cmd_check_usage(FILE *out)
{
    fputs("usage: clearsim check FILE [--tolerance X] [-j N] [-q]\n"
          "\n"
          "Run the model's own microbenchmarks on machine FILE (a name, a path or host) and\n"
          "print each figure of its microbench: section next to the model's, with the\n"
          "error. Exit status 1 when a figure is further off than the tolerance\n"
          "(microbench.tolerance in the file, 0.10 by default).\n"
          "Example: clearsim check ~/.config/clearsim/machines/myhost.yaml\n"
          "\n"
          "      --tolerance X       relative error allowed, 0.001..1 (default: the file's)\n"
          "  -j, --jobs N            figures predicted at once (default: online CPUs)\n"
          "  -q, --quiet             no progress on stderr\n"
          "  -h, --help              show this help\n",
          out);
}

typedef struct check_args {
    double tolerance;
    uint64_t threads;
    bool quiet;
} check_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    check_args_t *a = ctx;
    char *end;
    switch (id) {
    case CLI_O_TOLERANCE:
        a->tolerance = strtod(arg, &end);
        if (end == arg || *end || !(a->tolerance >= 0.001 && a->tolerance <= 1))
            return errbuf_set(err, errlen, "%s '%s': a relative error 0.001..1", opt, arg);
        return 0;
    case CLI_O_JOBS:
        return optval_uint(opt, arg, 1, 16, &a->threads, err, errlen);
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

int cmd_check_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_TOLERANCE, CLI_O_JOBS, CLI_O_QUIET, CLI_O_END};
    check_args_t a = {0};
    char why[512];
    const char *file = NULL;
    cli_spec_t spec = {opts, NULL, NULL, on_option, &a, &file};
    switch (cli_parse(argc, argv, &spec, why, sizeof why)) {
    case CLI_HELP:
        cmd_check_usage(stdout);
        return cmd_finish_stdout("check");
    case CLI_OK:
        break;
    default:
        errorf("%s", why);
        return CMD_EXIT_USAGE;
    }
    if (!file) {
        errorf("missing the machine FILE to check");
        return CMD_EXIT_USAGE;
    }
    machine_t *m = cmd_machine_open("check", file, a.quiet, NULL);
    if (!m)
        return CMD_EXIT_RUNTIME;
    int rc = CMD_EXIT_RUNTIME;
    mb_check_row_t *rows = NULL;
    char err[1024];
    if (m->n_mb == 0) {
        errorf("%s has no microbench: figures to check", m->name);
        goto out;
    }
    if (m->mb_clock_ghz > 0 && fabs(m->mb_clock_ghz - m->freq_ghz) > 1e-9) {
        machine_t *at = cfg_machine_load_at_clock(m->path, m->mb_clock_ghz, err, sizeof err);
        if (!at) {
            errorf("%s", err);
            goto out;
        }
        cfg_machine_destroy(m);
        m = at;
    }
    if (a.tolerance > 0)
        m->mb_tolerance = a.tolerance;
    double tol = m->mb_tolerance > 0 ? m->mb_tolerance : 0.10;
    rows = calloc(m->n_mb, sizeof *rows);
    if (!rows) {
        errorf("out of memory");
        goto out;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = a.threads ? (unsigned)a.threads : cpus > 0 ? (unsigned)cpus : 1;
    if (mb_check(m, threads, !a.quiet, rows, err, sizeof err)) {
        errorf("%s", err);
        goto out;
    }
    printf("# check: machine '%s' (%s) against its %u microbenchmark figures, at %.3f GHz, "
           "tolerance %.0f%%\n",
           m->name, m->path, m->n_mb, m->freq_ghz, 100 * tol);
    printf("%-22s %-9s %-11s %9s %-12s %10s %10s %8s\n", "figure", "workload", "function", "size",
           "unit", "figure", "model", "error");
    uint32_t off = 0;
    double worst = 0;
    const char *worst_id = "-";
    for (uint32_t i = 0; i < m->n_mb; i++) {
        const mb_check_row_t *r = &rows[i];
        char s[32];
        unit_format_size(r->fig->size_bytes, s, sizeof s);
        printf("%-22s %-9s %-11s %9s %-12s %10.4g %10.4g %+7.1f%%%s\n", r->fig->id,
               r->fig->workload, r->fig->function[0] ? r->fig->function : "-", s,
               r->fig->metric == MACHINE_MB_NS_PER_LOAD ? "ns/load" : "GiB/s", r->fig->value,
               r->model, 100 * r->error, r->within ? "" : "  <- off");
        off += !r->within;
        if (fabs(r->error) > worst) {
            worst = fabs(r->error);
            worst_id = r->fig->id;
        }
    }
    printf("summary: %u figures, %u outside %.0f%%, largest |error| %.1f%% (%s)\n", m->n_mb, off,
           100 * tol, 100 * worst, worst_id);
    rc = cmd_finish_stdout("check");
    if (rc == CMD_EXIT_OK && off)
        rc = CMD_EXIT_RUNTIME;
out:
    free(rows);
    cfg_machine_destroy(m);
    return rc;
}
