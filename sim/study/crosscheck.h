/*
 * crosscheck.h - the default sweep measured natively on this host and
 * predicted by the model, case by case: what `clearsim crosscheck` prints
 * and writes.
 *
 * Notes
 *  - The default sweep (issue 4): every kernel the host runs natively over
 *    chunk sizes from 4 KiB to 1 GiB on a buffer of 1 GiB or 1.5x L3; repeat
 *    clearing of sizes from 16 KiB to 256 MiB with a zero and a non-zero
 *    fill (the default kernel), and of 16 KiB, 1 MiB and 64 MiB with every
 *    other kernel (lines still cached: non-temporal stores and line zeroing
 *    meet their own lines; memset is the host's C library); demand faults for each page size the
 * host offers (4 KiB always, 2 MiB with THP or reserved hugetlb pages, 1 GiB with reserved pages).
 *  - Each case is measured with native_run (warm-up + --repeat timed runs,
 *    pinned) and predicted with run_predict. The table gives both and the
 *    error; the summary the median and largest absolute error.
 *  - --output writes a CSV (atomically) that `clearsim plot --kind
 *    predicted-vs-native` draws; --emit-data writes the measurements as a
 *    calibration data file for `clearsim calibrate` (every third case in
 *    the validation set).
 *  - The core clock is the host's state (turbo, other tenants' load), not
 *    the machine's: it is measured (host_measure_core_ghz) between native
 *    cases, and each case is predicted at the mean of the measurements
 *    before and after it (--clock file: at the file's core.freq).
 *    --emit-data records the mean over the cases as the data's clock, and
 *    each case's own.
 *  - Re-measurement: after the first pass, a case whose 95% confidence
 *    interval is wider than --ci percent of its mean is measured again, in
 *    further batches of --repeat runs pooled with the first, noisiest case
 *    first, until none is that wide or --remeasure seconds are spent (and
 *    not past XC_REMEASURE_DEADLINE_S from the start). A
 *    shared host's neighbours disturb single runs; more runs of the noisy
 *    cases make their means steadier at little cost (a batch of a 1 GiB
 *    case takes about a second).
 *  - Progress and ETA on stderr only when it is a terminal.
 */
#ifndef CLEARSIM_CROSSCHECK_H
#define CLEARSIM_CROSSCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/engine/workload.h"
#include "sim/host/host.h"
#include "sim/host/native_run.h"
#include "sim/engine/progress.h"

#define XC_CASES_MAX 512
#define GIB          (1024.0 * 1024.0 * 1024.0)
#define CLOCK_TRIALS 8 /* host_measure_core_ghz trials between native cases (~45 ms) */
#define SHARE_TRIALS 4 /* host_measure_adds_per_cycle trials between native cases (~4 ms) */
/* crosscheck says so when its cases' mean share and the file's figures' are
 * further apart than this ratio */
#define XC_SHARE_APART 1.25
#define XC_RUNS_MAX    100 /* timed runs of a case (--repeat at most) */
#define XC_RUNS_POOL   24  /* re-measurement stops adding batches to a case here */
/* Re-measurement stops this long after the crosscheck started, whatever
 * --remeasure says, leaving the predictions (about a minute on 2 cores) time
 * to finish within 5 minutes (issue 4's bound for the default sweep). */
#define XC_REMEASURE_DEADLINE_S 210.0

typedef struct xc_case {
    char id[64];
    char args[256]; /* the equivalent `clearsim run` options */
    wl_spec_t spec;
    double measured, ci95, predicted;
    double clock_ghz;         /* the core clock measured around its native run, 0: not measured */
    double predicted_at_ghz;  /* the clock the model ran at */
    double rate[XC_RUNS_MAX]; /* bytes/s of each timed run, over every batch */
    uint32_t runs;
    double clock_weighted; /* sum over batches of (clock around it x its runs) */
    uint32_t clock_runs;   /* runs of the batches whose clock was measured */
    double adds_per_cycle; /* the core's share around its native runs
                              (host_measure_adds_per_cycle), 0: not measured */
    double adds_weighted;  /* sum over batches of (share around it x its runs) */
    uint32_t adds_runs;    /* runs of the batches whose share was measured */
    bool skipped;
    bool model_failed; /* why says why */
    char why[160];
} xc_case_t;

/* The default sweep for this host and machine into cs[0..XC_CASES_MAX);
 * returns the number of cases (--quick: a smaller sweep). */
size_t xc_build_sweep(const machine_t *m, const host_info_t *h, bool quick, xc_case_t *cs);

/* The host's state between native cases: the clock and the core's share
 * (host_measure_adds_per_cycle) measured after the last one. */
typedef struct xc_host_state {
    double ghz;
    double adds_per_cycle;
} xc_host_state_t;

/* *hs measured now. */
void xc_host_state_measure(xc_host_state_t *hs);

/* One batch of `repeat` timed runs of case c, pooled with its earlier
 * batches. *hs holds the state measured before the batch; the one measured
 * after it replaces it, and their means are the batch's clock and share.
 * Returns native_run's code (c->why says why). */
int xc_measure_case(xc_case_t *c, uint32_t repeat, long cpu, xc_host_state_t *hs,
                    native_result_t *nr);

/* The second pass's settings (in) and what it did (out). */
typedef struct xc_remeasure {
    uint32_t repeat;     /* runs per batch */
    long cpu;            /* CPU to pin to, or -1 */
    double ci_frac;      /* re-measure while ci95 / mean is above this */
    double budget_s;     /* seconds it may take */
    double deadline;     /* xc_now_seconds() it never runs past */
    bool quiet;          /* no progress line */
    xc_host_state_t *hs; /* measure()'s host state */
    native_result_t *nr; /* measure()'s result buffer */
    size_t batches;      /* out: batches run */
    size_t cases;        /* out: cases that got at least one */
    xc_case_t *failed;   /* out: the case native_run failed on */
} xc_remeasure_t;

/* The second pass: batches for the case whose interval is widest relative
 * to its mean, while one is wider than r->ci_frac and the budget lasts. A
 * case of one run has no interval and is left alone. Returns 0 or
 * native_run's code for case r->failed. */
int xc_remeasure(xc_case_t *cs, size_t n, xc_remeasure_t *r);

/* Predict every case that was not skipped, on `threads` threads (each at its
 * own measured clock when at_own_clock: m's file `path` reloaded at it).
 * Returns 0, or -1 with the first case that failed. */
int xc_predict_all(xc_case_t *cs, size_t n, const machine_t *m, const char *path, bool at_own_clock,
                   unsigned threads, progress_t *pg, char *err, size_t errlen);

/* The range and mean of the cases' measured clocks; 0 when none was measured. */
double xc_clock_range(const xc_case_t *cs, size_t n, double *lo, double *hi);
/* Seconds of CLOCK_MONOTONIC. */
double xc_now_seconds(void);

/* The table as CSV, and the measurements as calibration data (last: the
 * host and kernel the runs were on), each written atomically. Return 0, or
 * -1 with a reason. */
/* set: the machine's --set overrides, blank-separated (the last column; no commas). */
int xc_write_csv(const char *path, const xc_case_t *cs, size_t n, const char *machine,
                 const char *set, char *err, size_t errlen);
int xc_write_data(const char *path, const xc_case_t *cs, size_t n, const char *machine,
                  const native_result_t *last, char *err, size_t errlen);

#endif
