/*
 * tlb.h - the data TLB of the page size the clearing code translates
 * through: an LRU array of page translations (models/cache.c); a miss
 * costs tlb.walk cycles: of stalled issue for a store, of a held request
 * for a streaming load (models/model.c load_line).
 *
 * Notes
 *  - One TLB per page size (tlb.entries_4k / _2m / _1g); fully associative
 *    up to 256 entries, else the fewest ways (at least 8) that leave a
 *    power-of-two set count. 0 entries: translation is free.
 *  - Consecutive accesses to one page look up once.
 *  - Counts ST_TLB_LOAD_MISSES / ST_TLB_STORE_MISSES into the model's stats.
 *  - A guest whose host backs it with smaller pages (tlb.host_page): a
 *    translation is no larger than the host's page (the TLB splinters), the
 *    TLB holds tlb.host_entries of them, and `host` says its misses are the
 *    host's: what a write that reads nothing first pays for one is the
 *    caller's (models/model_xlate.h model_xl_write).
 *  - Units: bytes, core cycles.
 */
#ifndef CLEARSIM_TLB_H
#define CLEARSIM_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/cache.h"
#include "models/stats.h"

typedef struct tlb {
    const machine_t *m;
    stats_t *st;
    cache_t *c; /* NULL: no TLB for this page size */
    uint64_t page_bytes;
    bool host;      /* translations of the host's pages (tlb.host_page) */
    int page_shift; /* log2(page_bytes) when a power of two, else -1 */
    uint64_t last_page;
    bool last_valid;
    /* Exact bulk stepping (models/model_bulk.c): while log_users > 0, every
     * translation past the last page is logged (page << 1 | missed). */
    uint32_t log_users;
    bool log_full;
    uint64_t *log;
    uint64_t log_n, log_cap;
} tlb_t;

#define TLB_LOG_MAX (1u << 18) /* entries; a longer period is not stepped */

/* Append to the log (tlb.c). */
void tlb_log_add(tlb_t *t, uint64_t page, bool missed);

/* Set the TLB up for translations of page_bytes (the previous contents go);
 * page_bytes is tlb_page_for() of the mapping's page.
 * Returns 0, or -1 with a reason (then no TLB is modelled). */
int tlb_setup(tlb_t *t, const machine_t *m, stats_t *st, uint64_t page_bytes, char *err,
              size_t errlen);
void tlb_release(tlb_t *t);

/* The size of a translation when the mapping's pages are page_bytes: the
 * host's page when that is smaller. */
static inline uint64_t tlb_page_for(const machine_t *m, uint64_t page_bytes)
{
    uint64_t h = m->tlb_host_page_bytes;
    return h && h < page_bytes ? h : page_bytes;
}

/* The translation (page number) addr falls in. */
static inline uint64_t tlb_page_of(const tlb_t *t, uint64_t addr)
{
    return t->page_shift >= 0 ? addr >> t->page_shift : addr / t->page_bytes;
}

/* Translate addr; true when it missed (the caller pays for the walk). */
static inline bool tlb_miss(tlb_t *t, uint64_t addr, bool store)
{
    if (!t->c)
        return false;
    uint64_t page = tlb_page_of(t, addr);
    if (t->last_valid && page == t->last_page)
        return false;
    t->last_page = page;
    t->last_valid = true;
    uint64_t a = page * t->page_bytes;
    bool hit = cache_lookup(t->c, a, true) != NULL;
    if (t->log_users)
        tlb_log_add(t, page, !hit);
    if (hit)
        return false;
    cache_meta_t meta = {0};
    cache_victim_t v;
    cache_insert(t->c, a, &meta, &v);
    stats_event_t e = store ? ST_TLB_STORE_MISSES : ST_TLB_LOAD_MISSES;
    t->st->count[e] += 1;
    return true;
}

/* Translate addr; returns the stall in cycles (tlb.walk on a miss). */
static inline double tlb_access(tlb_t *t, uint64_t addr, bool store)
{
    return tlb_miss(t, addr, store) ? t->m->tlb_walk_cycles : 0;
}

#endif
