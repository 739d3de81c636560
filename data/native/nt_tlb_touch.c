/* nt_tlb_touch.c - is MOVNTI's fall behind 64-byte NT stores past 32 MiB on the
 * Zen 5 guest a translation the narrow stores cannot run ahead to? Clears of
 * a buffer of 2 MiB THP pages, 4 KiB at a time: 8 x MOVNTI a line, 1 x
 * VMOVNTDQ a line (both data, 0x5a), one rep stosb of the 4 KiB (zeros), and
 * CLZERO a line; each plain and with one load from the page D pages ahead at
 * the start of each 4 KiB page (the load's translation fills the TLB before
 * the stores get there; that line is cleared later, as every other).
 * Footprints 16 MiB-1 GiB, repeated to about 1 GiB a run; GiB/s, best of 5
 * runs, the variants interleaved.
 * Build: cc -std=c11 -O2 -o nt_tlb_touch nt_tlb_touch.c (data/native/README.md). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "study.h"

static volatile uint64_t sink;

enum { K_MOVNTI, K_NT64, K_STOSB, K_CLZERO, K_N };
static const char *const kname[K_N] = {"movnti", "64B", "rep_stosb", "clzero"};

/* kind: how each 4 KiB is cleared; ahead: pages ahead to load from at each
 * page's start (0: none) */
__attribute__((target("avx512f"))) static void fill(char *b, size_t n, int kind, size_t ahead)
{
    const __m512i v = _mm512_set1_epi8(0x5a);
    const long long q = 0x5a5a5a5a5a5a5a5all;
    uint64_t s = 0;
    for (size_t p = 0; p < n; p += 4096) {
        if (ahead && p + ahead * 4096 < n)
            s += *(const volatile uint64_t *)(b + p + ahead * 4096 + 4032);
        char *pg = b + p;
        if (kind == K_NT64)
            for (size_t o = 0; o < 4096; o += 64)
                _mm512_stream_si512((void *)(pg + o), v);
        else if (kind == K_MOVNTI)
            for (size_t o = 0; o < 4096; o += 64) {
                long long *l = (long long *)(pg + o);
                _mm_stream_si64(l, q), _mm_stream_si64(l + 1, q);
                _mm_stream_si64(l + 2, q), _mm_stream_si64(l + 3, q);
                _mm_stream_si64(l + 4, q), _mm_stream_si64(l + 5, q);
                _mm_stream_si64(l + 6, q), _mm_stream_si64(l + 7, q);
            }
        else if (kind == K_STOSB) {
            void *d = pg;
            size_t c = 4096;
            __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
        } else
            for (size_t o = 0; o < 4096; o += 64)
                __asm__ volatile("clzero" : : "a"(pg + o) : "memory");
    }
    _mm_sfence();
    sink += s;
}

int main(void)
{
    const size_t sizes[] = {16u << 20, 32u << 20, 128u << 20, 1024u << 20};
    const size_t aheads[] = {0, 2, 8};
    printf("footprint_mib,kernel,ahead_pages,gib_per_s\n");
    for (int i = 0; i < 4; i++) {
        size_t n = sizes[i], reps = (1024u << 20) / n;
        char *b = study_buffer(n, 1);
        if (!b)
            return 1;
        double best[K_N][3] = {{0}};
        for (int r = 0; r < 5; r++)
            for (int w = 0; w < K_N; w++)
                for (int a = 0; a < 3; a++) {
                    fill(b, n, w, aheads[a]);
                    double t0 = study_now_s();
                    for (size_t k = 0; k < reps; k++)
                        fill(b, n, w, aheads[a]);
                    double g = (double)(n * reps) / (study_now_s() - t0) / (double)(1u << 30);
                    best[w][a] = g > best[w][a] ? g : best[w][a];
                }
        for (int w = 0; w < K_N; w++)
            for (int a = 0; a < 3; a++)
                printf("%zu,%s,%zu,%.2f\n", n >> 20, kname[w], aheads[a], best[w][a]);
        munmap(b, n);
    }
    return 0;
}
