/*
 * cmd_crosscheck.c - `clearsim crosscheck`: run a sweep natively on this
 * host and in the model for a machine file, side by side.
 *
 * Notes
 *  - The sweep, its measurements and predictions: sim/study/crosscheck.c.
 *    This file parses the options, runs them in order (every native run
 *    first, then the predictions in parallel) and prints the table.
 *  - Progress and ETA on stderr only when it is a terminal.
 */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "sim/host/pick.h"
#include "sim/output/pool.h"
#include "sim/cli/cmd_common.h"
#include "sim/machine/cfg.h"
#include "sim/cli/options.h"
#include "sim/cli/commands.h"
#include "sim/machine/optval.h"
#include "models/base/errbuf.h"
#include "sim/host/host.h"
#include "sim/host/native_run.h"
#include "sim/output/outfile.h"
#include "sim/engine/progress.h"
#include "sim/engine/run.h"
#include "sim/study/crosscheck.h"
#include "sim/study/host_miss.h"
#include "sim/study/xc_gains.h"
#include "sim/output/summary.h"
#include "sim/machine/units.h"

#define errorf(...) cmd_errorf("crosscheck", __VA_ARGS__)

void cmd_crosscheck_usage(FILE *out)
{
    fputs("usage: clearsim crosscheck --machine NAME|PATH|host [options]\n"
          "\n"
          "Run a sweep natively on this host and in the model of the machine, side by\n"
          "side: every kernel the host runs over chunk sizes from 4 KiB to 1 GiB on a\n"
          "buffer larger than L3, repeat clearing from 16 KiB to 256 MiB with zero and\n"
          "non-zero fills, repeat clearing of 16 KiB, 1 MiB and 64 MiB with every other\n"
          "kernel (memset: the host's C library), and demand faults for each page size\n"
          "the host offers. Prints\n"
          "measured and predicted GB/sec (binary GB) per case and the median and largest\n"
          "error.\n"
          "\n"
          "  --machine NAME|PATH|host  the machine file to predict with\n"
          "  --set KEY=VALUE           override a machine-file key (as 'run'); not\n"
          "                            core.freq unless --clock file\n"
          "  --libc NAME-VERSION       model memset as that C library's table says (as 'run')\n"
          "  --quick                   a smaller sweep (a few cases per kind)\n"
          "  --repeat N                native timed runs per case and batch (default 3)\n"
          "  --ci PCT                  measure a case again while its 95% confidence\n"
          "                            interval is wider than PCT% of its mean (default 5;\n",
          out);
    fprintf(out, "                            0: never), noisiest first, up to %d runs a case\n",
            XC_RUNS_POOL);
    fputs("  --remeasure SECONDS       time those extra batches may take (default 45; never\n"
          "                            past 3.5 minutes from the start)\n"
          "  --cpu N                   CPU to pin native runs to\n"
          "  -j, --jobs N              model predictions at once, after every native run\n"
          "                            (1..16; default: online CPUs)\n"
          "  --clock measured|file     the core clock to predict each case at: the host's,\n"
          "                            measured before and after its native run (default),\n"
          "                            or the machine file's core.freq\n"
          "  --output FILE.csv         write the table as CSV (atomically)\n"
          "  --emit-data FILE.yaml     write the measurements as calibration data\n"
          "  --gains                   instead of the sweep: the folio-clearing gains. A\n"
          "                            prefaulted buffer of 2 MiB folios (-s, default 1GiB)\n"
          "                            cleared page-at-a-time (the host's clear_page kernel)\n"
          "                            and in one call per folio with it and with every\n"
          "                            non-temporal and line-zeroing kernel, in --passes\n"
          "                            interleaved passes, each with DRAM probes of a chase,\n"
          "                            a read, a write of data and a write of zeros, the writes\n"
          "                            also with a load ahead of each 4 KiB page, and a\n"
          "                            temporal fill of data and of zeros (the host's\n"
          "                            state); each gain's native range against the model's\n"
          "                            gain with each pass's probes as memory.latency,\n"
          "                            memory.read_bandwidth, memory.write_bandwidth,\n"
          "                            memory.zero_data_fraction (write/zero, with the load\n"
          "                            ahead), memory.zero_writeback_fraction (2 x fill /\n"
          "                            zero fill - 1), memory.combined_bandwidth (read +\n"
          "                            write, or 2 x fill when less) and, when the zero\n"
          "                            probe paid it, the host page's TLB miss\n"
          "                            (tlb.host_*); a way with the zero probe's kernel is\n"
          "                            not judged\n"
          "  --passes N                --gains: passes, 2..16 (default 3)\n"
          "  -s, --size SIZE           --gains: the buffer (default 1GiB)\n"
          "  -q, --quiet               no progress on stderr\n",
          out);
}

typedef struct xc_args {
    run_point_t point; /* --machine */
    const char *outp, *datap;
    bool quick, quiet, clock_measured, gains, passes_given;
    long repeat, cpu, threads, passes;
    double ci_pct, remeasure_s;
} xc_args_t;

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    xc_args_t *a = ctx;
    uint64_t v;
    switch (id) {
    case CLI_O_QUICK:
        a->quick = true;
        return 0;
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_GAINS:
        a->gains = true;
        return 0;
    case CLI_O_PASSES:
        if (optval_uint(opt, arg, 2, XCG_PASSES_MAX, &v, err, errlen) != 0)
            return -1;
        a->passes = (long)v;
        a->passes_given = true;
        return 0;
    case CLI_O_CI:
    case CLI_O_REMEASURE:
        if (optval_uint(opt, arg, 0, id == CLI_O_CI ? 100 : 3600, &v, err, errlen) != 0)
            return -1;
        *(id == CLI_O_CI ? &a->ci_pct : &a->remeasure_s) = (double)v;
        return 0;
    case CLI_O_REPEAT:
        if (optval_uint(opt, arg, 1, XC_RUNS_MAX, &v, err, errlen) != 0)
            return -1;
        a->repeat = (long)v;
        return 0;
    case CLI_O_CPU:
        if (optval_uint(opt, arg, 0, 4095, &v, err, errlen) != 0)
            return -1;
        a->cpu = (long)v;
        return 0;
    case CLI_O_JOBS:
        if (optval_uint(opt, arg, 1, 16, &v, err, errlen) != 0)
            return -1;
        a->threads = (long)v;
        return 0;
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->outp, err, errlen);
    case CLI_O_EMIT_DATA:
        return optval_text(opt, arg, "a file name", &a->datap, err, errlen);
    case CLI_O_CLOCK:
        if (strcmp(arg, "measured") && strcmp(arg, "file"))
            return errbuf_set(err, errlen, "--clock %s: expected measured or file", arg);
        a->clock_measured = strcmp(arg, "measured") == 0;
        return 0;
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

/* crosscheck --gains: measure, predict, print (and --output the CSV). */
static int gains_main(const xc_args_t *a, const machine_t *m, const host_info_t *h,
                      uint64_t size_bytes)
{
    static xcg_study_t st;
    char err[512];
    if (xcg_build(&st, m, h, size_bytes, err, sizeof err) == 0) {
        errorf("--gains: %s", err);
        return CMD_EXIT_RUNTIME;
    }
    progress_t *pg = progress_create("crosscheck gains native", (uint64_t)a->passes, !a->quiet);
    for (long k = 0; k < a->passes; k++) {
        progress_update(pg, (uint64_t)k);
        const xcg_case_t *bad;
        if (xcg_measure_pass(&st, (uint32_t)k, (uint32_t)a->repeat, a->cpu, &bad)) {
            progress_destroy(pg);
            errorf("%s: native: %s", bad ? bad->id : "?", bad ? bad->why : "");
            return CMD_EXIT_RUNTIME;
        }
    }
    progress_destroy(pg);
    pg = progress_create("crosscheck gains model", (uint64_t)((st.passes + 1) * st.n), !a->quiet);
    int prc = xcg_predict(&st, m, !a->clock_measured, (unsigned)a->threads, pg, err, sizeof err);
    progress_destroy(pg);
    if (prc) {
        errorf("%s", err);
        return CMD_EXIT_RUNTIME;
    }
    printf("# crosscheck --gains: host '%s' natively vs model '%s' (%s), from %s\n", h->model_name,
           m->name, m->path, st.started_utc);
    for (uint32_t j = 0; j < m->n_set; j++)
        printf("# --set %s\n", m->set[j]);
    printf("# each pass: the cases back to back (rotated by one), %ld timed runs each; the model "
           "runs each pass at its clock%s and with its probes as memory.latency (the chase's ns "
           "a load), memory.read_bandwidth, memory.write_bandwidth, memory.zero_data_fraction "
           "(write / zero, at most 1; the _ahead probes' when they ran), "
           "memory.zero_writeback_fraction (2 x probe-fill / probe-fill-zero - 1, within "
           "0.02..1), memory.combined_bandwidth (read + write, or twice probe-fill when that is "
           "less) and, when "
           "probe-zero ran more than %.0f%% slower than probe-zero-ahead (and probe-write not "
           "as much faster than probe-write-ahead), tlb.host_page 4KiB "
           "with tlb.host_miss.nt_line = probe-zero's time a page less its issue time in the "
           "model (%.0f cycles); 'file' is the model at the machine file's own memory figures "
           "and clock\n",
           a->repeat, a->clock_measured ? "" : " (no: --clock file)", HOSTMISS_NOISE * 100,
           st.issue_cycles_page);
    printf("%-22s", "GiB/s");
    for (uint32_t k = 0; k < st.passes; k++)
        printf(" %9s%-2u %7s", "pass ", k, "model");
    printf(" %8s\n", "file");
    printf("%-22s", "clock GHz");
    for (uint32_t k = 0; k < st.passes; k++)
        printf(" %11.2f %7s", st.pass_ghz[k], "");
    printf("\n%-22s", "host miss ns");
    for (uint32_t k = 0; k < st.passes; k++)
        printf(" %11s %7.1f", "", st.host_miss_ns[k]);
    printf("\n");
    for (size_t i = 0; i < st.n; i++) {
        const xcg_case_t *c = &st.cs[i];
        bool probe = xcg_role_is_probe(c->role);
        printf("%-22s", c->id);
        for (uint32_t k = 0; k < st.passes; k++) {
            printf(" %11.2f", c->native_gib[k]);
            if (probe)
                printf(" %7s", "-");
            else
                printf(" %7.2f", c->model_gib[k]);
        }
        if (probe)
            printf(" %8s\n", "-");
        else
            printf(" %8.2f\n", c->model_file_gib);
    }
    xcg_gain_t g[XCG_CASES_MAX];
    size_t ng = xcg_gains(&st, g, XCG_CASES_MAX);
    const xcg_case_t *base = NULL;
    for (size_t i = 0; i < st.n; i++)
        if (st.cs[i].role == XCG_BASE)
            base = &st.cs[i];
    printf("\n%-22s %16s %16s %8s %8s  %s\n", "gain over", "native range", "model range", "model",
           "file", "verdict");
    size_t within = 0, judged = 0;
    for (size_t i = 0; i < ng; i++) {
        char nat[32], mod[32], name[64];
        snprintf(nat, sizeof nat, "%.2f..%.2f", g[i].native_lo, g[i].native_hi);
        snprintf(mod, sizeof mod, "%.2f..%.2f", g[i].model_lo, g[i].model_hi);
        snprintf(name, sizeof name, "%s", g[i].way->id);
        if (!g[i].probe_set) {
            judged++;
            within += g[i].within;
        }
        printf("%-22s %16s %16s %8.2f %8.2f  %s%s\n", name, nat, mod, g[i].model_mean,
               g[i].model_file,
               g[i].within ? "within 15% of the native range" : "OUTSIDE 15% of the native range",
               g[i].probe_set ? " (not judged: probe-zero's kernel sets its lines' cost)" : "");
    }
    printf("summary: %zu gains over %s, %zu judged, %zu of them within 15%% of their native range "
           "(passes: %u)\n",
           ng, base ? base->id : "-", judged, within, st.passes);
    int rc = 0;
    if (a->outp && xcg_write_csv(a->outp, &st, m->name, err, sizeof err)) {
        errorf("%s", err);
        rc = CMD_EXIT_RUNTIME;
    }
    if (fflush(stdout) != 0)
        rc = CMD_EXIT_RUNTIME;
    return rc;
}

int cmd_crosscheck_main(int argc, char **argv)
{
    static const cli_opt_t opts[] = {CLI_O_QUICK,     CLI_O_REPEAT,    CLI_O_CPU,   CLI_O_JOBS,
                                     CLI_O_OUTPUT,    CLI_O_EMIT_DATA, CLI_O_CLOCK, CLI_O_CI,
                                     CLI_O_REMEASURE, CLI_O_QUIET,     CLI_O_GAINS, CLI_O_PASSES,
                                     CLI_O_END};
    static const char *const keys[] = {"machine", "set", "libc", "size", NULL};
    static xc_args_t a;
    memset(&a, 0, sizeof a);
    point_init(&a.point);
    a.clock_measured = true;
    a.repeat = 3;
    a.cpu = -1;
    a.threads = sysconf(_SC_NPROCESSORS_ONLN);
    a.ci_pct = 5;
    a.remeasure_s = 45;
    a.passes = XCG_DEFAULT_PASSES;
    char why[512];
    cli_spec_t spec = {opts, keys, &a.point, on_option, &a, NULL};
    switch (cli_parse(argc, argv, &spec, why, sizeof why)) {
    case CLI_HELP:
        cmd_crosscheck_usage(stdout);
        return cmd_finish_stdout("crosscheck");
    case CLI_OK:
        break;
    default:
        errorf("%s", why);
        return CMD_EXIT_USAGE;
    }
    const char *machine = a.point.machine[0] ? a.point.machine : NULL, *outp = a.outp,
               *datap = a.datap;
    bool quick = a.quick, quiet = a.quiet, clock_measured = a.clock_measured;
    long repeat = a.repeat, cpu = a.cpu, threads = a.threads;
    double ci_pct = a.ci_pct, remeasure_s = a.remeasure_s;
    if (!machine) {
        errorf("--machine is required; see 'clearsim machines'");
        return CMD_EXIT_USAGE;
    }
    const bool size_given = a.point.given & (1u << (point_option_find("size") - point_options));
    if (!a.gains && (size_given || a.passes_given)) {
        errorf("%s applies only with --gains", size_given ? "--size" : "--passes");
        return CMD_EXIT_USAGE;
    }
    if (a.gains && (datap || quick)) {
        errorf("%s does not apply with --gains", datap ? "--emit-data" : "--quick");
        return CMD_EXIT_USAGE;
    }
    if (datap && (a.point.n_set || a.point.libc[0])) {
        errorf("--emit-data with --set or --libc: the calibration data would not say which keys "
               "the predictions overrode; give one or the other");
        return CMD_EXIT_USAGE;
    }
    for (uint32_t j = 0; clock_measured && j < a.point.n_set; j++)
        if (strncmp(a.point.set[j], "core.freq=", 10) == 0) {
            errorf("--set %s: the clock of each case is the measured one (--clock measured); "
                   "give --clock file to predict at core.freq",
                   a.point.set[j]);
            return CMD_EXIT_USAGE;
        }
    char err[512];
    static host_pick_t pick;
    bool usage = false;
    machine_t *m = cmd_machine_open_point("crosscheck", &a.point, quiet, &pick, &usage);
    if (!m)
        return usage ? CMD_EXIT_USAGE : CMD_EXIT_RUNTIME;
    const char *path = pick.path;
    static host_info_t h;
    if (host_detect(&h, err, sizeof(err))) {
        errorf("%s", err);
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }
    if (a.gains) {
        int grc = gains_main(&a, m, &h, size_given ? a.point.spec.size_bytes : 0);
        cfg_machine_destroy(m);
        return grc;
    }
    static xc_case_t cs[XC_CASES_MAX];
    size_t n = xc_build_sweep(m, &h, quick, cs);
    if (n == 0) {
        errorf("no kernel runs natively on this host and on machine '%s'", m->name);
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }

    /* Every native run first, on a quiet machine; then the predictions, in
     * parallel: a prediction running beside a native run would disturb it. */
    /* The clock between native cases: a case's own is the mean of the
     * measurements before and after it (taken unpinned, after native_run has
     * given the thread its affinity back). */
    double t_start = xc_now_seconds();
    xc_host_state_t hs;
    xc_host_state_measure(&hs);
    progress_t *pg = progress_create("crosscheck native", n, !quiet);
    static native_result_t nr;
    for (size_t i = 0; i < n; i++) {
        xc_case_t *c = &cs[i];
        progress_update(pg, i);
        int rc = xc_measure_case(c, (uint32_t)repeat, cpu, &hs, &nr);
        if (rc == NATIVE_ENOTSUP) {
            c->skipped = true;
            continue;
        }
        if (rc) {
            errorf("%s: native: %s", c->id, c->why);
            progress_destroy(pg);
            cfg_machine_destroy(m);
            return CMD_EXIT_RUNTIME;
        }
    }
    progress_destroy(pg);
    xc_remeasure_t rm = {.repeat = (uint32_t)repeat,
                         .cpu = cpu,
                         .ci_frac = ci_pct / 100,
                         .budget_s = remeasure_s,
                         .deadline = t_start + XC_REMEASURE_DEADLINE_S,
                         .quiet = quiet,
                         .hs = &hs,
                         .nr = &nr};
    if (xc_remeasure(cs, n, &rm)) {
        errorf("%s: native: %s", rm.failed->id, rm.failed->why);
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }
    /* the clock is the host's state, not the machine's: each case is
     * predicted at the clock measured around its native run */
    pg = progress_create("crosscheck model", n, !quiet);
    int prc =
        xc_predict_all(cs, n, m, path, clock_measured, (unsigned)threads, pg, err, sizeof(err));
    progress_destroy(pg);
    if (prc) {
        errorf("%s", err);
        char werr[512];
        if (datap && xc_write_data(datap, cs, n, m->name, &nr, werr, sizeof werr))
            errorf("%s", werr); /* the measurements took minutes: keep them */
        cfg_machine_destroy(m);
        return CMD_EXIT_RUNTIME;
    }

    printf("# crosscheck: host '%s' natively vs model '%s' (%s)\n", h.model_name, m->name, path);
    for (uint32_t j = 0; j < m->n_set; j++)
        printf("# --set %s\n", m->set[j]);
    double clo, chi, cmean = xc_clock_range(cs, n, &clo, &chi);
    if (cmean > 0 && clock_measured)
        printf("# core clock: %.2f..%.2f GHz around the native runs (mean %.2f); the machine file "
               "says %.2f GHz; each case is predicted at its own (column GHz; --clock file: at "
               "the file's)\n",
               clo, chi, cmean, m->freq_ghz);
    else if (cmean > 0)
        printf("# core clock: %.2f..%.2f GHz around the native runs (mean %.2f); predicted at "
               "the machine file's %.2f GHz (--clock file)\n",
               clo, chi, cmean, m->freq_ghz);
    else
        printf("# core clock: not measurable on this host; predicted at the machine file's "
               "%.2f GHz\n",
               m->freq_ghz);
    double slo = 0, shi = 0, ssum = 0;
    size_t sn = 0;
    for (size_t i = 0; i < n; i++) {
        double a = cs[i].adds_per_cycle;
        if (cs[i].skipped || !(a > 0))
            continue;
        slo = sn ? fmin(slo, a) : a;
        shi = sn ? fmax(shi, a) : a;
        ssum += a;
        sn++;
    }
    if (sn)
        printf("# core share: %.2f..%.2f independent adds per cycle around the native runs (mean "
               "%.2f; a core to itself gives about its ALU count, less when another thread "
               "shares it; csv host_adds_per_cycle)\n",
               slo, shi, ssum / (double)sn);
    double file_share = m->mb_adds_per_cycle, run_share = sn ? ssum / (double)sn : 0;
    if (file_share > 0 && run_share > 0 &&
        (run_share > XC_SHARE_APART * file_share || file_share > XC_SHARE_APART * run_share))
        printf("# core share differs: the machine file's figures ran at %.2f adds per cycle "
               "(microbench.adds_per_cycle), these cases at %.2f: cases bound in the core, L1, "
               "L2 or L3 are not comparable with its figures (docs/MICROBENCH.md, \"Warm-up and "
               "the host's state\")\n",
               file_share, run_share);
    if (ci_pct > 0 && remeasure_s > 0)
        printf(
            "# measured again: %zu cases whose 95%% interval was wider than %g%% of the mean, in "
            "%zu batches of %ld runs (--ci, --remeasure %g s)\n",
            rm.cases, ci_pct, rm.batches, repeat, remeasure_s);
    printf("%-28s %12s %10s %12s %8s %6s %4s\n", "case", "measured", "+-95%", "predicted", "error",
           "GHz", "runs");
    double errs[XC_CASES_MAX];
    size_t ne = 0;
    double worst = 0;
    const char *worst_id = "-";
    for (size_t i = 0; i < n; i++) {
        xc_case_t *c = &cs[i];
        if (c->skipped) {
            printf("%-28s skipped: %s\n", c->id, c->why);
            continue;
        }
        double e = (c->predicted - c->measured) / c->measured;
        errs[ne++] = fabs(e);
        if (fabs(e) > worst) {
            worst = fabs(e);
            worst_id = c->id;
        }
        char ci[32] = "-"; /* one timed run has no interval */
        if (isfinite(c->ci95))
            snprintf(ci, sizeof(ci), "%.3f", c->ci95);
        printf("%-28s %12.3f %10s %12.3f %+7.1f%% %6.2f %4u\n", c->id, c->measured, ci,
               c->predicted, 100 * e, c->predicted_at_ghz, c->runs);
    }
    double med = summary_median(errs, ne);
    printf("summary: %zu cases, median |error| %.1f%%, max |error| %.1f%% (%s)\n", ne, 100 * med,
           100 * worst, worst_id);
    int rc = 0;
    static char setv[MACHINE_SET_MAX * MACHINE_SET_ARG_MAX];
    cfg_machine_set_text(m, setv, sizeof setv);
    if (outp && xc_write_csv(outp, cs, n, m->name, setv, err, sizeof err)) {
        errorf("%s", err);
        rc = CMD_EXIT_RUNTIME;
    }
    if (datap && xc_write_data(datap, cs, n, m->name, &nr, err, sizeof err)) {
        errorf("%s", err);
        rc = CMD_EXIT_RUNTIME;
    }
    cfg_machine_destroy(m);
    if (fflush(stdout) != 0)
        rc = CMD_EXIT_RUNTIME;
    return rc;
}
