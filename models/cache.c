/*
 * cache.c - one set-associative, write-back cache array.
 *
 * Notes
 *  - Models the array of one cache level: per line a tag, valid and dirty
 *    bits, the time its fill completes and whether a prefetch brought it in;
 *    per set the replacement state of the policy chosen at create time. It is
 *    write-back in the sense that a dirty line stays dirty until it is evicted
 *    (cache_insert hands the dirty victim back) or removed; writing it back
 *    and deciding who allocates what is the hierarchy's job.
 *  - Addresses are byte addresses. line = addr >> line_shift; the set index is
 *    the low bits of the line number, line & set_mask (no hashing, no
 *    slicing). The stored tag is the whole line number, so a victim's address
 *    is tag << line_shift.
 *  - An access that straddles two lines is not this array's business: every
 *    call names one line (any byte address in it); the caller splits
 *    accesses at line boundaries and looks up each line.
 *  - Layout: one allocation holds this struct, then one block per set,
 *    64-byte aligned: a small header (valid ways; LRU head and tail), the
 *    replacement state, the set's tags (uint64_t, UINT64_MAX = invalid) and
 *    its metadata (parallel to the tags). Keeping a set's tags, metadata
 *    and state together means a lookup, an insert and its victim touch one
 *    contiguous block, and sequential sets are sequential in memory (a large
 *    simulated L3 is bigger than the host's own caches). Nothing is
 *    allocated after cache_create().
 *  - The invalid sentinel never equals a real line number because lines are
 *    at least 2 bytes (line_shift >= 1, so line numbers are < 2^63).
 *  - Lookups compare all ways of a set without an early exit (branch-free
 *    scan, O(ways)) and use no division: shift, mask, multiply. (Measured on
 *    the dev VM, 16 ways: an early-exit loop is ~1.7x faster when the hit way
 *    is predictable, as in one sequential stream, but ~1.6x slower with
 *    random addresses; the branch-free scan has no bad case.) Under LRU the
 *    most recently used way is tried first: in a sequential stream the line
 *    looked up is usually the one the set received last.
 *  - Invalid ways are filled first, lowest index first; only a full set asks
 *    the policy for a victim. The per-set valid count lets a full set skip
 *    the search for an invalid way. Removing a line leaves the replacement
 *    state as it was.
 *  - LRU is kept here as a doubly linked recency list per set (one byte per
 *    way each for the previous and next way, plus head and tail): a touch
 *    moves the way to the head in O(1), the victim is the tail in O(1). This
 *    is the same order as repl_lru's rank bytes (initially way 0 most
 *    recent, way ways-1 least recent; every touch makes the way the most
 *    recent), so it picks the same victims; repl_lru's functions remain the
 *    policy's reference. PLRU and random go through repl_ops_t.
 *  - Where an invalid way sits in the recency order never matters: victims
 *    are only chosen in a full set, and filling a way touches it first.
 *  - Ignores: sectoring / sub-line valid bits, coherence states beyond dirty,
 *    way prediction, bank conflicts, timing (ready_cycles is stored, never
 *    interpreted here).
 *  - Units: size_bytes, line_bytes in bytes; ready_cycles in core cycles.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cache.h"

#define CACHE_TAG_INVALID UINT64_MAX
/* xorshift64 must not start at 0; a seed of 0 starts here instead. */
#define CACHE_SEED_ZERO 0x9E3779B97F4A7C15ull
/* Line and set counts are kept in 32 bits. */
#define CACHE_MAX_LINES 0x80000000ull

/* Per-set header, first in the set's block: valid ways; the LRU list's ends. */
typedef struct cache_hdr {
    uint32_t nvalid; /* valid ways in the set */
    uint8_t head;    /* LRU: most recently used way */
    uint8_t tail;    /* LRU: least recently used way (the victim) */
} cache_hdr_t;

struct cache {
    uint8_t *blocks;        /* sets x block_bytes: header, replacement state, tags, meta */
    size_t block_bytes;     /* bytes per set block */
    size_t tags_off;        /* offset of the tags within a block */
    size_t meta_off;        /* offset of the metadata within a block */
    size_t hdr_off;         /* offset of the cache_hdr_t within a block */
    size_t state_off;       /* offset of the replacement state within a block */
    const repl_ops_t *repl; /* replacement policy */
    uint64_t set_mask;      /* sets - 1 */
    uint64_t rng;           /* xorshift64 state for random replacement */
    size_t repl_stride;     /* replacement state bytes per set */
    uint32_t line_shift;    /* log2(line_bytes) */
    uint32_t ways;
    uint32_t sets;
    uint32_t line_bytes;
    bool lru; /* recency list (prev[ways], next[ways]) instead of repl ops */
    /* A cache much larger than the host's caches: every access first asks the
     * host to prefetch the block CACHE_PF_SETS sets further on (sequential
     * streams walk the sets in order). A hint only; it changes no result. */
    bool host_prefetch;
    uint64_t nvalid; /* valid lines in the whole cache: 0 answers any lookup at once */
};

#define CACHE_PF_SETS      4u         /* how far ahead the host prefetch reaches */
#define CACHE_PF_MIN_BYTES (4u << 20) /* caches at least this large use it */
#define CACHE_PF_MAX_LINES 8u         /* host lines prefetched per access */

static const repl_ops_t *const repl_table[] = {
    [CFG_REPL_LRU] = &repl_lru,
    [CFG_REPL_PLRU] = &repl_plru,
    [CFG_REPL_RANDOM] = &repl_random,
};
#define REPL_TABLE_LEN (sizeof repl_table / sizeof repl_table[0])

const repl_ops_t *repl_find(cfg_repl_t which)
{
    if ((unsigned)which >= REPL_TABLE_LEN)
        return NULL;
    return repl_table[which];
}

const repl_ops_t *repl_find_name(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < REPL_TABLE_LEN; i++)
        if (strcmp(repl_table[i]->name, name) == 0)
            return repl_table[i];
    return NULL;
}

static inline bool cache_is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static inline uint32_t cache_log2(uint64_t pow2)
{
    uint32_t n = 0;
    while ((1ull << n) < pow2)
        n++;
    return n;
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
    return (cache_hdr_t *)(cache_block(c, set) + c->hdr_off);
}

static inline uint8_t *cache_state(const cache_t *c, uint64_t set)
{
    return cache_block(c, set) + c->state_off;
}

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

static inline void cache_touch(cache_t *c, uint64_t set, uint32_t way)
{
    if (c->lru)
        lru_list_touch(cache_hdr(c, set), cache_state(c, set), c->ways, way);
    else
        c->repl->touch(cache_state(c, set), c->ways, way);
}

/* The way holding `line` in the set starting at tags, or ways if absent. */
static inline uint32_t cache_find_way(const uint64_t *tags, uint32_t ways, uint64_t line)
{
    uint32_t hit = ways;
    for (uint32_t w = 0; w < ways; w++)
        hit = tags[w] == line ? w : hit;
    return hit;
}

/* The lowest invalid way in the set, or ways if the set is full. */
static inline uint32_t cache_find_invalid(const uint64_t *tags, uint32_t ways)
{
    uint32_t inv = ways;
    for (uint32_t w = ways; w-- > 0;)
        inv = tags[w] == CACHE_TAG_INVALID ? w : inv;
    return inv;
}

static int cache_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cache_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

cache_t *cache_create(const cfg_cache_t *geom, uint64_t seed, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (geom == NULL) {
        cache_fail(err, errlen, "no cache geometry given");
        return NULL;
    }
    uint64_t size = geom->size_bytes;
    uint64_t ways = geom->ways;
    uint64_t line = geom->line_bytes;
    if (size == 0) {
        cache_fail(err, errlen, "size must be non-zero");
        return NULL;
    }
    if (ways == 0) {
        cache_fail(err, errlen, "ways must be non-zero");
        return NULL;
    }
    if (line == 0) {
        cache_fail(err, errlen, "line must be non-zero");
        return NULL;
    }
    if (!cache_is_pow2(line)) {
        cache_fail(err, errlen, "line %" PRIu64 " is not a power of two", line);
        return NULL;
    }
    if (line < 2) {
        cache_fail(err, errlen, "line %" PRIu64 " is too small (at least 2 bytes)", line);
        return NULL;
    }
    if (size % line != 0) {
        cache_fail(err, errlen, "size %" PRIu64 " is not a multiple of line %" PRIu64, size, line);
        return NULL;
    }
    uint64_t lines = size / line;
    if (ways > lines) {
        cache_fail(err, errlen, "ways %" PRIu64 " exceed the %" PRIu64 " lines of the cache", ways,
                   lines);
        return NULL;
    }
    if (size % (ways * line) != 0) {
        cache_fail(err, errlen,
                   "size %" PRIu64 " is not divisible by ways x line (%" PRIu64 " x %" PRIu64
                   " = %" PRIu64 ")",
                   size, ways, line, ways * line);
        return NULL;
    }
    uint64_t sets = lines / ways;
    if (!cache_is_pow2(sets)) {
        cache_fail(err, errlen, "set count %" PRIu64 " is not a power of two", sets);
        return NULL;
    }
    if (lines > CACHE_MAX_LINES) {
        cache_fail(err, errlen, "%" PRIu64 " lines is too many (at most %llu)", lines,
                   CACHE_MAX_LINES);
        return NULL;
    }
    const repl_ops_t *repl = repl_find(geom->repl);
    if (repl == NULL) {
        cache_fail(err, errlen, "unknown replacement policy %d", (int)geom->repl);
        return NULL;
    }
    if (repl->check != NULL && repl->check((uint32_t)ways, err, errlen) != 0)
        return NULL;

    bool lru = repl == &repl_lru && ways <= 256;
    size_t stride = lru ? 2 * (size_t)ways : repl->state_bytes((uint32_t)ways);
    /* header and replacement state first: a lookup reads the header (the
     * MRU way) and then the tags, which follow in the same host lines */
    size_t hdr_off = 0;
    size_t state_off = sizeof(cache_hdr_t);
    size_t tags_off = (state_off + stride + 7) & ~(size_t)7;
    size_t meta_off = tags_off + (size_t)ways * sizeof(uint64_t);
    size_t block = (meta_off + (size_t)ways * sizeof(cache_meta_t) + 63) & ~(size_t)63;
    size_t head = (sizeof(cache_t) + 63) & ~(size_t)63;
    size_t total = head + (size_t)sets * block;

    uint8_t *mem = aligned_alloc(64, (total + 63) & ~(size_t)63);
    if (mem == NULL) {
        cache_fail(err, errlen, "out of memory for a %" PRIu64 "-line cache", lines);
        return NULL;
    }
    cache_t *c = (cache_t *)mem;
    c->blocks = mem + head;
    c->block_bytes = block;
    c->tags_off = tags_off;
    c->meta_off = meta_off;
    c->hdr_off = hdr_off;
    c->state_off = state_off;
    c->lru = lru;
    c->host_prefetch = (uint64_t)sets * block >= CACHE_PF_MIN_BYTES;
    c->repl = repl;
    c->set_mask = sets - 1;
    c->rng = seed != 0 ? seed : CACHE_SEED_ZERO;
    c->repl_stride = stride;
    c->line_shift = cache_log2(line);
    c->ways = (uint32_t)ways;
    c->sets = (uint32_t)sets;
    c->line_bytes = (uint32_t)line;
    c->nvalid = 0; /* aligned_alloc does not zero: every field is set here */

    for (uint64_t st = 0; st < sets; st++) {
        uint64_t *tags = cache_tags(c, st);
        for (uint64_t w = 0; w < ways; w++)
            tags[w] = CACHE_TAG_INVALID;
        memset(cache_metas(c, st), 0, (size_t)ways * sizeof(cache_meta_t));
        cache_hdr_t *hd = cache_hdr(c, st);
        hd->nvalid = 0;
        if (lru)
            lru_list_init(hd, cache_state(c, st), c->ways);
        else
            repl->init(cache_state(c, st), c->ways);
    }
    return c;
}

void cache_destroy(cache_t *c)
{
    free(c);
}

/* The way holding line in set, or ways if absent. Under LRU the most
 * recently used way is tried first. */
static inline uint32_t cache_way_of(const cache_t *c, uint64_t set, uint64_t line)
{
    if (c->nvalid == 0)
        return c->ways; /* e.g. non-temporal clearing leaves the caches empty */
    if (c->host_prefetch) {
        const uint8_t *ahead = cache_block(c, (set + CACHE_PF_SETS) & c->set_mask);
        for (size_t off = 0; off < c->block_bytes && off < 64 * CACHE_PF_MAX_LINES; off += 64)
            __builtin_prefetch(ahead + off, 1, 3);
    }
    const uint64_t *tags = cache_tags(c, set);
    if (c->lru) {
        uint32_t h = cache_hdr(c, set)->head;
        if (tags[h] == line)
            return h;
    }
    return cache_find_way(tags, c->ways, line);
}

cache_meta_t *cache_lookup(cache_t *c, uint64_t addr, bool touch)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint32_t way = cache_way_of(c, set, line);
    if (way == c->ways)
        return NULL;
    if (touch)
        cache_touch(c, set, way);
    return &cache_metas(c, set)[way];
}

/* Put line (known absent) into set; returns its way. */
static inline uint32_t cache_place(cache_t *c, uint64_t set, uint64_t line,
                                   const cache_meta_t *meta, cache_victim_t *victim)
{
    uint64_t *tags = cache_tags(c, set);
    cache_meta_t *metas = cache_metas(c, set);
    cache_hdr_t *hd = cache_hdr(c, set);
    uint32_t way;
    cache_victim_t v = {0};
    if (hd->nvalid < c->ways) {
        way = cache_find_invalid(tags, c->ways);
        hd->nvalid++;
        c->nvalid++;
    } else {
        way = c->lru ? hd->tail : c->repl->victim(cache_state(c, set), c->ways, &c->rng);
        v.valid = true;
        v.addr = tags[way] << c->line_shift;
        v.meta = metas[way];
    }
    tags[way] = line;
    if (meta != NULL) {
        metas[way] = *meta;
    } else {
        metas[way] = (cache_meta_t){0};
    }
    cache_touch(c, set, way);
    if (victim != NULL)
        *victim = v;
    return way;
}

void cache_insert(cache_t *c, uint64_t addr, const cache_meta_t *meta, cache_victim_t *victim)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    assert(cache_find_way(cache_tags(c, set), c->ways, line) == c->ways &&
           "cache_insert: line already present");
    cache_place(c, set, line, meta, victim);
}

cache_meta_t *cache_lookup_or_insert(cache_t *c, uint64_t addr, bool touch,
                                     const cache_meta_t *meta, cache_victim_t *victim)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint32_t way = cache_way_of(c, set, line);
    if (way != c->ways) {
        if (touch)
            cache_touch(c, set, way);
        return &cache_metas(c, set)[way];
    }
    cache_place(c, set, line, meta, victim);
    return NULL;
}

bool cache_remove(cache_t *c, uint64_t addr, cache_meta_t *out)
{
    uint64_t line = cache_line_of(c, addr);
    uint64_t set = line & c->set_mask;
    uint32_t way = cache_way_of(c, set, line);
    if (way == c->ways)
        return false;
    uint64_t *tags = cache_tags(c, set);
    cache_meta_t *metas = cache_metas(c, set);
    if (out != NULL)
        *out = metas[way];
    tags[way] = CACHE_TAG_INVALID;
    metas[way] = (cache_meta_t){0};
    cache_hdr(c, set)->nvalid--;
    c->nvalid--;
    return true;
}

uint32_t cache_line_bytes(const cache_t *c)
{
    return c->line_bytes;
}

uint32_t cache_sets(const cache_t *c)
{
    return c->sets;
}

uint32_t cache_ways(const cache_t *c)
{
    return c->ways;
}

uint64_t cache_valid_lines(const cache_t *c)
{
    uint64_t n = 0;
    for (uint64_t st = 0; st < c->sets; st++) {
        const uint64_t *tags = cache_tags(c, st);
        for (uint32_t w = 0; w < c->ways; w++)
            n += tags[w] != CACHE_TAG_INVALID;
    }
    return n;
}

bool cache_peek(const cache_t *c, uint32_t set, uint32_t way, uint64_t *addr)
{
    if (set >= c->sets || way >= c->ways)
        return false;
    uint64_t tag = cache_tags(c, set)[way];
    if (tag == CACHE_TAG_INVALID)
        return false;
    if (addr != NULL)
        *addr = tag << c->line_shift;
    return true;
}

uint32_t cache_set_of(const cache_t *c, uint64_t addr)
{
    return (uint32_t)(cache_line_of(c, addr) & c->set_mask);
}

const repl_ops_t *cache_repl(const cache_t *c)
{
    return c->repl;
}

void cache_shift_time(cache_t *c, double dt)
{
    for (uint64_t st = 0; st < c->sets; st++) {
        const uint64_t *tags = cache_tags(c, st);
        cache_meta_t *metas = cache_metas(c, st);
        for (uint32_t w = 0; w < c->ways; w++)
            if (tags[w] != CACHE_TAG_INVALID)
                metas[w].ready_cycles += dt;
    }
}
