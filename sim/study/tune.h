/*
 * tune.h - `clearsim tune`: where to switch from temporal to non-temporal
 * or line-zeroing clearing, and how large a clearing extent may be under a
 * scheduling-latency budget, from the model's predictions.
 *
 * Notes
 *  - Strategies, by the machine's ISA:
 *      temporal     rep_stosb on x86-64 (rep_stosq without ERMS, unrolled
 *                   without either; the hardware's own allocation elision is
 *                   part of its prediction when the machine file has it);
 *                   stp on arm64;
 *      nontemporal  movnti on x86-64, stnp on arm64;
 *      linezero     clzero (x86-64, feature clzero) or dc_zva (arm64,
 *                   feature dczva), only when the machine has the feature;
 *      current      what the machine does today: the function `run` picks
 *                   (clear_page's choice: rep_stosb on ERMS x86-64, memset
 *                   on arm64). It is evaluated only when it is not one of
 *                   the others.
 *  - Cost of one clear of S bytes: the memset workload with chunk S over a
 *    buffer of n x S bytes, n = max(1, ceil(1.25 x (L2 + L3) / S)), so that
 *    every clear meets memory that is no longer cached (the caches hold
 *    dirty data of the buffer's earlier clears, as in a busy system, and
 *    each allocation evicts some). clear_seconds = run seconds / n.
 *  - Re-fetch: the same run with wl_spec_t.reuse_bytes = the bytes the
 *    consumer touches after each clear (reuse x S, or 4 KiB for `subpage`,
 *    at most the window, rounded up to a 64-byte line);
 *    refetch_seconds = (that run's seconds / n) - clear_seconds.
 *  - Threshold of a pair (a, b), a the smaller-size strategy: the smallest
 *    size of the distribution from which b's total is below a's at every
 *    larger size too; none when b is not cheaper at the largest size.
 *    Expected time per clear of a policy = sum(w_i t_i) / sum(w_i) over the
 *    distribution; gain over current = 1 - policy / current.
 *  - Extent cap (preemption none or voluntary), with the current function
 *    and no reuse: first the largest power of two from 4 KiB to 1 GiB whose
 *    predicted clear time fits the budget (a guess from a 2 MiB clear's
 *    bandwidth, then steps; clear time grows with size), then, inside that
 *    power-of-two bracket, a few secant steps on whole 4 KiB pages (time is
 *    close to affine in size there), keeping the largest size that was
 *    predicted to fit. Throughput lost = 1 - (cap / (t(cap) + os.resched))
 *    / (1 GiB / t(1 GiB)): against a 1 GiB folio cleared as one extent.
 *    full and lazy can reschedule inside an extent and need no cap.
 *  - Deliberately simplified: clears go through a user buffer's 4 KiB pages
 *    (the memset workload) for every strategy, also for the extent cap, where
 *    the kernel would use its direct map; fault costs are left out.
 *  - Units: sizes in bytes, times in seconds (budget given in ns), gains as
 *    fractions (0.1 = 10% less time).
 *  - Library code: returns -1 with a one-line reason; never prints errors.
 */
#ifndef CLEARSIM_TUNE_H
#define CLEARSIM_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/callers.h"
#include "models/base/machine.h"
#include "sim/output/report.h"
#include "sim/engine/run.h"

typedef enum tune_strategy {
    TUNE_TEMPORAL = 0,
    TUNE_NONTEMPORAL,
    TUNE_LINEZERO,
    TUNE_CURRENT,
    TUNE_STRATEGIES
} tune_strategy_t;

#define TUNE_PAIRS_MAX  3
#define TUNE_SIZES_MAX  4096
#define TUNE_MIN_EXP    12    /* the default sizes and the extent cap's search: from 4 KiB */
#define TUNE_MAX_EXP    30    /* ... to 1 GiB */
#define TUNE_LINE_BYTES 64ull /* every size is a multiple of this */

typedef struct tune_size {
    uint64_t size_bytes;
    double weight; /* relative frequency of clears of this size (> 0) */
} tune_size_t;

typedef struct tune_opts {
    const tune_size_t *sizes; /* ascending, distinct */
    size_t n_sizes;
    bool reuse_subpage;    /* touch the first 4 KiB of each clear */
    double reuse_fraction; /* else touch this fraction of it, 0..1 */
    uint64_t window_bytes; /* the touch is at most this many bytes (0 = no limit) */
    caller_preempt_t preempt;
    double latency_budget_ns;
    unsigned jobs;
    run_opts_t run; /* exact, seed (progress is ignored) */
    bool progress;  /* progress line on stderr (a terminal only) */
} tune_opts_t;

typedef struct tune_point {
    uint64_t size_bytes;
    double weight;
    tune_strategy_t strategy;
    char function[32];
    uint64_t reuse_bytes;  /* bytes the consumer touches after each clear */
    uint64_t buffer_bytes; /* the simulated buffer: calls x size_bytes */
    uint64_t calls;
    double clear_seconds, refetch_seconds, total_seconds; /* per clear */
    bool extrapolated;
    double error_bound;
} tune_point_t;

typedef struct tune_pair {
    tune_strategy_t from, to;
    bool found;
    uint64_t threshold_bytes;
    double expected_seconds; /* per clear, using `from` below and `to` from the threshold */
    double gain;             /* 1 - expected / current's expected */
} tune_pair_t;

typedef struct tune_result {
    char machine[MACHINE_NAME_MAX];
    char set[MACHINE_SET_MAX * MACHINE_SET_ARG_MAX]; /* the machine's --set, blank-separated */
    bool have[TUNE_STRATEGIES];
    char function[TUNE_STRATEGIES][32];
    tune_strategy_t current_as; /* the strategy whose function is the current one, or
                                 * TUNE_CURRENT when it has its own curve */
    bool reuse_subpage;
    double reuse_fraction;
    uint64_t window_bytes;
    tune_point_t *curve; /* by size, then strategy */
    size_t n_curve;
    tune_pair_t pairs[TUNE_PAIRS_MAX];
    size_t n_pairs;
    double current_expected_seconds;
    /* extent cap */
    caller_preempt_t preempt;
    double budget_seconds;
    bool cap_needed;         /* none / voluntary */
    bool cap_found;          /* even 4 KiB may not fit the budget */
    uint64_t cap_bytes;      /* the largest whole number of 4 KiB pages that fits */
    uint64_t cap_pow2_bytes; /* the largest power of two that fits */
    double cap_clear_seconds;
    double cap_bytes_per_sec; /* cap / (t(cap) + os.resched) */
    uint64_t ref_bytes;
    double ref_bytes_per_sec;
    double throughput_loss;
} tune_result_t;

/* The default distribution: powers of two from 4 KiB to 1 GiB, equal
 * weights. *out is malloc'd. */
int tune_default_sizes(tune_size_t **out, size_t *n, char *err, size_t errlen);
/* DIST: a list SIZE[:WEIGHT],... (weight 1 when left out) or a geometric
 * range LO..HI:xF (equal weights). Sorted; a size given twice is an error. */
int tune_parse_sizes(const char *dist, tune_size_t **out, size_t *n, char *err, size_t errlen);
/* A file of sizes and weights: .csv (header `size` or `size,weight`, then one
 * row per size) or .yaml/.yml (a mapping SIZE: WEIGHT). Errors name
 * file:line. */
int tune_load_sizes(const char *path, tune_size_t **out, size_t *n, char *err, size_t errlen);

/* The function each strategy uses on m ("" when the machine lacks it). */
void tune_strategy_functions(const machine_t *m, char fn[TUNE_STRATEGIES][32],
                             bool have[TUNE_STRATEGIES]);
const char *tune_strategy_name(tune_strategy_t s);

int tune_run(const machine_t *m, const tune_opts_t *o, tune_result_t *out, char *err,
             size_t errlen);
void tune_result_free(tune_result_t *r);

/* text: a table and the recommendations; csv: the curve; json: everything
 * (docs/JSON.md). Returns 0, or -1 with a reason. */
int tune_print(FILE *out, report_format_t fmt, const tune_result_t *r, char *err, size_t errlen);

#endif
