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
 *  - The faulting thread (subpage with delay_bytes D): two more runs, with
 *    n' = max(1, ceil(1.25 x (L2 + L3) / (S + D))) calls, each followed by D
 *    bytes of other reads: the base run without touches, and the run that
 *    touches the first 4 KiB before the reads and the rest (up to the window)
 *    after them; refetch_seconds = the difference per call. With fewer
 *    calls their clears may meet cached memory, but that cost is in both
 *    runs and cancels; the JSON's calls and buffer_bytes are the clear-only
 *    run's.
 *  - Expected time per clear of a policy = sum(w_i t_i) / sum(w_i) over the
 *    distribution; gain over current = 1 - policy / current. The policy,
 *    the best single thresholds and the hardware switch check come from the
 *    curve in tune_policy.c (its header gives the rules).
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
#define TUNE_MIN_EXP    12    /* the extent cap's search: from 4 KiB */
#define TUNE_MAX_EXP    30    /* ... to 1 GiB */
#define TUNE_LINE_BYTES 64ull /* every size is a multiple of this */
#define TUNE_MIN_GAIN   0.01  /* default significance of a band: 1% less time */
#define TUNE_TEXT_MAX   1024  /* a distribution's name or source */

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
    double min_gain;       /* significance: a band must beat its neighbours by more than this
                            * fraction at one size at least (and by more than the two
                            * points' error bounds); default TUNE_MIN_GAIN */
    uint64_t delay_bytes;  /* with reuse_subpage: the rest of each clear (up to the window)
                            * is touched after this many bytes of other traffic (0 = never) */
    char dist_name[64];    /* the distribution's name, for the output ("" = given sizes) */
    char dist_source[256]; /* and where it comes from */
    run_opts_t run;        /* exact, seed (progress is ignored) */
    bool progress;         /* progress line on stderr (a terminal only) */
} tune_opts_t;

typedef struct tune_point {
    uint64_t size_bytes;
    double weight;
    tune_strategy_t strategy;
    char function[32];
    uint64_t reuse_bytes;  /* bytes the consumer touches after each clear (with a delay:
                            * the subpage at once, then the rest) */
    uint64_t buffer_bytes; /* the simulated buffer: calls x size_bytes */
    uint64_t calls;
    double clear_seconds, refetch_seconds, total_seconds; /* per clear */
    bool extrapolated;
    double error_bound;
} tune_point_t;

/* The best single threshold from the current policy to one other strategy. */
typedef struct tune_pair {
    tune_strategy_t from, to; /* from: the current policy's strategy */
    bool found;               /* false: `from` at every size ("never switch") */
    uint64_t threshold_bytes; /* the first size that uses `to` */
    double expected_seconds;  /* per clear, using `from` below and `to` from the threshold */
    double gain;              /* 1 - expected / current's expected */
    double gain_over_from;    /* 1 - expected / the expected of `from` at every size (=
                               * gain: `from` is the current policy) */
} tune_pair_t;

/* One band of the piecewise policy: the sampled sizes first..last use one
 * strategy. */
typedef struct tune_band {
    size_t first, last;       /* indexes into the distribution, inclusive */
    uint64_t from_bytes;      /* lower edge: 0 for the first band, else sizes[first] */
    uint64_t after_bytes;     /* sizes[first - 1] (0 for the first band): the true edge
                               * lies in (after_bytes, from_bytes] */
    uint64_t to_bytes;        /* the next band's from_bytes (0: no upper edge) */
    tune_strategy_t strategy; /* TUNE_CURRENT only when current has its own curve */
    bool merged;              /* holds sizes where another strategy was cheaper, each by
                               * no more than the significance threshold */
    bool outweighed;          /* holds a size where another strategy is significantly
                               * cheaper, but not over the band's weighted clears */
    bool hw_switch_inside;    /* temporal or current, and the hardware's own switch point
                               * (tune_result_t.hw_switch_bytes) is at or below sizes[last] */
    double weight;            /* the band's share of the distribution's clears */
    double gain;              /* within the band: 1 - sum(w t) / sum(w t_current) */
    double gain_share;        /* the band's part of the policy's gain over current */
    double gain_over_single;  /* within the band, over the best single threshold (the
                               * current policy when no threshold is found); may be
                               * negative in one band, never over the whole policy */
} tune_band_t;

typedef struct tune_result {
    char machine[MACHINE_NAME_MAX];
    char set[MACHINE_SET_MAX * MACHINE_SET_ARG_MAX]; /* the machine's --set, blank-separated */
    char machine_file_sha256[65]; /* of the machine file (machine_t.file_sha256) */
    bool have[TUNE_STRATEGIES];
    char function[TUNE_STRATEGIES][32];
    tune_strategy_t current_as; /* the strategy whose function is the current one, or
                                 * TUNE_CURRENT when it has its own curve */
    bool reuse_subpage;
    double reuse_fraction;
    uint64_t window_bytes;
    tune_point_t *curve; /* by size, then strategy */
    size_t n_curve;
    uint64_t delay_bytes;
    char dist_name[TUNE_TEXT_MAX];
    char dist_source[TUNE_TEXT_MAX];
    tune_pair_t pairs[TUNE_PAIRS_MAX]; /* current -> nontemporal, current -> linezero */
    size_t n_pairs;
    size_t best_pair; /* the pair of the best single threshold (n_pairs: none found) */
    double current_expected_seconds;
    /* piecewise policy */
    double min_gain;
    tune_band_t *bands;
    size_t n_bands;
    size_t n_merged;        /* raw bands merged for want of significance */
    bool policy_is_current; /* no band differs significantly from the current policy */
    double policy_expected_seconds;
    double policy_gain; /* over current */
    double policy_gain_over_single;
    /* the hardware's own switch point: from this size the temporal strategy
     * stops allocating by itself (x86 string.elide, arm64 write streaming) */
    bool hw_switch;
    uint64_t hw_switch_bytes;
    char hw_switch_key[40];  /* the machine-file key it comes from */
    bool hw_checked;         /* a sampled size is at or above it */
    double hw_software_gain; /* the largest gain of non-temporal or line zeroing over
                              * temporal at a sampled size at or above it */
    bool hw_agrees;          /* no non-temporal or line-zeroing band reaches it */
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

/* The distribution tune uses when none is given (configs/sizes/). */
#define TUNE_DEFAULT_DIST "fault-thp-always"
/* A named distribution, <configs>/sizes/NAME.csv (`clear-pages` is
 * clear-pages-PREEMPT); resolved gets the file's name, source its
 * '# source:' comment. *out is malloc'd. Errors list the known names. */
int tune_dist_load(const char *name, caller_preempt_t preempt, tune_size_t **out, size_t *n,
                   char *resolved, size_t rlen, char *source, size_t slen, char *err,
                   size_t errlen);
/* The names of the shipped distributions, sorted (at most max). */
size_t tune_dist_list(char names[][64], size_t max);
/* The '# source:' comment at the top of a sizes csv, or "". */
void tune_sizes_source(const char *path, char *source, size_t len);
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

/* The total seconds per clear of strategy s at sizes[i] (current resolves to
 * the strategy it equals). */
double tune_total_seconds(const tune_result_t *r, size_t i, tune_strategy_t s);
/* The hardware switch point of m's temporal strategy into r (hw_switch*). */
void tune_hw_switch(const machine_t *m, tune_result_t *r);
/* From r's curve (and hw_switch_bytes): the best single thresholds (pairs),
 * the piecewise policy (bands) and the hardware-switch check. sizes are the
 * curve's, min_gain the significance. Returns 0, or -1 with a reason (out of
 * memory). */
int tune_policy(const tune_size_t *sizes, size_t n_sizes, double min_gain, tune_result_t *r,
                char *err, size_t errlen);
void tune_result_free(tune_result_t *r);

/* text: a table and the recommendations; csv: the curve; json: everything
 * (docs/JSON.md). Returns 0, or -1 with a reason. */
int tune_print(FILE *out, report_format_t fmt, const tune_result_t *r, char *err, size_t errlen);

#endif
