/*
 * tlb.c - the data TLB (see tlb.h).
 */
#include "models/tlb.h"
#include "models/base/errbuf.h"

#include <stdio.h>
#include <stdlib.h>

int tlb_setup(tlb_t *t, const machine_t *m, stats_t *st, uint64_t page_bytes, char *err,
              size_t errlen)
{
    t->m = m;
    t->st = st;
    uint32_t entries = m->tlb_entries_4k;
    if (page_bytes >= (1ull << 30))
        entries = m->tlb_entries_1g;
    else if (page_bytes >= (2ull << 20))
        entries = m->tlb_entries_2m;
    t->host = m->tlb_host_page_bytes != 0 && page_bytes == m->tlb_host_page_bytes;
    if (t->host)
        entries = m->tlb_host_entries;
    cache_destroy(t->c);
    t->c = NULL;
    t->page_bytes = page_bytes;
    t->page_shift =
        page_bytes && (page_bytes & (page_bytes - 1)) == 0 ? __builtin_ctzll(page_bytes) : -1;
    t->last_valid = false;
    t->log_n = 0;
    t->log_full = false;
    if (entries == 0)
        return 0; /* no TLB modelled for this page size */
    /* LRU; fully associative up to 256 entries, else the fewest ways (at
     * least 8) that leave a power-of-two set count. */
    uint32_t ways = entries;
    if (ways > 256) {
        ways = 0;
        for (uint32_t w = 8; w <= 256 && !ways; w++)
            if (entries % w == 0 && ((entries / w) & (entries / w - 1)) == 0)
                ways = w;
        if (!ways) {
            errbuf_set(err, errlen, "tlb: %u entries cannot be arranged in power-of-two sets",
                       entries);
            return -1;
        }
    }
    machine_cache_t g = {.present = true,
                         .size_bytes = (uint64_t)entries * page_bytes,
                         .ways = ways,
                         .line_bytes = (uint32_t)(page_bytes > UINT32_MAX ? 0 : page_bytes),
                         .repl = MACHINE_REPL_LRU};
    if (g.line_bytes == 0) {
        errbuf_set(err, errlen, "tlb: page size %llu too large", (unsigned long long)page_bytes);
        return -1;
    }
    char why[200];
    t->c = cache_create(&g, 1, why, sizeof(why));
    if (!t->c) {
        errbuf_set(err, errlen, "tlb: %s", why);
        return -1;
    }
    return 0;
}

void tlb_release(tlb_t *t)
{
    cache_destroy(t->c);
    t->c = NULL;
    free(t->log);
    t->log = NULL;
    t->log_n = t->log_cap = 0;
}

void tlb_log_add(tlb_t *t, uint64_t page, bool missed)
{
    if (t->log_full)
        return;
    if (t->log_n == t->log_cap) {
        uint64_t n = t->log_cap ? 2 * t->log_cap : 1024;
        uint64_t *p = n <= TLB_LOG_MAX ? realloc(t->log, (size_t)n * sizeof(uint64_t)) : NULL;
        if (!p) {
            t->log_full = true;
            return;
        }
        t->log = p;
        t->log_cap = n;
    }
    t->log[t->log_n++] = page << 1 | (missed ? 1u : 0u);
}
