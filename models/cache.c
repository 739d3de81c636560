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
 *  - Ignores: sectoring / sub-line valid bits, coherence states beyond dirty,
 *    way prediction, bank conflicts, timing (ready_cycles is stored, never
 *    interpreted here).
 *  - Units: size_bytes, line_bytes in bytes; ready_cycles in core cycles.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cache.h"
#include "models/cache_impl.h"
#include "models/base/bigmem.h"
#include "models/base/errbuf.h"
#include "models/timing.h"

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

    for (uint64_t st = 0; st < sets; st++) {
        uint64_t *tags = cache_tags(c, st);
        for (uint64_t w = 0; w < ways; w++)
            tags[w] = CACHE_TAG_INVALID;
        memset(cache_metas(c, st), 0, (size_t)ways * sizeof(cache_meta_t));
        memset(cache_fps(c, st), 0, fp_words * sizeof(uint64_t));
        cache_hdr_t *hd = cache_hdr(c, st);
        hd->nvalid = 0;
        hd->vmask = 0;
        if (lru)
            lru_list_init(hd, cache_state(c, st), c->ways);
        else
            repl->init(cache_state(c, st), c->ways);
    }
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

/* ---- exact bulk stepping (models/model_bulk.c) ---------------------------- */

enum { SNAP_DIRTY = 1, SNAP_PF = 2, SNAP_LIVE = 4 };

struct cache_snap {
    uint32_t sets;
    uint64_t n, cap, cap_flags; /* entries kept, room for tags and for flags */
    /* the lines, set by set, most recently used first: each line's tag
     * above the set index and its SNAP_* bits in 32 bits (tags32: tag << 3 |
     * bits), or, when a tag does not fit in 29 bits, the line numbers (tags)
     * and the bits (flags) apart (wide); read_entry() reads either */
    bool wide;
    uint32_t set_shift;
    uint32_t *tags32;
    uint64_t cap32;
    uint64_t *tags;
    uint8_t *flags;    /* SNAP_* (wide only) */
    uint16_t *per_set; /* valid lines of each set */
    double *live;      /* ready times not past, in entry order */
    uint64_t nlive, cap_live;
    uint16_t *split; /* cache_snap_grown's per-set moving lines (sets entries) */
};

bool cache_snap_supported(const cache_t *c)
{
    return c->lru && c->ways <= UINT16_MAX;
}

void cache_snap_destroy(cache_snap_t *s)
{
    if (!s)
        return;
    bigmem_free(s->tags);
    bigmem_free(s->tags32);
    bigmem_free(s->flags);
    free(s->per_set);
    free(s->live);
    free(s->split);
    free(s);
}

static int snap_grow(void **p, uint64_t *cap, uint64_t need, size_t each)
{
    if (need <= *cap)
        return 0;
    uint64_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * each);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* snap_grow() for an array refilled from its start after it grows (its old
 * contents are not kept): as large as the cache's lines, so in huge pages
 * where the host allows (models/base/bigmem.h). */
static int snap_room(void **p, uint64_t *cap, uint64_t need, size_t each)
{
    if (need <= *cap)
        return 0;
    uint64_t n = need < 64 ? 64 : need;
    bigmem_free(*p);
    *p = bigmem_alloc(64, (size_t)n * each);
    *cap = *p ? n : 0;
    return *p ? 0 : -1;
}

static inline uint8_t meta_flags(const cache_meta_t *mt)
{
    return (uint8_t)((uint8_t)mt->dirty * SNAP_DIRTY | (uint8_t)mt->prefetched * SNAP_PF);
}

/* The valid ways of a set from the most to the least recently used: the
 * recency list from its head (it links every way, valid or not; an invalid
 * way's place in it never matters, as a fill takes an invalid way only
 * while one is left and moves it to the head). A full or empty set (the
 * header's count says which) needs no tag tested. */
static inline uint32_t recency(const cache_t *c, uint64_t set, uint32_t *order)
{
    const cache_hdr_t *hd = cache_hdr(c, set);
    const uint8_t *next = cache_state(c, set) + c->ways;
    const uint64_t *tags = cache_tags(c, set);
    uint32_t ways = c->ways, n = 0, w = hd->head;
    if (hd->nvalid == 0)
        return 0;
    if (hd->nvalid == ways) {
        for (uint32_t i = 0; i < ways; i++) {
            assert(tags[w] != CACHE_TAG_INVALID);
            order[i] = w;
            w = next[w];
        }
        return ways;
    }
    for (uint32_t i = 0; i < ways; i++) {
        if (tags[w] != CACHE_TAG_INVALID)
            order[n++] = w;
        w = next[w];
    }
    assert(n == hd->nvalid);
    return n;
}

/* Every way's fingerprint again from its tag, after a move or a rewrite of
 * the set (an invalid way's byte does not matter: its tag never matches). */
static void fp_rebuild(const cache_t *c, uint64_t set)
{
    const uint64_t *tags = cache_tags(c, set);
    uint64_t *fw = cache_fps(c, set);
    for (uint32_t i = 0, w = 0; i < c->fp_words; i++) {
        uint64_t x = 0;
        for (uint32_t b = 0; b < 64 && w < c->ways; b += 8, w++)
            x |= cache_fp_of(c, tags[w]) << b;
        fw[i] = x;
    }
}

cache_snap_t *cache_snap_take(const cache_t *c, cache_snap_t *s, double floor_cycles)
{
    if (!cache_snap_supported(c))
        return NULL;
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s)
            return NULL;
    }
    if (s->sets != c->sets) {
        free(s->per_set);
        free(s->split);
        s->split = NULL;
        s->per_set = malloc((size_t)c->sets * sizeof(uint16_t));
        s->sets = s->per_set ? c->sets : 0;
        if (!s->per_set)
            goto fail;
    }
    s->set_shift = c->fp_shift; /* log2(sets) */
    /* narrow first (half the memory of a large L3's snapshot); wide when a
     * tag does not fit in 32 bits */
    for (int wide = 0; wide <= 1; wide++) {
        s->wide = wide;
        if (wide ? snap_room((void **)&s->tags, &s->cap, c->nvalid, sizeof(uint64_t)) ||
                       snap_room((void **)&s->flags, &s->cap_flags, c->nvalid, 1)
                 : snap_room((void **)&s->tags32, &s->cap32, c->nvalid, sizeof(uint32_t)))
            goto fail;
        /* locals, not s's fields: the stores through s's arrays could
         * alias them, which kept every count in memory */
        uint64_t k = 0, nlive = 0;
        const uint32_t shift = s->set_shift;
        const uint64_t narrow_lim = UINT64_C(1) << 29;
        uint32_t *t32 = s->tags32;
        uint64_t *t64 = s->tags;
        uint8_t *f8 = s->flags;
        bool fits = true;
        const uint32_t ways = c->ways;
        for (uint64_t set = 0; set < c->sets && fits; set++) {
            /* the set's recency list from its head, its valid ways only
             * (as recency() gives them, without the list of ways) */
            const cache_hdr_t *hd = cache_hdr(c, set);
            uint32_t n = hd->nvalid;
            s->per_set[set] = (uint16_t)n;
            if (n == 0)
                continue;
            /* room for every line of the set to be live */
            if (snap_grow((void **)&s->live, &s->cap_live, nlive + n, sizeof(double)))
                goto fail;
            double *live = s->live;
            const uint64_t *tags = cache_tags(c, set);
            const cache_meta_t *metas = cache_metas(c, set);
            const uint8_t *next = cache_state(c, set) + ways;
            uint64_t over = 0; /* the tags above the set index, or'd */
            uint32_t w = hd->head, got = 0;
            for (uint32_t i = 0; i < ways && got < n; i++, w = next[w]) {
                uint64_t line = tags[w];
                if (line == CACHE_TAG_INVALID)
                    continue;
                got++;
                const cache_meta_t *mt = &metas[w];
                uint32_t f = meta_flags(mt);
                double ready = mt->ready_cycles;
                if (!(ready < floor_cycles)) {
                    f |= SNAP_LIVE;
                    live[nlive++] = ready;
                }
                if (wide) {
                    t64[k] = line;
                    f8[k++] = (uint8_t)f;
                } else {
                    over |= line >> shift;
                    t32[k++] = (uint32_t)(line >> shift) << 3 | f;
                }
            }
            assert(got == n);
            if (!wide && over >= narrow_lim)
                fits = false; /* a tag needs more than 29 bits: wide */
        }
        s->n = k;
        s->nlive = nlive;
        if (fits)
            break;
    }
    return s;
fail:
    cache_snap_destroy(s);
    return NULL;
}

/* One snapshot entry: its line, flags (SNAP_*) and ready time (-INFINITY:
 * past), read in entry order (the live times are kept in that order). */
typedef struct snap_entry {
    uint64_t line;
    uint8_t flags;
    double ready;
} snap_entry_t;

/* A snapshot's arrays as locals of the loop that reads them (through s,
 * every store would make the compiler load them again). */
typedef struct snap_reader {
    const uint32_t *t32;
    const uint64_t *t64;
    const uint8_t *f8;
    const double *live;
    uint32_t shift;
    bool wide;
} snap_reader_t;

static inline snap_reader_t snap_reader(const cache_snap_t *s)
{
    return (snap_reader_t){.t32 = s->tags32,
                           .t64 = s->tags,
                           .f8 = s->flags,
                           .live = s->live,
                           .shift = s->set_shift,
                           .wide = s->wide};
}

static inline snap_entry_t read_entry(const snap_reader_t *r, uint64_t set, uint64_t k, uint64_t *j)
{
    snap_entry_t e;
    uint8_t sf;
    if (r->wide) {
        e.line = r->t64[k];
        sf = r->f8[k];
    } else {
        uint32_t x = r->t32[k];
        e.line = (uint64_t)(x >> 3) << r->shift | set;
        sf = (uint8_t)(x & 7);
    }
    e.flags = (uint8_t)(sf & ~SNAP_LIVE);
    e.ready = (sf & SNAP_LIVE) ? r->live[(*j)++] : -INFINITY;
    return e;
}

/* The line in way w of set is entry e moved by dlines (0: where it was). */
static inline bool entry_is(const uint64_t *tags, const cache_meta_t *metas, uint32_t w,
                            const snap_entry_t *e, uint64_t dlines, const struct timing_shift *sh)
{
    return tags[w] == e->line + dlines && meta_flags(&metas[w]) == e->flags &&
           timing_same(metas[w].ready_cycles, e->ready, sh);
}

/* snap_same_as() for one layout (wide) and one kind of comparison (moved:
 * dlines > 0), so that the compiler drops the branches on them and keeps
 * the loop's state in registers. */
static inline __attribute__((always_inline)) bool
same_as(const cache_t *c, const cache_snap_t *s, const bool wide, const bool moved, uint64_t dlines,
        uint64_t lo, uint64_t hi, uint64_t wlo, uint64_t whi, const struct timing_shift *shp,
        uint64_t *ahead)
{
    uint32_t order[256];
    uint64_t k = 0, j = 0, first_ahead = UINT64_MAX;
    snap_reader_t r = snap_reader(s);
    r.wide = wide;
    const uint16_t *per_set = s->per_set;
    const struct timing_shift sh = *shp;
    const uint64_t sets = c->sets;
    for (uint64_t set = 0; set < sets; set++) {
        uint32_t n = recency(c, set, order);
        if (n != per_set[set])
            return false;
        const uint64_t *tags = cache_tags(c, set);
        const cache_meta_t *metas = cache_metas(c, set);
        for (uint32_t i = 0; i < n; i++, k++) {
            snap_entry_t e = read_entry(&r, set, k, &j);
            uint64_t d = 0; /* this entry's move */
            if (!moved) {
                if (e.line >= wlo && e.line < whi) {
                    if (!ahead)
                        return false;
                    if (e.line < first_ahead)
                        first_ahead = e.line;
                }
            } else if (e.line >= lo && e.line < hi) {
                d = dlines;
                if (e.line + d >= hi)
                    return false;
            }
            if (!entry_is(tags, metas, order[i], &e, d, &sh))
                return false;
        }
    }
    if (ahead)
        *ahead = first_ahead;
    return true;
}

/* The snapshot compared as moved (dlines > 0: lines of [lo, hi) moved on,
 * others where they were) or as static (dlines 0: every line where it was,
 * none in the window [wlo, whi) the stream will reach; *ahead, if given, is
 * then the first such line instead of a failure). */
static bool snap_same_as(const cache_t *c, const cache_snap_t *s, uint64_t dlines, uint64_t lo,
                         uint64_t hi, uint64_t wlo, uint64_t whi, const struct timing_shift *sh,
                         uint64_t *ahead)
{
    if (s->wide)
        return dlines ? same_as(c, s, true, true, dlines, lo, hi, wlo, whi, sh, ahead)
                      : same_as(c, s, true, false, 0, lo, hi, wlo, whi, sh, ahead);
    return dlines ? same_as(c, s, false, true, dlines, lo, hi, wlo, whi, sh, ahead)
                  : same_as(c, s, false, false, 0, lo, hi, wlo, whi, sh, ahead);
}

int cache_snap_same(const cache_t *c, const cache_snap_t *s, uint64_t dlines, uint64_t lo,
                    uint64_t hi, uint64_t wlo, uint64_t whi, const struct timing_shift *sh,
                    uint64_t *ahead)
{
    if (ahead)
        *ahead = UINT64_MAX;
    if (!s || s->sets != c->sets || (dlines & c->set_mask) != 0 || s->n != c->nvalid)
        return -1;
    if (dlines && snap_same_as(c, s, dlines, lo, hi, wlo, whi, sh, NULL))
        return 1;
    return snap_same_as(c, s, 0, lo, hi, wlo, whi, sh, ahead) ? 0 : -1;
}

void cache_move(cache_t *c, uint64_t dlines, uint64_t lo, uint64_t hi, double dt)
{
    if (c->nvalid == 0)
        return;
    const uint32_t ways = c->ways;
    for (uint64_t set = 0; set < c->sets; set++) {
        if (cache_hdr(c, set)->nvalid == 0)
            continue;
        uint64_t *tags = cache_tags(c, set);
        cache_meta_t *metas = cache_metas(c, set);
        double *touch = c->touch ? c->touch + set * c->ways : NULL;
        bool moved = false;
        for (uint32_t w = 0; w < ways; w++) {
            uint64_t t = tags[w];
            if (t == CACHE_TAG_INVALID)
                continue;
            if (t >= lo && t < hi) {
                tags[w] = t + dlines;
                moved = true;
            }
            metas[w].ready_cycles += dt;
            if (touch)
                touch[w] += dt;
        }
        if (moved && dlines)
            fp_rebuild(c, set);
    }
}

bool cache_tags_moved(const cache_t *then, const cache_t *now, uint64_t dlines)
{
    if (then->sets != now->sets || then->ways != now->ways || !then->lru || !now->lru ||
        then->ways > 256 || (dlines & then->set_mask) != 0 || then->nvalid != now->nvalid)
        return false;
    uint32_t a[256], b[256];
    for (uint64_t set = 0; set < then->sets; set++) {
        uint32_t n = recency(then, set, a);
        if (recency(now, set, b) != n)
            return false;
        const uint64_t *ta = cache_tags(then, set), *tb = cache_tags(now, set);
        const cache_meta_t *ma = cache_metas(then, set), *mb = cache_metas(now, set);
        for (uint32_t i = 0; i < n; i++)
            if (tb[b[i]] != ta[a[i]] + dlines || meta_flags(&mb[b[i]]) != meta_flags(&ma[a[i]]))
                return false;
    }
    return true;
}

/* One set against its snapshot entries [k, k + ns) (live times from *j, which
 * it leaves past the set's when it returns true): see cache_snap_grown. Sets
 * *split and lowers *max_periods, *ahead. */
static inline __attribute__((always_inline)) bool
set_grown(const cache_t *c, const snap_reader_t *s, uint64_t set, uint64_t k, uint32_t ns,
          uint64_t *j, uint64_t dlines, uint64_t lo, uint64_t hi, uint64_t wlo, uint64_t next,
          bool drain, bool fresh, const struct timing_shift *sh, uint16_t *split,
          uint64_t *max_periods, uint64_t *ahead)
{
    uint32_t order[256];
    uint32_t n = recency(c, set, order);
    bool full = ns == c->ways;
    if ((ns == 0 && !fresh) || (full ? !drain || n != ns : n != ns + 1))
        return false;
    const uint64_t *tags = cache_tags(c, set);
    const cache_meta_t *metas = cache_metas(c, set);
    /* the moving lines: the longest run from the most recent that moved */
    uint32_t m = 0;
    snap_entry_t e, prev = {0};
    while (m < ns) {
        uint64_t j0 = *j;
        e = read_entry(s, set, k + m, j);
        if (!(e.line >= lo && e.line < hi && e.line + dlines < hi) ||
            !entry_is(tags, metas, order[m], &e, dlines, sh)) {
            *j = j0; /* entry m is read again below */
            break;
        }
        prev = e;
        m++;
    }
    if (m >= n)
        return false;
    if (m > 0) {
        /* The oldest of them stayed where it was, right after them: as a
         * line left in place (past in both states, or the same time
         * relative to each), or untouched since the snapshot, when it was
         * still in flight, and past now. Past, it is like the lines left
         * in place: the next period passes it by as this one passed them,
         * and the ones the step leaves behind are it moved (cache_grow). */
        const struct timing_shift still = {.floor_now = sh->floor_then,
                                           .floor_then = sh->floor_then,
                                           .tol_cycles = sh->tol_cycles};
        if (!entry_is(tags, metas, order[m], &prev, 0, sh) &&
            !(entry_is(tags, metas, order[m], &prev, 0, &still) &&
              metas[order[m]].ready_cycles < sh->floor_now))
            return false;
    } else {
        /* No line of the stream in the set yet: the period's line is new,
         * at the head, and each later period brings it moved on. Taken only
         * where nothing touches it again: a level that holds no line of the
         * levels above (fresh: a victim L3, whose lines come back only on a
         * lookup) and a line the stream has passed. */
        uint64_t x = tags[order[0]];
        if (!fresh || !(x >= lo && x + dlines < hi && x < next))
            return false;
    }
    /* then the lines left in place, as they were; a draining set lost its
     * least recently used one (snapshot entry ns - 1) */
    uint32_t kept = full ? ns - 1 : ns;
    for (uint32_t i = m; i < kept; i++) {
        e = read_entry(s, set, k + i, j);
        if (!entry_is(tags, metas, order[i + 1], &e, 0, sh))
            return false;
        if (e.line >= wlo && e.line < *ahead)
            *ahead = e.line;
    }
    if (m > 0 && prev.line >= wlo && prev.line < *ahead)
        *ahead = prev.line;
    uint64_t room;
    if (full) {
        snap_entry_t gone = read_entry(s, set, k + ns - 1, j);
        if (gone.ready != -INFINITY)
            return false; /* a line still in flight left: not a settled drain */
        /* later periods take the next oldest lines, while they are alike
         * (never the one this period left behind) */
        room = 0;
        for (uint32_t i = n; i-- > m + 1 && meta_flags(&metas[order[i]]) == gone.flags;)
            room++;
    } else {
        room = c->ways - n;
    }
    if (room < *max_periods)
        *max_periods = room;
    split[set] = (uint16_t)m;
    return true;
}

bool cache_snap_grown(const cache_t *c, cache_snap_t *s, uint64_t dlines, uint64_t lo, uint64_t hi,
                      uint64_t wlo, uint64_t next, bool drain, bool fresh,
                      const struct timing_shift *sh, cache_growth_t *g)
{
    /* lines left in place keep their touch times, which a step does not
     * follow (bulk stepping is not offered where they are kept) */
    if (!s || s->sets != c->sets || dlines != c->sets || c->nvalid == 0 || c->touch)
        return false;
    if (!s->split) {
        s->split = malloc((size_t)c->sets * sizeof(uint16_t));
        if (!s->split)
            return false;
    }
    g->split = s->split;
    g->dlines = dlines;
    g->dt_cycles = sh->floor_now - sh->floor_then;
    g->max_periods = UINT64_MAX;
    g->ahead_line = UINT64_MAX;
    uint64_t k = 0, j = 0; /* a set that passes has read each of its entries once */
    const snap_reader_t r = snap_reader(s);
    for (uint64_t set = 0; set < c->sets; set++) {
        uint32_t ns = s->per_set[set];
        if (!set_grown(c, &r, set, k, ns, &j, dlines, lo, hi, wlo, next, drain, fresh, sh, s->split,
                       &g->max_periods, &g->ahead_line))
            return false;
        k += ns;
    }
    assert(k == s->n && j == s->nlive);
    return g->max_periods > 0;
}

void cache_grow(cache_t *c, const cache_growth_t *g, uint64_t dlines_total, double dt_total)
{
    uint64_t n = dlines_total / g->dlines;
    assert(n <= g->max_periods);
    if (n == 0)
        return;
    uint32_t order[256];
    uint64_t line[256];
    cache_meta_t meta[256];
    for (uint64_t set = 0; set < c->sets; set++) {
        uint32_t cnt = recency(c, set, order);
        uint32_t m = g->split[set];
        uint64_t *tags = cache_tags(c, set);
        cache_meta_t *metas = cache_metas(c, set);
        /* a full set drains: a filling one has a free way for each period */
        bool full = cnt == c->ways;
        uint32_t o = 0;
        /* the moving lines, moved on */
        for (uint32_t i = 0; i < m; i++, o++) {
            line[o] = tags[order[i]] + dlines_total;
            meta[o] = metas[order[i]];
            meta[o].ready_cycles += dt_total;
        }
        /* the lines the n periods leave behind: the one the judged period
         * left (order[m]), each period's one a period later, newest first */
        const cache_meta_t left = metas[order[m]];
        const uint64_t left_line = tags[order[m]];
        for (uint64_t p = n; p >= 1; p--, o++) {
            line[o] = left_line + p * g->dlines;
            meta[o] = left;
            meta[o].ready_cycles += (double)p * g->dt_cycles;
        }
        /* the lines in place; a draining set loses its n oldest */
        uint32_t keep = full ? cnt - (uint32_t)n : cnt;
        for (uint32_t i = m; i < keep; i++, o++) {
            line[o] = tags[order[i]];
            meta[o] = metas[order[i]];
        }
        assert(o <= c->ways);
        /* rewrite the set: ways in recency order (the list lru_list_init
         * makes: way 0 most recent), the free ones after */
        cache_hdr_t *hd = cache_hdr(c, set);
        for (uint32_t w = 0; w < c->ways; w++) {
            if (w < o) {
                tags[w] = line[w];
                metas[w] = meta[w];
            } else {
                tags[w] = CACHE_TAG_INVALID;
                metas[w] = (cache_meta_t){0};
            }
        }
        fp_rebuild(c, set);
        lru_list_init(hd, cache_state(c, set), c->ways);
        c->nvalid += o;
        c->nvalid -= cnt;
        hd->nvalid = o;
        if (c->vmask_on)
            hd->vmask = o == 64 ? ~UINT64_C(0) : (UINT64_C(1) << o) - 1;
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
