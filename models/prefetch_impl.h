/*
 * prefetch_impl.h - the inside of models/prefetch.c, shared only with the
 * hierarchy (models/hierarchy.c) so that the common step of a stream
 * (pf_i_access) inlines into its per-line path, as models/cache_impl.h does
 * for the cache arrays.
 *
 * Notes
 *  - Private: nothing outside models/prefetch.c and models/hierarchy.c
 *    includes this. Everyone else calls pf_access() (models/prefetch.h),
 *    which is pf_i_access().
 *  - Units: addresses in bytes; line, region and block numbers.
 */
#ifndef CLEARSIM_PREFETCH_IMPL_H
#define CLEARSIM_PREFETCH_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "models/prefetch.h"

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

static inline uint64_t pf_div_by(uint64_t x, uint64_t d, int shift)
{
    return shift >= 0 ? x >> shift : x / d;
}

/* Lowest and highest line a stream in `region` may prefetch. */
static inline void pf_limits(const pf_t *p, uint64_t region, uint64_t *lo, uint64_t *hi)
{
    uint64_t first = region * p->region_lines;
    *lo = first;
    *hi = first + p->region_lines - 1;
    if (p->cfg.next_page && p->contig_lines) {
        uint64_t block = pf_div_by(first, p->contig_lines, p->contig_shift) * p->contig_lines;
        *lo = block;
        *hi = block + p->contig_lines - 1;
    }
}

/* pf_access() for a line the stream hit last cannot take in one step
 * (another region, another direction, not the next line): the search,
 * allocation and retraining (models/prefetch.c). */
uint32_t pf_access_slow(pf_t *p, uint64_t line, uint64_t region, uint64_t *out, uint32_t max);

/* pf_access(). */
static inline uint32_t pf_i_access(pf_t *p, uint64_t addr, uint64_t *out, uint32_t max)
{
    if (!p)
        return 0;
    uint64_t line = addr >> p->line_shift;
    uint64_t region = pf_div_by(line, p->region_lines, p->region_shift);
    pf_stream_t *s = &p->s[p->last];
    if (!(s->valid && s->region == region && s->dir > 0 && line == s->last + 1))
        return pf_access_slow(p, line, region, out, max);
    /* The common case, an ascending stream's next line in the stream hit
     * last (the search would return it): pf_access_slow()'s steps for it,
     * without the searches. */
    s->stamp = ++p->clock;
    uint32_t hits = ++s->hits;
    s->last = line;
    if (hits < p->cfg.train_lines)
        return 0;
    uint64_t lo, hi;
    pf_limits(p, region, &lo, &hi);
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

#endif
