/*
 * model_ff.c - steady-state fast-forward inside long operations (see
 * model_ff.h): the block history, its judgement, and the plan of a skip.
 */
#include "models/model_ff.h"

#include <math.h>
#include <string.h>

#include "models/timing.h"

double model_ff_spread(const double *v, uint32_t n, double tolerance)
{
    double lo = v[0], hi = v[0], sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
        sum += v[i];
    }
    if (hi - lo <= 0)
        return 0;
    double rel = (hi - lo) / (sum > 0 ? sum / n : 1);
    /* a count that moves by one between blocks is noise, not drift */
    return rel > tolerance && hi - lo > 1.0 ? -1 : rel;
}

double model_ff_stats_spread(const stats_t *hist, uint32_t n, double tolerance)
{
    double worst = 0, v[MODEL_FF_HIST_MAX];
    if (n == 0 || n > MODEL_FF_HIST_MAX)
        return -1;
    for (int e = 0; e < ST_EXPLAIN_FIRST; e++) { /* attribution does not judge */
        for (int k = 0; k < 2; k++) {
            for (uint32_t i = 0; i < n; i++)
                v[i] = (double)(k ? hist[i].bytes[e] : hist[i].count[e]);
            double sp = model_ff_spread(v, n, tolerance);
            if (sp < 0)
                return -1;
            worst = sp > worst ? sp : worst;
        }
    }
    return worst;
}

uint64_t model_ff_after_line(model_ff_t *ff, const stats_t *st, double now, uint64_t rem_lines,
                             uint64_t max_lines, stats_t *add, double *shift)
{
    ff->total_lines++;
    ff->op_lines++;
    if (!ff->on || ++ff->lines < MODEL_FF_BLOCK_LINES)
        return 0;
    ff->lines = 0;
    stats_t d;
    stats_sub(&d, st, &ff->snap);
    ff->snap = *st;
    double dt = now - ff->tsnap;
    ff->tsnap = now;
    /* shift the history */
    if (ff->n == MODEL_FF_BLOCKS) {
        memmove(&ff->hist[0], &ff->hist[1], (MODEL_FF_BLOCKS - 1) * sizeof(stats_t));
        memmove(&ff->dt[0], &ff->dt[1], (MODEL_FF_BLOCKS - 1) * sizeof(double));
        ff->n--;
    }
    ff->hist[ff->n] = d;
    ff->dt[ff->n] = dt;
    ff->n++;
    /* Not before every cache level has been filled once (a cold start is a
     * transient, not a steady state). */
    if (ff->hold || ff->n < MODEL_FF_BLOCKS || rem_lines <= ff->tail_lines + MODEL_FF_BLOCK_LINES ||
        ff->op_lines < ff->tail_lines)
        return 0;
    double worst = model_ff_spread(ff->dt, MODEL_FF_BLOCKS, MODEL_FF_TOLERANCE);
    if (worst < 0)
        return 0;
    /* (ST_CYCLES stays 0 in the model's counters while running: time is
     * judged by dt) */
    double sp = model_ff_stats_spread(ff->hist, MODEL_FF_BLOCKS, MODEL_FF_TOLERANCE);
    if (sp < 0)
        return 0;
    worst = sp > worst ? sp : worst;
    /* Steady: skip whole blocks, keeping the tail. */
    uint64_t nblocks = (rem_lines - ff->tail_lines) / MODEL_FF_BLOCK_LINES;
    if (nblocks > max_lines / MODEL_FF_BLOCK_LINES)
        nblocks = max_lines / MODEL_FF_BLOCK_LINES;
    if (nblocks == 0)
        return 0;
    double dt_sum = 0;
    for (uint32_t i = 0; i < MODEL_FF_BLOCKS; i++)
        dt_sum += ff->dt[i];
    memset(add, 0, sizeof *add);
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        if (e == ST_CYCLES)
            continue;
        uint64_t c = 0, b = 0;
        for (uint32_t i = 0; i < MODEL_FF_BLOCKS; i++) {
            c += ff->hist[i].count[e];
            b += ff->hist[i].bytes[e];
        }
        /* n x mean, rounded; exact when every block agrees */
        add->count[e] = (uint64_t)llround((double)c * (double)nblocks / MODEL_FF_BLOCKS);
        add->bytes[e] = (uint64_t)llround((double)b * (double)nblocks / MODEL_FF_BLOCKS);
    }
    *shift = dt_sum * (double)nblocks / MODEL_FF_BLOCKS;
    uint64_t skipped = nblocks * MODEL_FF_BLOCK_LINES;
    ff->skipped_lines += skipped;
    ff->total_lines += skipped;
    ff->err = timing_max(ff->err, worst);
    return skipped;
}

void model_ff_resume(model_ff_t *ff, const stats_t *st, double now)
{
    ff->snap = *st;
    ff->tsnap = now;
    ff->n = 0;
}
