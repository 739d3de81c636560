/*
 * hierarchy.h - L1D, L2 and L3 with their miss slots, prefetchers and the
 * memory path, composed by the machine's inclusion policy.
 *
 * Notes
 *  - Every function takes the time t (core cycles) at which the request
 *    leaves the core and returns when it completes; contention appears as
 *    waiting for miss slots (MSHRs) and bandwidth servers.
 *  - L2 is inclusive of L1 (an L2 eviction back-invalidates L1). L3 is
 *    inclusive, non-inclusive (NINE) or an exclusive victim cache of L2, per
 *    machine_cache_t.incl.
 *  - Write-backs are charged at the time of the eviction that causes them.
 */
#ifndef CLEARSIM_HIERARCHY_H
#define CLEARSIM_HIERARCHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/dram.h"
#include "models/cache.h"
#include "models/prefetch.h"
#include "models/stats.h"

typedef struct hier hier_t;

typedef enum hier_own {
    HIER_RFO = 0, /* read the line for ownership */
    HIER_NOREAD,  /* ownership without reading (the whole line is overwritten) */
} hier_own_t;

/* What a store writes into its line, for what the line's write-back sends
 * (memory.zero_writeback_fraction): data, zeros over part of the line (the
 * line holds zeros only if it held zeros before), or a whole line of zeros. */
typedef enum hier_content { HIER_DATA = 0, HIER_ZEROS_PART, HIER_ZEROS_LINE } hier_content_t;

typedef enum hier_level { HIER_L2 = 2, HIER_L3 = 3, HIER_MEM = 4 } hier_level_t;

hier_t *hier_create(const machine_t *m, uint64_t seed, stats_t *st, char *err, size_t errlen);
void hier_destroy(hier_t *h);
void hier_set_contig(hier_t *h, uint64_t contig_bytes);

/* Make the line holding addr writable in L1 for a store that writes `what`;
 * returns when it is owned. */
double hier_store(hier_t *h, uint64_t addr, double t, hier_own_t how, hier_content_t what,
                  bool *hit);
/* The same for a request that does not hold an L1 miss slot (a string
 * engine tracked at L2, string.l1_fill_buffers false): only the L2's miss
 * slots bound how many are in flight. */
double hier_store_l2_tracked(hier_t *h, uint64_t addr, double t, hier_own_t how,
                             hier_content_t what, bool *hit);
/* Bring the line into L1 for a load; returns when the data arrives.
 * *issued: when the load could go (t for a hit; for a miss, when an L1 miss
 * slot took it). */
double hier_load(hier_t *h, uint64_t addr, double t, bool *hit, double *issued);
/* Write `bytes` of the line past the caches to memory (WC flush, elided
 * string line, CLZERO): invalidates cached copies; returns when accepted. */
double hier_write_around(hier_t *h, uint64_t addr, double t, uint32_t bytes, dram_line_t what);
/* Write-streaming store of a full line that allocates only at `level`;
 * returns when the level accepts it. */
double hier_stream_store(hier_t *h, uint64_t addr, double t, hier_level_t level, dram_line_t what);
/* Is the line in L1? (no replacement update) */
bool hier_in_l1(hier_t *h, uint64_t addr);
/* Time at which everything outstanding has completed. */
double hier_drain(hier_t *h, double t);
/* Attribution (docs/MODEL.md "Bottleneck attribution"): what bounded the
 * time the latest hier_store/_l2_tracked/load/write_around/stream_store
 * returned (STATS_BOUND_NONE: the time asked for, no wait of its own), and
 * what bounds hier_drain(h, t) past t. */
const stats_bound_t *hier_why_at(const hier_t *h); /* where it is kept, for an inline read */
stats_bound_t hier_drain_why(const hier_t *h, double t);
/* A request bounded by `req` (NONE: asked at once) followed by a response
 * bounded by `resp` (NONE: no wait of its own): a latency behind a full
 * pool (a lines-in-flight limit) is that pool's bound (lines in flight x
 * latency; L2 miss slots then name the latency's level); otherwise the
 * response's, or the request's when the response added no wait. */
#define HIER_BIT(ev) (UINT64_C(1) << STATS_BOUND(ev))
#define HIER_POOLS                                                                                 \
    (HIER_BIT(ST_BOUND_STORE_BUFFER) | HIER_BIT(ST_BOUND_STRING_LOOKAHEAD) |                       \
     HIER_BIT(ST_BOUND_L1_FILL_BUFFERS) | HIER_BIT(ST_BOUND_L1_PREFETCH_DISTANCE) |                \
     HIER_BIT(ST_BOUND_L2_PREFETCH_DISTANCE) | HIER_BIT(ST_BOUND_L2_MISS_SLOTS_DRAM) |             \
     HIER_BIT(ST_BOUND_L2_MISS_SLOTS_L3) | HIER_BIT(ST_BOUND_WC_BUFFERS))
#define HIER_LATENCIES                                                                             \
    (HIER_BIT(ST_BOUND_L2_LATENCY) | HIER_BIT(ST_BOUND_L3_LATENCY) |                               \
     HIER_BIT(ST_BOUND_DRAM_LATENCY))
static inline stats_bound_t hier_after_wait(stats_bound_t req, stats_bound_t resp)
{
    if (resp == STATS_BOUND_NONE)
        return req;
    if (req == STATS_BOUND_NONE || !((HIER_POOLS >> req) & 1) || !((HIER_LATENCIES >> resp) & 1))
        return resp;
    if (req == STATS_BOUND(ST_BOUND_L2_MISS_SLOTS_DRAM) &&
        resp != STATS_BOUND(ST_BOUND_DRAM_LATENCY))
        return STATS_BOUND(ST_BOUND_L2_MISS_SLOTS_L3);
    return req;
}
/* Add dt to every time the hierarchy holds (fast-forward moves time). */
void hier_shift_time(hier_t *h, double dt);

/* Exact bulk stepping (models/model_bulk.c).
 * The period, in lines, that a move must be a multiple of for every line
 * to keep its set in every level (0: the hierarchy cannot be moved exactly:
 * a replacement policy other than LRU, or other cores' fills). */
uint64_t hier_bulk_period_lines(const hier_t *h);
/* A copy of everything that decides what the hierarchy does next (s reused
 * when not NULL); NULL (s freed) when out of memory. */
typedef struct hier_snap hier_snap_t;
struct timing_shift;
hier_snap_t *hier_snap_take(const hier_t *h, hier_snap_t *s, double floor_cycles);
void hier_snap_destroy(hier_snap_t *s);
/* A move by a stream: dlines lines, of the stream's range [lo, hi); the
 * window [wlo, whi) is where the stream will go while the move holds
 * (what stays behind must not lie there): from the snapshot's next line to
 * one period past the last period stepped; next is the stream's next line
 * now (a step that stops short of a line counts from it). */
typedef struct hier_window {
    uint64_t dlines, lo, hi, wlo, whi, next;
} hier_window_t;
/* What moved: each cache level (1), or not (0: a level the stream does not
 * fill), or filled or drained by it (2: cache_snap_grown, its growth in c1,
 * c2, c3); the mask of moved prefetch stream slots (pf_same), or the
 * generation each period adds to a prefetcher (pf_same_growing); and the
 * periods a move may take at most (UINT64_MAX: any). */
typedef struct hier_moves {
    int l1, l2, l3;
    cache_growth_t c1, c2, c3;
    int64_t pf1, pf2;
    pf_growth_t g1, g2;
    uint64_t max_periods;
} hier_moves_t;
/* Is the hierarchy now the snapshot moved by the stream, its times
 * agreeing under sh? Fills *mv. */
bool hier_snap_same(const hier_t *h, const hier_snap_t *s, const hier_window_t *w,
                    const struct timing_shift *sh, hier_moves_t *mv);
/* Lines from `line` that a move by dlines may cover (the prefetchers'
 * contiguous blocks: pf_block_room). */
uint64_t hier_bulk_room(const hier_t *h, uint64_t line, uint64_t dlines);
/* Move what moved (mv, from hier_snap_same) of [lo, hi) dlines lines on
 * (at most mv->max_periods periods), and every time the hierarchy holds
 * dt cycles on. */
void hier_move(hier_t *h, const hier_moves_t *mv, uint64_t dlines, uint64_t lo, uint64_t hi,
               double dt);

#endif
