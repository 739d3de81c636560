/*
 * hierarchy.c - the cache hierarchy's timing and traffic.
 *
 * Notes
 *  - What it models:
 *    - L1 fill buffers and the L2 miss queue as MSHR pools (models/mshr.c):
 *      a miss waits for a free slot and holds it until its data arrives;
 *    - hit latencies of L2 and L3 (load-to-use, from the L1 miss) and the
 *      bandwidth of L3->L2 and L2->L1 fills as FIFO servers;
 *    - where a line is found, where it is filled, and which evictions write
 *      back, under inclusive / non-inclusive / victim L3;
 *    - RFO (read the line) versus ownership without a read: the latter pays
 *      the round trip to wherever the line lives but moves no data;
 *    - stream prefetchers at L1 (into L1) and L2 (into L2), trained on the
 *      demand stream each level sees (stores included unless the level's
 *      prefetch.stores is false: Intel's L1 prefetchers follow loads only);
 *    - lines in flight: a line is inserted at request time with the time its
 *      data arrives (cache_meta_t.ready_cycles); a later hit waits for it.
 *    - L1 write-backs into L2: on a path of their own, not bounded, or with
 *      l2.writeback_link shared on the fill link, one line's transfer each
 *      (an L2 victim always takes the L3 link's);
 *  - What it ignores: coherence with other cores, bank conflicts, and L3
 *    miss slots (the memory link's bandwidth and the L2 miss queue bound a
 *    single core first).
 *  - It uses the cache arrays through models/cache_impl.h (the inline forms
 *    of cache.h's functions, metadata passed as fields), the prefetchers
 *    through models/prefetch_impl.h, the miss slots through
 *    models/mshr_impl.h and the memory path through models/dram_impl.h, so
 *    that the lookups, stream steps, slot updates and memory requests of its
 *    per-line path are inlined; the steps of that path (HIER_HOT) are
 *    inlined into their callers too. Before each L3 access of that path it
 *    asks the host to prefetch the L3's set block a few sets on
 *    (cache_i_prefetch): a hint, for a simulated L3 larger than the host's.
 *  - Units: core cycles; bytes.
 */
#include "models/timing.h"
#include "models/base/errbuf.h"
#include "models/hierarchy.h"

#include <stdio.h>
#include <stdlib.h>

#include "models/cache_impl.h"
#include "models/dram.h"
#include "models/dram_impl.h"
#include "models/mshr.h"
#include "models/mshr_impl.h"
#include "models/prefetch.h"
#include "models/prefetch_impl.h"

#define PF_MAX 64

struct hier {
    const machine_t *m;
    stats_t *st;
    cache_t *l1, *l2, *l3;
    machine_inclusion_t incl;
    mshr_t *mq1, *mq2;
    pf_t *pf1, *pf2;
    dram_t *dram;
    uint32_t line_bytes;
    bool pf1_stores, pf2_stores; /* lN.prefetch.stores: stores train that prefetcher */
    bool zeros; /* lines of zeros are kept apart (memory.zero_writeback_fraction < 1) */
    double lat1, lat2, lat3, lat_mem; /* cycles */
    double cpl21, cpl32;              /* fill servers: cycles per line */
    bool wb21;                        /* l2.writeback_link shared: L1 victims take cpl21 */
    double free21, free32;
    double foreign_per_set; /* l3.foreign_fills: other cores' lines a cycle into each L3 set */
    uint64_t pfbuf[PF_MAX];
    /* Attribution (docs/MODEL.md "Bottleneck attribution"): what bounded
     * the time the latest hier_* call returned (STATS_BOUND_NONE: the time
     * asked for), the latest fill of each level (a hit on a line still in
     * flight inherits it), and the L3 fill server's backlog. */
    stats_bound_t why, why_fill1, why_fill2, why32, why_way;
    stats_bound_t wb, w2; /* beyond_l2's and from_l2's latest */
};

#define B(ev) STATS_BOUND(ev)

/* The steps below a line's request (fills, evictions, the levels beyond
 * L2, both prefetchers), forced inline into their few callers: their
 * calls, spills and reloads cost more than their work. */
#define HIER_HOT static inline __attribute__((always_inline))

#define after_wait hier_after_wait

/* A slot of pool k (0: L1 fill buffers, 1: L2 miss slots) was busy from t0
 * to t1 (counted in whole cycles, the fraction dropped). */
static inline void occupy(hier_t *h, int k, double t0, double t1)
{
    h->st->count[ST_BUSY_L1_FILL_BUFFERS + k] += (uint64_t)(int64_t)(t1 - t0);
}

static inline void count(hier_t *h, stats_event_t e, uint64_t bytes)
{
    h->st->count[e]++;
    h->st->bytes[e] += bytes;
}

/* A FIFO bandwidth server: the transfer starts when both the data and the
 * server are ready and takes cpl cycles. */
static inline double serve(double *free_at, double t, double cpl)
{
    double start = timing_max(t, *free_at);
    *free_at = start + cpl;
    return start + cpl;
}

/* serve() of data that was asked for at t_req and is ready at t, and
 * *why = server_why when the server's backlog held it longer than the data
 * took to get ready (the larger part of the time names its bound). */
static inline double serve_why(double *free_at, double t, double cpl, stats_bound_t server_why,
                               stats_bound_t *why, double t_req)
{
    if (*free_at - t > t - t_req)
        *why = server_why;
    double start = timing_max(t, *free_at);
    *free_at = start + cpl;
    return start + cpl;
}

hier_t *hier_create(const machine_t *m, uint64_t seed, stats_t *st, char *err, size_t errlen)
{
    hier_t *h = calloc(1, sizeof(*h));
    if (!h) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    h->m = m;
    h->st = st;
    h->line_bytes = m->l1.line_bytes;
    h->incl = m->l3.incl;
    char why[200];
    h->l1 = cache_create(&m->l1, seed, why, sizeof(why));
    if (!h->l1) {
        errbuf_set(err, errlen, "l1: %s", why);
        goto fail;
    }
    h->l2 = cache_create(&m->l2, seed + 1, why, sizeof(why));
    if (!h->l2) {
        errbuf_set(err, errlen, "l2: %s", why);
        goto fail;
    }
    if (m->l3.present) {
        h->l3 = cache_create(&m->l3, seed + 2, why, sizeof(why));
        if (!h->l3) {
            errbuf_set(err, errlen, "l3: %s", why);
            goto fail;
        }
    }
    h->mq1 = mshr_create(m->l1.mshrs ? m->l1.mshrs : 1);
    h->mq2 = mshr_create(m->l2.mshrs ? m->l2.mshrs : 1);
    h->dram = dram_create(m);
    if (!h->mq1 || !h->mq2 || !h->dram) {
        errbuf_set(err, errlen, "out of memory");
        goto fail;
    }
    h->why = h->why_fill1 = h->why_fill2 = STATS_BOUND_NONE;
    h->why32 = B(ST_BOUND_L3_FILL_BANDWIDTH);
    h->pf1 = pf_create(&m->l1.prefetch, h->line_bytes);
    h->pf2 = pf_create(&m->l2.prefetch, h->line_bytes);
    h->pf1_stores = m->l1.prefetch.stores;
    /* a line's zeros are told from data only where its write-back costs less */
    h->zeros = m->mem_zero_writeback_fraction > 0 && m->mem_zero_writeback_fraction < 1;
    h->pf2_stores = m->l2.prefetch.stores;
    h->lat1 = m->l1.latency_cycles;
    h->lat2 = m->l2.latency_cycles;
    h->lat3 = m->l3.present ? m->l3.latency_cycles : 0;
    h->lat_mem = m->mem_latency_ns * m->freq_ghz;
    h->cpl21 = m->l2.fill_bpc > 0 ? h->line_bytes / m->l2.fill_bpc : 0;
    h->wb21 = m->l2_wb_link == MACHINE_LINK_SHARED && h->cpl21 > 0;
    h->cpl32 = m->l3.present && m->l3.fill_bpc > 0 ? h->line_bytes / m->l3.fill_bpc : 0;
    if (h->l3 && m->l3_foreign_bpc > 0 && m->l3.sets) {
        h->foreign_per_set = m->l3_foreign_bpc / h->line_bytes / m->l3.sets;
        /* aging needs the L3's touch times (no other cache keeps them) */
        if (h->foreign_per_set > 0 && cache_keep_touch(h->l3) != 0) {
            errbuf_set(err, errlen, "out of memory for the L3's touch times");
            goto fail;
        }
    }
    return h;
fail:
    hier_destroy(h);
    return NULL;
}

void hier_destroy(hier_t *h)
{
    if (!h)
        return;
    cache_destroy(h->l1);
    cache_destroy(h->l2);
    cache_destroy(h->l3);
    mshr_destroy(h->mq1);
    mshr_destroy(h->mq2);
    pf_destroy(h->pf1);
    pf_destroy(h->pf2);
    dram_destroy(h->dram);
    free(h);
}

void hier_set_contig(hier_t *h, uint64_t contig_bytes)
{
    pf_set_contig(h->pf1, contig_bytes);
    pf_set_contig(h->pf2, contig_bytes);
}

static double mem_write(hier_t *h, double t, uint32_t bytes, dram_line_t what)
{
    count(h, ST_DRAM_WRITES, bytes);
    return dram_i_write(h->dram, t, what);
}

/* What a dirty line's write-back sends: its zeros, or data. */
static inline dram_line_t wb_what(uint8_t dirty)
{
    return dirty == CACHE_DIRTY_ZEROS ? DRAM_LINE_WB_ZEROS : DRAM_LINE_DATA;
}

/* ---- fills and evictions ------------------------------------------------ */

/* l3.foreign_fills: if this core's line at a has been aged out of L3 by the
 * other cores' fills by t (cache_i_aged_out), it leaves now: a dirty one is
 * written back. Then it is a miss. (An inclusive L3 would also take it from
 * L1 and L2; a line there is not looked up in L3, so the model leaves it.) */
static void l3_age_out(hier_t *h, uint64_t a, double t)
{
    if (!cache_i_aged_out(h->l3, a, t, h->foreign_per_set))
        return;
    cache_meta_t out;
    if (cache_i_remove(h->l3, a, &out) && out.dirty) {
        count(h, ST_L3_WRITEBACKS, h->line_bytes);
        mem_write(h, t, h->line_bytes, wb_what(out.dirty));
    }
}

/* l3_age_out() where other cores fill the L3 at all (no call otherwise). */
static inline void l3_age(hier_t *h, uint64_t a, double t)
{
    if (!(h->foreign_per_set <= 0))
        l3_age_out(h, a, t);
}

HIER_HOT void l3_fill(hier_t *h, uint64_t a, uint8_t dirty, double ready, double t)
{
    cache_victim_t v = {0};
    l3_age(h, a, t);
    cache_i_prefetch(h->l3, a);
    cache_meta_t *p = cache_i_lookup_or_insert(h->l3, a, true, ready, dirty, false, &v);
    if (p) {
        if (dirty) /* the copy from above is the newer */
            p->dirty = dirty;
        cache_i_touched(h->l3, a, p, t);
        return;
    }
    count(h, ST_L3_FILLS, h->line_bytes);
    if (!v.valid)
        return;
    if (h->incl == MACHINE_INCL_INCLUSIVE) {
        cache_meta_t up; /* the copies above are newer, L1's the newest */
        if (cache_i_remove(h->l2, v.addr, &up) && up.dirty)
            v.meta.dirty = up.dirty;
        if (cache_i_remove(h->l1, v.addr, &up) && up.dirty)
            v.meta.dirty = up.dirty;
    }
    if (v.meta.dirty) {
        count(h, ST_L3_WRITEBACKS, h->line_bytes);
        mem_write(h, t, h->line_bytes, wb_what(v.meta.dirty));
        /* Back-pressure: the L3 takes its next fill only once memory has
         * accepted this victim (a full write queue stalls the fill path, so
         * a stream of dirty victims runs at the memory's write rate). */
        double accept = dram_i_last_accept(h->dram);
        if (accept > h->free32) {
            h->free32 = accept;
            stats_bound_t w = dram_i_accept_why(h->dram);
            h->why32 = w == STATS_BOUND_NONE ? B(ST_BOUND_MEM_WRITE_LINK) : w;
        }
    }
}

/* L2 gave up victim v at t. Returns when the level below took it (t when
 * nothing moves): the L2 frees the victim's way only then. */
HIER_HOT double l2_evicted(hier_t *h, cache_victim_t *v, double t)
{
    cache_meta_t up;
    if (cache_i_remove(h->l1, v->addr, &up) && up.dirty)
        v->meta.dirty = up.dirty; /* L2 is inclusive of L1; L1's copy is the newer */
    if (v->meta.dirty)
        count(h, ST_L2_WRITEBACKS, h->line_bytes);
    if (h->l3) {
        if (h->incl == MACHINE_INCL_VICTIM || v->meta.dirty) {
            h->why_way = h->why32;
            double at = serve(&h->free32, t, h->cpl32);
            if (!(h->free32 - h->cpl32 > t))
                h->why32 = B(ST_BOUND_L3_FILL_BANDWIDTH);
            l3_fill(h, v->addr, v->meta.dirty, at, t);
            return at;
        }
    } else if (v->meta.dirty) {
        mem_write(h, t, h->line_bytes, wb_what(v->meta.dirty));
        stats_bound_t w = dram_i_accept_why(h->dram);
        h->why_way = w == STATS_BOUND_NONE ? B(ST_BOUND_MEM_WRITE_LINK) : w;
        return timing_max(t, dram_i_last_accept(h->dram));
    }
    return t;
}

/* A line was inserted into L2, evicting v. */
static inline double l2_inserted(hier_t *h, cache_victim_t *v, double t)
{
    count(h, ST_L2_FILLS, h->line_bytes);
    return v->valid ? l2_evicted(h, v, t) : t;
}

/* Fill L2 with a line the caller has just seen miss (absent = true) or that
 * may be present (then it is only marked dirty). Returns when the way it
 * takes is free: when the level below accepted the victim (back-pressure:
 * a full write path stalls the fills that need its ways), else t. */
HIER_HOT double l2_fill(hier_t *h, uint64_t a, uint8_t dirty, bool prefetched, double ready,
                        double t, bool absent)
{
    cache_victim_t v = {0};
    if (absent) {
        cache_i_insert(h->l2, a, ready, dirty, prefetched, &v);
    } else {
        cache_meta_t *p = cache_i_lookup_or_insert(h->l2, a, true, ready, dirty, prefetched, &v);
        if (p) {
            if (dirty) /* the copy from above is the newer */
                p->dirty = dirty;
            return t;
        }
    }
    return l2_inserted(h, &v, t);
}

HIER_HOT void l1_fill(hier_t *h, uint64_t a, uint8_t dirty, double ready, double t)
{
    cache_victim_t v = {0};
    cache_i_insert(h->l1, a, ready, dirty, false, &v);
    if (!v.valid || !v.meta.dirty)
        return;
    count(h, ST_L1_WRITEBACKS, h->line_bytes);
    if (h->wb21) /* the line crosses the fills' link: later fills queue behind it */
        serve(&h->free21, t, h->cpl21);
    cache_victim_t v2 = {0};
    cache_meta_t *p = cache_i_lookup_or_insert(h->l2, v.addr, false, t, v.meta.dirty, false, &v2);
    /* Not back-pressured (a known simplification): an L1 write-back that
     * misses the inclusive L2 is rare, and its L2 victim's hand-off time is
     * not charged to the fill that caused it. */
    if (p)
        p->dirty = v.meta.dirty;
    else
        l2_inserted(h, &v2, t);
}

/* ---- reads through the levels ------------------------------------------ */

/* The line missed L2: find it in L3 or memory. Returns when its data (or,
 * with noread, its ownership) reaches L2; *dirty says whether it came dirty
 * out of a victim L3. */
HIER_HOT double beyond_l2(hier_t *h, uint64_t a, double t, bool noread, uint8_t *dirty)
{
    stats_bound_t *why = &h->wb;
    *dirty = CACHE_CLEAN;
    if (h->l3) {
        l3_age(h, a, t);
        cache_i_prefetch(h->l3, a);
        /* A victim L3 gives the line up: remove it at once (touching it
         * first would change nothing, see models/cache.c). */
        cache_meta_t out;
        const cache_meta_t *p;
        if (h->incl == MACHINE_INCL_VICTIM) {
            p = cache_i_remove(h->l3, a, &out) ? &out : NULL;
            if (p)
                *dirty = out.dirty;
        } else {
            cache_meta_t *q = cache_i_lookup(h->l3, a, true);
            if (q)
                cache_i_touched(h->l3, a, q, t);
            p = q;
        }
        if (p) {
            count(h, ST_L3_HITS, h->line_bytes);
            double data = timing_max(t + h->lat3, p->ready_cycles);
            *why = B(ST_BOUND_L3_LATENCY);
            if (!noread)
                data = serve_why(&h->free32, data, h->cpl32, h->why32, why, t);
            return data;
        }
        count(h, ST_L3_MISSES, h->line_bytes);
    }
    *why = B(ST_BOUND_DRAM_LATENCY);
    if (noread)
        return t + h->lat_mem; /* ownership round trip, no data moved */
    count(h, ST_DRAM_READS, h->line_bytes);
    double data = dram_i_read(h->dram, t);
    *why = dram_i_why(h->dram);
    if (h->l3 && h->incl != MACHINE_INCL_VICTIM)
        l3_fill(h, a, false, data, t);
    return data;
}

HIER_HOT void l2_prefetch(hier_t *h, uint64_t a, double t)
{
    uint32_t n = pf_i_access(h->pf2, a, h->pfbuf, PF_MAX);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t p = h->pfbuf[i];
        if (cache_i_lookup(h->l2, p, false) || cache_i_lookup(h->l1, p, false))
            continue;
        double t2 = mshr_i_acquire(h->mq2, t);
        uint8_t dirty;
        stats_bound_t w;
        double data = beyond_l2(h, p, t2, false, &dirty);
        w = h->wb;
        w = after_wait(t2 > t ? B(ST_BOUND_L2_MISS_SLOTS_DRAM) : B(ST_BOUND_L2_PREFETCH_DISTANCE),
                       w);
        double way = l2_fill(h, p, dirty, true, data, t2, true);
        if (way - data > data - t2) /* the back-pressure is the larger part */
            w = h->why_way;
        h->why_fill2 = w;
        mshr_i_commit(h->mq2, timing_max(data, way));
        occupy(h, 1, t2, timing_max(data, way));
        count(h, ST_L2_PREFETCH, h->line_bytes);
    }
}

/* An L1 miss (or L1 prefetch) at t asks L2 for the line; train: the request
 * trains (and may trigger) the L2 prefetcher. Returns when the data (or
 * ownership) reaches L1. */
static double from_l2(hier_t *h, uint64_t a, double t, bool noread, bool train)
{
    stats_bound_t *why = &h->w2;
    cache_meta_t *p = cache_i_lookup(h->l2, a, true);
    double data;
    if (p) {
        count(h, ST_L2_HITS, h->line_bytes);
        if (p->prefetched) {
            p->prefetched = false;
            count(h, ST_L2_PREFETCH_USEFUL, h->line_bytes);
        }
        data = t + h->lat2;
        *why = B(ST_BOUND_L2_LATENCY);
        if (p->ready_cycles > data) {
            data = p->ready_cycles;
            *why = h->why_fill2;
        }
    } else {
        count(h, ST_L2_MISSES, h->line_bytes);
        double t2 = mshr_i_acquire(h->mq2, t);
        uint8_t dirty;
        data = beyond_l2(h, a, t2, noread, &dirty);
        *why = after_wait(t2 > t ? B(ST_BOUND_L2_MISS_SLOTS_DRAM) : STATS_BOUND_NONE, h->wb);
        double way = l2_fill(h, a, dirty, false, data, t2, true);
        if (way > data) {
            if (way - data > data - t2) /* the back-pressure is the larger part */
                *why = h->why_way;
            data = way;
        }
        h->why_fill2 = *why;
        mshr_i_commit(h->mq2, data);
        occupy(h, 1, t2, data);
    }
    if (!noread)
        data = serve_why(&h->free21, data, h->cpl21, B(ST_BOUND_L2_FILL_BANDWIDTH), why, t);
    if (train)
        l2_prefetch(h, a, t);
    return data;
}

HIER_HOT void l1_prefetch(hier_t *h, uint64_t a, double t)
{
    uint64_t lines[PF_MAX]; /* not pfbuf: from_l2 uses that for the L2 prefetcher */
    uint32_t n = pf_i_access(h->pf1, a, lines, PF_MAX);
    for (uint32_t i = 0; i < n; i++) {
        if (cache_i_lookup(h->l1, lines[i], false))
            continue;
        double t1 = mshr_i_acquire(h->mq1, t);
        /* L2 sees (and its prefetcher trains on) L1 prefetch requests too */
        stats_bound_t w;
        double data = from_l2(h, lines[i], t1, false, true);
        w = h->w2;
        h->why_fill1 =
            after_wait(t1 > t ? B(ST_BOUND_L1_FILL_BUFFERS) : B(ST_BOUND_L1_PREFETCH_DISTANCE), w);
        mshr_i_commit(h->mq1, data);
        occupy(h, 0, t1, data);
        l1_fill(h, lines[i], false, data, t1);
        count(h, ST_L1_PREFETCH, h->line_bytes);
    }
}

static inline double store_line(hier_t *h, uint64_t addr, double t, hier_own_t how,
                                hier_content_t what, bool *hit, bool l1_slot)
{
    uint64_t a = addr & ~(uint64_t)(h->line_bytes - 1);
    /* a missed line's content below is not known here: part of it is data */
    const uint8_t content = h->zeros && what == HIER_ZEROS_LINE ? CACHE_DIRTY_ZEROS : CACHE_DIRTY;
    cache_meta_t *p = cache_i_lookup(h->l1, a, true);
    if (p) {
        count(h, ST_L1_HITS, h->line_bytes);
        if (!(what == HIER_ZEROS_PART && p->dirty == CACHE_DIRTY_ZEROS))
            p->dirty = content;
        double r = timing_max(t, p->ready_cycles);
        h->why = p->ready_cycles > t ? h->why_fill1 : STATS_BOUND_NONE;
        *hit = true;
        if (h->pf1_stores)
            l1_prefetch(h, a, t);
        return r;
    }
    *hit = false;
    count(h, ST_L1_MISSES, h->line_bytes);
    double t1 = l1_slot ? mshr_i_acquire(h->mq1, t) : t;
    stats_bound_t w;
    double data = from_l2(h, a, t1, how == HIER_NOREAD, h->pf2_stores);
    w = h->w2;
    w = after_wait(t1 > t ? B(ST_BOUND_L1_FILL_BUFFERS) : STATS_BOUND_NONE, w);
    h->why = h->why_fill1 = w;
    if (l1_slot) {
        mshr_i_commit(h->mq1, data);
        occupy(h, 0, t1, data);
    }
    if (how == HIER_RFO) {
        count(h, ST_RFO, h->line_bytes);
        count(h, ST_L1_FILLS_RFO, h->line_bytes);
    } else {
        count(h, ST_L1_FILLS_NOREAD, h->line_bytes);
    }
    l1_fill(h, a, content, data, t1);
    if (h->pf1_stores)
        l1_prefetch(h, a, t);
    return data;
}

double hier_store(hier_t *h, uint64_t addr, double t, hier_own_t how, hier_content_t what,
                  bool *hit)
{
    return store_line(h, addr, t, how, what, hit, true);
}

double hier_store_l2_tracked(hier_t *h, uint64_t addr, double t, hier_own_t how,
                             hier_content_t what, bool *hit)
{
    return store_line(h, addr, t, how, what, hit, false);
}

double hier_load(hier_t *h, uint64_t addr, double t, bool *hit, double *issued)
{
    uint64_t a = addr & ~(uint64_t)(h->line_bytes - 1);
    cache_meta_t *p = cache_i_lookup(h->l1, a, true);
    *issued = t;
    if (p) {
        count(h, ST_L1_HITS, h->line_bytes);
        double r = timing_max(t + h->lat1, p->ready_cycles);
        h->why = p->ready_cycles > t + h->lat1 ? h->why_fill1 : B(ST_BOUND_L1_LATENCY);
        *hit = true;
        l1_prefetch(h, a, t);
        return r;
    }
    *hit = false;
    count(h, ST_L1_MISSES, h->line_bytes);
    double t1 = mshr_i_acquire(h->mq1, t);
    *issued = t1;
    stats_bound_t w;
    double data = from_l2(h, a, t1, false, true);
    w = h->w2;
    w = after_wait(t1 > t ? B(ST_BOUND_L1_FILL_BUFFERS) : STATS_BOUND_NONE, w);
    h->why = h->why_fill1 = w;
    mshr_i_commit(h->mq1, data);
    occupy(h, 0, t1, data);
    count(h, ST_L1_FILLS_DEMAND, h->line_bytes);
    l1_fill(h, a, false, data, t1);
    l1_prefetch(h, a, t);
    return data;
}

/* Drop every cached copy of the line; true if one of them was dirty. */
static bool invalidate_all(hier_t *h, uint64_t a)
{
    cache_meta_t out;
    bool dirty = false;
    if (cache_i_remove(h->l1, a, &out))
        dirty |= out.dirty;
    if (cache_i_remove(h->l2, a, &out))
        dirty |= out.dirty;
    if (h->l3 && cache_i_remove(h->l3, a, &out))
        dirty |= out.dirty;
    return dirty;
}

double hier_write_around(hier_t *h, uint64_t addr, double t, uint32_t bytes, dram_line_t what)
{
    uint64_t a = addr & ~(uint64_t)(h->line_bytes - 1);
    bool full = bytes >= h->line_bytes;
    bool dirty = invalidate_all(h, a);
    stats_bound_t rd = STATS_BOUND_NONE;
    if (!full && !dirty && h->m->nt_partial == MACHINE_NT_PARTIAL_RMW) {
        count(h, ST_DRAM_READS, h->line_bytes);
        t = dram_i_read(h->dram, t);
        rd = dram_i_why(h->dram);
    }
    /* A dirty cached copy of a partial line is merged into the write. */
    uint32_t wbytes = full || dirty ? h->line_bytes : bytes;
    double done = mem_write(h, t, wbytes, full ? what : DRAM_LINE_DATA);
    h->why = dram_i_why(h->dram) == STATS_BOUND_NONE ? rd : dram_i_why(h->dram);
    return done;
}

double hier_stream_store(hier_t *h, uint64_t addr, double t, hier_level_t level, dram_line_t what)
{
    uint64_t a = addr & ~(uint64_t)(h->line_bytes - 1);
    cache_meta_t out;
    if (level == HIER_MEM || (level == HIER_L3 && !h->l3))
        return hier_write_around(h, a, t, h->line_bytes, what);
    const uint8_t content = h->zeros && what != DRAM_LINE_DATA ? CACHE_DIRTY_ZEROS : CACHE_DIRTY;
    if (cache_i_remove(h->l1, a, &out) && out.dirty)
        count(h, ST_L1_WRITEBACKS, h->line_bytes);
    count(h, ST_L1_NOALLOC, h->line_bytes);
    if (level == HIER_L2) {
        cache_meta_t *p = cache_i_lookup(h->l2, a, true);
        h->why = STATS_BOUND_NONE;
        double accept =
            serve_why(&h->free21, t, h->cpl21, B(ST_BOUND_L2_FILL_BANDWIDTH), &h->why, t);
        if (p) {
            count(h, ST_L2_HITS, h->line_bytes);
            p->dirty = content;
            return accept;
        }
        count(h, ST_L2_MISSES, h->line_bytes);
        double t2 = mshr_i_acquire(h->mq2, t);
        uint8_t dirty;
        stats_bound_t w;
        double own = beyond_l2(h, a, t2, true, &dirty);
        w = h->wb;
        double way = l2_fill(h, a, content, false, own, t2, true);
        mshr_i_commit(h->mq2, timing_max(own, way));
        occupy(h, 1, t2, timing_max(own, way));
        double r = timing_max(accept, timing_max(t2, way));
        if (r > accept)
            h->why = way > t2 ? h->why_way : after_wait(B(ST_BOUND_L2_MISS_SLOTS_DRAM), w);
        return r;
    }
    /* HIER_L3: skip L2 as well. */
    if (cache_i_remove(h->l2, a, &out) && out.dirty)
        count(h, ST_L2_WRITEBACKS, h->line_bytes);
    h->why = STATS_BOUND_NONE;
    double accept = serve_why(&h->free32, t, h->cpl32, h->why32, &h->why, t);
    l3_age(h, a, t);
    cache_meta_t *p = cache_i_lookup(h->l3, a, true);
    if (p) {
        count(h, ST_L3_HITS, h->line_bytes);
        p->dirty = content;
        cache_i_touched(h->l3, a, p, t);
    } else {
        count(h, ST_L3_MISSES, h->line_bytes);
        l3_fill(h, a, content, accept, t);
    }
    return accept;
}

bool hier_in_l1(hier_t *h, uint64_t addr)
{
    return cache_i_lookup(h->l1, addr & ~(uint64_t)(h->line_bytes - 1), false) != NULL;
}

const stats_bound_t *hier_why_at(const hier_t *h)
{
    return &h->why;
}

stats_bound_t hier_drain_why(const hier_t *h, double t)
{
    stats_bound_t w = dram_drain_why(h->dram, t);
    if (w != STATS_BOUND_NONE)
        return w;
    return timing_max(mshr_drain_time(h->mq1), mshr_drain_time(h->mq2)) > t ? h->why_fill1
                                                                            : STATS_BOUND_NONE;
}

double hier_drain(hier_t *h, double t)
{
    t = timing_max(t, mshr_drain_time(h->mq1));
    t = timing_max(t, mshr_drain_time(h->mq2));
    return dram_drain(h->dram, t);
}

void hier_shift_time(hier_t *h, double dt)
{
    cache_shift_time(h->l1, dt);
    cache_shift_time(h->l2, dt);
    if (h->l3)
        cache_shift_time(h->l3, dt);
    mshr_shift_time(h->mq1, dt);
    mshr_shift_time(h->mq2, dt);
    dram_shift_time(h->dram, dt);
    h->free21 += dt;
    h->free32 += dt;
}

/* ---- exact bulk stepping (models/model_bulk.c) ---------------------------- */

struct hier_snap {
    cache_snap_t *l1, *l2, *l3;
    mshr_t *mq1, *mq2;
    pf_t *pf1, *pf2;
    dram_t *dram;
    double free21, free32;
    stats_bound_t why, why_fill1, why_fill2, why32, why_way, wb, w2;
};

uint64_t hier_bulk_period_lines(const hier_t *h)
{
    /* Other cores' fills age lines by their touch times, which a move by
     * whole periods would have to carry exactly: not offered. */
    if (h->foreign_per_set > 0 || !cache_snap_supported(h->l1) || !cache_snap_supported(h->l2) ||
        (h->l3 && !cache_snap_supported(h->l3)))
        return 0;
    /* Every set count is a power of two: the largest is their multiple. */
    uint64_t p = cache_sets(h->l1);
    if (cache_sets(h->l2) > p)
        p = cache_sets(h->l2);
    if (h->l3 && cache_sets(h->l3) > p)
        p = cache_sets(h->l3);
    return p;
}

void hier_snap_destroy(hier_snap_t *s)
{
    if (!s)
        return;
    cache_snap_destroy(s->l1);
    cache_snap_destroy(s->l2);
    cache_snap_destroy(s->l3);
    mshr_destroy(s->mq1);
    mshr_destroy(s->mq2);
    pf_destroy(s->pf1);
    pf_destroy(s->pf2);
    dram_destroy(s->dram);
    free(s);
}

hier_snap_t *hier_snap_take(const hier_t *h, hier_snap_t *s, double floor_cycles)
{
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s)
            return NULL;
    }
    s->l1 = cache_snap_take(h->l1, s->l1, floor_cycles);
    s->l2 = cache_snap_take(h->l2, s->l2, floor_cycles);
    if (h->l3)
        s->l3 = cache_snap_take(h->l3, s->l3, floor_cycles);
    s->mq1 = mshr_clone(h->mq1, s->mq1);
    s->mq2 = mshr_clone(h->mq2, s->mq2);
    s->dram = dram_clone(h->dram, s->dram);
    bool pf_ok = (!h->pf1 || (s->pf1 = pf_clone(h->pf1, s->pf1))) &&
                 (!h->pf2 || (s->pf2 = pf_clone(h->pf2, s->pf2)));
    if (!s->l1 || !s->l2 || (h->l3 && !s->l3) || !s->mq1 || !s->mq2 || !s->dram || !pf_ok) {
        hier_snap_destroy(s);
        return NULL;
    }
    s->free21 = h->free21;
    s->free32 = h->free32;
    s->why = h->why;
    s->why_fill1 = h->why_fill1;
    s->why_fill2 = h->why_fill2;
    s->why32 = h->why32;
    s->why_way = h->why_way;
    s->wb = h->wb;
    s->w2 = h->w2;
    return s;
}

/* A prefetcher now against its snapshot: moved streams (*moved), or a
 * generation gained per period (*g, which bounds *max_periods). */
static bool pf_moves(const pf_t *p, const pf_t *then, const hier_window_t *w, int64_t *moved,
                     pf_growth_t *g, uint64_t *max_periods)
{
    g->count = 0;
    *moved = pf_same(p, then, w->dlines, w->lo, w->hi, w->wlo, w->whi);
    if (*moved >= 0)
        return true;
    if (!pf_same_growing(p, then, w->dlines, w->lo, w->hi, w->wlo, w->whi, g))
        return false;
    *moved = 0;
    if (g->max_periods < *max_periods)
        *max_periods = g->max_periods;
    return true;
}

/* Lower *max_periods so that the stream, and the period after the step,
 * stop short of a line left in place at `ahead` (UINT64_MAX: none); false
 * if not even one period fits. */
static bool stop_short(const hier_window_t *w, uint64_t ahead, uint64_t *max_periods)
{
    if (ahead == UINT64_MAX)
        return true;
    if (ahead < w->next + 2 * w->dlines)
        return false;
    uint64_t fit = (ahead - w->next) / w->dlines - 1;
    if (fit < *max_periods)
        *max_periods = fit;
    return true;
}

/* A cache level against its snapshot: moved (1), in place (0), or filled or
 * drained by the stream (2, in *g; drain: it may drain, being the last level,
 * whose victims go to memory, whose timing has no addresses). Lowers
 * *max_periods to what a growth allows, and to stop short of the lines left
 * in place ahead of the stream. -1: none of these. */
static int level_moves(const cache_t *c, cache_snap_t *s, const hier_window_t *w,
                       const struct timing_shift *sh, bool drain, bool fresh, cache_growth_t *g,
                       uint64_t *max_periods)
{
    uint64_t ahead;
    int r = cache_snap_same(c, s, w->dlines, w->lo, w->hi, w->wlo, w->whi, sh, &ahead);
    if (r >= 0)
        return stop_short(w, ahead, max_periods) ? r : -1;
    if (!cache_snap_grown(c, s, w->dlines, w->lo, w->hi, w->wlo, w->next, drain, fresh, sh, g))
        return -1;
    uint64_t n = g->max_periods;
    if (!stop_short(w, g->ahead_line, &n))
        return -1;
    if (n < *max_periods)
        *max_periods = n;
    return 2;
}

bool hier_snap_same(const hier_t *h, const hier_snap_t *s, const hier_window_t *w,
                    const struct timing_shift *sh, hier_moves_t *mv)
{
    if (h->why != s->why || h->why_fill1 != s->why_fill1 || h->why_fill2 != s->why_fill2 ||
        h->why32 != s->why32 || h->why_way != s->why_way || h->wb != s->wb || h->w2 != s->w2)
        return false;
    if (!timing_same(h->free21, s->free21, sh) || !timing_same(h->free32, s->free32, sh))
        return false;
    if (!mshr_same(h->mq1, s->mq1, sh) || !mshr_same(h->mq2, s->mq2, sh) ||
        !dram_same(h->dram, s->dram, sh))
        return false;
    mv->max_periods = UINT64_MAX;
    if (!pf_moves(h->pf1, s->pf1, w, &mv->pf1, &mv->g1, &mv->max_periods) ||
        !pf_moves(h->pf2, s->pf2, w, &mv->pf2, &mv->g2, &mv->max_periods))
        return false;
    /* the caches last: the largest. Only the last level drains: an upper
     * level's victims go to the level below, by address; an inclusive L3's
     * victims are taken from the levels above. */
    bool drain2 = !h->l3, drain3 = h->incl != MACHINE_INCL_INCLUSIVE;
    /* A set may gain the stream's first line only in a victim L3: it holds
     * no line of the levels above, so nothing but a lookup touches a line
     * in it again (cache_snap_grown's fresh). */
    bool fresh3 = h->incl == MACHINE_INCL_VICTIM;
    mv->l1 = level_moves(h->l1, s->l1, w, sh, false, false, &mv->c1, &mv->max_periods);
    if (mv->l1 < 0)
        return false;
    mv->l2 = level_moves(h->l2, s->l2, w, sh, drain2, false, &mv->c2, &mv->max_periods);
    if (mv->l2 < 0)
        return false;
    mv->l3 =
        h->l3 ? level_moves(h->l3, s->l3, w, sh, drain3, fresh3, &mv->c3, &mv->max_periods) : 0;
    return mv->l3 >= 0;
}

/* Move a level as level_moves found it. */
static void level_move(cache_t *c, int how, const cache_growth_t *g, uint64_t dlines, uint64_t lo,
                       uint64_t hi, double dt)
{
    if (how == 2)
        cache_grow(c, g, dlines, dt);
    else
        cache_move(c, how ? dlines : 0, lo, hi, dt);
}

uint64_t hier_bulk_room(const hier_t *h, uint64_t line, uint64_t dlines)
{
    uint64_t a = pf_block_room(h->pf1, line, dlines), b = pf_block_room(h->pf2, line, dlines);
    return a < b ? a : b;
}

void hier_move(hier_t *h, const hier_moves_t *mv, uint64_t dlines, uint64_t lo, uint64_t hi,
               double dt)
{
    level_move(h->l1, mv->l1, &mv->c1, dlines, lo, hi, dt);
    level_move(h->l2, mv->l2, &mv->c2, dlines, lo, hi, dt);
    if (h->l3)
        level_move(h->l3, mv->l3, &mv->c3, dlines, lo, hi, dt);
    pf_move(h->pf1, dlines, mv->pf1);
    pf_move(h->pf2, dlines, mv->pf2);
    pf_grow(h->pf1, &mv->g1, dlines);
    pf_grow(h->pf2, &mv->g2, dlines);
    mshr_shift_time(h->mq1, dt);
    mshr_shift_time(h->mq2, dt);
    dram_shift_time(h->dram, dt);
    h->free21 += dt;
    h->free32 += dt;
}
