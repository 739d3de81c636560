/*
 * prefetch.c - stream prefetcher (see prefetch.h for the rules).
 *
 * Notes
 *  - What it models: sequential streams in either direction, training,
 *    degree and distance, page-boundary behaviour and next-page carry-over
 *    inside contiguous memory.
 *  - What it ignores: strides other than one line, confidence decay,
 *    throttling by accuracy, and prefetches dropped for lack of queue slots
 *    (the hierarchy makes them wait for a miss slot instead).
 *  - Units: addresses in bytes; internally line numbers.
 */
#include "models/prefetch.h"
#include "models/prefetch_impl.h"

#include <stdbool.h>
#include <assert.h>
#include <stdlib.h>

/* log2(v) when v is a power of two, else -1: lets the hot path shift
 * instead of divide (the same quotient). */
static int shift_of(uint64_t v)
{
    return v && (v & (v - 1)) == 0 ? __builtin_ctzll(v) : -1;
}

static uint32_t log2u(uint64_t v)
{
    uint32_t n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

pf_t *pf_create(const machine_prefetch_t *cfg, uint32_t line_bytes)
{
    if (!cfg->enabled || line_bytes == 0)
        return NULL;
    pf_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->cfg = *cfg;
    p->line_shift = log2u(line_bytes);
    uint64_t b = cfg->boundary_bytes ? cfg->boundary_bytes : 4096;
    p->region_lines = b >> p->line_shift;
    if (p->region_lines == 0)
        p->region_lines = 1;
    p->region_shift = shift_of(p->region_lines);
    p->contig_shift = -1;
    return p;
}

void pf_destroy(pf_t *p)
{
    free(p);
}

void pf_set_contig(pf_t *p, uint64_t contig_bytes)
{
    if (!p)
        return;
    uint64_t lines = contig_bytes >> p->line_shift;
    p->contig_lines = lines > p->region_lines ? lines : 0;
    p->contig_shift = shift_of(p->contig_lines);
}

static bool same_block(const pf_t *p, uint64_t r1, uint64_t r2)
{
    if (!p->cfg.next_page || !p->contig_lines)
        return false;
    return r1 * p->region_lines / p->contig_lines == r2 * p->region_lines / p->contig_lines;
}

static pf_stream_t *find(pf_t *p, uint64_t line, uint64_t region)
{
    pf_stream_t *hot = &p->s[p->last];
    if (hot->valid && hot->region == region)
        return hot;
    for (int i = 0; i < PF_STREAMS; i++) {
        pf_stream_t *s = &p->s[i];
        if (s->valid && s->region == region) {
            p->last = i;
            return s;
        }
    }
    /* Carry a trained stream over into the adjacent region of the same block. */
    for (int i = 0; i < PF_STREAMS; i++) {
        pf_stream_t *s = &p->s[i];
        if (!s->valid || s->hits < p->cfg.train_lines || !same_block(p, s->region, region))
            continue;
        if ((s->dir > 0 && line == s->last + 1) || (s->dir < 0 && line + 1 == s->last)) {
            s->region = region;
            p->last = i;
            return s;
        }
    }
    return NULL;
}

static pf_stream_t *alloc(pf_t *p)
{
    pf_stream_t *v = &p->s[0];
    for (int i = 0; i < PF_STREAMS; i++) {
        if (!p->s[i].valid)
            return &p->s[i];
        if (p->s[i].stamp < v->stamp)
            v = &p->s[i];
    }
    return v;
}

uint32_t pf_access(pf_t *p, uint64_t addr, uint64_t *out, uint32_t max)
{
    return pf_i_access(p, addr, out, max);
}

/* pf_access() for a line the stream hit last cannot take in one step
 * (another region, another direction, not the next line): the search,
 * allocation and retraining. */
uint32_t pf_access_slow(pf_t *p, uint64_t line, uint64_t region, uint64_t *out, uint32_t max)
{
    pf_stream_t *s = find(p, line, region);
    p->clock++;
    if (!s) {
        s = alloc(p);
        p->last = (int)(s - p->s);
        *s = (pf_stream_t){.valid = true,
                           .region = region,
                           .last = line,
                           .next = line,
                           .hits = 1,
                           .stamp = p->clock};
        return 0;
    }
    s->stamp = p->clock;
    if (line == s->last)
        return 0;
    int dir = line > s->last ? 1 : -1;
    bool adjacent = (dir > 0 && line == s->last + 1) || (dir < 0 && line + 1 == s->last);
    if (!adjacent || (s->dir != 0 && s->dir != dir)) {
        /* Not sequential: retrain from here. */
        s->dir = 0;
        s->hits = 1;
        s->last = line;
        s->next = line;
        return 0;
    }
    s->dir = dir;
    s->hits++;
    s->last = line;
    if (s->hits < p->cfg.train_lines)
        return 0;

    uint64_t lo, hi;
    pf_limits(p, region, &lo, &hi);
    uint32_t n = 0;
    uint32_t budget = p->cfg.degree_lines < max ? p->cfg.degree_lines : max;
    uint64_t dist = p->cfg.distance_lines;
    if (dir > 0) {
        uint64_t from = s->next > line ? s->next : line + 1;
        uint64_t to = line + dist;
        if (to > hi)
            to = hi;
        for (uint64_t l = from; l <= to && n < budget; l++)
            out[n++] = l << p->line_shift;
        s->next = from + n;
    } else {
        if (line <= lo)
            return 0;
        uint64_t from = s->next < line ? s->next : line - 1;
        uint64_t to = line >= lo + dist ? line - dist : lo;
        for (uint64_t l = from; l >= to && l <= from && n < budget; l--)
            out[n++] = l << p->line_shift;
        s->next = from >= n ? from - n : 0;
    }
    return n;
}

/* ---- exact bulk stepping (models/model_bulk.c) ---------------------------- */

pf_t *pf_clone(const pf_t *p, pf_t *into)
{
    if (!p)
        return NULL;
    if (!into)
        into = malloc(sizeof(*into));
    if (into)
        *into = *p;
    return into;
}

/* Can the prefetcher's state move by dlines lines at all? Its regions (and,
 * continuing into the next page, its blocks) are aligned: a move keeps
 * them only by whole regions (blocks). */
static bool pf_movable(const pf_t *p, uint64_t dlines)
{
    if (dlines % p->region_lines)
        return false;
    return !(p->cfg.next_page && p->contig_lines) || dlines % p->contig_lines == 0;
}

/* The valid slots of p from the most to the least recently used; their
 * number. (Stamps are unique: each access stamps one stream.) */
static int by_age(const pf_t *p, int *order)
{
    int n = 0;
    for (int i = 0; i < PF_STREAMS; i++)
        if (p->s[i].valid)
            order[n++] = i;
    for (int i = 1; i < n; i++) /* insertion sort: at most PF_STREAMS */
        for (int k = i; k > 0 && p->s[order[k - 1]].stamp < p->s[order[k]].stamp; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    return n;
}

/* Two streams with the same training state: direction, and whether the
 * hits have reached train_lines (hits count past training; only that is
 * ever read). */
static bool same_training(const pf_t *p, const pf_stream_t *a, const pf_stream_t *b)
{
    uint32_t ha = a->hits < p->cfg.train_lines ? a->hits : p->cfg.train_lines;
    uint32_t hb = b->hits < p->cfg.train_lines ? b->hits : p->cfg.train_lines;
    return a->dir == b->dir && ha == hb;
}

static bool in_range(uint64_t x, uint64_t lo, uint64_t hi)
{
    return x >= lo && x < hi;
}

int64_t pf_same(const pf_t *p, const pf_t *then, uint64_t dlines, uint64_t lo, uint64_t hi,
                uint64_t wlo, uint64_t whi)
{
    if (!p || !then)
        return p == then ? 0 : -1;
    if (dlines % p->region_lines)
        return -1;
    /* Streams are matched by age order, not by slot: a new stream takes the
     * least recently used slot, so over a period they may have moved to
     * other slots. While a slot is free the slot matters (a new stream
     * takes the first free one): then they must match slot by slot. */
    int oa[PF_STREAMS], ob[PF_STREAMS];
    int na = by_age(p, oa), nb = by_age(then, ob);
    if (na != nb)
        return -1;
    if (na < PF_STREAMS) {
        for (int i = 0; i < na; i++)
            if (oa[i] != ob[i])
                return -1;
    }
    uint64_t dreg = dlines / p->region_lines;
    int64_t moved = 0;
    for (int r = 0; r < na; r++) {
        const pf_stream_t *a = &p->s[oa[r]], *b = &then->s[ob[r]];
        if ((oa[r] == p->last) != (ob[r] == then->last))
            return -1;
        /* (ages themselves are never read: only their order, which the
         * matching by age keeps) */
        if (!same_training(p, a, b))
            return -1;
        if (in_range(b->last, lo, hi) && a->region == b->region + dreg &&
            a->last == b->last + dlines && a->next == b->next + dlines) {
            moved |= (int64_t)1 << oa[r];
            continue;
        }
        /* a stream left behind (or another buffer's): where it was, and
         * not where the stream is going */
        if (a->region != b->region || a->last != b->last || a->next != b->next ||
            in_range(b->last, wlo, whi) || in_range(b->next, wlo, whi))
            return -1;
    }
    return moved;
}

/* Could an access to a line of [wlo, whi) find stream s (find())? By its
 * region, or by carrying it from its last line on into the next region of
 * its block. Its last and next lines themselves matter only once found. */
static bool reachable(const pf_t *p, const pf_stream_t *s, uint64_t wlo, uint64_t whi)
{
    uint64_t rlo = s->region * p->region_lines, rhi = rlo + p->region_lines;
    if (rlo < whi && wlo < rhi)
        return true;
    uint64_t up = s->last + 1, down = s->last - 1;
    if (in_range(up, wlo, whi) &&
        same_block(p, s->region, pf_div_by(up, p->region_lines, p->region_shift)))
        return true;
    return s->last > 0 && in_range(down, wlo, whi) &&
           same_block(p, s->region, pf_div_by(down, p->region_lines, p->region_shift));
}

bool pf_same_growing(const pf_t *p, const pf_t *then, uint64_t dlines, uint64_t lo, uint64_t hi,
                     uint64_t wlo, uint64_t whi, pf_growth_t *g)
{
    g->count = 0;
    if (!p || !then || dlines == 0 || !pf_movable(p, dlines))
        return false;
    int oa[PF_STREAMS], ob[PF_STREAMS];
    int na = by_age(p, oa), nb = by_age(then, ob);
    int k = na - nb; /* the generation's size */
    if (nb == 0 || k <= 0 || na >= PF_STREAMS || k > nb)
        return false;
    uint64_t dreg = dlines / p->region_lines;
    /* then's streams stay in their slots, unchanged, younger than none of
     * the new ones, where nothing in the window can find them */
    for (int r = 0; r < nb; r++) {
        const pf_stream_t *a = &p->s[oa[k + r]], *b = &then->s[ob[r]];
        if (oa[k + r] != ob[r] || !same_training(p, a, b) || a->region != b->region ||
            a->last != b->last || a->next != b->next || reachable(p, b, wlo, whi))
            return false;
    }
    /* the new generation: then's youngest k, moved */
    for (int r = 0; r < k; r++) {
        const pf_stream_t *a = &p->s[oa[r]], *b = &then->s[ob[r]];
        if (!in_range(b->last, lo, hi) || !same_training(p, a, b) ||
            a->region != b->region + dreg || a->last != b->last + dlines ||
            a->next != b->next + dlines)
            return false;
    }
    /* the stream hit last: in the generation, at the same age rank */
    int rl = -1;
    for (int r = 0; r < k; r++)
        if (ob[r] == then->last)
            rl = r;
    if (rl < 0 || p->last != oa[rl])
        return false;
    /* the new streams took then's lowest free slots, oldest first (alloc) */
    uint32_t j = 0;
    for (int i = 0; i < PF_STREAMS && j < (uint32_t)k; i++)
        if (!then->s[i].valid) {
            if (oa[k - 1 - (int)j] != i)
                return false;
            g->slots[j++] = (uint8_t)i;
        }
    if (j != (uint32_t)k)
        return false;
    g->count = (uint32_t)k;
    g->last_idx = (uint32_t)(k - 1 - rl);
    g->dlines = dlines;
    g->dclock = p->clock - then->clock;
    g->max_periods = (uint64_t)(PF_STREAMS - na) / (uint64_t)k;
    if (g->max_periods == 0)
        g->count = 0;
    return g->count > 0;
}

void pf_grow(pf_t *p, const pf_growth_t *g, uint64_t dlines_total)
{
    if (!p || !g->count)
        return;
    uint64_t n = dlines_total / g->dlines;
    /* the callers step at most max_periods (model_snap_step, bulk_event):
     * then every generation finds its free slots */
    assert(n <= g->max_periods);
    if (n > g->max_periods)
        n = g->max_periods;
    uint64_t dreg = g->dlines / p->region_lines;
    int last = p->last;
    int d = 0; /* slots fill from the lowest free one up */
    for (uint64_t j = 1; j <= n; j++)
        for (uint32_t r = 0; r < g->count; r++) {
            while (p->s[d].valid)
                d++;
            pf_stream_t s = p->s[g->slots[r]];
            s.region += j * dreg;
            s.last += j * g->dlines;
            s.next += j * g->dlines;
            s.stamp += j * g->dclock;
            p->s[d] = s;
            if (r == g->last_idx)
                last = d;
        }
    p->last = last;
    p->clock += n * g->dclock;
}

uint64_t pf_block_room(const pf_t *p, uint64_t line, uint64_t dlines)
{
    if (!p || pf_movable(p, dlines))
        return UINT64_MAX;
    if (dlines % p->region_lines || !p->cfg.next_page || !p->contig_lines)
        return 0;
    uint64_t block = pf_div_by(line, p->contig_lines, p->contig_shift);
    return (block + 1) * p->contig_lines - line;
}

void pf_move(pf_t *p, uint64_t dlines, int64_t moved)
{
    if (!p)
        return;
    uint64_t dreg = dlines / p->region_lines;
    for (int i = 0; i < PF_STREAMS; i++) {
        pf_stream_t *s = &p->s[i];
        if (!s->valid || !((moved >> i) & 1))
            continue;
        s->region += dreg;
        s->last += dlines;
        s->next += dlines;
    }
}
