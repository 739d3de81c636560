/*
 * callers.c - the call sequences that invoke a clearing kernel (see
 * callers.h): page-at-a-time, extent, chunked.
 *
 * Notes
 *  - page: subpages of the base page (4 KiB, or 16/64 KiB arm64 kernels).
 *    The order of Linux's process_huge_page() (mm/memory.c) for folios
 *    of at most max_order_pages subpages, with target subpage n of N:
 *      2n <= N: subpages N-1 down to 2n, then pairs converging on n:
 *               i = 0..n-1: left i, right 2n-1-i;
 *      else:    base = 2n-N; subpages 0..base-1 ascending, then pairs
 *               i = 0..N-n-1: left base+i, right N-1-i.
 *    The target is always cleared last (it stays cache-hot for the user).
 *    Larger ("gigantic") folios go 0..N-1 ascending (clear_gigantic_page()).
 *    A reschedule point precedes every subpage of a multi-page folio; a
 *    single base page is cleared directly, without one (order-0 faults zero
 *    the page at allocation, not through folio_zero_user()).
 *    max_order_pages 0 means
 *    CALLER_DEFAULT_MAX_ORDER_PAGES (1024, MAX_PAGE_ORDER 10 with 4 KiB pages).
 *    A fault address outside the folio is clamped to its first or last
 *    subpage; callers pass addresses inside it.
 *  - extent: none/voluntary clear cap_bytes at a time (cap 0 means
 *    CALLER_DEFAULT_EXTENT_CAP_BYTES) with a reschedule point between two
 *    extents; full/lazy clear the folio in one call.
 *  - chunked: calls of chunk bytes (0 means the whole size), the last one
 *    shorter when size is not a multiple of chunk; no reschedule points.
 *  - Units: addresses and lengths in bytes.
 */
#include "kernels/callers.h"

#include <string.h>

#define CALLER_DEFAULT_MAX_ORDER_PAGES 1024u

static void resched(const caller_cb_t *cb)
{
    if (cb->resched)
        cb->resched(cb->ctx);
}

static void clear_subpage(uint64_t folio_addr, uint64_t i, uint64_t sub, const caller_cb_t *cb)
{
    resched(cb);
    cb->clear(cb->ctx, folio_addr + i * sub, sub);
}

void caller_page(uint64_t folio_addr, uint64_t folio_bytes, uint64_t fault_addr,
                 uint64_t subpage_bytes, uint32_t max_order_pages, const caller_cb_t *cb)
{
    const uint64_t sub = subpage_bytes ? subpage_bytes : CALLER_SUBPAGE_BYTES;
    const uint64_t N = folio_bytes / sub;
    if (N == 0)
        return;
    if (N == 1) {
        cb->clear(cb->ctx, folio_addr, sub);
        return;
    }
    if (max_order_pages == 0)
        max_order_pages = CALLER_DEFAULT_MAX_ORDER_PAGES;

    if (N > max_order_pages) {
        for (uint64_t i = 0; i < N; i++)
            clear_subpage(folio_addr, i, sub, cb);
        return;
    }

    uint64_t n = 0;
    if (fault_addr >= folio_addr)
        n = (fault_addr - folio_addr) / sub;
    if (n >= N)
        n = N - 1;

    uint64_t base, l;
    if (2 * n <= N) {
        base = 0;
        l = n;
        for (uint64_t i = N; i-- > 2 * n;)
            clear_subpage(folio_addr, i, sub, cb);
    } else {
        base = 2 * n - N;
        l = N - n;
        for (uint64_t i = 0; i < base; i++)
            clear_subpage(folio_addr, i, sub, cb);
    }
    for (uint64_t i = 0; i < l; i++) {
        clear_subpage(folio_addr, base + i, sub, cb);
        clear_subpage(folio_addr, base + 2 * l - 1 - i, sub, cb);
    }
}

void caller_extent(uint64_t folio_addr, uint64_t folio_bytes, caller_preempt_t preempt,
                   uint64_t cap_bytes, const caller_cb_t *cb)
{
    if (folio_bytes == 0)
        return;
    if (preempt == CALLER_PREEMPT_FULL || preempt == CALLER_PREEMPT_LAZY) {
        cb->clear(cb->ctx, folio_addr, folio_bytes);
        return;
    }
    if (cap_bytes == 0)
        cap_bytes = CALLER_DEFAULT_EXTENT_CAP_BYTES;
    for (uint64_t off = 0; off < folio_bytes; off += cap_bytes) {
        if (off)
            resched(cb);
        uint64_t n = folio_bytes - off < cap_bytes ? folio_bytes - off : cap_bytes;
        cb->clear(cb->ctx, folio_addr + off, n);
    }
}

void caller_chunked(uint64_t addr, uint64_t size, uint64_t chunk, const caller_cb_t *cb)
{
    if (chunk == 0)
        chunk = size;
    for (uint64_t off = 0; off < size; off += chunk) {
        uint64_t n = size - off < chunk ? size - off : chunk;
        cb->clear(cb->ctx, addr + off, n);
    }
}

const name_value_t caller_preempt_names[] = {{"none", CALLER_PREEMPT_NONE},
                                             {"voluntary", CALLER_PREEMPT_VOLUNTARY},
                                             {"full", CALLER_PREEMPT_FULL},
                                             {"lazy", CALLER_PREEMPT_LAZY},
                                             {NULL, 0}};

const char *caller_preempt_name(caller_preempt_t p)
{
    return name_of(caller_preempt_names, (int)p);
}

int caller_preempt_parse(const char *s, caller_preempt_t *out)
{
    int v;
    if (name_parse(caller_preempt_names, s, &v) != 0)
        return -1;
    *out = (caller_preempt_t)v;
    return 0;
}
