/*
 * model_ff.h - steady-state fast-forward inside long operations: the
 * history of block deltas, the judgement that they repeat, and the plan of
 * what skipping adds. The model (models/model.c) owns the time it shifts
 * and the counters it adds; the workload-level fast-forward (sim/engine/
 * run.c) judges its own blocks with the same spread and constants.
 *
 * Notes
 *  - Every MODEL_FF_BLOCK_LINES lines of an operation the deltas of every
 *    counter and of the time are recorded. Once MODEL_FF_BLOCKS consecutive
 *    blocks agree within MODEL_FF_TOLERANCE (a count that moves by one is
 *    noise), and the operation has run past tail_lines, whole blocks are
 *    skipped up to a tail of tail_lines: each skipped block adds the mean
 *    block delta, and every timestamp moves by the mean block time.
 *  - The error bound reported is the largest relative spread seen among the
 *    blocks extrapolated from.
 *  - Units: lines, bytes, core cycles.
 */
#ifndef CLEARSIM_MODEL_FF_H
#define CLEARSIM_MODEL_FF_H

#include <stdbool.h>
#include <stdint.h>

#include "models/stats.h"

#define MODEL_FF_BLOCK_LINES 2048u /* lines per block inside an operation */
#define MODEL_FF_BLOCKS      6u    /* consecutive blocks that must agree */
#define MODEL_FF_TOLERANCE   0.01  /* relative spread allowed between block deltas */
#define MODEL_FF_HIST_MAX    16u   /* most blocks model_ff_stats_spread judges */

typedef struct model_ff {
    bool on;
    bool hold;           /* record blocks but do not skip (bulk stepping may yet step) */
    uint64_t tail_lines; /* lines always simulated at an op's end */
    uint64_t lines;      /* lines since the last block boundary */
    uint64_t op_lines;   /* lines of the current operation so far */
    stats_t snap;        /* counters at the last block boundary */
    double tsnap;        /* time at the last block boundary */
    stats_t hist[MODEL_FF_BLOCKS];
    double dt[MODEL_FF_BLOCKS];
    uint32_t n; /* valid entries in the history */
    uint64_t skipped_lines;
    uint64_t total_lines;
    double err; /* the largest spread extrapolated from */
} model_ff_t;

/* Relative spread (max - min) / mean of v[0..n), 0 when all are equal; -1
 * when it exceeds tolerance by more than one (a count that moves by one
 * between blocks is noise, not drift). Both fast-forwards judge their
 * block deltas with it. */
double model_ff_spread(const double *v, uint32_t n, double tolerance);
/* The largest model_ff_spread over every event's count and bytes in
 * hist[0..n) (n at most MODEL_FF_HIST_MAX), or -1 if one exceeds tolerance. */
double model_ff_stats_spread(const stats_t *hist, uint32_t n, double tolerance);

/* After each line of a long operation, with the model's counters st, its
 * time now, the lines that remain in the operation, and the most lines a
 * skip may take (the model's own limits). Returns the lines to skip (0:
 * none); then *add holds the counters they add and *shift the time they
 * take, which the caller applies before model_ff_resume(). */
uint64_t model_ff_after_line(model_ff_t *ff, const stats_t *st, double now, uint64_t rem_lines,
                             uint64_t max_lines, stats_t *add, double *shift);
/* After the caller applied a skip: the next block starts at st and now. */
void model_ff_resume(model_ff_t *ff, const stats_t *st, double now);

#endif
