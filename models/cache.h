/*
 * cache.h - one set-associative, write-back cache array with a replacement
 * policy chosen by name.
 *
 * Notes
 *  - This file models the array only: tags, valid/dirty bits, per-line
 *    metadata, replacement state. Who fills whom (inclusive, victim, ...) is
 *    the hierarchy's business (models/hierarchy.c).
 *  - Addresses are byte addresses; the line is addr >> line_shift. Set index
 *    is the low bits of the line number (no hashing).
 *  - Geometry (set mask, line shift) is computed once in cache_create().
 *  - No allocation after cache_create(): lookups and inserts are O(ways).
 *  - Replacement policies live one per file (repl_lru.c, repl_plru.c,
 *    repl_random.c) behind repl_ops_t and are chosen by name.
 */
#ifndef CLEARSIM_CACHE_H
#define CLEARSIM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"

typedef struct cache cache_t;
typedef struct repl_ops repl_ops_t;

/* The smallest n with 2^n >= x (log2 of a power of two): geometry shifts,
 * and the depth of a tree-PLRU over `ways` ways. */
static inline uint32_t cache_log2(uint64_t x)
{
    uint32_t n = 0;
    while (n < 63 && (1ull << n) < x)
        n++;
    return n;
}

/* Per-line metadata the timing model keeps with a line. Packed: 10 bytes a
 * line in the arrays instead of 16 (a 32 MiB L3's set blocks take 12 MiB of
 * host memory instead of 14, which the kernel zeroes and every walk of exact
 * bulk stepping reads); a field is never addressed on its own, so no access
 * needs more than the unaligned loads x86-64 and arm64 do anyway. */
/* A line's dirty state: clean, or dirty and what it holds when written back
 * (a line of zeros may cost less at the memory: memory.zero_writeback_fraction).
 * Any non-zero value is dirty. */
enum { CACHE_CLEAN = 0, CACHE_DIRTY = 1, CACHE_DIRTY_ZEROS = 2 };

typedef struct cache_meta {
    double ready_cycles; /* when the line's data/ownership arrives (fills in flight) */
    uint8_t dirty;       /* CACHE_CLEAN, CACHE_DIRTY (data) or CACHE_DIRTY_ZEROS */
    bool prefetched;     /* brought in by a prefetch and not yet used by demand */
} __attribute__((packed)) cache_meta_t;

typedef struct cache_victim {
    bool valid;    /* a valid line was evicted */
    uint64_t addr; /* its line-aligned byte address */
    cache_meta_t meta;
} cache_victim_t;

/* size, ways, line from the config's machine_cache_t; seed for random replacement. */
cache_t *cache_create(const machine_cache_t *geom, uint64_t seed, char *err, size_t errlen);
void cache_destroy(cache_t *c);

/* Look up addr. On a hit returns a pointer to the line's metadata (valid until
 * the next insert into this cache) and, if touch, updates replacement state.
 * On a miss returns NULL. */
cache_meta_t *cache_lookup(cache_t *c, uint64_t addr, bool touch);
/* Insert addr (must not be present) with meta; the policy picks the way (an
 * invalid way first). The evicted line, if any, is returned in *victim. */
void cache_insert(cache_t *c, uint64_t addr, const cache_meta_t *meta, cache_victim_t *victim);
/* cache_lookup(c, addr, touch), and on a miss cache_insert(c, addr, meta,
 * victim), with one search of the set: returns the hit line's metadata, or
 * NULL after inserting (then *victim says what was evicted; on a hit *victim
 * is not written). */
cache_meta_t *cache_lookup_or_insert(cache_t *c, uint64_t addr, bool touch,
                                     const cache_meta_t *meta, cache_victim_t *victim);
/* Remove addr if present; returns true and its metadata in *out (may be NULL). */
bool cache_remove(cache_t *c, uint64_t addr, cache_meta_t *out);
/* Touch times: when each line was filled (its ready time) or last hit, kept
 * only for a cache that asks (cache_keep_touch: an L3 other cores fill;
 * models/hierarchy.c), eight bytes a line that no other cache pays for.
 * Returns -1 when out of memory. */
int cache_keep_touch(cache_t *c);
/* The line whose metadata is p (from a lookup of addr) was hit at t: its
 * touch time becomes the later of the two. Nothing without touch times. */
void cache_touched(cache_t *c, uint64_t addr, const cache_meta_t *p, double t);
/* Has the line at addr (if present) been aged out by time t by other cores'
 * fills arriving at per_set lines a cycle into each set? (LRU: the lines of
 * its set touched after it, plus the foreign lines since its own last touch,
 * fill the set.) Needs touch times (cache_keep_touch): false without them. */
bool cache_aged_out(const cache_t *c, uint64_t addr, double t, double per_set);

uint32_t cache_line_bytes(const cache_t *c);
uint32_t cache_sets(const cache_t *c);
uint32_t cache_ways(const cache_t *c);
/* Number of valid lines (for tests and steady-state checks); O(lines). */
uint64_t cache_valid_lines(const cache_t *c);
/* The line address in (set, way), or false if invalid (for tests). */
bool cache_peek(const cache_t *c, uint32_t set, uint32_t way, uint64_t *addr);
/* The set addr maps to: (addr >> line_shift) & (sets - 1). */
uint32_t cache_set_of(const cache_t *c, uint64_t addr);
/* The replacement policy in use. */
const repl_ops_t *cache_repl(const cache_t *c);
/* Add dt to every valid line's ready_cycles (fast-forward moves time). */
void cache_shift_time(cache_t *c, double dt);

/* Exact bulk stepping (models/model_bulk.c): a copy of the contents in the
 * form that decides what the cache does next - per set, its valid lines
 * from the most to the least recently used with dirty, prefetched and the
 * ready time (past or not: timing.h) - so that a later state can be
 * compared with it moved by whole lines. Only for LRU caches
 * (cache_snap_supported): under another policy the way a line sits in is
 * part of the state. */
typedef struct cache_snap cache_snap_t;
bool cache_snap_supported(const cache_t *c);
/* Take a snapshot into s (reused when not NULL) with times read against
 * floor_cycles; NULL (s freed) when out of memory or unsupported. */
cache_snap_t *cache_snap_take(const cache_t *c, cache_snap_t *s, double floor_cycles);
void cache_snap_destroy(cache_snap_t *s);
/* Is the cache now the snapshot moved by a stream? Returns 1 when every
 * line of the stream's range [lo, hi) is dlines lines further on (a
 * multiple of the set count: each line keeps its set), still inside it,
 * and every other line where it was; 0 when instead every line is where
 * it was (a level the stream does not fill) and none lies in the window
 * [wlo, whi) the stream will reach; -1 otherwise. Times must agree under
 * sh either way. With ahead (not NULL), lines in the window do not fail the
 * 0 case: *ahead is the lowest of them (UINT64_MAX: none), where the
 * stream must stop short. */
struct timing_shift;
int cache_snap_same(const cache_t *c, const cache_snap_t *s, uint64_t dlines, uint64_t lo,
                    uint64_t hi, uint64_t wlo, uint64_t whi, const struct timing_shift *sh,
                    uint64_t *ahead);
/* Move every valid line of [lo, hi) dlines lines on (a multiple of the set
 * count) and every line's times dt cycles on. */
void cache_move(cache_t *c, uint64_t dlines, uint64_t lo, uint64_t hi, double dt);
/* Does `now` hold the lines `then` holds, each dlines lines on (a multiple of
 * the set count), in the same recency order with the same dirty and
 * prefetched bits? Times are not compared: for arrays that keep none (the
 * TLB). false when the two differ in geometry or are not LRU. */
bool cache_tags_moved(const cache_t *then, const cache_t *now, uint64_t dlines);

/* A level that a stream fills or drains instead of moving through (exact
 * bulk stepping, docs/MODEL.md): in one period every set took one line of
 * the stream (dlines is the set count), and the stream's lines already there
 * moved on with it, but its oldest line stayed where it was instead of
 * leaving: into a free way while the set had one (it fills), else in place
 * of the set's least recently used line left behind (it drains those, the
 * lines of a run before, one a period). cache_snap_grown() judges it against
 * the snapshot and fills a cache_growth_t; cache_grow() applies periods. */
typedef struct cache_growth {
    const uint16_t *split; /* per set: its moving lines, most recently used first
                            * (the snapshot's: valid until its next take) */
    uint64_t dlines;       /* one period's move */
    double dt_cycles;      /* one period's time */
    uint64_t max_periods;  /* periods every set goes on as in the one judged */
    uint64_t ahead_line;   /* the lowest line left in place at or after the
                            * window's start (the stream must stop short of
                            * it), UINT64_MAX if none */
} cache_growth_t;
/* Is the cache now the snapshot one period on, filling or (drain) draining as
 * above? The moving lines must be lines of [lo, hi) and stay in it; the lines
 * left in place are compared where they were; times agree under sh. A set
 * that drains must lose a line with the same dirty and prefetched bits each
 * period (max_periods counts them); one that fills, find a free way. With
 * fresh (a level that holds no line of the levels above, so that only a
 * lookup touches its lines), a set that held no line of the stream may have
 * gained its first, a line of [lo, hi) below next (the stream's next line):
 * later periods bring it moved on. */
bool cache_snap_grown(const cache_t *c, cache_snap_t *s, uint64_t dlines, uint64_t lo, uint64_t hi,
                      uint64_t wlo, uint64_t next, bool drain, bool fresh,
                      const struct timing_shift *sh, cache_growth_t *g);
/* Apply the periods that move the stream dlines_total on (at most
 * g->max_periods): every set's moving lines move on, the line each period
 * leaves behind joins the lines left in place (times as it left), and a
 * draining set loses that many of its oldest. dt_total: the periods' time. */
void cache_grow(cache_t *c, const cache_growth_t *g, uint64_t dlines_total, double dt_total);

/* A copy of c (NULL: out of memory). */
cache_t *cache_clone(const cache_t *c);
/* Copy src into dst, a cache of the same geometry (false if it is not). */
bool cache_copy(cache_t *dst, const cache_t *src);

/* Replacement policy interface. State is `state_bytes(ways)` bytes per set. */
struct repl_ops {
    const char *name;
    size_t (*state_bytes)(uint32_t ways);
    void (*init)(uint8_t *state, uint32_t ways);
    /* A way was hit (or filled). */
    void (*touch)(uint8_t *state, uint32_t ways, uint32_t way);
    /* Pick a victim among all ways (all valid). rng is the cache's xorshift state. */
    uint32_t (*victim)(uint8_t *state, uint32_t ways, uint64_t *rng);
    /* Ways this policy cannot handle: returns -1 with a reason (e.g. PLRU needs a
     * power of two), 0 if fine. NULL: any way count. Called by cache_create(). */
    int (*check)(uint32_t ways, char *err, size_t errlen);
};

/* The policies (one per file: repl_lru.c, repl_plru.c, repl_random.c). */
extern const repl_ops_t repl_lru;
extern const repl_ops_t repl_plru;
extern const repl_ops_t repl_random;

/* By enum or by name ("lru", "plru", "random"); NULL if unknown. */
const repl_ops_t *repl_find(machine_repl_t which);
const repl_ops_t *repl_find_name(const char *name);

#endif
