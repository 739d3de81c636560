/*
 * run.c - one prediction: workload -> kernels in trace mode -> model ->
 * result.
 *
 * Notes
 *  - The measured region starts at the workload's WL_MARK_ROI_BEGIN (after
 *    its warm-up) and ends when everything it issued has completed
 *    (model_drain), like a timer read after the last call returns and its
 *    stores are visible.
 *  - Mapping: a memset workload clears a user buffer through 4 KiB pages
 *    (physically contiguous only within a page). An mmap workload's faults
 *    are cleared by the kernel through its direct map (1 GiB pages) and each
 *    folio is physically contiguous.
 *  - perf counters are linear combinations of internal events from the
 *    machine's pmu: map; a counter it does not map is not supported.
 */
#include "sim/engine/run.h"
#include "models/base/errbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/model.h"
#include "models/model_ff.h"
#include "sim/engine/progress.h"
#include "sim/machine/cfg.h"

#define RUN_DIRECT_MAP_PAGE_BYTES (1ull << 30)

const char *const run_std_counters[] = {
    "cycles",    "instructions",    "L1-dcache-loads",  "L1-dcache-load-misses",
    "LLC-loads", "LLC-load-misses", "dTLB-load-misses", NULL,
};

void run_opts_init(run_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
}

/* Blocks that must agree, and the spread allowed between them: the model's
 * own fast-forward's (models/model_ff.h). */
#define FF_HIST        MODEL_FF_BLOCKS
#define FF_TOL         MODEL_FF_TOLERANCE
#define FF_BLOCK_BYTES (256u << 10) /* a block covers at least this many bytes */

#define RUN_FRAME_KINDS 3 /* TRACE_FAULT, TRACE_INSNS, TRACE_STORE */

/* One level of stepping across calls: a unit is the fewest periods whose
 * addresses advance linearly (a chunk; a folio's calls; an extent), a move
 * `units` units of `move_bytes` (0: the same footprint again, one loop
 * later). Positions count units: in the loop, in the folio, or (a
 * footprint) in the run. */
typedef struct xs_level {
    bool on;
    model_snap_t *snap;
    uint64_t unit_periods, unit_bytes;
    uint64_t units;      /* units per move */
    uint64_t move_bytes; /* bytes per move (0: loops of one footprint) */
    uint64_t next_snap;  /* position of the next snapshot (UINT64_MAX: none) */
    uint64_t snap_at;    /* ... of the snapshot held (UINT64_MAX: none) */
    uint64_t snap_addr;  /* its next address */
    uint64_t warm_units; /* units that refill every cache level */
    uint32_t checks;     /* failed comparisons (bounded) */
    uint32_t fails;      /* ... in a row */
} xs_level_t;

typedef struct run_ctx {
    model_t *md;
    stats_t roi_start;
    bool roi_started;
    bool drain_at_roi; /* the measured region starts on a drained machine */
    progress_t *progress;
    uint64_t periods; /* periods done or skipped */
    uint64_t total_periods;
    /* workload-level fast-forward */
    bool ff;
    bool streaming; /* footprint far larger than the caches */
    uint64_t periods_per_loop;
    uint64_t block_periods; /* periods per comparison block */
    uint64_t tail_periods;  /* periods always simulated at the end */
    uint64_t in_block;
    stats_t blk_snap;
    /* Frame ops: what the workload emits outside kernel calls even for the
     * periods it skips (mmap: each folio's fault and first touch). Their
     * share of a block is kept apart, so that skipping extrapolates only the
     * calls. A frame op of a skipped stretch is simulated (its effect on the
     * model's state - time, write streaming - is real), but as its folio was
     * never cleared the caches do not hold what they would: its counters are
     * replaced by the mean of the frame ops of its kind simulated outside
     * skipped stretches. */
    bool in_call;
    bool ff_live;                    /* a skip may still come (ff_can_skip); else nothing is kept */
    stats_t frame;                   /* frame-op deltas since blk_snap */
    stats_t fsum[RUN_FRAME_KINDS];   /* per kind: simulated frame ops' deltas */
    uint64_t fn[RUN_FRAME_KINDS];    /* ... and their number */
    uint64_t fowed[RUN_FRAME_KINDS]; /* frame ops simulated while skipping */
    stats_t factual;                 /* ... and what they did */
    bool fskip;                      /* skipping: until the next call begins */
    /* Outside skipped stretches, the counters are read once at each frame-op
     * boundary of a run of frame ops (where it begins, then after each op;
     * the reading after one op is the one before the next), alternating
     * between the two fsnap: one snapshot and one pass per op, kept only
     * while a skip may still come. Per-kind sums need the reading between
     * a touch and the next fault (a run is touch, then fault): a run's sum
     * alone would split the rounding of frame_settle differently. */
    bool frun_open;
    uint8_t fcur; /* fsnap[fcur]: the counters at the last boundary */
    stats_t fsnap[2];
    /* While skipping, a run of frame ops only adds to frame and factual:
     * their sum is taken once, from the model's counters at the run's first
     * op (stretch_start) to those at its end (stretch_close), not per op. */
    bool stretch_open;
    stats_t stretch_start;
    stats_t hist[FF_HIST];
    uint32_t nhist;
    uint64_t skipped_periods;
    double err;
    /* Exact bulk stepping across calls (models/model.h model_snap_*), at
     * three levels: xs[0] over the run's units (chunks, folios, or whole
     * loops of one footprint), xs[1] over the extents inside one folio,
     * xs[2] over xs[0]'s units by whole TLB pages (the kernel's direct map
     * is 1 GiB pages: xs[0]'s shorter moves must stop at each page end,
     * where a new page is translated; a move by whole pages need not). */
    xs_level_t xs[3];
    uint64_t xs_lo, xs_hi;  /* the workload's addresses */
    uint64_t xs_loop_lines; /* lines one loop of a footprint covers */
    uint64_t xs_lines;      /* lines stepped over in place (xs[0] of a footprint) */
    bool xs_prefer;         /* stepping goes before the statistical skip (xs_holds) */
} run_ctx_t;

#define XS_MAX_CHECKS         32u /* failed comparisons before stepping across calls gives up */
#define XS_RETAKES            3u  /* snapshots taken again at once after a failed comparison */
#define XS_PREFER_FOLIO_BYTES (64u << 10) /* folios this small: stepping first (xs_holds) */

/* Can ff_block skip, at this block or a later one? Once it cannot, it never
 * can again (the periods remaining only fall), and nothing of frame,
 * fsum or the block history is needed. */
static bool ff_can_skip(const run_ctx_t *c)
{
    if (!c->ff || c->periods >= c->total_periods)
        return false;
    uint64_t remaining = c->total_periods - c->periods;
    if (remaining <= c->tail_periods)
        return false;
    return c->streaming || remaining - c->tail_periods >= c->periods_per_loop;
}

/* After a block of periods: if the last FF_HIST blocks agree on every
 * counter and on time, skip to the tail. Returns the periods to skip. */
static uint64_t ff_block(run_ctx_t *c)
{
    stats_t now, d;
    model_stats(c->md, &now);
    stats_sub(&d, &now, &c->blk_snap);
    stats_sub(&d, &d, &c->frame); /* only the calls' own work is extrapolated */
    memset(&c->frame, 0, sizeof(c->frame));
    c->blk_snap = now;
    if (c->nhist == FF_HIST) {
        memmove(&c->hist[0], &c->hist[1], (FF_HIST - 1) * sizeof(stats_t));
        c->nhist--;
    }
    c->hist[c->nhist++] = d;
    if (c->nhist < FF_HIST || c->periods >= c->total_periods)
        return 0;
    /* Not before the caches have been refilled by the measured work itself
     * (a warm-up that did not allocate - elided, NT - leaves them cold). */
    if (c->periods < c->tail_periods)
        return 0;
    uint64_t remaining = c->total_periods - c->periods;
    if (remaining <= c->tail_periods)
        return 0;
    uint64_t n = remaining - c->tail_periods;
    if (!c->streaming) /* keep addresses in step with the cached footprint */
        n = n / c->periods_per_loop * c->periods_per_loop;
    if (n == 0)
        return 0;
    double worst = model_ff_stats_spread(c->hist, FF_HIST, FF_TOL);
    if (worst < 0)
        return 0;
    /* Steady: add n periods' worth of the mean block delta. */
    double per = (double)n / ((double)FF_HIST * (double)c->block_periods);
    stats_t add;
    memset(&add, 0, sizeof(add));
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        uint64_t cs = 0, bs = 0;
        for (uint32_t i = 0; i < FF_HIST; i++) {
            cs += c->hist[i].count[e];
            bs += c->hist[i].bytes[e];
        }
        add.count[e] = (uint64_t)llround((double)cs * per);
        add.bytes[e] = (uint64_t)llround((double)bs * per);
    }
    model_add_stats(c->md, &add, 1);
    model_shift_time(c->md, (double)add.count[ST_CYCLES]);
    model_stats(c->md, &c->blk_snap);
    c->nhist = 0;
    c->in_block = 0;
    c->periods += n;
    c->skipped_periods += n;
    c->fskip = true;
    c->err = worst > c->err ? worst : c->err;
    return n;
}

/* The end of a run of frame ops while skipping: their deltas, summed. */
static void stretch_close(run_ctx_t *c)
{
    if (!c->stretch_open)
        return;
    stats_t now, d;
    model_stats(c->md, &now);
    stats_sub(&d, &now, &c->stretch_start);
    stats_add(&c->frame, &d);
    stats_add(&c->factual, &d);
    c->stretch_open = false;
}

/* End of a skipped stretch: count its frame ops at the mean of their kind
 * instead of what they did (see run_ctx_t.frame). Unsigned wrap-around
 * subtracts. */
static void frame_settle(run_ctx_t *c)
{
    stretch_close(c);
    stats_t add;
    memset(&add, 0, sizeof(add));
    stats_sub(&add, &add, &c->factual);
    memset(&c->factual, 0, sizeof(c->factual));
    for (int k = 0; k < RUN_FRAME_KINDS; k++) {
        if (!c->fowed[k])
            continue;
        double per = (double)c->fowed[k] / (double)c->fn[k];
        for (int e = 0; e < ST_EVENT_COUNT; e++) {
            add.count[e] += (uint64_t)llround((double)c->fsum[k].count[e] * per);
            add.bytes[e] += (uint64_t)llround((double)c->fsum[k].bytes[e] * per);
        }
        c->fowed[k] = 0;
    }
    model_add_stats(c->md, &add, 1);
    model_shift_time(c->md, (double)(int64_t)add.count[ST_CYCLES]);
    stats_add(&c->frame, &add);
    c->fskip = false;
}

static int frame_kind(uint8_t kind)
{
    switch (kind) {
    case TRACE_FAULT:
        return 0;
    case TRACE_INSNS:
        return 1;
    case TRACE_STORE:
        return 2;
    default:
        return -1;
    }
}

/* A frame op outside skipped stretches has run: its delta since the last
 * boundary goes to frame and to its kind's sum (see run_ctx_t.fsnap). */
static void frame_count(run_ctx_t *c, int k)
{
    const stats_t *prev = &c->fsnap[c->fcur];
    c->fcur ^= 1;
    stats_t *now = &c->fsnap[c->fcur];
    model_stats(c->md, now);
    if (c->fskip) { /* a kind without a mean yet counts as itself */
        for (int e = 0; e < ST_EVENT_COUNT; e++) {
            c->frame.count[e] += now->count[e] - prev->count[e];
            c->frame.bytes[e] += now->bytes[e] - prev->bytes[e];
        }
        return;
    }
    stats_t *sum = &c->fsum[k];
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        uint64_t dc = now->count[e] - prev->count[e], db = now->bytes[e] - prev->bytes[e];
        c->frame.count[e] += dc;
        c->frame.bytes[e] += db;
        sum->count[e] += dc;
        sum->bytes[e] += db;
    }
    c->fn[k]++;
}

/* The model's trace sink, through which the runner sees which ops fall
 * outside kernel calls (see run_ctx_t.frame). */
static int run_sink(void *vctx, const trace_op_t *op)
{
    run_ctx_t *c = vctx;
    if (op->kind == TRACE_CALL_BEGIN) {
        if (c->fskip)
            frame_settle(c);
        c->in_call = true;
    }
    int k = c->ff && c->roi_started && !c->in_call ? frame_kind(op->kind) : -1;
    if (k < 0) {
        stretch_close(c);
        c->frun_open = false;
        int rc = model_op(c->md, op);
        if (op->kind == TRACE_CALL_END)
            c->in_call = false;
        return rc;
    }
    bool lazy = c->fskip && c->fn[k] > 0;
    bool count = !lazy && c->ff_live; /* (else nothing reads frame any more) */
    if (lazy) {
        if (!c->stretch_open) {
            model_stats(c->md, &c->stretch_start);
            c->stretch_open = true;
        }
        c->frun_open = false;
    } else {
        stretch_close(c);
        if (count && !c->frun_open) {
            model_stats(c->md, &c->fsnap[c->fcur]);
            c->frun_open = true;
        }
    }
    int rc = model_op(c->md, op);
    if (op->kind == TRACE_STORE) {
        /* Let the model finish the store's line now rather than at the next
         * op (a call end only does that), so the line's work counts here. */
        trace_op_t end = {.kind = TRACE_CALL_END};
        model_op(c->md, &end);
    }
    if (lazy)
        c->fowed[k]++;
    else if (count)
        frame_count(c, k);
    return rc;
}

/* The statistical fast-forward waits while stepping across calls may still
 * step, where that is the faster of the two: mappings of small folios,
 * whose faults and touches the statistical skip still simulates one by
 * one (a stepped period emits none). Elsewhere it is the other way round
 * (a stepped level still simulates each loop's, or each 1 GiB folio's,
 * warm-up), and stepping takes what the statistical skip leaves. */
static bool xs_holds(const run_ctx_t *c)
{
    if (!c->xs_prefer)
        return false;
    for (int k = 0; k < 3; k++)
        if (c->xs[k].on && c->xs[k].next_snap != UINT64_MAX)
            return true;
    return false;
}

/* A level starts again (a loop or folio begins): its snapshot goes. */
static void xs_restart(run_ctx_t *c, xs_level_t *x)
{
    x->snap_at = UINT64_MAX;
    if (x->checks < XS_MAX_CHECKS)
        x->next_snap = x->units;
    x->fails = 0;
    model_snap_drop(c->md, x->snap);
}

/* At position pos (units) with `left` units that a step may take and the
 * next address next_addr (lo..hi the moving range): snapshot, or compare
 * and on a proven move step. Returns the periods stepped over. */
static uint64_t xs_level(run_ctx_t *c, xs_level_t *x, uint64_t pos, uint64_t left,
                         uint64_t next_addr, uint64_t lo, uint64_t hi, uint64_t periods_per_move)
{
    if (x->next_snap == UINT64_MAX)
        return 0;
    uint64_t u = x->units;
    if (x->snap_at != UINT64_MAX && pos > x->snap_at + u)
        x->snap_at = UINT64_MAX; /* a step of another level went past it */
    if (x->snap_at != UINT64_MAX && pos == x->snap_at + u) {
        x->snap_at = UINT64_MAX;
        uint64_t n = left / u;
        if (x->move_bytes) {
            uint64_t room = model_snap_room_bytes(c->md, next_addr, x->move_bytes);
            if (room != UINT64_MAX) {
                uint64_t fit = room / x->move_bytes;
                fit = fit > 0 ? fit - 1 : 0;
                n = n < fit ? n : fit;
            }
        }
        if (n)
            n = model_snap_step(c->md, x->snap, x->move_bytes, lo, hi,
                                x->move_bytes ? x->snap_addr : 0, x->move_bytes ? next_addr : 0, n);
        if (n) {
            uint64_t periods = n * periods_per_move;
            x->fails = 0;
            x->checks = 0;                  /* (what failed is bounded by what stepped) */
            x->next_snap = pos + n * u + u; /* (past a TLB page, say) */
            return periods;
        }
        if (++x->checks >= XS_MAX_CHECKS)
            x->next_snap = UINT64_MAX;
        else if (++x->fails <= XS_RETAKES)
            x->next_snap = pos; /* not steady yet, or just past a page: again from here */
    }
    if (x->snap_at == UINT64_MAX && pos >= x->next_snap && left > u) {
        if (!x->snap)
            x->snap = model_snap_create();
        if (!x->snap || model_snap_take(c->md, x->snap)) {
            x->on = false;
            x->next_snap = UINT64_MAX;
            return 0;
        }
        x->snap_at = pos;
        x->snap_addr = next_addr;
        /* then: once every level can have been refilled, then gaps a
         * quarter longer */
        if (x->fails && x->fails <= XS_RETAKES)
            x->next_snap = pos + u;
        else if (x->next_snap < x->warm_units)
            x->next_snap = x->warm_units;
        else
            x->next_snap = pos + (pos / 4 > u ? pos / 4 / u * u : u);
    }
    return 0;
}

/* After period c->periods (a mark): each level at its unit boundaries.
 * Returns the periods stepped over. */
static uint64_t xs_period(run_ctx_t *c)
{
    uint64_t ppl = c->periods_per_loop, done = c->periods, got = 0;
    xs_level_t *x = &c->xs[0], *y = &c->xs[1], *z = &c->xs[2];
    uint64_t lo = c->xs_lo, hi = c->xs_hi;
    if (x->on) {
        uint64_t up = x->unit_periods;
        if (x->move_bytes) {
            uint64_t in_loop = done % ppl;
            if (in_loop == 0) {
                xs_restart(c, x); /* a loop ends: start again in the next */
                xs_restart(c, z);
            } else if (in_loop % up == 0) {
                uint64_t pos = in_loop / up, left = (ppl - in_loop) / up;
                uint64_t addr = lo + pos * x->unit_bytes;
                if (z->on && (got = xs_level(c, z, pos, left, addr, lo, hi, z->units * up)))
                    xs_restart(c, x); /* (its snapshot is from before the move) */
                else
                    got = xs_level(c, x, pos, left, addr, lo, hi, x->units * up);
                /* a step that ends the loop passes the mark above: the
                 * next loop starts both levels again all the same */
                if (got && (in_loop + got) % ppl == 0) {
                    xs_restart(c, x);
                    xs_restart(c, z);
                }
            }
        } else if (done % ppl == 0) {
            got = xs_level(c, x, done / ppl, (c->total_periods - done) / ppl, lo, lo, hi,
                           x->units * ppl);
            if (got)
                c->xs_lines += got / ppl * c->xs_loop_lines;
        }
    }
    if (got || !y->on)
        return got;
    /* extents inside a folio: xs[0]'s unit is the folio */
    uint64_t cpf = x->unit_periods, in_folio = done % ppl % cpf;
    if (in_folio == 0) {
        xs_restart(c, y);
        return 0;
    }
    uint64_t folio = lo + done % ppl / cpf * x->unit_bytes;
    return xs_level(c, y, in_folio, cpf - in_folio, folio + in_folio * y->unit_bytes, lo, hi,
                    y->units);
}

static uint64_t on_mark(void *vctx, wl_mark_t mark)
{
    run_ctx_t *c = vctx;
    stretch_close(c);
    c->frun_open = false; /* a mark may change the counters */
    switch (mark) {
    case WL_MARK_ROI_BEGIN:
        /* the timer is read once the warm-up has completed: its loads and
         * stores are not the measured region's (see model_drain) */
        if (c->drain_at_roi)
            model_drain(c->md);
        model_stats(c->md, &c->roi_start);
        c->blk_snap = c->roi_start;
        memset(&c->frame, 0, sizeof(c->frame));
        c->roi_started = true;
        break;
    case WL_MARK_PERIOD: {
        c->periods++;
        if ((c->periods & 63) == 0)
            progress_update(c->progress, c->periods);
        if ((c->xs[0].on || c->xs[1].on || c->xs[2].on) && c->roi_started) {
            uint64_t x = xs_period(c);
            if (x) {
                c->periods += x;
                /* the statistical fast-forward starts its blocks again */
                model_stats(c->md, &c->blk_snap);
                memset(&c->frame, 0, sizeof(c->frame));
                c->nhist = 0;
                c->in_block = 0;
                c->ff_live = c->ff_live && ff_can_skip(c);
                progress_update(c->progress, c->periods);
                return x | WL_SKIP_ALL;
            }
        }
        uint64_t n = 0;
        if (c->ff_live && !xs_holds(c) && ++c->in_block >= c->block_periods) {
            c->in_block = 0;
            n = ff_block(c);
        }
        c->ff_live = c->ff_live && ff_can_skip(c);
        return n;
    }
    case WL_MARK_LOOP:
        break;
    }
    return 0;
}

/* Kernel calls in the measured region (the workload's periods), for the ETA
 * and the fast-forward tail. */
static uint64_t expected_periods(const wl_spec_t *s, const machine_t *m)
{
    if (wl_uses_bench_kernel(s->kind))
        return s->loops;
    if (wl_base_kind(s->kind) == WL_MMAP)
        return wl_mmap_calls(s, m) * s->loops;
    uint64_t chunk = s->chunk_bytes ? s->chunk_bytes : s->size_bytes;
    if (s->caller == WL_CALLER_REPEAT || chunk == 0)
        return s->loops;
    return (s->size_bytes + chunk - 1) / chunk * s->loops;
}

static void ff_setup(run_ctx_t *c, const machine_t *m, const wl_spec_t *s, bool on)
{
    uint64_t cap = m->l1.size_bytes + m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0);
    uint64_t period_bytes;
    if (wl_uses_bench_kernel(s->kind))
        period_bytes = s->size_bytes;
    else if (wl_base_kind(s->kind) == WL_MMAP)
        period_bytes = s->size_bytes / (wl_mmap_calls(s, m) ? wl_mmap_calls(s, m) : 1);
    else if (s->caller == WL_CALLER_REPEAT || !s->chunk_bytes)
        period_bytes = s->size_bytes;
    else
        period_bytes = s->chunk_bytes;
    if (period_bytes == 0)
        period_bytes = 1;
    uint64_t loops = s->loops ? s->loops : 1;
    c->ff = on && c->total_periods > 0;
    c->periods_per_loop = c->total_periods / loops ? c->total_periods / loops : 1;
    c->streaming = s->size_bytes >= 4 * cap;
    c->block_periods = (FF_BLOCK_BYTES + period_bytes - 1) / period_bytes;
    c->tail_periods = (cap + cap / 4 + period_bytes - 1) / period_bytes;
    if (c->tail_periods < 2)
        c->tail_periods = 2;
    if (!c->streaming && c->tail_periods < c->periods_per_loop)
        c->tail_periods = c->periods_per_loop; /* at least the last loop, exactly */
    c->ff_live = ff_can_skip(c);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Stepping across calls: where the workload's periods advance linearly
 * (chunks of a memset; the calls of same-sized folios, and inside a folio
 * its extents), the units and the moves; anything else (a last chunk of
 * another size, a THP tail of base pages, a bench kernel) is simulated
 * period by period. */
static void xs_setup(run_ctx_t *c, const machine_t *m, const wl_spec_t *s, uint64_t tlb_page,
                     bool on)
{
    for (int k = 0; k < 3; k++) {
        c->xs[k].on = false;
        c->xs[k].snap_at = c->xs[k].next_snap = UINT64_MAX;
    }
    uint64_t pbytes = on ? model_snap_period_bytes(c->md) : 0;
    if (!pbytes || wl_uses_bench_kernel(s->kind) || !c->total_periods || !s->size_bytes)
        return;
    uint64_t up, ub, extent = 0;
    if (wl_base_kind(s->kind) == WL_MMAP) {
        uint64_t f0 = wl_folio_bytes(s, 0);
        if (!f0 || s->size_bytes % f0 || c->periods_per_loop % (s->size_bytes / f0))
            return;
        up = c->periods_per_loop / (s->size_bytes / f0);
        ub = f0;
        c->xs_prefer = f0 <= XS_PREFER_FOLIO_BYTES;
        /* extents of one size inside the folio, in address order */
        uint64_t cap = s->extent_cap_bytes ? s->extent_cap_bytes : CALLER_DEFAULT_EXTENT_CAP_BYTES;
        if (s->caller == WL_CALLER_EXTENT && up > 1 && f0 % cap == 0 && f0 / cap == up)
            extent = cap;
    } else if (s->caller == WL_CALLER_REPEAT || !s->chunk_bytes) {
        up = 1;
        ub = s->size_bytes;
    } else {
        if (s->size_bytes % s->chunk_bytes)
            return;
        up = 1;
        ub = s->chunk_bytes;
    }
    uint64_t cap = m->l1.size_bytes + m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0);
    xs_level_t *x = &c->xs[0];
    x->unit_periods = up;
    x->unit_bytes = ub;
    c->xs_lo = s->base_addr;
    c->xs_hi = s->base_addr + s->size_bytes;
    if (c->streaming && c->periods_per_loop > up) {
        x->units = pbytes / gcd_u64(ub, pbytes); /* lcm(ub, pbytes) / ub */
        x->move_bytes = x->units * ub;
        x->warm_units = (cap + ub - 1) / ub + x->units;
    } else {
        /* the same footprint each loop: a move is one loop, in place */
        x->units = 1;
        x->move_bytes = 0;
        x->warm_units = 1;
        c->xs_loop_lines = s->size_bytes / (m->l1.line_bytes ? m->l1.line_bytes : 64);
    }
    x->next_snap = x->units;
    x->on = true;
    if (x->move_bytes && tlb_page > x->move_bytes) {
        uint64_t per = x->move_bytes / gcd_u64(x->move_bytes, tlb_page) * tlb_page; /* lcm */
        xs_level_t *z = &c->xs[2];
        *z = *x;
        z->units = per / ub;
        z->move_bytes = per;
        z->warm_units = x->warm_units > z->units ? x->warm_units : z->units;
        z->next_snap = z->units;
        z->on = per % ub == 0 && c->periods_per_loop / up > 2 * z->units;
    }
    if (extent && c->streaming) {
        xs_level_t *y = &c->xs[1];
        y->unit_periods = 1;
        y->unit_bytes = extent;
        y->units = pbytes / gcd_u64(extent, pbytes);
        y->move_bytes = y->units * extent;
        y->warm_units = (cap + extent - 1) / extent + y->units;
        y->next_snap = y->units;
        y->on = y->units < up;
    }
}

static void map_counters(const machine_t *m, run_result_t *out)
{
    out->n_counters = 0;
    /* The standard set first, in print order, then any other mapped event. */
    for (int i = 0; run_std_counters[i]; i++) {
        run_counter_t *c = &out->counters[out->n_counters++];
        snprintf(c->name, sizeof(c->name), "%s", run_std_counters[i]);
        c->supported = false;
        c->value = 0;
    }
    for (uint32_t j = 0; j < m->n_pmu; j++) {
        const machine_pmu_map_t *pm = &m->pmu[j];
        run_counter_t *c = NULL;
        for (uint32_t k = 0; k < out->n_counters; k++)
            if (strcmp(out->counters[k].name, pm->name) == 0)
                c = &out->counters[k];
        if (!c) {
            if (out->n_counters >= RUN_COUNTERS_MAX)
                continue;
            c = &out->counters[out->n_counters++];
            snprintf(c->name, sizeof(c->name), "%s", pm->name);
        }
        c->supported = pm->supported;
        if (!pm->supported)
            continue;
        double v = 0;
        for (uint32_t t = 0; t < pm->n_terms; t++)
            v += pm->terms[t].coef * (double)out->stats.count[pm->terms[t].event];
        c->value = v > 0 ? (uint64_t)llround(v) : 0;
    }
}

int run_predict(const machine_t *m, const wl_spec_t *spec, const run_opts_t *opts,
                run_result_t *out, char *err, size_t errlen)
{
    run_opts_t defaults;
    if (!opts) {
        run_opts_init(&defaults);
        opts = &defaults;
    }
    memset(out, 0, sizeof(*out));
    if (wl_validate(spec, m, err, errlen))
        return -1;
    model_t *md = model_create(m, opts->seed, err, errlen);
    if (!md)
        return -1;
    if (wl_base_kind(spec->kind) == WL_MMAP)
        model_set_mapping(md, RUN_DIRECT_MAP_PAGE_BYTES, spec->page_bytes);
    else
        model_set_mapping(md, spec->page_bytes ? spec->page_bytes : 4096,
                          spec->page_bytes ? spec->page_bytes : 4096);

    run_ctx_t ctx = {.md = md, .drain_at_roi = true};
    ctx.total_periods = expected_periods(spec, m);
    ff_setup(&ctx, m, spec, !opts->exact);
    model_set_fast_forward(md, !opts->exact);
    model_set_bulk(md, !opts->no_bulk);
    xs_setup(&ctx, m, spec,
             wl_base_kind(spec->kind) == WL_MMAP ? RUN_DIRECT_MAP_PAGE_BYTES
             : spec->page_bytes                  ? spec->page_bytes
                                                 : 4096,
             !opts->no_bulk);
    ctx.progress = progress_create("simulating", ctx.total_periods, opts->progress);
    trace_t *t = trace_create(run_sink, &ctx, true);
    if (!t) {
        errbuf_set(err, errlen, "out of memory");
        progress_destroy(ctx.progress);
        model_destroy(md);
        return -1;
    }
    int rc = wl_trace(spec, m, t, on_mark, &ctx, err, errlen);
    trace_flush(t);
    if (ctx.fskip)
        frame_settle(&ctx);
    trace_destroy(t);
    progress_destroy(ctx.progress);
    if (rc) {
        for (int k = 0; k < 3; k++)
            model_snap_destroy(ctx.xs[k].snap);
        model_destroy(md);
        return -1;
    }
    model_drain(md);
    stats_t end;
    model_stats(md, &end);
    if (!ctx.roi_started)
        memset(&ctx.roi_start, 0, sizeof(ctx.roi_start));
    stats_sub(&out->stats, &end, &ctx.roi_start);

    out->spec = *spec;
    snprintf(out->machine, sizeof(out->machine), "%s", m->name);
    cfg_machine_set_text(m, out->set, sizeof out->set);
    snprintf(out->machine_file_sha256, sizeof out->machine_file_sha256, "%s", m->file_sha256);
    out->bytes = wl_measured_bytes(spec);
    out->cycles = out->stats.count[ST_CYCLES];
    out->seconds = m->freq_ghz > 0 ? (double)out->cycles / (m->freq_ghz * 1e9) : 0;
    out->bytes_per_sec = out->seconds > 0 ? (double)out->bytes / out->seconds : 0;
    uint64_t loads = wl_measured_loads(spec);
    out->ns_per_load = loads ? out->seconds * 1e9 / (double)loads : 0;
    uint64_t skipped_lines, total_lines;
    double model_err;
    model_ff_report(md, &skipped_lines, &total_lines, &model_err);
    out->extrapolated = skipped_lines > 0 || ctx.skipped_periods > 0;
    double share = ctx.total_periods ? (double)ctx.skipped_periods / ctx.total_periods : 0;
    double eb = ctx.err * share;
    if (total_lines)
        eb += model_err * (double)skipped_lines / (double)total_lines;
    out->error_bound = eb;
    out->bulk_lines = model_bulk_lines(md) + ctx.xs_lines;
    for (int k = 0; k < 3; k++)
        model_snap_destroy(ctx.xs[k].snap);
    map_counters(m, out);
    model_destroy(md);
    return 0;
}
