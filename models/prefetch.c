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

#include <stdbool.h>
#include <stdlib.h>

typedef struct pf_stream {
    bool valid;
    int dir;         /* +1, -1, or 0 while undetermined */
    uint64_t region; /* region number (line / lines_per_region) */
    uint64_t last;   /* last line accessed */
    uint64_t next;   /* next line to prefetch (in direction dir) */
    uint32_t hits;   /* sequential accesses seen */
    uint64_t stamp;  /* LRU */
} pf_stream_t;

struct pf {
    machine_prefetch_t cfg;
    uint32_t line_shift;
    uint64_t region_lines;
    uint64_t contig_lines; /* 0: nothing contiguous beyond a region */
    int region_shift;      /* log2(region_lines) when a power of two, else -1 */
    int contig_shift;      /* log2(contig_lines) when a power of two, else -1 */
    uint64_t clock;
    int last; /* index of the stream hit last (checked first) */
    pf_stream_t s[PF_STREAMS];
};

/* log2(v) when v is a power of two, else -1: lets the hot path shift
 * instead of divide (the same quotient). */
static int shift_of(uint64_t v)
{
    return v && (v & (v - 1)) == 0 ? __builtin_ctzll(v) : -1;
}

static inline uint64_t div_by(uint64_t x, uint64_t d, int shift)
{
    return shift >= 0 ? x >> shift : x / d;
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

/* Lowest and highest line a stream in `region` may prefetch. */
static void limits(const pf_t *p, uint64_t region, uint64_t *lo, uint64_t *hi)
{
    uint64_t first = region * p->region_lines;
    *lo = first;
    *hi = first + p->region_lines - 1;
    if (p->cfg.next_page && p->contig_lines) {
        uint64_t block = div_by(first, p->contig_lines, p->contig_shift) * p->contig_lines;
        *lo = block;
        *hi = block + p->contig_lines - 1;
    }
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

static uint32_t access_slow(pf_t *p, uint64_t line, uint64_t region, uint64_t *out, uint32_t max);

uint32_t pf_access(pf_t *p, uint64_t addr, uint64_t *out, uint32_t max)
{
    if (!p)
        return 0;
    uint64_t line = addr >> p->line_shift;
    uint64_t region = div_by(line, p->region_lines, p->region_shift);
    pf_stream_t *s = &p->s[p->last];
    if (!(s->valid && s->region == region && s->dir > 0 && line == s->last + 1))
        return access_slow(p, line, region, out, max);
    /* The common case, an ascending stream's next line in the stream hit
     * last (find() returns it): access_slow()'s steps for it, without the
     * searches. */
    s->stamp = ++p->clock;
    uint32_t hits = ++s->hits;
    s->last = line;
    if (hits < p->cfg.train_lines)
        return 0;
    uint64_t lo, hi;
    limits(p, region, &lo, &hi);
    uint32_t budget = p->cfg.degree_lines < max ? p->cfg.degree_lines : max;
    uint64_t next = s->next;
    uint64_t from = next > line ? next : line + 1;
    uint64_t to = line + p->cfg.distance_lines;
    if (to > hi)
        to = hi;
    uint32_t shift = p->line_shift;
    uint32_t n = 0;
    for (uint64_t l = from; l <= to && n < budget; l++)
        out[n++] = l << shift;
    s->next = from + n;
    return n;
}

/* pf_access() for a line the stream hit last cannot take in one step
 * (another region, another direction, not the next line): the search,
 * allocation and retraining. */
static __attribute__((noinline)) uint32_t access_slow(pf_t *p, uint64_t line, uint64_t region,
                                                      uint64_t *out, uint32_t max)
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
    limits(p, region, &lo, &hi);
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
