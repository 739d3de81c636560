/*
 * bounds.h - the resources that bound a prediction (docs/MODEL.md
 * "Bottleneck attribution"): their names, each one's share of the measured
 * time and occupancy from a result's counters, and the one machine key
 * that relaxes each.
 *
 * Notes
 *  - The model counts every measured cycle once, under the resource that
 *    bounded its time when it advanced (the ST_BOUND_* events); a share is
 *    that count over their sum, so the shares of one result sum to 1.
 *  - Occupancy is the average fraction of a resource's capacity in use over
 *    the measured time; it is not defined (has_occupancy false) for a
 *    latency or a lines-in-flight limit whose entries the model does not
 *    count.
 *  - Library code: nothing here prints.
 */
#ifndef CLEARSIM_BOUNDS_H
#define CLEARSIM_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/stats.h"

typedef struct bounds_resource {
    stats_event_t event; /* ST_BOUND_* */
    const char *name;    /* json name: the event's name without "bound." */
    const char *label;   /* text: "L2 miss slots × DRAM latency" (UTF-8) */
    /* The relaxation: the machine key it changes and the factor it applies
     * to the key's value (2: doubled, 0.5: halved). key NULL: fault costs,
     * whose key follows the page size (bounds_relax_key()). */
    const char *key;
    double factor;
} bounds_resource_t;

/* Every resource, in ST_BOUND_* order; *n receives ST_BOUND_COUNT. */
const bounds_resource_t *bounds_resources(size_t *n);

/* The machine key that relaxes resource r for a run clearing with pages of
 * page_bytes (the fault cost of that page size for faults). */
const char *bounds_relax_key(const bounds_resource_t *r, uint64_t page_bytes);

typedef struct bounds_entry {
    const bounds_resource_t *res;
    uint64_t cycles; /* measured cycles it bounded */
    double share;    /* cycles / the bound cycles' sum */
    bool has_occupancy;
    double occupancy; /* average fraction of its capacity in use */
} bounds_entry_t;

/* The resources with a nonzero share in st (a measured region's counters)
 * on machine m, by share, largest first (ties in ST_BOUND_* order), into
 * out[ST_BOUND_COUNT]. Returns how many. */
size_t bounds_breakdown(const stats_t *st, const machine_t *m, bounds_entry_t *out);

/* The resource with the largest share in st and that share; false (and
 * NULL, 0) when no cycle was counted. */
bool bounds_top(const stats_t *st, const bounds_resource_t **res, double *share);

#endif
