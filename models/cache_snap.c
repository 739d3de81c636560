/*
 * cache_snap.c - what exact bulk stepping (models/model_bulk.c) asks of a
 * cache array: snapshots, the comparison of a later state with a snapshot
 * moved by a stream, filled or drained by it, and the moves that apply N
 * periods at once (docs/MODEL.md "Exact bulk stepping"; the interface is in
 * models/cache.h).
 *
 * Notes
 *  - Only LRU arrays (cache_snap_supported): their recency list is the
 *    order in which lines are compared, so a line's way does not matter;
 *    under another policy the way is part of the state.
 *  - A snapshot keeps per line its tag above the set index and its dirty,
 *    zeros, prefetched and live bits in 32 bits (64 + 8 when a tag needs
 *    more than 28 bits), and the ready times that are not yet past (timing.h), in
 *    entry order.
 *  - The loops read a set's header, recency list, tags and metadata
 *    through models/cache_impl.h, as the lookups do; they keep their state
 *    in locals (stores through the arrays would otherwise make the compiler
 *    reload every field) and walk full sets without testing tags.
 *  - A narrow comparison works the other way round: each live line is put
 *    in the snapshot's form (the line it must have been, which a move makes
 *    unique, its bits, whether its time is past) and compared with the
 *    entry as one word, so no entry is decoded and only a time not past is
 *    compared as a time (same_narrow_set). A move by whole set counts adds
 *    the same to every moved line's fingerprint byte (cache_move), and a
 *    grow writes each set once and copies one recency list made for all
 *    (cache_grow). On the benchmark case (bench/run section 3) these took
 *    the walks from 258 M to 215 M host instructions, 2026-12-06.
 *  - A walk over a cache large enough for the lookups' host prefetch asks
 *    for the set block four sets on too (walk_prefetch): a hint, 3-10% off
 *    a walk of a 32 MiB L3 with the host's caches cold (2026-12-06).
 *  - Units: lines (line numbers), core cycles.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cache.h"
#include "models/cache_impl.h"
#include "models/base/bigmem.h"
#include "models/timing.h"

enum { SNAP_DIRTY = 1, SNAP_PF = 2, SNAP_ZEROS = 4, SNAP_LIVE = 8 };
#define SNAP_BITS 4 /* the SNAP_* bits below a narrow entry's tag */
#define SNAP_MASK ((1u << SNAP_BITS) - 1)

struct cache_snap {
    uint32_t sets;
    uint64_t n, cap, cap_flags; /* entries kept, room for tags and for flags */
    /* the lines, set by set, most recently used first: each line's tag
     * above the set index and its SNAP_* bits in 32 bits (tags32: tag <<
     * SNAP_BITS | bits), or, when a tag does not fit in 28 bits, the line numbers (tags)
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

/* A walk over a large cache asks the host for the set block a few sets on
 * (a hint, as the lookups' cache_i_prefetch). */
static inline __attribute__((always_inline)) void walk_prefetch(const cache_t *c, uint64_t set)
{
    if (c->host_prefetch)
        cache_prefetch_set(c, set + CACHE_PF_SETS);
}

static inline uint8_t meta_flags(const cache_meta_t *mt)
{
    return (uint8_t)((mt->dirty != CACHE_CLEAN) * SNAP_DIRTY |
                     (mt->dirty == CACHE_DIRTY_ZEROS) * SNAP_ZEROS |
                     (uint8_t)mt->prefetched * SNAP_PF);
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

/* One set of cache_snap_take(): its n valid lines from the recency list's
 * head (as recency() gives them, without the list of ways; a full set needs
 * no tag tested) at entry k on; returns the next entry. *fits turns false
 * when a tag needs more than 28 bits (narrow only). */
static inline __attribute__((always_inline)) uint64_t
take_set(const cache_t *c, uint64_t set, uint32_t n, uint32_t *t32, uint64_t *t64, uint8_t *f8,
         double *live, uint32_t shift, double floor_cycles, const bool wide, const bool full,
         uint64_t k, uint64_t *nlive_io, bool *fits)
{
    const uint32_t ways = full ? n : c->ways;
    const cache_hdr_t *hd = cache_hdr(c, set);
    const uint64_t *tags = cache_tags(c, set);
    const cache_meta_t *metas = cache_metas(c, set);
    const uint8_t *next = cache_state(c, set) + ways;
    uint64_t over = 0, nlive = *nlive_io; /* over: the tags above the set index, or'd */
    uint32_t w = hd->head, got = 0;
    for (uint32_t i = 0; i < ways && (full || got < n); i++, w = next[w]) {
        uint64_t line = tags[w];
        if (!full && line == CACHE_TAG_INVALID)
            continue;
        got++; /* (full: every way) */
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
            t32[k++] = (uint32_t)(line >> shift) << SNAP_BITS | f;
        }
    }
    assert(full ? got == ways : got == n);
    if (!wide && over >= UINT64_C(1) << (32 - SNAP_BITS))
        *fits = false; /* a tag needs more than 28 bits: wide */
    *nlive_io = nlive;
    return k;
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
        bool fits = true;
        for (uint64_t set = 0; set < c->sets && fits; set++) {
            walk_prefetch(c, set);
            uint32_t n = cache_hdr(c, set)->nvalid;
            s->per_set[set] = (uint16_t)n;
            if (n == 0)
                continue;
            /* room for every line of the set to be live */
            if (snap_grow((void **)&s->live, &s->cap_live, nlive + n, sizeof(double)))
                goto fail;
            if (wide)
                k = take_set(c, set, n, s->tags32, s->tags, s->flags, s->live, s->set_shift,
                             floor_cycles, true, false, k, &nlive, &fits);
            else if (n == c->ways)
                k = take_set(c, set, n, s->tags32, s->tags, s->flags, s->live, s->set_shift,
                             floor_cycles, false, true, k, &nlive, &fits);
            else
                k = take_set(c, set, n, s->tags32, s->tags, s->flags, s->live, s->set_shift,
                             floor_cycles, false, false, k, &nlive, &fits);
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
        e.line = (uint64_t)(x >> SNAP_BITS) << r->shift | set;
        sf = (uint8_t)(x & SNAP_MASK);
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
        walk_prefetch(c, set);
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

/* A live line, taken as snapshot line e, in the narrow snapshot's form: its
 * tag above the set index and SNAP_* bits (*is_live: its time is not past
 * at floor_now), in 64 bits: a tag that needs more than 28 bits makes it
 * 2^32 or more, equal to no narrow entry (a line number is below 2^58, so
 * the shift loses nothing). */
static inline uint64_t narrow_word(uint64_t e, const cache_meta_t *mt, uint32_t shift,
                                   double floor_now, bool *is_live)
{
    *is_live = !(mt->ready_cycles < floor_now);
    return (e >> shift) << SNAP_BITS | meta_flags(mt) | (*is_live ? SNAP_LIVE : 0);
}

/* same_as() for the narrow layout, the other way round: each live line is
 * put in the snapshot's form (the line it must have been, its flags, and
 * whether its time is past) and compared with the snapshot's entry as one
 * word; only a time not past is compared as a time. The line it must have
 * been is unique: moved, a line of [lo + dlines, hi) was dlines lower, one
 * outside [lo, hi) where it is, and one of [lo, lo + dlines) none. */
static inline __attribute__((always_inline)) bool
same_narrow_set(const cache_t *c, uint64_t set, uint32_t n, const bool full, const bool moved,
                const uint32_t *t32, const double *live, uint32_t shift, uint64_t dlines,
                uint64_t lo, uint64_t span, uint64_t wlo, uint64_t wspan,
                const struct timing_shift *sh, uint64_t *k_io, uint64_t *j_io, bool want_ahead,
                uint64_t *first_ahead)
{
    const uint32_t ways = c->ways;
    const cache_hdr_t *hd = cache_hdr(c, set);
    const uint64_t *tags = cache_tags(c, set);
    const cache_meta_t *metas = cache_metas(c, set);
    const uint8_t *next = cache_state(c, set) + ways;
    uint64_t k = *k_io, j = *j_io;
    uint32_t w = hd->head, got = 0;
    /* the valid ways from the recency list's head (as recency() gives them) */
    for (uint32_t i = 0; i < ways && (full || got < n); i++, w = next[w]) {
        uint64_t e = tags[w]; /* the line it must have been */
        if (!full && e == CACHE_TAG_INVALID)
            continue;
        got++;
        if (moved) {
            uint64_t off = e - lo;
            if (off < span) {
                if (off < dlines)
                    return false;
                e -= dlines;
            }
        } else if (e - wlo < wspan) {
            if (!want_ahead)
                return false;
            if (e < *first_ahead)
                *first_ahead = e;
        }
        bool is_live;
        if (narrow_word(e, &metas[w], shift, sh->floor_now, &is_live) != t32[k++] ||
            (is_live && !timing_same(metas[w].ready_cycles, live[j++], sh)))
            return false;
    }
    *k_io = k;
    *j_io = j;
    return true;
}

static inline __attribute__((always_inline)) bool
same_narrow(const cache_t *c, const cache_snap_t *s, const bool moved, uint64_t dlines, uint64_t lo,
            uint64_t hi, uint64_t wlo, uint64_t whi, const struct timing_shift *shp,
            uint64_t *ahead)
{
    uint64_t k = 0, j = 0, first_ahead = UINT64_MAX;
    const uint32_t *t32 = s->tags32;
    const double *live = s->live;
    const uint32_t shift = s->set_shift;
    const uint16_t *per_set = s->per_set;
    const struct timing_shift sh = *shp;
    const uint64_t span = hi > lo ? hi - lo : 0, wspan = whi > wlo ? whi - wlo : 0;
    const uint64_t sets = c->sets;
    const uint32_t ways = c->ways;
    for (uint64_t set = 0; set < sets; set++) {
        walk_prefetch(c, set);
        uint32_t n = cache_hdr(c, set)->nvalid;
        if (n != per_set[set])
            return false;
        bool ok = n == ways
                      ? same_narrow_set(c, set, n, true, moved, t32, live, shift, dlines, lo, span,
                                        wlo, wspan, &sh, &k, &j, ahead != NULL, &first_ahead)
                      : same_narrow_set(c, set, n, false, moved, t32, live, shift, dlines, lo, span,
                                        wlo, wspan, &sh, &k, &j, ahead != NULL, &first_ahead);
        if (!ok)
            return false;
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
    return dlines ? same_narrow(c, s, true, dlines, lo, hi, wlo, whi, sh, ahead)
                  : same_narrow(c, s, false, 0, lo, hi, wlo, whi, sh, ahead);
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

/* Add k to every byte of x, each byte on its own (no carry into the next). */
static inline uint64_t bytes_add(uint64_t x, uint64_t k)
{
    const uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    uint64_t kk = (k & 0xff) * CACHE_B01;
    return ((x & lo7) + (kk & lo7)) ^ ((x ^ kk) & CACHE_B80);
}

/* cache_move() of one set: the lines of [lo, lo + span) moved dlines on
 * (moved), every valid line's times dt on. Returns the lines moved. */
static inline __attribute__((always_inline)) uint32_t
move_set(uint64_t *tags, cache_meta_t *metas, double *touch, uint32_t ways, uint64_t dlines,
         uint64_t lo, uint64_t span, double dt, const bool moved, const bool with_touch)
{
    uint32_t nmoved = 0;
    for (uint32_t w = 0; w < ways; w++) {
        uint64_t t = tags[w];
        if (t == CACHE_TAG_INVALID)
            continue;
        if (moved && t - lo < span) {
            tags[w] = t + dlines;
            nmoved++;
        }
        metas[w].ready_cycles += dt;
        if (with_touch)
            touch[w] += dt;
    }
    return nmoved;
}

void cache_move(cache_t *c, uint64_t dlines, uint64_t lo, uint64_t hi, double dt)
{
    if (c->nvalid == 0)
        return;
    const uint32_t ways = c->ways;
    const uint64_t span = hi > lo ? hi - lo : 0;
    /* A move by whole set counts adds the same to the fingerprint of every
     * line it moves (the line number above the set index): when every line
     * of a set moved, that is added to each byte (an invalid way's is never
     * read); else the set's fingerprints are made again. */
    const bool whole = (dlines & c->set_mask) == 0;
    const uint64_t dfp = dlines >> c->fp_shift;
    for (uint64_t set = 0; set < c->sets; set++) {
        walk_prefetch(c, set);
        uint32_t nvalid = cache_hdr(c, set)->nvalid;
        if (nvalid == 0)
            continue;
        uint64_t *tags = cache_tags(c, set);
        cache_meta_t *metas = cache_metas(c, set);
        uint32_t nmoved;
        if (c->touch)
            nmoved = move_set(tags, metas, c->touch + set * ways, ways, dlines, lo, span, dt,
                              dlines != 0, true);
        else if (dlines)
            nmoved = move_set(tags, metas, NULL, ways, dlines, lo, span, dt, true, false);
        else
            nmoved = move_set(tags, metas, NULL, ways, 0, lo, span, dt, false, false);
        if (nmoved == 0 || dlines == 0)
            continue;
        if (whole && nmoved == nvalid) {
            uint64_t *fw = cache_fps(c, set);
            for (uint32_t i = 0; i < c->fp_words; i++)
                fw[i] = bytes_add(fw[i], dfp);
        } else {
            fp_rebuild(c, set);
        }
    }
}

bool cache_tags_moved(const cache_t *then, const cache_t *now, uint64_t dlines)
{
    /* (lru: at most 256 ways, cache_create) */
    if (then->sets != now->sets || then->ways != now->ways || !then->lru || !now->lru ||
        (dlines & then->set_mask) != 0 || then->nvalid != now->nvalid)
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
set_grown(const cache_t *c, const snap_reader_t *r, uint64_t set, uint64_t k, uint32_t ns,
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
        e = read_entry(r, set, k + m, j);
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
        e = read_entry(r, set, k + i, j);
        if (!entry_is(tags, metas, order[i + 1], &e, 0, sh))
            return false;
        if (e.line >= wlo && e.line < *ahead)
            *ahead = e.line;
    }
    if (m > 0 && prev.line >= wlo && prev.line < *ahead)
        *ahead = prev.line;
    uint64_t room;
    if (full) {
        snap_entry_t gone = read_entry(r, set, k + ns - 1, j);
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
        walk_prefetch(c, set);
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
    const uint32_t ways = c->ways;
    const uint64_t dlines = g->dlines;
    const double dt = g->dt_cycles;
    /* every set is rewritten with its ways in recency order: the list
     * lru_list_init makes (way 0 most recent), made once and copied */
    uint8_t list[512];
    cache_hdr_t list_hd;
    lru_list_init(&list_hd, list, ways);
    uint32_t order[256];
    uint64_t line[256];
    cache_meta_t meta[256];
    for (uint64_t set = 0; set < c->sets; set++) {
        walk_prefetch(c, set);
        uint32_t cnt = recency(c, set, order);
        uint32_t m = g->split[set];
        uint64_t *tags = cache_tags(c, set);
        cache_meta_t *metas = cache_metas(c, set);
        /* the set's lines in recency order */
        for (uint32_t i = 0; i < cnt; i++) {
            line[i] = tags[order[i]];
            meta[i] = metas[order[i]];
        }
        /* a full set drains: a filling one has a free way for each period */
        bool full = cnt == ways;
        uint32_t o = 0;
        /* the moving lines, moved on */
        for (uint32_t i = 0; i < m; i++, o++) {
            tags[o] = line[i] + dlines_total;
            metas[o] = meta[i];
            metas[o].ready_cycles += dt_total;
        }
        /* the lines the n periods leave behind: the one the judged period
         * left (entry m), each period's one a period later, newest first
         * (p as a double counts whole periods exactly) */
        const cache_meta_t left = meta[m];
        uint64_t at = line[m] + n * dlines;
        double p = (double)n;
        for (uint64_t k = 0; k < n; k++, o++, at -= dlines, p -= 1.0) {
            tags[o] = at;
            metas[o] = left;
            metas[o].ready_cycles += p * dt;
        }
        /* the lines in place; a draining set loses its n oldest */
        uint32_t keep = full ? cnt - (uint32_t)n : cnt;
        for (uint32_t i = m; i < keep; i++, o++) {
            tags[o] = line[i];
            metas[o] = meta[i];
        }
        assert(o <= ways);
        for (uint32_t w = o; w < ways; w++) {
            tags[w] = CACHE_TAG_INVALID;
            metas[w] = (cache_meta_t){0};
        }
        fp_rebuild(c, set);
        cache_hdr_t *hd = cache_hdr(c, set);
        memcpy(cache_state(c, set), list, 2 * (size_t)ways);
        hd->head = list_hd.head;
        hd->tail = list_hd.tail;
        c->nvalid += o;
        c->nvalid -= cnt;
        hd->nvalid = o;
        if (c->vmask_on)
            hd->vmask = o == 64 ? ~UINT64_C(0) : (UINT64_C(1) << o) - 1;
    }
}
