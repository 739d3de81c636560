/* nt_walk_ahead.c - how long the Zen 5 guest's NT stores and CLZERO wait for a
 * new 4 KiB page's translation at 1 GiB, and how far ahead a translation must
 * start to hide it. Each 4 KiB page of a 1 GiB buffer of 2 MiB THP pages is
 * cleared with 8 x MOVNTI, 1 x 64-byte NT store (both data, 0x5a) or CLZERO a
 * line; D bytes before the page's end one load from the next page starts its
 * translation (D = 0: no load; D = 4096: at the page's start; 8192: from the
 * page after the next, at the page's start). If the wait is a walk of W ns
 * that starts with the load, the rate comes back once D bytes take W to
 * clear. The variants interleaved, 5 rounds; GiB/s, median and best.
 * Argument 1: the footprint in MiB (default 1024; a line "# footprint" says
 * which, added after the first runs).
 * Build: cc -std=c11 -O2 -o nt_walk_ahead nt_walk_ahead.c (data/native/README.md). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "study.h"

enum { K_MOVNTI, K_NT64, K_CLZERO, K_N };
static const char *const kname[K_N] = {"movnti", "64B", "clzero"};
static const size_t dist[] = {0, 256, 512, 1024, 2048, 4096, 8192};
#define N_D    (sizeof dist / sizeof dist[0])
#define ROUNDS 5

static volatile uint64_t sink;

/* One line at a. */
__attribute__((target("avx512f"))) static inline void line(char *a, int kind)
{
    if (kind == K_NT64) {
        _mm512_stream_si512((void *)a, _mm512_set1_epi8(0x5a));
    } else if (kind == K_MOVNTI) {
        const long long q = 0x5a5a5a5a5a5a5a5all;
        long long *l = (long long *)a;
        _mm_stream_si64(l, q), _mm_stream_si64(l + 1, q);
        _mm_stream_si64(l + 2, q), _mm_stream_si64(l + 3, q);
        _mm_stream_si64(l + 4, q), _mm_stream_si64(l + 5, q);
        _mm_stream_si64(l + 6, q), _mm_stream_si64(l + 7, q);
    } else {
        __asm__ volatile("clzero" : : "a"(a) : "memory");
    }
}

/* The buffer cleared 4 KiB at a time, the translation of the page d bytes
 * ahead of the stream started by a load (d = 0: none). Built for AVX-512 as
 * line() is, so that line() inlines: the first build called it once a line,
 * which held CLZERO to 11-12 GiB/s. */
__attribute__((target("avx512f"))) static void clear(char *b, size_t n, int kind, size_t d)
{
    uint64_t s = 0;
    for (size_t p = 0; p < n; p += 4096) {
        size_t at = d ? (d >= 4096 ? 0 : 4096 - d) : 4096; /* where in the page to load */
        size_t to = p + (d > 4096 ? 8192 : 4096);          /* from which page */
        for (size_t o = 0; o < 4096; o += 64) {
            if (o == at && to < n)
                s += *(const volatile uint64_t *)(b + to + 4032);
            line(b + p + o, kind);
        }
    }
    _mm_sfence();
    sink += s;
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    if (mib < 1 || mib > 65536) {
        fprintf(stderr, "nt_walk_ahead: the footprint must be 1..65536 MiB\n");
        return 2;
    }
    const size_t n = mib << 20;
    char *b = study_buffer(n, 1);
    if (!b)
        return 1;
    static double g[K_N][N_D][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < K_N; k++)
            for (size_t i = 0; i < N_D; i++) {
                double t0 = study_now_s();
                clear(b, n, k, dist[i]);
                g[k][i][r] = (double)n / (study_now_s() - t0) / (double)(1u << 30);
            }
    printf("# footprint %zu MiB\n", mib);
    printf("kernel,ahead_bytes,median_gib_per_s,best_gib_per_s,ns_per_page_median\n");
    for (int k = 0; k < K_N; k++)
        for (size_t i = 0; i < N_D; i++) {
            qsort(g[k][i], ROUNDS, sizeof(double), study_cmp_double);
            double med = g[k][i][ROUNDS / 2];
            printf("%s,%zu,%.2f,%.2f,%.1f\n", kname[k], dist[i], med, g[k][i][ROUNDS - 1],
                   4096.0 / (med * (double)(1u << 30)) * 1e9);
        }
    munmap(b, n);
    return 0;
}
