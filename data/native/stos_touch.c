/* stos_touch.c - does one rep stosb call per 2 MiB folio pay the Zen 5 guest's
 * per-page TLB-miss cost that NT stores and CLZERO pay (nt_walk_ahead.c)? A
 * 1 GiB buffer of 2 MiB THP pages cleared with one rep stosb per 2 MiB, of
 * zeros and of data (0x5a), plain and with one load from each 4 KiB page of
 * the folio just before its call (the loads take the TLB misses; 512 of them
 * cost little next to the call), and the same with 64-byte NT stores for
 * comparison. The variants interleaved, 5 rounds; GiB/s, median and best.
 * Build: cc -std=c11 -O2 -o stos_touch stos_touch.c (data/native/README.md). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "study.h"

#define FOLIO  (2u << 20)
#define ROUNDS 5

static volatile uint64_t sink;

/* One folio at f: rep stosb of `fill` (nt = 0) or 64-byte NT stores. */
__attribute__((target("avx512f"))) static void folio(char *f, int fill, int nt)
{
    if (nt) {
        const __m512i v = _mm512_set1_epi8((char)fill);
        for (size_t o = 0; o < FOLIO; o += 64)
            _mm512_stream_si512((void *)(f + o), v);
        return;
    }
    void *d = f;
    size_t c = FOLIO;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(fill) : "memory");
}

__attribute__((target("avx512f"))) static void clear(char *b, size_t n, int fill, int nt, int touch)
{
    uint64_t s = 0;
    for (size_t p = 0; p < n; p += FOLIO) {
        if (touch)
            for (size_t q = 0; q < FOLIO; q += 4096)
                s += *(const volatile uint64_t *)(b + p + q + 4032);
        folio(b + p, fill, nt);
    }
    _mm_sfence();
    sink += s;
}

int main(void)
{
    const size_t n = 1024u << 20;
    char *b = study_buffer(n, 1);
    if (!b)
        return 1;
    static const struct {
        const char *name;
        int fill, nt;
    } v[] = {{"rep_stosb-zero", 0, 0}, {"rep_stosb-data", 0x5a, 0}, {"nt64-data", 0x5a, 1}};
    static double g[3][2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 3; k++)
            for (int t = 0; t < 2; t++) {
                double t0 = study_now_s();
                clear(b, n, v[k].fill, v[k].nt, t);
                g[k][t][r] = (double)n / (study_now_s() - t0) / (double)(1u << 30);
            }
    printf("kernel,touched,median_gib_per_s,best_gib_per_s\n");
    for (int k = 0; k < 3; k++)
        for (int t = 0; t < 2; t++) {
            qsort(g[k][t], ROUNDS, sizeof(double), study_cmp_double);
            printf("%s,%d,%.2f,%.2f\n", v[k].name, t, g[k][t][ROUNDS / 2], g[k][t][ROUNDS - 1]);
        }
    munmap(b, n);
    return 0;
}
