/*
 * native_mem.h - the memory of a native run: which pages a workload maps
 * (4 KiB, THP or hugetlb 2 MiB, hugetlb 1 GiB) and the mappings themselves.
 *
 * Notes
 *  - Huge pages: hugetlb is used only when enough pages of the size are free
 *    (/sys/kernel/mm/hugepages); for 2 MiB, THP through madvise(MADV_HUGEPAGE)
 *    is the fallback when THP is not "never". native_smaps_huge_bytes (from
 *    /proc/self/smaps: AnonHugePages + *_Hugetlb) says how much of a mapping
 *    really got huge pages.
 *  - Private to the host stage's native runs.
 */
#ifndef CLEARSIM_NATIVE_MEM_H
#define CLEARSIM_NATIVE_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/workload.h"
#include "sim/host/host.h"
#include "sim/host/native_run.h"

#define PAGE_4K (4ull << 10)
#define PAGE_2M (2ull << 20)
#define PAGE_1G (1ull << 30)

typedef struct pages {
    native_page_mode_t mode;
    uint64_t page_bytes;
} pages_t;

typedef struct region {
    void *base; /* what mmap returned */
    size_t len; /* what was mapped */
    unsigned char *p;
} region_t;

/* The pages spec's workload maps on host h (r records the choice). Returns
 * 0, NATIVE_ENOTSUP with the reason when the host cannot give them, or -1. */
int native_choose_pages(const wl_spec_t *s, const host_info_t *h, pages_t *p, native_result_t *r,
                        char *err, size_t errlen);
/* Map `bytes` with the pages pg (populate: MAP_POPULATE). Returns 0, or -1
 * with a reason. */
int native_region_map(region_t *g, uint64_t bytes, const pages_t *pg, bool populate, char *err,
                      size_t errlen);
void native_region_unmap(region_t *g);
/* Bytes of the mapping that holds addr that are backed by huge pages. */
uint64_t native_smaps_huge_bytes(const void *addr);

#endif
