/*
 * microbench.h - a machine file's microbenchmark figures (microbench:
 * section) as run points: the option string of each, the model's figure for
 * it, and the check of a file against its own figures (`clearsim check`).
 *
 * Notes
 *  - A figure's options are those of `clearsim run` / `clearsim native`:
 *    --workload, -f (when given), -s, -k, -p, --fill, -l. Loops left at 0
 *    get the figure's default: enough passes over the size for the model's
 *    steady state (mb_default_loops).
 *  - The model's figure is in the figure's metric: GiB/s (gbps) or ns per
 *    dependent load (ns_per_load), predicted at the machine's core.freq (a
 *    file whose microbench.clock differs is loaded at that clock by the
 *    caller).
 */
#ifndef CLEARSIM_MICROBENCH_H
#define CLEARSIM_MICROBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/study/calibrate.h"

/* Passes of a figure without loops: enough that a pass over size bytes
 * repeats while warm (at least 1, more for small sizes). */
uint32_t mb_default_loops(const machine_mb_t *f);

/* The figure's option string ("--workload load -s 16KiB -l 4096"). Returns
 * 0, or -1 when it does not fit in len. */
int mb_args(const machine_mb_t *f, char *buf, size_t len);

/* The figure's workload on machine m: parsed, defaults applied, validated.
 * Returns 0, or -1 with a reason naming the figure. */
int mb_spec(const machine_mb_t *f, const machine_t *m, wl_spec_t *out, char *err, size_t errlen);

/* The figure's metric from a run's result. */
double mb_metric(const machine_mb_t *f, double seconds, double bytes_per_sec, double ns_per_load);

/* The model's figure for f on m, into *value, with the run's result in *r
 * (large: the caller's). Returns 0, or -1 with a reason naming the figure. */
int mb_model(const machine_mb_t *f, const machine_t *m, run_result_t *r, double *value, char *err,
             size_t errlen);

/* The tolerance figure f is checked against: its own, else the file's
 * microbench.tolerance, else 0.10. */
double mb_tolerance(const machine_t *m, const machine_mb_t *f);

typedef struct mb_check_row {
    const machine_mb_t *fig;
    double model;  /* the model's figure */
    double error;  /* (model - figure) / figure */
    bool within;   /* |error| <= tolerance */
    char why[256]; /* when the model could not run it */
} mb_check_row_t;

/* Predict every figure of m on `threads` threads into rows[0..m->n_mb).
 * Returns 0 with every row filled, or -1 with the first reason. */
int mb_check(const machine_t *m, unsigned threads, bool progress, mb_check_row_t *rows, char *err,
             size_t errlen);

/* Case c of a calibration data set from figure f on machine m: its id,
 * source, run options and parsed workload, metric and value (the caller
 * sets the set, stage and tolerance). Returns 0, or -1 with a reason. */
int mb_cal_case(const machine_mb_t *f, const machine_t *m, cal_case_t *c, char *err, size_t errlen);

/* The calibration data of `calibrate --microbench`: m's own figures as the
 * cases (a figure with a stage is a fitting case of that stage, one without
 * a validation case, each checked within its tolerance), the keys of
 * microbench.fit with bounds start / range .. start x range (within the
 * key's own), predicted at microbench.clock. Returns 0, or -1 with a reason
 * (no fit keys, a key left at 0, a figure that cannot run). */
int mb_cal_data(const machine_t *m, cal_data_t *d, char *err, size_t errlen);

#endif
