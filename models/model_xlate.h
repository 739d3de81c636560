/*
 * model_xlate.h - translation in the model (models/model.c): what a TLB
 * miss costs the access that takes it and those behind it.
 *
 * Notes
 *  - A store that misses stalls issue for tlb.walk; a write that reads
 *    nothing first on a guest's host page (tlb.host_page) stalls it for its
 *    kind's host miss instead (model_xl_write).
 *  - A streaming load that misses does not stall issue: its walk holds the
 *    load's request, and whatever uses that page next waits for it
 *    (model_xl_load, model_xl_wait); one walk is in flight at a time
 *    (docs/MODEL.md section 8, "A load's walk in flight").
 *  - Private to models/model.c; inline, as these sit on the per-line path.
 *  - Units: core cycles; host_ns in ns.
 */
#ifndef CLEARSIM_MODEL_XLATE_H
#define CLEARSIM_MODEL_XLATE_H

#include <stdint.h>

#include "models/model_impl.h"
#include "models/tlb.h"

/* An access at t that found its translation in the TLB: if a streaming
 * load's walk put it there and is not done, the access waits for it.
 * Returns when it may go on (*why: the walks, when it waited). */
static inline double model_xl_wait(model_t *md, uint64_t addr, double t, stats_bound_t *why)
{
    if (!md->walk_pending || tlb_page_of(&md->tlb, addr) != md->walk_page)
        return t;
    if (!(md->walk_ready > t)) {
        md->walk_pending = false; /* done before anything needed it */
        return t;
    }
    *why = B(ST_BOUND_TLB_WALKS);
    return md->walk_ready;
}

/* Translate at t for an access that stalls issue for its walk (a temporal
 * store, a chase's load): returns when issue may go on (*why: the walks,
 * when it waited), tlb.walk after t on a miss, else any load's walk in
 * flight on the page. */
static inline double model_xl_stall(model_t *md, uint64_t addr, double t, bool store,
                                    stats_bound_t *why)
{
    double walk = tlb_access(&md->tlb, addr, store);
    if (!(walk > 0))
        return model_xl_wait(md, addr, t, why);
    *why = B(ST_BOUND_TLB_WALKS);
    return t + walk;
}

/* Translate a write at time t; returns when issue may go on. A miss stalls
 * issue for tlb.walk. A miss of a host's page (tlb.host_page) by a write
 * that reads nothing first (a non-temporal store, a line-zeroing command
 * that goes to memory) or by a string op stalls it instead until host_ns,
 * this kind of write's cost, after `from` (the walk's start: t, or for a
 * string op's first line the end of the previous string op's issue), while
 * the lines already buffered keep draining. On the Zen 5 guest a 4 KiB page
 * of such a stream took its issue time plus the miss, or its link time when
 * that was longer, a load that took the miss first removed it, and 4 KiB
 * rep stosb calls did not pay it (docs/MODEL.md section 13,
 * data/native/ahead_kernels.sh). */
static inline double model_xl_write(model_t *md, uint64_t addr, double t, double host_ns,
                                    double from, stats_bound_t *why)
{
    if (!tlb_miss(&md->tlb, addr, true))
        return model_xl_wait(md, addr, t, why);
    if (!md->tlb.host || !(host_ns > 0)) {
        if (md->m->tlb_walk_cycles > 0)
            *why = B(ST_BOUND_TLB_WALKS);
        return t + md->m->tlb_walk_cycles;
    }
    bump(md, ST_TLB_HOST_MISSES, 1, 0);
    const double cost = host_ns * md->cyc_per_ns;
    md->st.count[ST_BUSY_HOST_MISSES] += (uint64_t)cost; /* whole cycles */
    double done = timing_min(from, t) + cost;
    if (done > t)
        *why = B(ST_BOUND_HOST_MISSES);
    return timing_max(t, done);
}

/* A streaming load's line, issued at *t: returns when its request may go
 * (*rwhy: what held it). A miss's walk holds the request, not the issue of
 * the work behind it (an out-of-order core goes on); what uses the page
 * next waits for the walk (model_xl_wait). One walk is in flight: a miss
 * behind another's unfinished walk waits for it first, and so does its
 * issue (*t, *why), else the first page would need no walk. */
static inline double model_xl_load(model_t *md, uint64_t line, double *t, stats_bound_t *why,
                                   stats_bound_t *rwhy)
{
    *rwhy = *why;
    double walk = tlb_access(&md->tlb, line, false);
    if (!(walk > 0))
        return model_xl_wait(md, line, *t, rwhy);
    if (md->walk_pending && md->walk_ready > *t) {
        *t = md->walk_ready;
        *why = B(ST_BOUND_TLB_WALKS);
    }
    md->walk_pending = true;
    md->walk_page = tlb_page_of(&md->tlb, line);
    md->walk_ready = *t + walk;
    *rwhy = B(ST_BOUND_TLB_WALKS);
    return md->walk_ready;
}

#endif
