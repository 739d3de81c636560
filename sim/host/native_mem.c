/*
 * native_mem.c - the memory of a native run (see native_mem.h).
 */
#include "sim/host/native_mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "models/base/errbuf.h"
#include "sim/machine/units.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static const char *thp_or_unknown(const host_info_t *h)
{
    return h->thp_mode[0] ? h->thp_mode : "not available";
}

static bool hugepage_size_exists(const host_info_t *h, uint64_t page_bytes)
{
    for (uint32_t i = 0; i < h->n_hugepages; i++)
        if (h->hugepages[i].page_bytes == page_bytes)
            return true;
    return false;
}

static uint64_t hugepage_total(const host_info_t *h, uint64_t page_bytes)
{
    for (uint32_t i = 0; i < h->n_hugepages; i++)
        if (h->hugepages[i].page_bytes == page_bytes)
            return h->hugepages[i].total;
    return 0;
}

int native_choose_pages(const wl_spec_t *s, const host_info_t *h, pages_t *p, native_result_t *r,
                        char *err, size_t errlen)
{
    p->page_bytes = s->page_bytes;
    if (s->page_bytes == PAGE_4K) {
        p->mode = NATIVE_PAGE_4K;
        snprintf(r->page_how, sizeof r->page_how, "anonymous mmap, madvise(MADV_NOHUGEPAGE)");
        return 0;
    }
    const uint64_t need = (s->size_bytes + s->page_bytes - 1) / s->page_bytes;
    const uint64_t kb = s->page_bytes >> 10;
    const uint64_t free_pages = host_hugepages_free(h, s->page_bytes);
    if (free_pages >= need) {
        p->mode = NATIVE_PAGE_HUGETLB;
        snprintf(r->page_how, sizeof r->page_how,
                 "MAP_HUGETLB|MAP_HUGE_%s (%" PRIu64 " of %" PRIu64 " free %" PRIu64 "kB pages)",
                 s->page_bytes == PAGE_2M ? "2MB" : "1GB", need, free_pages, kb);
        return 0;
    }
    bool thp = strcmp(h->thp_mode, "always") == 0 || strcmp(h->thp_mode, "madvise") == 0;
    if (s->page_bytes == PAGE_2M && thp) {
        p->mode = NATIVE_PAGE_THP;
        snprintf(r->page_how, sizeof r->page_how,
                 "THP: madvise(MADV_HUGEPAGE), THP enabled '%s' (%" PRIu64
                 " free hugetlb pages, %" PRIu64 " needed)",
                 h->thp_mode, free_pages, need);
        return 0;
    }
    char sz[32];
    unit_format_size(s->page_bytes, sz, sizeof sz);
    if (!hugepage_size_exists(h, s->page_bytes))
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen,
                             "--page %s: this kernel offers no %" PRIu64
                             "kB hugetlb pages (no /sys/kernel/mm/hugepages/hugepages-%" PRIu64
                             "kB)%s",
                             sz, kb, kb, s->page_bytes == PAGE_2M ? " and THP is off" : "");
    uint64_t want = hugepage_total(h, s->page_bytes) + (need - free_pages);
    return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen,
                         "--page %s: %" PRIu64 " free %" PRIu64 "kB hugetlb pages, %" PRIu64
                         " needed%s%s%s; reserve them with 'echo %" PRIu64
                         " > /sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/nr_hugepages'",
                         sz, free_pages, kb, need, s->page_bytes == PAGE_2M ? " and THP is '" : "",
                         s->page_bytes == PAGE_2M ? thp_or_unknown(h) : "",
                         s->page_bytes == PAGE_2M ? "'" : "", want, kb);
}

int native_region_map(region_t *g, uint64_t bytes, const pages_t *pg, bool populate, char *err,
                      size_t errlen)
{
    const size_t len = (size_t)((bytes + pg->page_bytes - 1) / pg->page_bytes * pg->page_bytes);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    memset(g, 0, sizeof *g);
    char sz[32];
    if (pg->mode == NATIVE_PAGE_HUGETLB) {
        flags |=
            MAP_HUGETLB |
            (int)((unsigned)__builtin_ctzll(pg->page_bytes) /* a power of two */ << MAP_HUGE_SHIFT);
        if (populate)
            flags |= MAP_POPULATE;
        g->len = len;
    } else if (pg->mode == NATIVE_PAGE_THP) {
        g->len = len + (size_t)pg->page_bytes; /* room to align to the huge page */
    } else {
        g->len = len;
    }
    g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (g->base == MAP_FAILED) {
        int e = errno;
        g->base = NULL;
        unit_format_size(bytes, sz, sizeof sz);
        return errbuf_set_rc(pg->mode == NATIVE_PAGE_HUGETLB ? NATIVE_ENOTSUP : -1, err, errlen,
                             "cannot map %s%s: %s", sz,
                             pg->mode == NATIVE_PAGE_HUGETLB ? " of hugetlb pages" : "",
                             strerror(e));
    }
    uintptr_t a = (uintptr_t)g->base;
    if (pg->mode == NATIVE_PAGE_THP)
        a = (a + (uintptr_t)pg->page_bytes - 1) & ~(uintptr_t)(pg->page_bytes - 1);
    g->p = (unsigned char *)a;
    if (pg->mode == NATIVE_PAGE_HUGETLB)
        return 0;
    /* 4 KiB: keep THP away (it may be "always"); THP: ask for it. Both before
     * any fault, so populate goes through madvise, not MAP_POPULATE. */
    int advice = pg->mode == NATIVE_PAGE_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
    if (madvise(g->p, len, advice) != 0 && pg->mode == NATIVE_PAGE_THP) {
        int e = errno;
        munmap(g->base, g->len);
        g->base = NULL;
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen, "madvise(MADV_HUGEPAGE) failed: %s",
                             strerror(e));
    }
    if (populate && madvise(g->p, len, MADV_POPULATE_WRITE) != 0) {
        int e = errno;
        munmap(g->base, g->len);
        g->base = NULL;
        return errbuf_set_rc(e == EINVAL ? NATIVE_ENOTSUP : -1, err, errlen,
                             "madvise(MADV_POPULATE_WRITE) failed: %s%s", strerror(e),
                             e == EINVAL ? " (it needs Linux 5.14 or later)" : "");
    }
    return 0;
}

void native_region_unmap(region_t *g)
{
    if (g->base)
        munmap(g->base, g->len);
    g->base = NULL;
}

/* Bytes backed by huge pages in the mapping that holds addr (/proc/self/smaps). */
uint64_t native_smaps_huge_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    bool in = false;
    uint64_t kb_total = 0;
    while (fgets(line, sizeof line, f)) {
        uint64_t lo, hi, kb;
        char key[64];
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &lo, &hi) == 2 && strchr(line, ' ') &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (in)
                break;
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            continue;
        }
        if (in && sscanf(line, "%63[^:]: %" SCNu64 " kB", key, &kb) == 2 &&
            (strcmp(key, "AnonHugePages") == 0 || strcmp(key, "Private_Hugetlb") == 0 ||
             strcmp(key, "Shared_Hugetlb") == 0))
            kb_total += kb;
    }
    fclose(f);
    return kb_total << 10;
}
