/*
 * run.h - one prediction: machine + workload -> trace -> model -> result.
 *
 * Notes
 *  - The result holds the internal events of the measured region and the
 *    perf-named counters derived from them through the machine's pmu: map.
 *  - A counter the machine does not map is "not supported" (printed null).
 */
#ifndef CLEARSIM_RUN_H
#define CLEARSIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/stats.h"
#include "sim/engine/workload.h"

#define RUN_COUNTERS_MAX MACHINE_PMU_MAX

typedef struct run_counter {
    char name[MACHINE_NAME_MAX];
    bool supported;
    uint64_t value;
} run_counter_t;

typedef struct run_result {
    wl_spec_t spec;
    char machine[MACHINE_NAME_MAX];
    /* the machine's --set overrides, "KEY=VALUE" separated by blanks ("" none) */
    char set[MACHINE_SET_MAX * MACHINE_SET_ARG_MAX];
    char machine_file_sha256[65]; /* of the machine file (machine_t.file_sha256) */
    stats_t stats;                /* internal events of the measured region */
    uint64_t bytes;               /* bytes cleared (read, copied) in the measured region */
    uint64_t cycles;
    double seconds;
    double bytes_per_sec;
    double ns_per_load; /* latency workload: ns per dependent load; 0 otherwise */
    uint32_t n_counters;
    run_counter_t counters[RUN_COUNTERS_MAX];
    /* Fast-forward: true when part of the run was extrapolated; bound on the
     * relative error it may add (0 when exact). */
    bool extrapolated;
    double error_bound;
    /* Exact bulk stepping (models/model_bulk.c): lines it applied at once
     * (not extrapolated: their counters and time are what simulating them
     * gives). */
    uint64_t bulk_lines;
} run_result_t;

typedef struct run_opts {
    bool exact;    /* never fast-forward */
    bool no_bulk;  /* no exact bulk stepping either: simulate every line */
    uint64_t seed; /* random replacement seed */
    bool progress; /* progress/ETA on stderr (only when it is a terminal) */
} run_opts_t;

void run_opts_init(run_opts_t *o);

/* Run one prediction. Returns 0, or -1 with a one-line reason. */
int run_predict(const machine_t *m, const wl_spec_t *spec, const run_opts_t *opts,
                run_result_t *out, char *err, size_t errlen);

/* perf-named counters of the standard set, in print order. */
extern const char *const run_std_counters[];

#endif
