/*
 * cache_impl.h - the inside of models/cache.c, shared only with the
 * hierarchy (models/hierarchy.c) so that the lookups of its hot path inline,
 * and with the bulk-stepping side of the arrays (models/cache_snap.c).
 *
 * Notes
 *  - Private: nothing outside models/cache.c, models/cache_snap.c and
 *    models/hierarchy.c includes this. Everyone else uses the functions of models/cache.h, which
 * are the same code (cache_lookup() is cache_i_lookup(), and so on).
 *  - The layout, the fingerprint search and the LRU list are described in
 *    the Notes of models/cache.c.
 *  - Units: as in models/cache.h (bytes; ready_cycles in core cycles).
 */
#ifndef CLEARSIM_CACHE_IMPL_H
#define CLEARSIM_CACHE_IMPL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/cache.h"

/* The exact fingerprint match (cache_find_way_fp) uses SSE2, which every
 * x86-64 host has; elsewhere the portable word-at-a-time filter runs. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define CACHE_FP_SSE2 1
#else
#define CACHE_FP_SSE2 0
#endif

#define CACHE_TAG_INVALID UINT64_MAX
/* xorshift64 must not start at 0; a seed of 0 starts here instead. */
#define CACHE_SEED_ZERO 0x9E3779B97F4A7C15ull
/* Line and set counts are kept in 32 bits. */
#define CACHE_MAX_LINES 0x80000000ull

/* Per-set header, first in the set's block: valid ways; the LRU list's ends. */
typedef struct cache_hdr {
    uint64_t vmask;  /* bit w: way w is valid (kept only when ways <= 64) */
    uint32_t nvalid; /* valid ways in the set */
    uint8_t head;    /* LRU: most recently used way */
    uint8_t tail;    /* LRU: least recently used way (the victim) */
} cache_hdr_t;

/* The replacement state follows the header in every set block. */
#define CACHE_STATE_OFF sizeof(cache_hdr_t)

struct cache {
    uint8_t *blocks;        /* sets x block_bytes: header, replacement state, tags, meta */
    size_t block_bytes;     /* bytes per set block */
    size_t tags_off;        /* offset of the tags within a block */
    size_t meta_off;        /* offset of the metadata within a block */
    size_t fp_off;          /* offset of the fingerprint words within a block */
    uint32_t fp_words;      /* fingerprint words per set: ceil(ways / 8) */
    uint32_t fp_shift;      /* fingerprint = (uint8_t)(line >> fp_shift) */
    uint32_t pf_lines;      /* host lines of a set block prefetched (host_prefetch) */
    bool vmask_on;          /* ways <= 64: hdr.vmask is kept */
    bool fp_exact;          /* ways <= 16 under SSE2: fingerprints compared byte-exact */
    const repl_ops_t *repl; /* replacement policy */
    uint64_t set_mask;      /* sets - 1 */
    uint64_t rng;           /* xorshift64 state for random replacement */
    size_t repl_stride;     /* replacement state bytes per set */
    uint32_t line_shift;    /* log2(line_bytes) */
    uint32_t ways;
    uint32_t sets;
    uint32_t line_bytes;
    bool lru; /* recency list (prev[ways], next[ways]) instead of repl ops */
    /* A cache much larger than the host's caches: cache_i_prefetch() asks the
     * host to prefetch the block CACHE_PF_SETS sets further on (sequential
     * streams walk the sets in order). A hint only; it changes no result. */
    bool host_prefetch;
    uint64_t nvalid; /* valid lines in the whole cache: 0 answers any lookup at once */
    double *touch;   /* sets x ways touch times (cache_keep_touch), or NULL */
};

#define CACHE_PF_SETS      4u         /* how far ahead the host prefetch reaches */
#define CACHE_PF_MIN_BYTES (4u << 20) /* caches at least this large use it */
#define CACHE_PF_MAX_LINES 8u         /* host lines prefetched per access */

static inline bool cache_is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static inline uint64_t cache_line_of(const cache_t *c, uint64_t addr)
{
    return addr >> c->line_shift;
}

static inline uint8_t *cache_block(const cache_t *c, uint64_t set)
{
    return c->blocks + (size_t)set * c->block_bytes;
}

static inline uint64_t *cache_tags(const cache_t *c, uint64_t set)
{
    return (uint64_t *)(cache_block(c, set) + c->tags_off);
}

static inline cache_meta_t *cache_metas(const cache_t *c, uint64_t set)
{
    return (cache_meta_t *)(cache_block(c, set) + c->meta_off);
}

static inline cache_hdr_t *cache_hdr(const cache_t *c, uint64_t set)
{
    return (cache_hdr_t *)cache_block(c, set); /* first in the block */
}

static inline uint8_t *cache_state(const cache_t *c, uint64_t set)
{
    return cache_block(c, set) + CACHE_STATE_OFF;
}

static inline uint64_t *cache_fps(const cache_t *c, uint64_t set)
{
    return (uint64_t *)(cache_block(c, set) + c->fp_off);
}

static inline uint64_t cache_fp_of(const cache_t *c, uint64_t line)
{
    return (line >> c->fp_shift) & 0xff;
}

/* Record the fingerprint of the line now in `way`. */
static inline void cache_fp_set(const cache_t *c, uint64_t set, uint32_t way, uint64_t line)
{
    uint64_t *fw = &cache_fps(c, set)[way >> 3];
    uint32_t sh = (way & 7) * 8;
    *fw = (*fw & ~((uint64_t)0xff << sh)) | cache_fp_of(c, line) << sh;
}

#define CACHE_B01 UINT64_C(0x0101010101010101)
#define CACHE_B80 UINT64_C(0x8080808080808080)

/* ---- LRU recency list: prev[ways] then next[ways] in the state bytes ---- */

static inline void lru_list_init(cache_hdr_t *hd, uint8_t *st, uint32_t ways)
{
    uint8_t *prev = st, *next = st + ways;
    for (uint32_t w = 0; w < ways; w++) {
        prev[w] = (uint8_t)(w ? w - 1 : 0);
        next[w] = (uint8_t)(w + 1 < ways ? w + 1 : w);
    }
    hd->head = 0;
    hd->tail = (uint8_t)(ways - 1);
}

/* Make way the most recently used. prev[head] and next[tail] are never read. */
static inline void lru_list_touch(cache_hdr_t *hd, uint8_t *st, uint32_t ways, uint32_t way)
{
    uint8_t w = (uint8_t)way, h = hd->head;
    if (h == w)
        return;
    uint8_t *prev = st, *next = st + ways;
    uint8_t p = prev[w]; /* w is not the head: it has a predecessor */
    if (hd->tail == w) {
        hd->tail = p;
    } else {
        uint8_t n = next[w];
        prev[n] = p;
        next[p] = n;
    }
    next[w] = h;
    prev[h] = w;
    hd->head = w;
}

/* Make way the most recent in the set whose block is b. */
static inline void cache_touch_b(cache_t *c, uint8_t *b, uint32_t way)
{
    if (c->lru)
        lru_list_touch((cache_hdr_t *)b, b + CACHE_STATE_OFF, c->ways, way);
    else
        c->repl->touch(b + CACHE_STATE_OFF, c->ways, way);
}

/* The way holding `line` in the set starting at tags, or ways if absent
 * (a full scan: the reference the fingerprint search must agree with). */
static inline uint32_t cache_find_way(const uint64_t *tags, uint32_t ways, uint64_t line)
{
    uint32_t hit = ways;
    for (uint32_t w = 0; w < ways; w++)
        hit = tags[w] == line ? w : hit;
    return hit;
}

/* The same through the fingerprints: only ways whose fingerprint may match
 * have their tag compared. The byte test is the cheap one ((x - 0x01..) &
 * ~x & 0x80..): it flags every zero byte, and sometimes a byte above one
 * (a borrow), which only costs a tag compare. Bytes past the last way
 * (padding of the last word) are skipped. */
/* Candidate bytes of one fingerprint word: 0x80 where the fingerprint may
 * be pat's. */
static inline uint64_t cache_fp_cand(uint64_t fpw, uint64_t pat)
{
    uint64_t x = fpw ^ pat;
    return (x - CACHE_B01) & ~x & CACHE_B80;
}

/* The way among the candidates z of word i whose tag is line, or ways. */
static inline uint32_t cache_fp_pick(const cache_t *c, const uint64_t *tags, uint64_t line,
                                     uint64_t z, uint32_t i)
{
    while (z) {
        uint32_t w = i * 8 + (uint32_t)__builtin_ctzll(z) / 8;
        if (w < c->ways && tags[w] == line)
            return w;
        z &= z - 1;
    }
    return c->ways;
}

static inline uint32_t cache_find_way_fp(const cache_t *c, const uint8_t *b, const uint64_t *tags,
                                         uint64_t line)
{
    uint64_t fp = cache_fp_of(c, line);
#if CACHE_FP_SSE2
    if (c->fp_exact) {
        /* Up to 16 ways: one byte compare of every fingerprint, kept to the
         * valid ways (the bytes past the last way and those of invalid ways
         * are anything). Only true fingerprint matches remain. */
        __m128i v = _mm_loadu_si128((const __m128i *)(b + c->fp_off));
        uint32_t z = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)fp))) &
                     (uint32_t)((const cache_hdr_t *)b)->vmask;
        while (z) {
            uint32_t w = (uint32_t)__builtin_ctz(z);
            if (tags[w] == line)
                return w;
            z &= z - 1;
        }
        return c->ways;
    }
#endif
    const uint64_t *fw = (const uint64_t *)(b + c->fp_off);
    uint64_t pat = fp * CACHE_B01;
    uint32_t nw = c->fp_words;
    if (nw <= 2) { /* up to 16 ways: both words at once, a miss usually ends here */
        uint64_t z0 = cache_fp_cand(fw[0], pat);
        uint64_t z1 = nw == 2 ? cache_fp_cand(fw[1], pat) : 0;
        if (!(z0 | z1))
            return c->ways;
        uint32_t w = cache_fp_pick(c, tags, line, z0, 0);
        return w != c->ways ? w : cache_fp_pick(c, tags, line, z1, 1);
    }
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t w = cache_fp_pick(c, tags, line, cache_fp_cand(fw[i], pat), i);
        if (w != c->ways)
            return w;
    }
    return c->ways;
}

/* The lowest invalid way in the set, or ways if the set is full. */
static inline uint32_t cache_find_invalid(const uint64_t *tags, uint32_t ways)
{
    uint32_t inv = ways;
    for (uint32_t w = ways; w-- > 0;)
        inv = tags[w] == CACHE_TAG_INVALID ? w : inv;
    return inv;
}

/* Ask the host to fetch a set's block (up to CACHE_PF_MAX_LINES host
 * lines): a hint, no result depends on it. Forced inline, as is every
 * caller: GCC 12 finds a function whose only effect is __builtin_prefetch
 * free of side effects and deletes the calls to it before it would inline
 * it, so until 2026-12-06 the hint was never emitted (no prefetch
 * instruction in the binary; tests/cli/host_prefetch.sh now looks). With
 * it, the benchmark case (bench/run section 3) went from 52.5 to 47.8 ms
 * (least of 20 runs each, alternating, same host): the large L3's set
 * blocks are host memory misses. */
static inline __attribute__((always_inline)) void cache_prefetch_set(const cache_t *c, uint64_t set)
{
    const uint8_t *b = cache_block(c, set & c->set_mask);
    switch (c->pf_lines) { /* unrolled: pf_lines <= CACHE_PF_MAX_LINES (8) */
    case 8:
        __builtin_prefetch(b + 7 * 64, 1, 3);
        /* fall through */
    case 7:
        __builtin_prefetch(b + 6 * 64, 1, 3);
        /* fall through */
    case 6:
        __builtin_prefetch(b + 5 * 64, 1, 3);
        /* fall through */
    case 5:
        __builtin_prefetch(b + 4 * 64, 1, 3);
        /* fall through */
    case 4:
        __builtin_prefetch(b + 3 * 64, 1, 3);
        /* fall through */
    case 3:
        __builtin_prefetch(b + 2 * 64, 1, 3);
        /* fall through */
    case 2:
        __builtin_prefetch(b + 64, 1, 3);
        /* fall through */
    default:
        __builtin_prefetch(b, 1, 3);
    }
}

/* Before an access to addr's line in a large cache (host_prefetch): ask the
 * host for the block CACHE_PF_SETS sets on, which a sequential stream
 * reaches soon. The hierarchy calls it before its accesses to the L3 on the
 * per-line path (the only level that large), not every lookup: in the
 * generic lookup the test and the prefetches made the compiler split the
 * lookup out of line, for 88 more host instructions per simulated line. */
static inline __attribute__((always_inline)) void cache_i_prefetch(const cache_t *c, uint64_t addr)
{
    if (c->host_prefetch)
        cache_prefetch_set(c, (cache_line_of(c, addr) & c->set_mask) + CACHE_PF_SETS);
}

/* The way holding line in the set whose block is b, or ways if absent. Under
 * LRU the most recently used way is tried first. */
static inline uint32_t cache_way_of(const cache_t *c, const uint8_t *b, uint64_t line)
{
    if (c->nvalid == 0)
        return c->ways; /* e.g. non-temporal clearing leaves the caches empty */
    const uint64_t *tags = (const uint64_t *)(b + c->tags_off);
    if (c->lru) {
        uint32_t h = ((const cache_hdr_t *)b)->head;
        if (tags[h] == line)
            return h;
    }
    uint32_t way = cache_find_way_fp(c, b, tags, line);
    /* debug builds check the filter against the full scan */
    assert(way == cache_find_way(tags, c->ways, line));
    return way;
}

static inline cache_meta_t *cache_i_lookup(cache_t *c, uint64_t addr, bool touch)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint8_t *b = cache_block(c, set);
    uint32_t way = cache_way_of(c, b, line);
    if (way == c->ways)
        return NULL;
    if (touch)
        cache_touch_b(c, b, way);
    return (cache_meta_t *)(b + c->meta_off) + way;
}

/* Put line (known absent) into set, whose block is b, with the given
 * metadata; returns its way. The metadata come as fields, not as a struct,
 * and the victim is written field by field (only `valid` when nothing was
 * evicted): building a cache_meta_t on the stack and copying it whole made
 * the host stall on store forwarding (narrow stores read back as one wide
 * load). */
static inline uint32_t cache_place(cache_t *c, uint64_t set, uint8_t *b, uint64_t line,
                                   double ready, uint8_t dirty, bool prefetched,
                                   cache_victim_t *victim)
{
    /* fields read before the first store through b (which may alias them) */
    uint32_t ways = c->ways, line_shift = c->line_shift;
    uint64_t fp = cache_fp_of(c, line);
    uint64_t *tags = (uint64_t *)(b + c->tags_off);
    cache_meta_t *metas = (cache_meta_t *)(b + c->meta_off);
    uint8_t *fps = b + c->fp_off;
    cache_hdr_t *hd = (cache_hdr_t *)b;
    uint32_t way;
    if (hd->nvalid < ways) {
        if (c->vmask_on) {
            way = (uint32_t)__builtin_ctzll(~hd->vmask); /* the lowest invalid way */
            assert(way == cache_find_invalid(tags, ways));
            hd->vmask |= UINT64_C(1) << way;
        } else {
            way = cache_find_invalid(tags, ways);
        }
        hd->nvalid++;
        c->nvalid++;
        if (victim != NULL)
            victim->valid = false;
    } else {
        way = c->lru ? hd->tail : c->repl->victim(b + CACHE_STATE_OFF, ways, &c->rng);
        if (victim != NULL) {
            victim->valid = true;
            victim->addr = tags[way] << line_shift;
            victim->meta.ready_cycles = metas[way].ready_cycles;
            victim->meta.dirty = metas[way].dirty;
            victim->meta.prefetched = metas[way].prefetched;
        }
    }
    tags[way] = line;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    fps[way] = (uint8_t)fp; /* byte way of the packed words */
#else
    (void)fps;
    cache_fp_set(c, set, way, line);
#endif
    metas[way].ready_cycles = ready;
    metas[way].dirty = dirty;
    metas[way].prefetched = prefetched;
    cache_touch_b(c, b, way);
    if (c->touch)
        c->touch[set * c->ways + way] = ready;
    return way;
}

/* cache_insert() with the metadata as fields; on no eviction only
 * victim->valid is written. */
static inline void cache_i_insert(cache_t *c, uint64_t addr, double ready, uint8_t dirty,
                                  bool prefetched, cache_victim_t *victim)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    assert(cache_find_way(cache_tags(c, set), c->ways, line) == c->ways &&
           "cache_insert: line already present");
    cache_place(c, set, cache_block(c, set), line, ready, dirty, prefetched, victim);
}

/* cache_lookup_or_insert() with the metadata as fields (as cache_i_insert).
 * Forced inline: left to itself GCC kept one out-of-line copy for the L2's
 * and the L3's fills of the per-line path. */
static inline __attribute__((always_inline)) cache_meta_t *
cache_i_lookup_or_insert(cache_t *c, uint64_t addr, bool touch, double ready, uint8_t dirty,
                         bool prefetched, cache_victim_t *victim)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint8_t *b = cache_block(c, set);
    uint32_t way = cache_way_of(c, b, line);
    if (way != c->ways) {
        if (touch)
            cache_touch_b(c, b, way);
        return (cache_meta_t *)(b + c->meta_off) + way;
    }
    cache_place(c, set, b, line, ready, dirty, prefetched, victim);
    return NULL;
}

/* Has the line at addr (if present) been aged out by time t by other cores'
 * fills, per_set lines a cycle into each set (l3.foreign_fills, models/
 * hierarchy.c)? Under LRU a line is gone once the lines of its set touched
 * after it and the foreign lines that arrived since its own last touch
 * together fill the set. The foreign lines are not stored: this is asked
 * when the line is next looked up, which is when it matters. */
static inline bool cache_i_aged_out(const cache_t *c, uint64_t addr, double t, double per_set)
{
    if (!c->touch)
        return false;
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint32_t way = cache_way_of(c, cache_block(c, set), line);
    if (way == c->ways)
        return false;
    const uint64_t *tags = cache_tags(c, set);
    const double *touch = c->touch + set * c->ways;
    const double mine = touch[way];
    if (!(t > mine))
        return false;
    double younger = 0;
    for (uint32_t w = 0; w < c->ways; w++)
        younger += w != way && tags[w] != CACHE_TAG_INVALID && touch[w] > mine;
    return younger + per_set * (t - mine) >= (double)c->ways;
}

/* cache_touched(): p is the metadata of addr's line. */
static inline void cache_i_touched(cache_t *c, uint64_t addr, const cache_meta_t *p, double t)
{
    if (!c->touch)
        return;
    uint64_t set = cache_line_of(c, addr) & c->set_mask;
    double *tt = &c->touch[set * c->ways + (uint32_t)(p - cache_metas(c, set))];
    if (t > *tt)
        *tt = t;
}

static inline bool cache_i_remove(cache_t *c, uint64_t addr, cache_meta_t *out)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint8_t *b = cache_block(c, set);
    uint32_t way = cache_way_of(c, b, line);
    if (way == c->ways)
        return false;
    uint64_t *tags = (uint64_t *)(b + c->tags_off);
    cache_meta_t *metas = (cache_meta_t *)(b + c->meta_off);
    cache_hdr_t *hd = (cache_hdr_t *)b;
    if (out != NULL)
        *out = metas[way];
    c->nvalid--;
    tags[way] = CACHE_TAG_INVALID;
    metas[way] = (cache_meta_t){0};
    hd->vmask &= ~(UINT64_C(1) << (way & 63));
    hd->nvalid--;
    return true;
}

#endif
