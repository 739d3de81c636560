/*
 * bigmem.h - host memory for the model's large arrays (a simulated L3 of
 * tens of MiB, its snapshots): asked of the kernel in huge pages where the
 * host allows it.
 *
 * Notes
 *  - Why: every 4 KiB page of a fresh allocation costs the host a page fault
 *    when first written. A 32 MiB L3 is 14 MiB of host memory, about 3,600
 *    faults; on a KVM guest measured on 2026-12-06 (AMD EPYC family 0x1a,
 *    2 vCPUs) they took 38 ms of system time, more than the whole exact
 *    simulation of a 256 MiB clear. In 2 MiB pages they are eight.
 *  - How: blocks of at least BIGMEM_MIN_BYTES are aligned to 2 MiB and
 *    their whole 2 MiB pages are marked MADV_HUGEPAGE (transparent huge
 *    pages in "madvise" mode, the default of Debian's kernels). The tail
 *    past the last whole 2 MiB stays in small pages, so a block's resident
 *    size stays what is written of it. A host without the call, or a
 *    kernel that refuses it, gets small pages: it is a hint, nothing
 *    depends on it.
 *  - Blocks of BIGMEM_MID_BYTES up to BIGMEM_MIN_BYTES take one whole huge
 *    page (2 MiB aligned, marked): a 448 KiB simulated L2 was 112 faults of
 *    about 10 us each on that guest, one huge page is one fault (2026-12-06:
 *    the benchmark case of bench/run went from 420 to 312 faults, 41.3 to
 *    40.1 ms). Its resident size is then the whole 2 MiB page.
 *  - Smaller blocks are ordinary aligned_alloc() memory.
 *  - Memory from bigmem_alloc() is released with bigmem_free() (or free():
 *    it is aligned_alloc() memory either way).
 */
#ifndef CLEARSIM_BIGMEM_H
#define CLEARSIM_BIGMEM_H

#include <stddef.h>

#define BIGMEM_MIN_BYTES  ((size_t)2 << 20)
#define BIGMEM_MID_BYTES  ((size_t)256 << 10)
#define BIGMEM_HUGE_BYTES ((size_t)2 << 20)

/* bytes of memory aligned to align (a power of two, at most 2 MiB), or NULL;
 * not zeroed. */
void *bigmem_alloc(size_t align, size_t bytes);
void bigmem_free(void *p);

#endif
