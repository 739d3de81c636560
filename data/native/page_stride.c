/* page_stride.c - is the Zen 5 guest's slower DRAM-scale write path a cost
 * per 4 KiB page (translation) or per byte? Non-temporal stores (fill 0x5a)
 * over the whole buffer, one line per 4 KiB page, 8 lines per page, and one
 * load per page, at footprints 64 MiB-1 GiB, best of 5; argument 1 = THP
 * pages (madvise), 0 = base pages.
 * Build: cc -std=c11 -O2 -o page_stride page_stride.c (data/native/README.md). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* `per` bytes of non-temporal 64-byte stores at every `stride` bytes. */
__attribute__((target("avx512f"))) static void nt_stride(char *b, size_t n, size_t stride,
                                                         size_t per)
{
    __m512i v = _mm512_set1_epi8(0x5a);
    for (size_t o = 0; o < n; o += stride)
        for (size_t k = 0; k < per; k += 64)
            _mm512_stream_si512((void *)(b + o + k), v);
    _mm_sfence();
}

static uint64_t load_stride(const char *b, size_t n, size_t stride)
{
    uint64_t s = 0;
    for (size_t o = 0; o < n; o += stride)
        s += *(const volatile uint64_t *)(b + o);
    return s;
}

int main(int argc, char **argv)
{
    const size_t sizes[] = {64u << 20, 128u << 20, 256u << 20, 512u << 20, 1024u << 20};
    const int huge = argc > 1 && atoi(argv[1]);
    for (int i = 0; i < 5; i++) {
        size_t n = sizes[i];
        char *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        madvise(b, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        memset(b, 1, n);
        double best[4] = {1e9, 1e9, 1e9, 1e9};
        for (int r = 0; r < 5; r++) {
            double t[5];
            t[0] = now_s();
            nt_stride(b, n, 64, 64);
            t[1] = now_s();
            nt_stride(b, n, 4096, 64);
            t[2] = now_s();
            nt_stride(b, n, 4096, 512);
            t[3] = now_s();
            volatile uint64_t sink = load_stride(b, n, 4096);
            (void)sink;
            t[4] = now_s();
            for (int k = 0; k < 4; k++)
                if (t[k + 1] - t[k] < best[k])
                    best[k] = t[k + 1] - t[k];
        }
        double pages = (double)n / 4096.0;
        printf("%5zu MiB huge=%d: NT full %.1f GiB/s | NT 1 line/page %.1f ns/page | "
               "NT 8 lines/page %.1f ns/page | load 1/page %.1f ns/page\n",
               n >> 20, huge, (double)n / best[0] / (1u << 30), best[1] / pages * 1e9,
               best[2] / pages * 1e9, best[3] / pages * 1e9);
        munmap(b, n);
    }
    return 0;
}
