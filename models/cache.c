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
 *    64-byte aligned: a small header (valid ways and, up to 64 ways, a mask
 *    of them; LRU head and tail), the replacement state, one 8-bit
 *    fingerprint per way (packed eight to a uint64_t), the set's tags
 *    (uint64_t, UINT64_MAX = invalid) and its metadata (parallel to the
 *    tags). Keeping a set's tags, metadata and state together means a
 *    lookup, an insert and its victim touch one contiguous block, and
 *    sequential sets are sequential in memory (a large simulated L3 is
 *    bigger than the host's own caches). Nothing is allocated after
 *    cache_create().
 *  - The invalid sentinel never equals a real line number because lines are
 *    at least 2 bytes (line_shift >= 1, so line numbers are < 2^63).
 *  - Lookups use no division: shift, mask, multiply. Under LRU the most
 *    recently used way is tried first: in a sequential stream the line
 *    looked up is usually the one the set received last. Otherwise the
 *    fingerprints (the low 8 bits of line >> set bits, i.e. of the tag above
 *    the set index) are compared eight ways per word (SWAR), and only ways
 *    whose fingerprint may match have their full tag compared; a miss
 *    usually compares no tag at all. Lines of one sequential stream that
 *    share a set differ in those bits until 256 of them have passed, so
 *    they rarely collide. A fingerprint is a filter only: the full tag
 *    decides, so results do not depend on it (debug builds check every
 *    search against the full scan). The branch-free scan of every tag that
 *    this replaces cost ~3 instructions per way on every miss.
 *  - Up to 16 ways on an x86-64 host (SSE2), the search compares all the
 *    fingerprint bytes at once and keeps only the valid ways (hdr.vmask):
 *    only true fingerprint matches of valid lines have their tag compared.
 *    The word filter flagged more: the byte a removed line leaves behind
 *    (a victim L3 removes every line it hands to the L2, and takes it back
 *    later), bytes of ways never filled, and padding past the last way.
 *    On the benchmark case (bench/run section 4) this cut the host
 *    instructions per simulated line from 1,578 to 1,420. Other hosts and
 *    wider sets keep the word filter; tests/test_cache.c checks both at
 *    16 and 17 ways.
 *  - Invalid ways are filled first, lowest index first; only a full set asks
 *    the policy for a victim. The per-set valid count lets a full set skip
 *    the search for an invalid way; up to 64 ways the valid mask finds the
 *    lowest invalid way in one step. Removing a line leaves the replacement
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
 *  - The struct, the helpers and the hot functions (lookup, insert,
 *    lookup-or-insert, remove) live in models/cache_impl.h as static inline
 *    code, which the hierarchy includes so that its lookups inline; the
 *    functions here are the same code behind the opaque interface.
 *  - What exact bulk stepping asks of an array (snapshots, comparisons,
 *    moves) is in models/cache_snap.c, on the same layout.
 *  - Ignores: sectoring / sub-line valid bits, coherence states beyond dirty,
 *    way prediction, bank conflicts, timing (ready_cycles is stored, never
 *    interpreted here).
 *  - Units: size_bytes, line_bytes in bytes; ready_cycles in core cycles.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "models/cache.h"
#include "models/cache_impl.h"
#include "models/base/bigmem.h"
#include "models/base/errbuf.h"

static const repl_ops_t *const repl_table[] = {
    [MACHINE_REPL_LRU] = &repl_lru,
    [MACHINE_REPL_PLRU] = &repl_plru,
    [MACHINE_REPL_RANDOM] = &repl_random,
};
#define REPL_TABLE_LEN (sizeof repl_table / sizeof repl_table[0])

const repl_ops_t *repl_find(machine_repl_t which)
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

cache_t *cache_create(const machine_cache_t *geom, uint64_t seed, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (geom == NULL) {
        errbuf_set(err, errlen, "no cache geometry given");
        return NULL;
    }
    uint64_t size = geom->size_bytes;
    uint64_t ways = geom->ways;
    uint64_t line = geom->line_bytes;
    if (size == 0) {
        errbuf_set(err, errlen, "size must be non-zero");
        return NULL;
    }
    if (ways == 0) {
        errbuf_set(err, errlen, "ways must be non-zero");
        return NULL;
    }
    if (line == 0) {
        errbuf_set(err, errlen, "line must be non-zero");
        return NULL;
    }
    if (!cache_is_pow2(line)) {
        errbuf_set(err, errlen, "line %" PRIu64 " is not a power of two", line);
        return NULL;
    }
    if (line < 2) {
        errbuf_set(err, errlen, "line %" PRIu64 " is too small (at least 2 bytes)", line);
        return NULL;
    }
    if (size % line != 0) {
        errbuf_set(err, errlen, "size %" PRIu64 " is not a multiple of line %" PRIu64, size, line);
        return NULL;
    }
    uint64_t lines = size / line;
    if (ways > lines) {
        errbuf_set(err, errlen, "ways %" PRIu64 " exceed the %" PRIu64 " lines of the cache", ways,
                   lines);
        return NULL;
    }
    if (size % (ways * line) != 0) {
        errbuf_set(err, errlen,
                   "size %" PRIu64 " is not divisible by ways x line (%" PRIu64 " x %" PRIu64
                   " = %" PRIu64 ")",
                   size, ways, line, ways * line);
        return NULL;
    }
    uint64_t sets = lines / ways;
    if (!cache_is_pow2(sets)) {
        errbuf_set(err, errlen, "set count %" PRIu64 " is not a power of two", sets);
        return NULL;
    }
    if (lines > CACHE_MAX_LINES) {
        errbuf_set(err, errlen, "%" PRIu64 " lines is too many (at most %llu)", lines,
                   CACHE_MAX_LINES);
        return NULL;
    }
    const repl_ops_t *repl = repl_find(geom->repl);
    if (repl == NULL) {
        errbuf_set(err, errlen, "unknown replacement policy %d", (int)geom->repl);
        return NULL;
    }
    if (repl->check != NULL && repl->check((uint32_t)ways, err, errlen) != 0)
        return NULL;

    bool lru = repl == &repl_lru && ways <= 256;
    size_t stride = lru ? 2 * (size_t)ways : repl->state_bytes((uint32_t)ways);
    /* header, replacement state and fingerprints first: a lookup reads the
     * header (the MRU way) and the fingerprints, then the tags, which follow
     * in the same host lines */
    size_t fp_words = ((size_t)ways + 7) / 8;
    size_t state_off = CACHE_STATE_OFF; /* the header is at offset 0 */
    size_t fp_off = (state_off + stride + 7) & ~(size_t)7;
    size_t tags_off = fp_off + fp_words * sizeof(uint64_t);
    size_t meta_off = tags_off + (size_t)ways * sizeof(uint64_t);
    size_t block = (meta_off + (size_t)ways * sizeof(cache_meta_t) + 63) & ~(size_t)63;
    size_t head = (sizeof(cache_t) + 63) & ~(size_t)63;
    size_t total = head + (size_t)sets * block;

    uint8_t *mem = bigmem_alloc(64, total);
    if (mem == NULL) {
        errbuf_set(err, errlen, "out of memory for a %" PRIu64 "-line cache", lines);
        return NULL;
    }
    cache_t *c = (cache_t *)mem;
    c->blocks = mem + head;
    c->block_bytes = block;
    c->tags_off = tags_off;
    c->meta_off = meta_off;
    c->fp_off = fp_off;
    c->fp_words = (uint32_t)fp_words;
    c->lru = lru;
    c->host_prefetch = (uint64_t)sets * block >= CACHE_PF_MIN_BYTES;
    c->pf_lines = (uint32_t)(block / 64 < CACHE_PF_MAX_LINES ? block / 64 : CACHE_PF_MAX_LINES);
    c->vmask_on = ways <= 64;
    c->fp_exact = CACHE_FP_SSE2 && ways <= 16;
    c->repl = repl;
    c->set_mask = sets - 1;
    c->rng = seed != 0 ? seed : CACHE_SEED_ZERO;
    c->repl_stride = stride;
    c->line_shift = cache_log2(line);
    c->ways = (uint32_t)ways;
    c->sets = (uint32_t)sets;
    c->line_bytes = (uint32_t)line;
    c->fp_shift = cache_log2(sets); /* of the line number: the tag above the set index */
    c->nvalid = 0;                  /* bigmem_alloc does not zero: every field is set here */
    c->touch = NULL;

    /* Every set starts alike (no valid way, the policy's first state, which
     * depends on the way count only): the first is set up and copied. */
    memset(cache_block(c, 0), 0, block);
    uint64_t *tags = cache_tags(c, 0);
    for (uint64_t w = 0; w < ways; w++)
        tags[w] = CACHE_TAG_INVALID;
    if (lru)
        lru_list_init(cache_hdr(c, 0), cache_state(c, 0), c->ways);
    else
        repl->init(cache_state(c, 0), c->ways);
    for (uint64_t st = 1; st < sets; st++)
        memcpy(cache_block(c, st), cache_block(c, 0), block);
    return c;
}

void cache_destroy(cache_t *c)
{
    if (c)
        free(c->touch);
    bigmem_free(c);
}

int cache_keep_touch(cache_t *c)
{
    if (c->touch)
        return 0;
    c->touch = calloc((size_t)c->sets * c->ways, sizeof(double));
    if (!c->touch)
        return -1;
    for (uint64_t st = 0; st < c->sets; st++) /* lines already there: filled at ready */
        for (uint32_t w = 0; w < c->ways; w++)
            if (cache_tags(c, st)[w] != CACHE_TAG_INVALID)
                c->touch[st * c->ways + w] = cache_metas(c, st)[w].ready_cycles;
    return 0;
}

void cache_touched(cache_t *c, uint64_t addr, const cache_meta_t *p, double t)
{
    cache_i_touched(c, addr, p, t);
}

cache_meta_t *cache_lookup(cache_t *c, uint64_t addr, bool touch)
{
    return cache_i_lookup(c, addr, touch);
}

void cache_insert(cache_t *c, uint64_t addr, const cache_meta_t *meta, cache_victim_t *victim)
{
    cache_meta_t m = meta != NULL ? *meta : (cache_meta_t){0};
    if (victim != NULL)
        *victim = (cache_victim_t){0};
    cache_i_insert(c, addr, m.ready_cycles, m.dirty, m.prefetched, victim);
}

cache_meta_t *cache_lookup_or_insert(cache_t *c, uint64_t addr, bool touch,
                                     const cache_meta_t *meta, cache_victim_t *victim)
{
    cache_meta_t m = meta != NULL ? *meta : (cache_meta_t){0};
    cache_victim_t v = {0};
    cache_meta_t *hit =
        cache_i_lookup_or_insert(c, addr, touch, m.ready_cycles, m.dirty, m.prefetched, &v);
    if (hit == NULL && victim != NULL)
        *victim = v; /* on a hit *victim is not written */
    return hit;
}

bool cache_aged_out(const cache_t *c, uint64_t addr, double t, double per_set)
{
    return cache_i_aged_out(c, addr, t, per_set);
}

bool cache_remove(cache_t *c, uint64_t addr, cache_meta_t *out)
{
    return cache_i_remove(c, addr, out);
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
            if (tags[w] != CACHE_TAG_INVALID) {
                metas[w].ready_cycles += dt;
                if (c->touch)
                    c->touch[st * c->ways + w] += dt;
            }
    }
}

cache_t *cache_clone(const cache_t *c)
{
    size_t head = (sizeof(cache_t) + 63) & ~(size_t)63;
    size_t total = head + (size_t)c->sets * c->block_bytes;
    uint8_t *mem = aligned_alloc(64, (total + 63) & ~(size_t)63);
    if (!mem)
        return NULL;
    memcpy(mem, c, total); /* a cache is one block: its struct, then its sets */
    cache_t *n = (cache_t *)mem;
    n->blocks = mem + head;
    n->touch = NULL; /* and its touch times, if kept */
    if (c->touch) {
        size_t tb = (size_t)c->sets * c->ways * sizeof(double);
        n->touch = malloc(tb);
        if (!n->touch) {
            free(mem);
            return NULL;
        }
        memcpy(n->touch, c->touch, tb);
    }
    return n;
}

bool cache_copy(cache_t *dst, const cache_t *src)
{
    if (dst->sets != src->sets || dst->block_bytes != src->block_bytes ||
        (dst->touch == NULL) != (src->touch == NULL))
        return false;
    double *touch = dst->touch;
    size_t head = (sizeof(cache_t) + 63) & ~(size_t)63;
    memcpy(dst, src, head + (size_t)src->sets * src->block_bytes);
    dst->blocks = (uint8_t *)dst + head;
    dst->touch = touch;
    if (touch)
        memcpy(touch, src->touch, (size_t)src->sets * src->ways * sizeof(double));
    return true;
}
