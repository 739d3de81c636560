/*
 * callers.h - how a clearing kernel is invoked: the call sequence, written
 * once and used by both the simulator (trace mode) and native runs.
 *
 * Notes
 *  - A caller produces kernel calls (addr, len) and reschedule points, in
 *    program order, through caller_cb_t.
 *  - page:   folio_zero_user() before the extent series: clear_page() on each
 *            4 KiB subpage. Folios of at most max_order_pages pages use
 *            process_huge_page() order (the target subpage last); larger
 *            ("gigantic") folios are cleared in ascending order, as
 *            clear_gigantic_page() does. A reschedule point precedes every
 *            subpage. A single 4 KiB page (an order-0 fault) is one call with
 *            no reschedule point: it is zeroed at allocation, not through
 *            folio_zero_user().
 *  - extent: clear_pages() over the folio. Under none/voluntary the extent is
 *            capped (ARCH_CLEAR_PAGE_EXTENT, default 8 MiB) with a reschedule
 *            point between extents; under full/lazy the folio is one extent.
 *  - chunked: perf bench mem memset -k: size bytes in calls of chunk bytes.
 */
#ifndef CLEARSIM_CALLERS_H
#define CLEARSIM_CALLERS_H

#include <stdint.h>

#include "models/base/names.h"

#define CALLER_SUBPAGE_BYTES            4096u
#define CALLER_DEFAULT_EXTENT_CAP_BYTES (8ull << 20)

typedef enum caller_preempt {
    CALLER_PREEMPT_NONE = 0,
    CALLER_PREEMPT_VOLUNTARY,
    CALLER_PREEMPT_FULL,
    CALLER_PREEMPT_LAZY,
} caller_preempt_t;

typedef struct caller_cb {
    void (*clear)(void *ctx, uint64_t addr, uint64_t len);
    void (*resched)(void *ctx); /* may be NULL */
    void *ctx;
} caller_cb_t;

/* Page-at-a-time clearing of the folio at folio_addr (folio_bytes long) after
 * a fault at fault_addr, in subpages of subpage_bytes (the base page:
 * clear_page() clears PAGE_SIZE; 0 means CALLER_SUBPAGE_BYTES). */
void caller_page(uint64_t folio_addr, uint64_t folio_bytes, uint64_t fault_addr,
                 uint64_t subpage_bytes, uint32_t max_order_pages, const caller_cb_t *cb);
/* Extent clearing of the folio. cap_bytes applies under none/voluntary. */
void caller_extent(uint64_t folio_addr, uint64_t folio_bytes, caller_preempt_t preempt,
                   uint64_t cap_bytes, const caller_cb_t *cb);
/* size bytes at addr, chunk bytes per call (the last call may be shorter). */
void caller_chunked(uint64_t addr, uint64_t size, uint64_t chunk, const caller_cb_t *cb);

/* The names users type for the preemption models (models/base/names.h). */
extern const name_value_t caller_preempt_names[];
const char *caller_preempt_name(caller_preempt_t p);
int caller_preempt_parse(const char *s, caller_preempt_t *out);

#endif
