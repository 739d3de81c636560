/*
 * model_impl.h - the model's state and the timeline helpers its stages
 * share (models/model.c: issue, lines, the string engine, line zeroing,
 * fences and stalls): the commit ring, the store-buffer window and the
 * bottleneck attribution of each timeline (docs/MODEL.md "Bottleneck
 * attribution").
 *
 * Notes
 *  - Private to models/model.c and models/model_bulk.c; inline, as these sit on the per-line path.
 */
#ifndef CLEARSIM_MODEL_IMPL_H
#define CLEARSIM_MODEL_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "models/base/machine.h"
#include "models/hierarchy.h"
#include "models/model.h"
#include "models/model_ff.h"
#include "models/mshr.h"
#include "models/stats.h"
#include "models/timing.h"
#include "models/tlb.h"
#include "models/write_stream.h"

#define RING_LINES 4096u /* commit-time history; bounds any lookahead */

typedef enum line_kind { LK_STORE = 0, LK_NT, LK_LOAD } line_kind_t;

/* The line being assembled from store/load ops. */
typedef struct pending_line {
    bool valid;
    line_kind_t kind;
    uint64_t line;  /* line-aligned address */
    uint32_t bytes; /* bytes written/read in it */
    double stores;  /* store/load instructions */
    double insns;   /* other instructions attributed to it */
    uint8_t fill;
} pending_line_t;

struct model {
    const machine_t *m;
    stats_t st;
    hier_t *h;
    mshr_t *wc;
    mshr_t *lzq; /* line zeroing's buffers (line_zero.buffers), or wc */
    tlb_t tlb;
    uint32_t line_bytes;
    double cyc_per_ns;

    double t_front;       /* front end: next instruction slot */
    double t_issue;       /* store issue */
    double t_commit_last; /* last line committed to L1 */
    double t_wc_last;     /* last WC line accepted */
    double t_dep;         /* when the data of the last dependent load arrives */
    double t_load_done;   /* when the data of every streaming load so far has arrived */
    double t_str_issued;  /* when the last string op issued its last line ... */
    bool str_pending;     /* ... and no string op has translated since: the next may start then */
    bool walk_pending;    /* a streaming load's walk, which issue did not wait for: */
    uint64_t walk_page;   /* ... its translation (tlb_page_of) ... */
    double walk_ready;    /* ... and when it is done; what uses the page first waits for it */
    double ring[RING_LINES];
    uint64_t seq; /* lines committed so far */

    pending_line_t pl;
    double loose_insns; /* TRACE_INSNS not yet attributed to a line */

    /* store_line's per-line quantities that depend only on the line's
     * (bytes, stores, insns), kept for the last such triple: the lines of
     * one run all have the same, and this saves their divisions and
     * roundings. Keys are the doubles' bits, so a hit gives the very same
     * values. */
    struct {
        bool valid;
        uint32_t bytes;
        uint64_t stores_bits, insns_bits;
        double issue_cycles; /* stores / stores_per_cycle (0 if no rate) */
        double front_cycles; /* (stores + insns) / insns_per_cycle */
        double port_cycles;  /* port_cycles(bytes, stores) */
        uint64_t la;         /* store-buffer window in lines */
        uint64_t accesses;   /* L1 accesses */
    } slm;
    bool front_memo_valid; /* front(): the last n (bits) and n / insns_per_cycle */
    uint64_t front_memo_bits;
    double front_memo_cycles;

    model_ff_t ff;          /* fast-forward inside long operations */
    model_bulk_t *bulk;     /* exact bulk stepping (models/model_bulk.c) */
    uint64_t bulk_op_lines; /* lines of the current operation so far */
    uint64_t bulk_due;      /* ... at which bulk stepping acts next (UINT64_MAX: never) */
    ws_t ws;                /* write streaming */

    /* Attribution (docs/MODEL.md "Bottleneck attribution"): the resource
     * that last set each timeline, of each committed line, and of the
     * write-combining path's latest completion; the bound cycles counted
     * so far (their sum). */
    stats_bound_t tag_front, tag_issue, tag_commit, tag_dep, tag_load, tag_pool;
    stats_bound_t ring_tag[RING_LINES];
    uint64_t bound_assigned;
    /* The same attribution unrounded: the time each bound led (cycles) and
     * the time accounted so far. Exact bulk stepping scales these, not one
     * period's whole cycles (models/model_bulk.c step()). */
    double bound_time[ST_BOUND_COUNT];
    double bound_now;
    const stats_bound_t *hwhy; /* hier_why_at(h) */
};

#define B(ev) STATS_BOUND(ev)

/* The model's time: the latest of its timelines. */
static inline double model_now(const model_t *md)
{
    return timing_max(timing_max(timing_max(md->t_issue, md->t_dep), md->t_load_done),
                      timing_max(md->t_front, md->t_commit_last));
}

/* The time the bounds have counted to: the latest of the timelines that
 * something waits for. Nothing waits for a streaming load's data before the
 * drain (the model uses no load's value), so while it runs, the data that
 * leads the issue by its latency names no bound: the issue's does; the
 * drain counts the last data's lead (model_drain). */
static inline double model_bound_now(const model_t *md)
{
    return timing_max(timing_max(md->t_issue, md->t_dep),
                      timing_max(md->t_front, md->t_commit_last));
}

/* model_shift_time() without the hierarchy (whose times bulk stepping
 * moves with its lines, in one pass: hier_move). Inline here so that the
 * files below model.c (model_bulk.c) answer without calling back into it. */
static inline void model_i_shift_core_time(model_t *md, double dt)
{
    md->t_front += dt;
    md->t_issue += dt;
    md->t_commit_last += dt;
    md->t_wc_last += dt;
    md->t_dep += dt;
    md->t_load_done += dt;
    md->t_str_issued += dt;
    md->walk_ready += dt;
    for (uint32_t i = 0; i < RING_LINES; i++)
        md->ring[i] += dt;
    mshr_shift_time(md->wc, dt);
    if (md->lzq != md->wc)
        mshr_shift_time(md->lzq, dt);
    md->ff.tsnap += dt;
    md->bound_now += dt; /* a shift's cycles are counted by whoever shifts */
}

/* model_add_stats() (models/model.h): delta x n added to the counters. */
static inline void model_i_add_stats(model_t *md, const stats_t *delta, uint64_t n)
{
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        if (e == ST_CYCLES)
            continue; /* cycles follow the time, moved by model_shift_time */
        md->st.count[e] += delta->count[e] * n;
        md->st.bytes[e] += delta->bytes[e] * n;
        if (e >= ST_BOUND_STORE_ISSUE && e < ST_BOUND_STORE_ISSUE + ST_BOUND_COUNT)
            md->bound_assigned += delta->count[e] * n;
    }
}

/* Exact bulk stepping (models/model_bulk.c). */
model_bulk_t *model_bulk_create(const model_t *md); /* after the hierarchy */
void model_bulk_destroy(model_bulk_t *b);
/* An operation covering [start, end) begins. */
void model_bulk_op_begin(model_t *md, uint64_t start, uint64_t end, bool string_op);
/* After a line of it, with the next line at next_addr and rem_bytes left:
 * the bytes stepped over (0: none); the model is then where per-line
 * simulation would have taken it. model_bulk_event does the work when a
 * snapshot or comparison is due. */
uint64_t model_bulk_event(model_t *md, uint64_t next_addr, uint64_t rem_bytes);
static inline uint64_t model_bulk_after_line(model_t *md, uint64_t next_addr, uint64_t rem_bytes)
{
    if (++md->bulk_op_lines < md->bulk_due)
        return 0;
    return model_bulk_event(md, next_addr, rem_bytes);
}

/* ceil(x), inline for the positive values below 2^52 that the per-line
 * paths pass (there the conversion to an integer is exact); everything else
 * (zeros, negatives, huge values, NaN) goes to libm, so the result is
 * always ceil's. */
static inline double model_ceil(double x)
{
    if (x > 0 && x < 4503599627370496.0) {
        double i = (double)(int64_t)x;
        return i < x ? i + 1 : i;
    }
    return ceil(x);
}

static inline void bump(model_t *md, stats_event_t e, uint64_t n, uint64_t bytes)
{
    md->st.count[e] += n;
    md->st.bytes[e] += bytes;
}

static inline uint64_t dbits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Commit time of the line `back` lines before the next one. */
static inline double window(const model_t *md, uint64_t back)
{
    if (back == 0 || md->seq < back)
        return 0;
    if (back > RING_LINES)
        back = RING_LINES;
    return md->ring[(md->seq - back) % RING_LINES];
}

/* What bounded window(md, back): the bound of that line's commit. */
static inline stats_bound_t window_why(const model_t *md, uint64_t back)
{
    if (back == 0 || md->seq < back)
        return STATS_BOUND_NONE;
    if (back > RING_LINES)
        back = RING_LINES;
    return md->ring_tag[(md->seq - back) % RING_LINES];
}

static inline void commit(model_t *md, double t, stats_bound_t why)
{
    md->ring[md->seq % RING_LINES] = t;
    md->ring_tag[md->seq % RING_LINES] = why;
    md->seq++;
    md->t_commit_last = t;
    md->tag_commit = why;
}

/* The commit of a line whose ownership arrived at `ready` (bounded by
 * ready_why) and that takes `cycles` of the commit path (bounded by
 * cycles_why) after the previous line's. */
static inline void commit_after(model_t *md, double ready, stats_bound_t ready_why, double cycles,
                                stats_bound_t cycles_why)
{
    stats_bound_t why = ready > md->t_commit_last ? ready_why
                        : cycles > 0              ? cycles_why
                                                  : md->tag_commit;
    commit(md, timing_max(ready, md->t_commit_last) + cycles, why);
}

/* Count the cycles `now` moved past the bound cycles counted so far under
 * the bound of the timeline that leads (model_bound_now: the latest of the
 * timelines but the streaming loads' data). Integer cycles: their sum stays
 * the rounded time once the drain has counted that data too. */
static inline void advance(model_t *md)
{
    double now = md->t_commit_last;
    stats_bound_t why = md->tag_commit;
    if (md->t_issue > now) {
        now = md->t_issue;
        why = md->tag_issue;
    }
    if (md->t_front > now) {
        now = md->t_front;
        why = md->tag_front;
    }
    if (md->t_dep > now) {
        now = md->t_dep;
        why = md->tag_dep;
    }
    if (!(now > 0))
        return;
    if (why >= ST_BOUND_COUNT)
        why = B(ST_BOUND_OTHER);
    if (now > md->bound_now) {
        md->bound_time[why] += now - md->bound_now;
        md->bound_now = now;
    }
    int64_t n = (int64_t)(now + 0.5) - (int64_t)md->bound_assigned;
    if (n <= 0)
        return;
    md->st.count[ST_BOUND_STORE_ISSUE + why] += (uint64_t)n;
    md->bound_assigned += (uint64_t)n;
}

#endif
