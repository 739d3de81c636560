/* page_chase.c - the latency a clear's next 4 KiB page waits for, on a guest
 * whose host backs its memory with 4 KiB pages. A dependent chase over the
 * buffer in two orders: every line in random order (each hop a new host
 * page: a nested walk whose tables miss too), and page by page in address
 * order with a random line in each (each hop also a new page, but its
 * walk's table lines were just used, as a clear's are). Also the same orders
 * over a footprint inside the TLB's reach, and on 4 KiB guest pages.
 * Footprints 16 MiB-1 GiB; ns per hop, best of 3.
 * Build: cc -std=c11 -O2 -o page_chase page_chase.c (data/native/README.md). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "study.h"

static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Link the lines of b (n bytes) into one cycle; each line's first word holds
 * the next line's address. paged: round r visits page 0, 1, ... in order, at
 * line (o_p + r) % 64 of page p (o_p random), so each line once a cycle. */
static void link(char *b, size_t n, int paged)
{
    size_t lines = n / 64;
    uint32_t *ord = malloc(lines * sizeof *ord);
    uint64_t x = 42;
    if (paged) {
        size_t pages = n / 4096;
        uint8_t *o = malloc(pages);
        for (size_t p = 0; p < pages; p++)
            o[p] = (uint8_t)(mix(&x) % 64);
        size_t k = 0;
        for (size_t r = 0; r < 64; r++)
            for (size_t p = 0; p < pages; p++)
                ord[k++] = (uint32_t)(p * 64 + (o[p] + r) % 64);
        free(o);
    } else {
        for (size_t i = 0; i < lines; i++)
            ord[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--) {
            size_t j = mix(&x) % (i + 1);
            uint32_t t = ord[i];
            ord[i] = ord[j];
            ord[j] = t;
        }
    }
    for (size_t i = 0; i < lines; i++)
        *(char **)(b + (size_t)ord[i] * 64) = b + (size_t)ord[(i + 1) % lines] * 64;
    free(ord);
}

/* Write back and drop every line of b from the caches. */
static void flush(char *b, size_t n)
{
    for (size_t o = 0; o < n; o += 64)
        __builtin_ia32_clflush(b + o);
    __builtin_ia32_mfence();
}

static double chase_ns(char *b, size_t hops)
{
    char **p = (char **)b;
    double t0 = study_now_s();
    for (size_t i = 0; i < hops; i++)
        p = (char **)*p;
    double t = study_now_s() - t0;
    if (p == NULL)
        puts("");
    return t * 1e9 / (double)hops;
}

int main(int argc, char **argv)
{
    const size_t sizes[] = {16u << 20, 128u << 20, 1024u << 20};
    const int huge = argc > 1 && atoi(argv[1]);
    printf("# pages %s; ns per hop, best of 3\n", huge ? "2MiB (THP madvise)" : "4KiB");
    printf("footprint_mib,order,ns_per_hop\n");
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i];
        char *b = study_buffer(n, huge);
        if (!b)
            return 1;
        for (int paged = 0; paged < 2; paged++) {
            link(b, n, paged);
            size_t hops = 2u << 20;
            chase_ns(b, hops / 4); /* warm */
            double best = 1e9;
            for (int r = 0; r < 3; r++) {
                double t = chase_ns(b, hops);
                best = t < best ? t : best;
            }
            printf("%zu,%s,%.1f\n", n >> 20, paged ? "page-ordered" : "random", best);
        }
        munmap(b, n);
    }
    /* inside the TLB's reach, every line flushed before each timed cycle */
    const size_t small[] = {2u << 20, 4u << 20, 8u << 20, 12u << 20};
    for (int i = 0; i < 4; i++) {
        size_t n = small[i];
        char *b = study_buffer(n, huge);
        if (!b)
            return 1;
        link(b, n, 0);
        double best = 1e9, best_warm = 1e9;
        for (int r = 0; r < 5; r++) {
            double w = chase_ns(b, n / 64);
            best_warm = w < best_warm ? w : best_warm;
            flush(b, n);
            double t = chase_ns(b, n / 64);
            best = t < best ? t : best;
        }
        printf("%zu,random-cached,%.1f\n", n >> 20, best_warm);
        printf("%zu,random-flushed,%.1f\n", n >> 20, best);
        munmap(b, n);
    }
    return 0;
}
