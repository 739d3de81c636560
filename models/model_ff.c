/*
 * model_ff.c - steady-state fast-forward inside long operations (see
 * model.h), and the time shift and counter addition sim/run.c's
 * whole-period fast-forward uses.
 *
 * Notes
 *  - Every FF_BLOCK_LINES lines of an operation the deltas of every counter
 *    and of the time are recorded. Once FF_BLOCKS consecutive blocks agree
 *    within FF_TOLERANCE (a count that moves by one is noise), and every
 *    cache level has been filled since the operation began, whole blocks
 *    are skipped up to a tail of ff_tail_lines: each skipped block adds the
 *    mean block delta, and every timestamp the model holds moves by the
 *    mean block time.
 *  - The error bound reported is the largest relative spread seen among
 *    the blocks extrapolated from.
 *  - Write streaming (arm64): no skip takes a run past one of its byte
 *    thresholds or into the mode; a run's byte count advances by what was
 *    skipped.
 *  - Units: lines, bytes, core cycles.
 */
#include <math.h>
#include <string.h>

#include "models/model_impl.h"

/* Fast-forward and write streaming: how many more lines of a steady stretch
 * may be skipped before the run would reach a threshold (or enter the mode),
 * and the run's progress over skipped lines. */
static uint64_t ws_ff_max_lines(const model_t *md)
{
    const cfg_machine_t *m = md->m;
    if (!m->ws_enabled)
        return UINT64_MAX;
    if (!md->ws_active)
        return md->ws_run ? 0 : UINT64_MAX;
    uint64_t next = UINT64_MAX;
    if (m->ws_l2_bytes > md->ws_bytes)
        next = m->ws_l2_bytes;
    if (m->ws_l3_bytes > md->ws_bytes && m->ws_l3_bytes < next)
        next = m->ws_l3_bytes;
    return next == UINT64_MAX ? UINT64_MAX : (next - md->ws_bytes) / md->line_bytes;
}

static void ws_ff_skip(model_t *md, uint64_t lines)
{
    if (md->ws_active)
        md->ws_bytes += lines * md->line_bytes;
}

static inline double now_cycles(const model_t *md)
{
    return max2(md->t_issue, max2(md->t_front, md->t_commit_last));
}

void model_set_fast_forward(model_t *md, bool on)
{
    md->ff_on = on;
    md->ff_n = 0;
    md->ff_lines = 0;
}

void model_ff_report(const model_t *md, uint64_t *skipped_lines, uint64_t *total_lines,
                     double *error_bound)
{
    *skipped_lines = md->ff_skipped_lines;
    *total_lines = md->ff_total_lines;
    *error_bound = md->ff_err;
}

void model_shift_time(model_t *md, double dt)
{
    md->t_front += dt;
    md->t_issue += dt;
    md->t_commit_last += dt;
    md->t_wc_last += dt;
    for (uint32_t i = 0; i < RING_LINES; i++)
        md->ring[i] += dt;
    mshr_shift_time(md->wc, dt);
    hier_shift_time(md->h, dt);
    md->ff_tsnap += dt;
}

void model_add_stats(model_t *md, const stats_t *delta, uint64_t n)
{
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        if (e == ST_CYCLES)
            continue; /* cycles follow the time, moved by model_shift_time */
        md->st.count[e] += delta->count[e] * n;
        md->st.bytes[e] += delta->bytes[e] * n;
    }
}

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
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
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

uint64_t model_i_ff_after_line(model_t *md, uint64_t remaining_bytes)
{
    md->ff_total_lines++;
    md->ff_op_lines++;
    if (!md->ff_on || ++md->ff_lines < FF_BLOCK_LINES)
        return 0;
    md->ff_lines = 0;
    double now = now_cycles(md);
    stats_t d;
    stats_sub(&d, &md->st, &md->ff_snap);
    md->ff_snap = md->st;
    double dt = now - md->ff_tsnap;
    md->ff_tsnap = now;
    /* shift the history */
    if (md->ff_n == FF_BLOCKS) {
        memmove(&md->ff_hist[0], &md->ff_hist[1], (FF_BLOCKS - 1) * sizeof(stats_t));
        memmove(&md->ff_dt[0], &md->ff_dt[1], (FF_BLOCKS - 1) * sizeof(double));
        md->ff_n--;
    }
    md->ff_hist[md->ff_n] = d;
    md->ff_dt[md->ff_n] = dt;
    md->ff_n++;
    uint64_t lb = md->line_bytes;
    uint64_t rem_lines = remaining_bytes / lb;
    /* Not before every cache level has been filled once (a cold start is a
     * transient, not a steady state). */
    if (md->ff_n < FF_BLOCKS || rem_lines <= md->ff_tail_lines + FF_BLOCK_LINES ||
        md->ff_op_lines < md->ff_tail_lines)
        return 0;
    double worst = model_ff_spread(md->ff_dt, FF_BLOCKS, FF_TOLERANCE);
    if (worst < 0)
        return 0;
    /* (ST_CYCLES stays 0 in md->st while running: time is judged by ff_dt) */
    double sp = model_ff_stats_spread(md->ff_hist, FF_BLOCKS, FF_TOLERANCE);
    if (sp < 0)
        return 0;
    worst = sp > worst ? sp : worst;
    /* Steady: skip whole blocks, keeping the tail. */
    uint64_t nblocks = (rem_lines - md->ff_tail_lines) / FF_BLOCK_LINES;
    if (nblocks > ws_ff_max_lines(md) / FF_BLOCK_LINES)
        nblocks = ws_ff_max_lines(md) / FF_BLOCK_LINES;
    if (nblocks == 0)
        return 0;
    double dt_sum = 0;
    for (uint32_t i = 0; i < FF_BLOCKS; i++)
        dt_sum += md->ff_dt[i];
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        if (e == ST_CYCLES)
            continue;
        uint64_t c = 0, b = 0;
        for (uint32_t i = 0; i < FF_BLOCKS; i++) {
            c += md->ff_hist[i].count[e];
            b += md->ff_hist[i].bytes[e];
        }
        /* n x mean, rounded; exact when every block agrees */
        md->st.count[e] += (uint64_t)llround((double)c * (double)nblocks / FF_BLOCKS);
        md->st.bytes[e] += (uint64_t)llround((double)b * (double)nblocks / FF_BLOCKS);
    }
    model_shift_time(md, dt_sum * (double)nblocks / FF_BLOCKS);
    uint64_t skipped = nblocks * FF_BLOCK_LINES;
    ws_ff_skip(md, skipped);
    md->ff_skipped_lines += skipped;
    md->ff_total_lines += skipped;
    md->ff_err = max2(md->ff_err, worst);
    md->ff_snap = md->st;
    md->ff_tsnap = now_cycles(md);
    md->ff_n = 0;
    return skipped * lb;
}
