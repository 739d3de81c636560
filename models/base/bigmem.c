/*
 * bigmem.c - host memory for large arrays, in huge pages where allowed
 * (see bigmem.h).
 */
#include "models/base/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void *bigmem_alloc(size_t align, size_t bytes)
{
    if (bytes < BIGMEM_MID_BYTES) {
        size_t n = (bytes + align - 1) & ~(align - 1); /* aligned_alloc wants a multiple */
        return aligned_alloc(align, n ? n : align);
    }
    size_t n = (bytes + BIGMEM_HUGE_BYTES - 1) & ~(BIGMEM_HUGE_BYTES - 1);
    void *p = aligned_alloc(BIGMEM_HUGE_BYTES, n);
    /* the block's whole 2 MiB pages; a mid-sized block, which has none, its one page */
    size_t marked = bytes < BIGMEM_MIN_BYTES ? n : bytes & ~(BIGMEM_HUGE_BYTES - 1);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, marked, MADV_HUGEPAGE); /* a hint */
#else
    (void)marked;
#endif
    return p;
}

void bigmem_free(void *p)
{
    free(p);
}
