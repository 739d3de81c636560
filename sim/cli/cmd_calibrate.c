/*
 * cmd_calibrate.c - `clearsim calibrate`: fit a machine's fittable timing
 * parameters to measured cases, or (--check) only compare the machine's
 * predictions with them.
 *
 * Notes
 *  - The data file (see sim/study/calibrate.h and data/calibration/README.md)
 *    holds the cases, their sources and the keys to fit with bounds.
 *  - Prints a side-by-side table (measured, before, after, error) and the
 *    median and largest absolute error on the fitting and validation sets;
 *    writes the calibrated machine file atomically with -o/--output.
 *  - Exit status: 0 ok, 1 runtime error (bad data, failed fit, --check
 *    beyond a case's tolerance), 2 usage error.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/host/pick.h"
#include "sim/cli/options.h"
#include "sim/cli/cmd_common.h"
#include "sim/study/calibrate.h"
#include "sim/study/microbench.h"
#include "sim/machine/cfg.h"
#include "sim/cli/commands.h"
#include "sim/output/summary.h"
#include "sim/machine/optval.h"
#include "models/base/errbuf.h"

#define errorf(...) cmd_errorf("calibrate", __VA_ARGS__)

void cmd_calibrate_usage(FILE *out)
{
    fputs("usage: clearsim calibrate --machine NAME|PATH|host --data FILE|--microbench\n"
          "                          [-o FILE] [options]\n"
          "\n"
          "Fit the machine's fittable timing parameters (configs/README.md) to the measured\n"
          "cases of a calibration data file (data/calibration/*.yaml), or with --microbench\n"
          "to the machine file's own microbenchmark figures, by GSL nonlinear least squares\n"
          "on relative errors. Prints every case measured / before / after, the error on\n"
          "the fitting and on the validation set, and each parameter with its uncertainty;\n"
          "-o writes the calibrated machine file (comments kept, a header records the\n"
          "data and this command).\n"
          "\n"
          "  --machine NAME|PATH|host  machine file to start from ('host': the bundled\n"
          "                            file that matches this CPU)\n"
          "  --data FILE               calibration data (cases, sources, keys to fit)\n"
          "  --microbench              fit the keys of the file's microbench.fit to its\n"
          "                            figures: stage N to the figures with stage: N; the\n"
          "                            figures without a stage are the validation set\n"
          "                            (docs/ADDING-A-MACHINE.md)\n"
          "  -o, --output FILE         write the calibrated machine file here (atomically)\n"
          "  --check                   predict and compare only; exit 1 when a case with a\n"
          "                            tolerance is outside it\n"
          "  -j, --jobs N              cases predicted at once (default: online CPUs)\n"
          "  --max-iter N              trust-region iterations at most (default 12)\n"
          "  -q, --quiet               no progress on stderr (without a terminal, progress\n"
          "                            is one line per evaluation)\n",
          out);
}

static void summary(const cal_data_t *d, const double *pred, const char *label)
{
    for (int set = 1; set >= 0; set--) {
        double e[CAL_CASES_MAX];
        size_t n = 0;
        double mx = 0;
        for (size_t i = 0; i < d->n_cases; i++) {
            if (d->cases[i].fit != (set == 1))
                continue;
            e[n] = fabs(cal_rel_error(&d->cases[i], pred[i]));
            mx = e[n] > mx ? e[n] : mx;
            n++;
        }
        if (n)
            printf("%-8s %-10s cases %3zu  median |error| %6.1f%%  max |error| %6.1f%%\n", label,
                   set ? "fitting" : "validation", n, 100 * summary_median(e, n), 100 * mx);
    }
}

typedef struct cal_args {
    run_point_t point; /* --machine */
    const char *data, *outp;
    bool check, quiet, microbench;
    long threads, max_iter;
} cal_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    cal_args_t *a = ctx;
    uint64_t v;
    switch (id) {
    case CLI_O_DATA:
        return optval_text(opt, arg, "a file name", &a->data, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->outp, err, errlen);
    case CLI_O_CHECK:
        a->check = true;
        return 0;
    case CLI_O_MICROBENCH:
        a->microbench = true;
        return 0;
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_JOBS:
    case CLI_O_MAX_ITER:
        if (optval_uint(opt, arg, 1, id == CLI_O_JOBS ? 16 : 1000, &v, err, errlen) != 0)
            return -1;
        *(id == CLI_O_JOBS ? &a->threads : &a->max_iter) = (long)v;
        return 0;
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

int cmd_calibrate_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_DATA, CLI_O_MICROBENCH, CLI_O_OUTPUT, CLI_O_CHECK,
                                     CLI_O_JOBS, CLI_O_MAX_ITER,   CLI_O_QUIET,  CLI_O_END};
    static const char *const keys[] = {"machine", NULL};
    static cal_args_t a;
    memset(&a, 0, sizeof a);
    point_init(&a.point);
    a.threads = sysconf(_SC_NPROCESSORS_ONLN);
    a.max_iter = 12;
    char why[512];
    cli_spec_t spec = {opts, keys, &a.point, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, why, sizeof why)) {
    case CLI_HELP:
        cmd_calibrate_usage(stdout);
        return cmd_finish_stdout("calibrate");
    case CLI_OK:
        break;
    default:
        errorf("%s", why);
        return CMD_EXIT_USAGE;
    }
    const char *machine = a.point.machine[0] ? a.point.machine : NULL, *data = a.data,
               *outp = a.outp;
    bool check = a.check, quiet = a.quiet;
    long threads = a.threads, max_iter = a.max_iter;
    if (!machine || (!data) == (!a.microbench)) {
        errorf("--machine and one of --data and --microbench are required; see 'clearsim "
               "calibrate --help'");
        return CMD_EXIT_USAGE;
    }
    if (check && outp) {
        errorf("--check and --output exclude each other");
        return CMD_EXIT_USAGE;
    }

    static host_pick_t pick;
    machine_t *m = cmd_machine_open("calibrate", machine, quiet, &pick);
    if (!m)
        return CMD_EXIT_RUNTIME;
    const char *path = pick.path;
    char ce[512] = "";
    char err[512];
    cal_data_t *d = NULL;
    if (a.microbench) {
        d = malloc(sizeof *d);
        if (!d)
            snprintf(err, sizeof err, "out of memory");
        else if (mb_cal_data(m, d, err, sizeof err)) {
            free(d);
            d = NULL;
        }
        data = "microbench:";
    } else {
        d = cal_load(data, m, err, sizeof(err));
    }
    if (!d) {
        errorf("%s", err);
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }
    double file_ghz = m->freq_ghz;
    if (d->clock_ghz > 0 && d->clock_ghz != file_ghz) {
        /* the data was measured at its own clock: predict it there (values
         * in cycles stay, ns and GB/s convert at that clock) */
        cfg_machine_destroy(m);
        m = cfg_machine_load_at_clock(path, d->clock_ghz, ce, sizeof ce);
        if (!m) {
            errorf("%s", ce);
            cal_destroy(d);
            return CMD_EXIT_RUNTIME;
        }
    }
    static cal_result_t res;
    int rc = CMD_EXIT_OK;
    if (check) {
        if (cal_predict_all(m, d, false, (unsigned)threads, res.pred, err, sizeof(err))) {
            errorf("%s", err);
            rc = CMD_EXIT_RUNTIME;
            goto out;
        }
        memcpy(res.pred0, res.pred, sizeof(res.pred));
    } else if (cal_fit(m, d, (unsigned)threads, !quiet, (size_t)max_iter, &res, err, sizeof(err))) {
        errorf("%s", err);
        rc = CMD_EXIT_RUNTIME;
        goto out;
    }

    printf("# %s %s: %s on %s (%zu cases)\n", check ? "check" : "calibration", m->name, data, path,
           d->n_cases);
    if (m->freq_ghz != file_ghz)
        printf("# predicted at the data's clock, %g GHz (the machine file says %g GHz)\n",
               m->freq_ghz, file_ghz);
    size_t own = 0;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < d->n_cases; i++) {
        double g = d->cases[i].clock_ghz;
        if (!(g > 0))
            continue;
        lo = own ? fmin(lo, g) : g;
        hi = own ? fmax(hi, g) : g;
        own++;
    }
    if (own)
        printf("# %zu cases predicted at their own clocks, %g..%g GHz (case clock:)\n", own, lo,
               hi);
    printf("%-28s %-4s %-26s %10s %10s %10s %8s\n", "case", "set", "metric", "measured",
           check ? "predicted" : "before", check ? "" : "after", "error");
    bool outside = false;
    for (size_t i = 0; i < d->n_cases; i++) {
        const cal_case_t *cs = &d->cases[i];
        double e = cal_rel_error(cs, res.pred[i]);
        bool bad = cs->tolerance > 0 && fabs(e) > cs->tolerance;
        outside |= bad;
        char after[32] = "";
        if (!check)
            snprintf(after, sizeof(after), "%10.4g", res.pred[i]);
        printf("%-28s %-4s %-26s %10.4g %10.4g %10s %+7.1f%%%s\n", cs->id, cs->fit ? "fit" : "val",
               cs->metric, cs->value, res.pred0[i], after, 100 * e,
               bad ? "  (outside tolerance)" : "");
    }
    if (!check)
        summary(d, res.pred0, "before");
    summary(d, res.pred, check ? "" : "after");
    if (!check) {
        printf("parameters (stored units; configs/README.md):\n");
        for (size_t k = 0; k < d->n_keys; k++) {
            char sig[48] = CAL_SIGMA_UNKNOWN;
            if (isfinite(res.sigma[k]))
                snprintf(sig, sizeof sig, "%.3g", res.sigma[k]);
            printf("  %-30s %12.5g -> %12.5g  +/- %s\n", d->keys[k].key->path, res.start[k],
                   res.value[k], sig);
        }
        printf("fit: %zu iterations, %zu evaluations, chi^2 %.4g -> %.4g\n", res.iterations,
               res.evaluations, res.chisq0, res.chisq);
    }
    if (outp) {
        char cmd[3 * POINT_MACHINE_ARG_MAX];
        if (a.microbench)
            snprintf(cmd, sizeof(cmd), "clearsim calibrate --machine %s --microbench -o %s",
                     machine, outp);
        else
            snprintf(cmd, sizeof(cmd), "clearsim calibrate --machine %s --data %s -o %s", machine,
                     data, outp);
        if (cal_write_yaml(path, outp, m, d, &res, cmd, err, sizeof(err))) {
            errorf("%s", err);
            rc = CMD_EXIT_RUNTIME;
            goto out;
        }
        printf("wrote %s\n", outp);
    }
    if (check && outside)
        rc = CMD_EXIT_RUNTIME;
out:
    cal_destroy(d);
    cfg_machine_destroy(m);
    if (fflush(stdout) != 0)
        rc = CMD_EXIT_RUNTIME;
    return rc;
}
