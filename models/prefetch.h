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

#endif
