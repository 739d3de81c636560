/*
 * prefetch.h - a stream prefetcher attached to one cache level.
 *
 * Notes
 *  - A table of streams, one per region (prefetch.boundary bytes, 4 KiB on
 *    most cores). A stream is trained after prefetch.train sequential line
 *    accesses in one direction; each later access in the stream asks for up
 *    to prefetch.degree new lines, keeping at most prefetch.distance lines
 *    ahead of the access.
 *  - A stream never prefetches past its region's boundary, unless
 *    prefetch.next_page is set and the next region lies in the same
 *    physically contiguous block (the folio, see model_set_mapping): then a
 *    trained stream runs on into it and is carried over, trained, when the
 *    accesses follow.
 *  - It returns line addresses to fetch; the hierarchy does the fetching (and
 *    skips lines already present).
 */
#ifndef CLEARSIM_PREFETCH_H
#define CLEARSIM_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "models/base/machine.h"

#define PF_STREAMS 16

typedef struct pf pf_t;

pf_t *pf_create(const machine_prefetch_t *cfg, uint32_t line_bytes);
void pf_destroy(pf_t *p);
/* Size of physically contiguous, aligned blocks (0 or less than a region:
 * regions are never contiguous with their neighbours). */
void pf_set_contig(pf_t *p, uint64_t contig_bytes);
/* A demand access to the line holding addr. Writes up to max line addresses
 * to prefetch into out[] and returns how many. */
uint32_t pf_access(pf_t *p, uint64_t addr, uint64_t *out, uint32_t max);

/* Exact bulk stepping (models/model_bulk.c). A copy of p (into, when not
 * NULL, else a new one; NULL for a NULL p or out of memory). */
pf_t *pf_clone(const pf_t *p, pf_t *into);
/* Is p now `then` moved by a stream? The streams, matched by age order (by
 * slot while a slot is free), must be the same (training) and either moved
 * dlines lines on (one whose last line was in the stream's range [lo, hi))
 * or where they were and outside the window [wlo, whi) the stream will
 * reach (left behind). Returns the mask of p's moved slots, or -1. dlines
 * must be whole regions. */
int64_t pf_same(const pf_t *p, const pf_t *then, uint64_t dlines, uint64_t lo, uint64_t hi,
                uint64_t wlo, uint64_t whi);
/* Lines from `line` to the end of its contiguous block when a move by
 * dlines lines would not keep the streams' blocks (continuing into the
 * next page, the block ends are where streams stop): a move is exact only
 * while everything stays inside the block. UINT64_MAX: any move keeps
 * them; 0: dlines is not whole regions. */
uint64_t pf_block_room(const pf_t *p, uint64_t line, uint64_t dlines);
/* Move the streams of the slots in `moved` (pf_same's mask) dlines on. */
void pf_move(pf_t *p, uint64_t dlines, int64_t moved);

/* A prefetcher that gains a generation of streams each period while it has
 * free slots: a stream that goes on in another region each period (the
 * next folio, say) leaves its streams behind, and they stay until the
 * slots run out. Such a state never repeats, but each period does the same
 * to it: the youngest generation is the last one moved dlines on, and
 * every older stream stays in its slot. */
typedef struct pf_growth {
    uint32_t count;            /* streams a period adds (0: none) */
    uint8_t slots[PF_STREAMS]; /* the youngest generation's slots, oldest first */
    uint32_t last_idx;         /* the slot hit last: slots[last_idx] */
    uint64_t dlines, dclock;   /* one period's move, and its clock ticks */
    uint64_t max_periods;      /* periods that still find free slots */
} pf_growth_t;
/* Is p `then` one period on, as above (then's youngest generation moved
 * dlines on into the lowest free slots, in the order they were taken, and
 * every stream of then where it was, outside the window [wlo, whi))? Fills
 * *g. The streams moved must have their last line in [lo, hi). */
bool pf_same_growing(const pf_t *p, const pf_t *then, uint64_t dlines, uint64_t lo, uint64_t hi,
                     uint64_t wlo, uint64_t whi, pf_growth_t *g);
/* Add the generations of the periods that move the stream dlines_total on
 * (a whole number of g's periods, at most g->max_periods). */
void pf_grow(pf_t *p, const pf_growth_t *g, uint64_t dlines_total);

#endif
