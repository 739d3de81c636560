/*
 * model_bulk.c - exact bulk stepping of periodic streams, inside one long
 * operation and (through model_snap_*, driven by sim/engine/run.c) across
 * kernel calls (docs/MODEL.md "Exact bulk stepping").
 *
 * Notes
 *  - A long store, string or line-zeroing run over memory far larger than
 *    the caches reaches a state that repeats: one period of P lines later
 *    the caches hold the same lines moved P lines on, in the same recency
 *    order with the same dirty and prefetched bits; the prefetch streams
 *    (matched by age order), the miss-slot and write-combining queues,
 *    memory's servers, the commit ring and every timeline are the same
 *    moved by the period's time; write streaming is in the same phase. The model is
 *    deterministic, so from such a state every later period does exactly
 *    what the last one did. Applying N periods at once is then exact: each
 *    counter gains N times the period's delta, every line of the stream's
 *    range moves N x P lines on and every time N times the period's time.
 *  - It is proven by comparing states, never by comparing counters: a
 *    snapshot of the whole state is taken, one period is simulated, and the
 *    state is compared with the snapshot moved by the period (cache_snap_*,
 *    pf_same, mshr_same, dram_same, hier_snap_same, and the core's own part
 *    here). Times compare as timing_same says: relative to each state's
 *    issue time (times before it are past and cannot matter), within the
 *    rounding of times of that size.
 *  - The TLB is judged by its log instead (tlb_replay): the period's
 *    translations, with their hits and misses, are replayed for every
 *    period stepped on a copy, each moved by whole pages, and must hit or
 *    miss alike; a move that is not whole pages must stay on one page.
 *  - P is the largest set count of the cache levels (all powers of two), so
 *    a move keeps every line in its set, and at least the commit ring; a
 *    prefetch region that P is not a multiple of is never moved (pf_same).
 *  - Which lines move: those in the operation's (or workload's) own range
 *    [start, end); any other line (another buffer's, code's) must stay
 *    where it was, as must a whole level the stream does not fill.
 *  - Snapshots are taken at op lines P and 2P (a stream that allocates
 *    nothing repeats at once; the state of a failed comparison is the next
 *    snapshot when one is due), then once this op's lines alone can fill
 *    every level (before that, the lines the caches held before it are
 *    still there), then with gaps a quarter longer each time, at most
 *    BULK_MAX_CHECKS per operation. A failed comparison usually stops at
 *    its first set. (A first snapshot before P gains nothing on the usual
 *    sizes, multiples of P: the steps still end a whole number of periods
 *    from it, so short of the buffer's end.)
 *  - Never stepped over: where elision depends on the bytes left, the
 *    elision threshold at a string op's end (no other op elides); a
 *    write-streaming threshold; the end of a prefetch block or a TLB page a
 *    move would not keep. What stays behind (a prefetch stream the stream
 *    left) must lie outside the stretch the stream goes through; cache lines
 *    left in place ahead of it stop the step short of them (hierarchy.c
 *    stop_short).
 *  - What is not exact: bound.* attribution counts whole cycles of the
 *    rounded time, and a period's time is not a whole number of cycles. A
 *    step shares its cycles in proportion to the unrounded time each bound
 *    led in the period (share_cycles), but per-line simulation rounds at
 *    every advance, so up to one cycle per stepped period and bound may be
 *    counted under another bound.* counter than per-line simulation would
 *    (their sum stays the rounded time). Time itself agrees within the
 *    rounding of per-line simulation: it rounds each sum of times at the
 *    last place of the absolute time, so a later period lasts a little
 *    differently from the one judged (measured: a relative 7e-9 a period on
 *    1 GiB folios; the stated bound is a relative 1e-8, docs/MODEL.md).
 *  - A prefetcher still filling its slots may grow by a generation of left
 *    streams each period instead of repeating (pf_same_growing), and a cache
 *    level may be filled or drained by one line a set each period
 *    (cache_snap_grown); a step then takes at most the periods its free
 *    slots, free ways or like lines to drain allow (hier_moves_t's
 *    max_periods), and model_snap_step says how many it took. After a step
 *    that filled or drained a level, the next snapshot is due one period on
 *    (the level changes how it goes on).
 *  - Units: lines, bytes, core cycles.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/model_impl.h"

#define BULK_TOL_ULPS   1024.0     /* timing_same's tolerance, in DBL_EPSILON x |time| */
#define BULK_MAX_CHECKS 16u        /* failed comparisons before an op gives up */
#define BULK_MAX_REPLAY (1u << 26) /* TLB translations replayed at most per step */

/* A snapshot of the whole model state (what decides what it does next),
 * with the counters at that point. */
struct model_snap {
    bool have;
    hier_snap_t *h;
    mshr_t *wc, *lzq;
    uint64_t tlb_last_page;
    bool tlb_last_valid;
    bool tlb_logging;       /* holds one of the TLB log's users ... */
    uint64_t tlb_log_start; /* ... from this entry (its period's translations) */
    double t_front, t_issue, t_commit_last, t_dep, t_load_done, t_str_issued, loose_insns;
    bool str_pending;
    bool walk_pending; /* a load's walk in flight (model_t) */
    uint64_t walk_page;
    double walk_ready;
    stats_bound_t tag_front, tag_issue, tag_commit, tag_dep, tag_load, tag_pool;
    double ring[RING_LINES];
    stats_bound_t ring_tag[RING_LINES];
    uint64_t seq;
    pending_line_t pl;
    ws_t ws;
    stats_t st;
    double bound_time[ST_BOUND_COUNT];
};

struct model_bulk {
    bool on;
    uint64_t period_lines; /* P (0: this machine's model cannot be stepped) */
    uint64_t tail_lines;   /* never stepped over at a string op's end */
    uint64_t cap_lines;    /* lines all the cache levels hold */
    /* the current operation */
    uint64_t lo, hi;     /* its lines [lo, hi) */
    uint64_t op_tail;    /* its lines never stepped over at its end */
    uint64_t next_snap;  /* op_lines at which the next snapshot is taken */
    uint32_t op_checks;  /* comparisons made in it */
    uint64_t snap_lines; /* the snapshot's op_lines ... */
    uint64_t snap_addr;  /* ... and its next line */
    model_snap_t snap;
    /* tlb_replay's scratch, kept: a copy of the TLB and of a period's log */
    cache_t *tlb_copy;
    uint64_t *log_copy;
    uint64_t log_copy_cap;
    /* reported (between operations too) */
    uint64_t stepped_lines;
};
static void snap_free(model_snap_t *s)
{
    hier_snap_destroy(s->h);
    mshr_destroy(s->wc);
    mshr_destroy(s->lzq);
    s->h = NULL;
    s->wc = s->lzq = NULL;
    s->have = false;
}

/* The snapshot no longer needs the TLB's log (its period was judged, or it
 * is dropped); the log empties when nothing needs it. */
static void log_release(model_t *md, model_snap_t *s)
{
    if (!s->tlb_logging)
        return;
    s->tlb_logging = false;
    if (md->tlb.log_users && --md->tlb.log_users == 0) {
        md->tlb.log_n = 0;
        md->tlb.log_full = false;
    }
}

/* P, the hierarchy's period, at least the commit ring (which then moves
 * without rotating); the caches' lines; the tail: all the machine's. */
model_bulk_t *model_bulk_create(const model_t *md)
{
    model_bulk_t *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->on = true;
    uint64_t p = hier_bulk_period_lines(md->h);
    uint64_t lb = md->line_bytes;
    if (p && p < RING_LINES)
        p = RING_LINES;
    b->period_lines = p;
    const machine_t *m = md->m;
    b->cap_lines =
        (m->l1.size_bytes + m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0)) / lb;
    if (m->elide_enabled && m->elide_mode == MACHINE_ELIDE_REMAINING &&
        m->elide_threshold_bytes < UINT64_MAX / 2)
        b->tail_lines = (m->elide_threshold_bytes + lb - 1) / lb;
    return b;
}

void model_bulk_destroy(model_bulk_t *b)
{
    if (!b)
        return;
    snap_free(&b->snap);
    cache_destroy(b->tlb_copy);
    free(b->log_copy);
    free(b);
}

void model_set_bulk(model_t *md, bool on)
{
    if (md->bulk)
        md->bulk->on = on;
}

uint64_t model_bulk_lines(const model_t *md)
{
    return md->bulk ? md->bulk->stepped_lines : 0;
}

/* The op line of the next snapshot or comparison (model_impl.h's fast
 * path waits for it); the statistical fast-forward holds while one is due. */
static void set_due(model_t *md, const model_bulk_t *b)
{
    md->bulk_due = b->snap.have ? b->snap_lines + b->period_lines : b->next_snap;
    md->ff.hold = md->bulk_due != UINT64_MAX;
}

void model_bulk_op_begin(model_t *md, uint64_t start, uint64_t end, bool string_op)
{
    model_bulk_t *b = md->bulk;
    if (!b)
        return;
    uint64_t lb = md->line_bytes;
    b->lo = start / lb;
    b->hi = (end + lb - 1) / lb;
    b->op_tail = string_op ? b->tail_lines : 0; /* only string ops elide */
    md->bulk_op_lines = 0;
    b->op_checks = 0;
    b->snap.have = false;
    log_release(md, &b->snap);
    b->next_snap = b->on && b->period_lines ? b->period_lines : UINT64_MAX;
    set_due(md, b);
}

/* The TLB's pages of a move by dlines lines, or 0 with *pinned when the
 * move is not whole pages (the stream must then stay in the page it is in,
 * which does not change). */
static uint64_t tlb_dpages(const model_t *md, uint64_t dlines, bool *pinned)
{
    *pinned = false;
    if (!md->tlb.c)
        return 0;
    uint64_t bytes = dlines * md->line_bytes, pb = md->tlb.page_bytes;
    if (bytes % pb == 0)
        return bytes / pb;
    *pinned = true;
    return 0;
}

static bool take(model_t *md, model_snap_t *b)
{
    double floor_cycles = md->t_issue;
    b->h = hier_snap_take(md->h, b->h, floor_cycles);
    b->wc = mshr_clone(md->wc, b->wc);
    b->lzq = md->lzq != md->wc ? mshr_clone(md->lzq, b->lzq) : b->lzq;
    log_release(md, b);
    if (!b->h || !b->wc || (md->lzq != md->wc && !b->lzq)) {
        snap_free(b);
        return false;
    }
    if (md->tlb.c) {
        md->tlb.log_users++;
        b->tlb_logging = true;
        b->tlb_log_start = md->tlb.log_n;
    }
    b->tlb_last_page = md->tlb.last_page;
    b->tlb_last_valid = md->tlb.last_valid;
    b->t_front = md->t_front;
    b->t_issue = md->t_issue;
    b->t_commit_last = md->t_commit_last;
    b->t_dep = md->t_dep;
    b->t_load_done = md->t_load_done;
    b->t_str_issued = md->t_str_issued;
    b->str_pending = md->str_pending;
    b->walk_pending = md->walk_pending;
    b->walk_page = md->walk_page;
    b->walk_ready = md->walk_ready;
    b->loose_insns = md->loose_insns;
    b->tag_front = md->tag_front;
    b->tag_issue = md->tag_issue;
    b->tag_commit = md->tag_commit;
    b->tag_dep = md->tag_dep;
    b->tag_load = md->tag_load;
    b->tag_pool = md->tag_pool;
    memcpy(b->ring, md->ring, sizeof b->ring);
    memcpy(b->ring_tag, md->ring_tag, sizeof b->ring_tag);
    b->seq = md->seq;
    b->ws = md->ws;
    b->st = md->st;
    memcpy(b->bound_time, md->bound_time, sizeof b->bound_time);
    b->pl = md->pl;
    b->have = true;
    return true;
}

/* A load's walk that something may still wait for: pending and not done by
 * the issue's time (nothing after issues earlier). */
static bool walk_live(bool pending, double ready, double t_issue)
{
    return pending && ready > t_issue;
}

/* A translation (page) of the snapshot where the stream's move (dp pages)
 * takes it: moved when it lies in the window that moves. */
static uint64_t tlb_moved(const model_t *md, const hier_window_t *w, uint64_t dp, uint64_t page)
{
    if (page >= w->lo * md->line_bytes / md->tlb.page_bytes &&
        page < (w->hi * md->line_bytes + md->tlb.page_bytes - 1) / md->tlb.page_bytes)
        return page + dp;
    return page;
}

/* What a proven move moves: the hierarchy's parts, write streaming's run. */
typedef struct moves {
    hier_moves_t h;
    bool ws; /* write streaming's run moves with the stream */
} moves_t;

/* Is the model now the snapshot moved by the stream (w) and by its own
 * time? Fills *mv. */
static bool same(const model_t *md, const model_snap_t *b, const hier_window_t *w, moves_t *mv)
{
    timing_shift_t sh = {.floor_now = md->t_issue, .floor_then = b->t_issue};
    sh.tol_cycles = BULK_TOL_ULPS * DBL_EPSILON * fmax(1.0, fabs(md->t_issue));
    if (md->loose_insns != b->loose_insns)
        return false;
    /* the line being assembled: the same, moved with the stream */
    const pending_line_t *a = &md->pl, *q = &b->pl;
    if (a->valid != q->valid)
        return false;
    if (a->valid) {
        uint64_t lb = md->line_bytes, want = q->line;
        if (want / lb >= w->lo && want / lb < w->hi)
            want += w->dlines * lb;
        if (a->line != want || a->kind != q->kind || a->bytes != q->bytes || a->fill != q->fill ||
            dbits(a->stores) != dbits(q->stores) || dbits(a->insns) != dbits(q->insns))
            return false;
    }
    if (md->tag_front != b->tag_front || md->tag_issue != b->tag_issue ||
        md->tag_commit != b->tag_commit || md->tag_dep != b->tag_dep ||
        md->tag_load != b->tag_load || md->tag_pool != b->tag_pool)
        return false;
    if (!timing_same(md->t_front, b->t_front, &sh) ||
        !timing_same(md->t_commit_last, b->t_commit_last, &sh) ||
        !timing_same(md->t_dep, b->t_dep, &sh) ||
        !timing_same(md->t_load_done, b->t_load_done, &sh) || md->str_pending != b->str_pending ||
        (md->str_pending && !timing_same(md->t_str_issued, b->t_str_issued, &sh)))
        return false;
    /* write streaming: the same phase; the run's bytes moved by the period
     * (one run through it) or the same (a run per call) */
    const ws_t *ws = &md->ws, *v = &b->ws;
    mv->ws = ws->active && ws->bytes != v->bytes;
    if (ws->active != v->active || (!ws->active && ws->run != v->run) ||
        (mv->ws && ws->bytes != v->bytes + w->dlines * md->line_bytes))
        return false;
    /* The commit ring, as the window reads it: back from the next line.
     * Lines that committed none (non-temporal, line zeroing to memory)
     * leave it where it was. */
    if (md->seq != b->seq && (md->seq < RING_LINES || b->seq < RING_LINES))
        return false;
    uint64_t back = md->seq < RING_LINES ? md->seq : RING_LINES;
    for (uint64_t k = 1; k <= back; k++) {
        uint64_t i = (md->seq - k) % RING_LINES, j = (b->seq - k) % RING_LINES;
        if (md->ring_tag[i] != b->ring_tag[j] || !timing_same(md->ring[i], b->ring[j], &sh))
            return false;
    }
    if (!mshr_same(md->wc, b->wc, &sh) || (md->lzq != md->wc && !mshr_same(md->lzq, b->lzq, &sh)))
        return false;
    /* The TLB: the page of the last translation moved with the stream
     * (its contents are judged and moved by tlb_replay); a move it cannot
     * follow (not whole pages) must stay on one page. */
    if (md->tlb.c) {
        bool pinned;
        uint64_t dp = tlb_dpages(md, w->dlines, &pinned);
        if (!b->tlb_logging || md->tlb.log_full || (pinned && md->tlb.log_n != b->tlb_log_start))
            return false;
        if (md->tlb.last_valid != b->tlb_last_valid ||
            (md->tlb.last_valid && md->tlb.last_page != tlb_moved(md, w, dp, b->tlb_last_page)))
            return false;
        /* a load's walk in flight: on the page moved with the stream, as
         * far ahead; one done by the issue's time is none (walk_live) */
        const bool live = walk_live(md->walk_pending, md->walk_ready, md->t_issue),
                   was = walk_live(b->walk_pending, b->walk_ready, b->t_issue);
        if (live != was || (live && (md->walk_page != tlb_moved(md, w, dp, b->walk_page) ||
                                     !timing_same(md->walk_ready, b->walk_ready, &sh))))
            return false;
    }
    return hier_snap_same(md->h, b->h, w, &sh, &mv->h);
}

/* The TLB over n more periods: its translations are the logged ones of the
 * period judged (b's), each period's moved one more period's pages on.
 * They are replayed on a copy, and each must hit or miss as it did in the
 * judged period (else the periods would not all do the same); then the
 * copy is the TLB. The log also makes the TLB need no period of its own
 * (a TLB set span) and no steady state: a TLB still filling up misses on
 * every new page in each period alike. */
static bool tlb_replay(model_t *md, const model_snap_t *b, uint64_t n, uint64_t dlines)
{
    if (!md->tlb.c)
        return true;
    bool pinned;
    uint64_t dp = tlb_dpages(md, dlines, &pinned);
    uint64_t len = md->tlb.log_n - b->tlb_log_start;
    if (len == 0)
        return true;
    if (pinned || (double)len * (double)n > BULK_MAX_REPLAY)
        return false;
    model_bulk_t *bb = md->bulk;
    if (!bb->tlb_copy || !cache_copy(bb->tlb_copy, md->tlb.c)) {
        cache_destroy(bb->tlb_copy);
        bb->tlb_copy = cache_clone(md->tlb.c);
        if (!bb->tlb_copy)
            return false;
    }
    if (len > bb->log_copy_cap) {
        uint64_t *q = realloc(bb->log_copy, (size_t)len * sizeof(uint64_t));
        if (!q)
            return false;
        bb->log_copy = q;
        bb->log_copy_cap = len;
    }
    cache_t *c = bb->tlb_copy;
    uint64_t *log = bb->log_copy;
    /* a copy: the replayed translations go on the log too, for a snapshot
     * of a longer period that holds it (across calls, around this op) */
    memcpy(log, md->tlb.log + b->tlb_log_start, (size_t)len * sizeof(uint64_t));
    uint64_t mark = md->tlb.log_n;
    bool ok = true;
    uint64_t pb = md->tlb.page_bytes;
    for (uint64_t k = 1; k <= n && ok; k++) {
        for (uint64_t i = 0; i < len; i++) {
            uint64_t page = (log[i] >> 1) + k * dp;
            bool missed = cache_lookup(c, page * pb, true) == NULL;
            if (missed) {
                cache_meta_t meta = {0};
                cache_victim_t v;
                cache_insert(c, page * pb, &meta, &v);
            }
            if (missed != (log[i] & 1)) {
                ok = false;
                break;
            }
            if (md->tlb.log_users > 1)
                tlb_log_add(&md->tlb, page, missed);
        }
        /* One period replayed left the TLB it found moved by its pages:
         * every later one does the same (what the periods translate is the
         * same moved), so the rest is that move (not when the replayed
         * translations must go on the log too). */
        if (ok && k == 1 && n > 1 && md->tlb.log_users <= 1 && cache_tags_moved(md->tlb.c, c, dp)) {
            cache_move(c, (n - 1) * dp, 0, UINT64_MAX, 0);
            break;
        }
    }
    if (!ok) {
        md->tlb.log_n = mark; /* (nothing was applied) */
        return false;
    }
    bb->tlb_copy = md->tlb.c; /* the old TLB is the next scratch */
    md->tlb.c = c;
    md->tlb.last_page += n * dp;
    if (walk_live(md->walk_pending, md->walk_ready, md->t_issue))
        md->walk_page += n * dp; /* its time moved with the model's (model_shift_time) */
    else
        md->walk_pending = false;
    return true;
}

/* Count `cycles` under the bounds in proportion to x (their sum xs) by
 * largest remainder; with no time to go by, all under bound `big`. */
static void share_cycles(model_t *md, uint64_t cycles, const double *x, double xs, int big)
{
    uint64_t given[ST_BOUND_COUNT] = {0}, sum = 0;
    double rem[ST_BOUND_COUNT] = {0};
    if (!(xs > 0)) {
        given[big] = sum = cycles;
    } else {
        for (int i = 0; i < ST_BOUND_COUNT; i++) {
            double q = (double)cycles * (x[i] / xs);
            given[i] = (uint64_t)floor(q);
            rem[i] = q - floor(q);
            sum += given[i];
        }
        if (sum > cycles) { /* rounding of q: the excess comes off the largest */
            int top = 0;
            for (int i = 1; i < ST_BOUND_COUNT; i++)
                if (given[i] > given[top])
                    top = i;
            given[top] -= sum - cycles;
            sum = cycles;
        }
    }
    for (; sum < cycles; sum++) {
        int top = 0;
        for (int i = 1; i < ST_BOUND_COUNT; i++)
            if (rem[i] > rem[top])
                top = i;
        given[top]++;
        rem[top] = -1;
    }
    for (int i = 0; i < ST_BOUND_COUNT; i++)
        md->st.count[ST_BOUND_STORE_ISSUE + i] += given[i];
    md->bound_assigned += cycles;
}

/* Apply n more periods of what the last one did. */
static void step(model_t *md, const model_snap_t *b, uint64_t n, const hier_window_t *w,
                 const moves_t *mv)
{
    stats_t d;
    stats_sub(&d, &md->st, &b->st);
    double dt = (double)n * (md->t_issue - b->t_issue);
    uint64_t dl = n * w->dlines;
    /* bound.* are not the period's whole cycles times n (below) */
    double x[ST_BOUND_COUNT], xs = 0;
    int big = 0;
    for (int i = 0; i < ST_BOUND_COUNT; i++) {
        x[i] = (double)n * (md->bound_time[i] - b->bound_time[i]);
        if (!(x[i] > 0))
            x[i] = 0;
        xs += x[i];
        if (d.count[ST_BOUND_STORE_ISSUE + i] > d.count[ST_BOUND_STORE_ISSUE + big])
            big = i;
        d.count[ST_BOUND_STORE_ISSUE + i] = 0;
    }
    model_i_add_stats(md, &d, n);
    /* the ring: the lines committed move on by n periods' worth */
    uint64_t dseq = n * (md->seq - b->seq);
    if (dseq % RING_LINES) {
        double r[RING_LINES];
        stats_bound_t rt[RING_LINES];
        for (uint64_t k = 1; k <= RING_LINES; k++) {
            r[(md->seq + dseq - k) % RING_LINES] = md->ring[(md->seq - k) % RING_LINES];
            rt[(md->seq + dseq - k) % RING_LINES] = md->ring_tag[(md->seq - k) % RING_LINES];
        }
        memcpy(md->ring, r, sizeof r);
        memcpy(md->ring_tag, rt, sizeof rt);
    }
    md->seq += dseq;
    model_i_shift_core_time(md, dt);
    hier_move(md->h, &mv->h, dl, w->lo, w->hi, dt);
    if (mv->ws)
        ws_ff_skip(&md->ws, dl);
    if (md->pl.valid && md->pl.line / md->line_bytes >= w->lo &&
        md->pl.line / md->line_bytes < w->hi)
        md->pl.line += dl * md->line_bytes;
    /* bound.*: their sum is the rounded time (advance). The n periods'
     * cycles go to the bounds in proportion to the time each led in the
     * period, unrounded, in whole cycles by largest remainder. One period's
     * whole cycles times n would be off by up to n cycles: a period's time is
     * not whole cycles, and where its cycle edges fall moves from period to
     * period. */
    int64_t target = (int64_t)(model_bound_now(md) + 0.5) - (int64_t)md->bound_assigned;
    if (target > 0)
        share_cycles(md, (uint64_t)target, x, xs, big);
    for (int i = 0; i < ST_BOUND_COUNT; i++)
        md->bound_time[i] += x[i];
}

/* Lines from `line` that a move by dlines keeps exact: to the end of the
 * prefetch block or TLB page it cannot move (UINT64_MAX: no such end). */
static uint64_t room_lines(const model_t *md, uint64_t line, uint64_t dlines)
{
    uint64_t room = hier_bulk_room(md->h, line, dlines);
    bool pinned;
    tlb_dpages(md, dlines, &pinned);
    if (pinned) {
        uint64_t pl = md->tlb.page_bytes / md->line_bytes;
        uint64_t r = pl ? (line / pl + 1) * pl - line : 0;
        room = r < room ? r : room;
    }
    return room;
}

/* How many periods a proven move may apply from the line at next_addr with
 * rem lines left: never into the tail, past a write-streaming threshold,
 * or out of a prefetch block or TLB page a move would not keep (the next
 * period must fit as well). */
static uint64_t plan_steps(const model_t *md, const model_bulk_t *b, uint64_t next_addr,
                           uint64_t rem)
{
    uint64_t p = b->period_lines, lb = md->line_bytes;
    uint64_t n = (rem - b->op_tail) / p;
    uint64_t ws_room = ws_ff_max_lines(&md->ws);
    if (ws_room != UINT64_MAX && ws_room / p < n)
        n = ws_room / p;
    uint64_t room = room_lines(md, next_addr / lb, p);
    if (room != UINT64_MAX) {
        uint64_t fit = room / p > 0 ? room / p - 1 : 0;
        n = fit < n ? fit : n;
    }
    return n;
}

static uint64_t bulk_event(model_t *md, model_bulk_t *b, uint64_t next_addr, uint64_t rem_bytes);

/* Take the snapshot now and plan the one after: P, 2P; then once the caches
 * can have been refilled by this op alone (before, the lines they held
 * before it are still there); then each gap a quarter longer. */
static void snap_now(model_t *md, model_bulk_t *b, uint64_t next_addr)
{
    uint64_t p = b->period_lines;
    if (b->next_snap < 2 * p)
        b->next_snap = 2 * p;
    else if (b->next_snap < b->cap_lines + p)
        b->next_snap = b->cap_lines + p;
    else
        b->next_snap += b->next_snap / 4 > p ? b->next_snap / 4 / p * p : p;
    if (!take(md, &b->snap)) {
        b->on = false; /* out of memory: simulate every line */
        b->next_snap = UINT64_MAX;
    }
    b->snap_lines = md->bulk_op_lines;
    b->snap_addr = next_addr;
}

uint64_t model_bulk_event(model_t *md, uint64_t next_addr, uint64_t rem_bytes)
{
    model_bulk_t *b = md->bulk;
    uint64_t skip = bulk_event(md, b, next_addr, rem_bytes);
    set_due(md, b);
    return skip;
}

static uint64_t bulk_event(model_t *md, model_bulk_t *b, uint64_t next_addr, uint64_t rem_bytes)
{
    uint64_t p = b->period_lines, lb = md->line_bytes;
    uint64_t rem = rem_bytes / lb;
    if (rem < b->op_tail + p) {
        b->next_snap = UINT64_MAX; /* too little left to step */
        b->snap.have = false;
        log_release(md, &b->snap);
        return 0;
    }
    if (!b->snap.have) {
        snap_now(md, b, next_addr);
        return 0;
    }
    b->snap.have = false;
    uint64_t n = plan_steps(md, b, next_addr, rem);
    if (n == 0 || next_addr != b->snap_addr + p * lb)
        return 0;
    /* The window: from the snapshot's next line to the line after the n
     * periods and one more (what stays behind must lie outside it). */
    hier_window_t w = {.dlines = p, .lo = b->lo, .hi = b->hi, .wlo = b->snap_addr / lb};
    w.next = next_addr / lb;
    w.whi = w.next + (n + 1) * p;
    moves_t mv;
    bool ok = same(md, &b->snap, &w, &mv);
    if (ok && n > mv.h.max_periods)
        n = mv.h.max_periods; /* a prefetcher runs out of free slots */
    ok = ok && tlb_replay(md, &b->snap, n, p);
    log_release(md, &b->snap);
    if (!ok) {
        if (++b->op_checks >= BULK_MAX_CHECKS)
            b->next_snap = UINT64_MAX; /* give up on this op */
        else if (b->next_snap <= md->bulk_op_lines)
            snap_now(md, b, next_addr); /* due: this state is the next snapshot */
        return 0;
    }
    step(md, &b->snap, n, &w, &mv);
    b->stepped_lines += n * p;
    md->ff.total_lines += n * p + 1; /* and this line, which ff does not see */
    md->ff.op_lines += n * p + 1;
    model_ff_resume(&md->ff, &md->st, model_now(md));
    md->bulk_op_lines += n * p;
    /* Once per operation is enough, but for a step that filled or drained
     * a level: the stream goes on differently after it (a full level
     * evicts, a drained one evicts the stream's own lines). The period
     * after the step is the change; the next snapshot is due after it. */
    bool grew = mv.h.l1 == 2 || mv.h.l2 == 2 || mv.h.l3 == 2;
    b->next_snap = grew ? md->bulk_op_lines + p : UINT64_MAX;
    return n * p * lb;
}

/* ---- between operations (sim/engine/run.c) ------------------------------- */

model_snap_t *model_snap_create(void)
{
    return calloc(1, sizeof(model_snap_t));
}

void model_snap_destroy(model_snap_t *s)
{
    if (!s)
        return;
    snap_free(s);
    free(s);
}

void model_snap_drop(model_t *md, model_snap_t *s)
{
    if (!s)
        return;
    log_release(md, s);
    s->have = false;
}

uint64_t model_snap_period_bytes(model_t *md)
{
    model_bulk_t *b = md->bulk;
    if (!b || !b->on)
        return 0;
    return b->period_lines * md->line_bytes;
}

int model_snap_take(model_t *md, model_snap_t *s)
{
    if (!model_snap_period_bytes(md) || !take(md, s))
        return -1;
    return 0;
}

uint64_t model_snap_room_bytes(model_t *md, uint64_t next_addr, uint64_t dbytes)
{
    uint64_t lb = md->line_bytes;
    if (!dbytes || dbytes % lb)
        return 0;
    uint64_t room = room_lines(md, next_addr / lb, dbytes / lb);
    return room == UINT64_MAX ? UINT64_MAX : room * lb;
}

uint64_t model_snap_step(model_t *md, model_snap_t *s, uint64_t dbytes, uint64_t lo, uint64_t hi,
                         uint64_t from_addr, uint64_t next_addr, uint64_t n)
{
    model_bulk_t *b = md->bulk;
    uint64_t lb = md->line_bytes;
    if (!s->have || !b || !b->on || n == 0 || dbytes % lb)
        return 0;
    s->have = false;
    hier_window_t w = {.dlines = dbytes / lb, .lo = lo / lb, .hi = (hi + lb - 1) / lb};
    w.wlo = from_addr / lb;
    w.next = next_addr / lb;
    w.whi = w.next + (n + 1) * w.dlines;
    moves_t mv;
    bool ok = same(md, s, &w, &mv);
    if (ok && n > mv.h.max_periods)
        n = mv.h.max_periods; /* a prefetcher runs out of free slots */
    /* a write-streaming run moving with the stream must not reach its next
     * threshold */
    if (ok && mv.ws && ws_ff_max_lines(&md->ws) / (w.dlines ? w.dlines : 1) < n)
        ok = false;
    ok = ok && tlb_replay(md, s, n, w.dlines);
    log_release(md, s);
    if (!ok)
        return 0;
    step(md, s, n, &w, &mv);
    b->stepped_lines += n * w.dlines;
    model_ff_resume(&md->ff, &md->st, model_now(md));
    return n;
}
