/* study.h - what the standalone study programs here share (page_chase.c,
 * nt_tlb_touch.c, nt_walk_ahead.c, stos_touch.c): a monotonic clock, a touched
 * buffer of 2 MiB (THP, madvise) or 4 KiB pages, and a sort order for medians.
 * Header-only, so that each program still builds alone with
 * `cc -std=c11 -O2 -o X X.c` (data/native/README.md). */
#ifndef CLEARSIM_DATA_NATIVE_STUDY_H
#define CLEARSIM_DATA_NATIVE_STUDY_H

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double study_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n bytes of 2 MiB (huge) or 4 KiB pages, every byte written (1) so that each
 * page is faulted in before a timed run; NULL when mmap fails (said on stderr). */
static inline char *study_buffer(size_t n, int huge)
{
    char *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) {
        perror("mmap");
        return NULL;
    }
    madvise(b, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(b, 1, n);
    return b;
}

/* qsort's order for doubles, ascending. */
static inline int study_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
