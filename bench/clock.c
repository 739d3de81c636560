/*
 * clock.c - what this process gets of the host right now, for bench/run:
 * the core clock, and the read bandwidth over a buffer the size of a large
 * simulated L3's arrays.
 *
 * Notes
 *  - The clock: a chain of dependent integer adds retires one add per cycle
 *    on every core clearsim's hosts have had (x86-64 and arm64), so adds /
 *    second is the clock the process ran at. On a guest whose vCPU shares
 *    its core, or is descheduled, it is the clock it *got* (2026-12-06: an
 *    EPYC KVM guest read anywhere from 1.8 to 3.5 GHz within minutes).
 *  - The bandwidth: sums of a 32 MiB buffer of 64-bit words, the footprint
 *    of the arrays clearsim walks when it simulates a 32 MiB L3 (about
 *    14 MiB of set blocks and their snapshots). Other tenants' use of the
 *    host's L3 and memory shows here, not in the clock.
 *  - Fresh memory: the first write to each 4 KiB of a 16 MiB block asked
 *    for in huge pages, as clearsim's caches are (models/base/bigmem.c): the
 *    kernel hands the pages over zeroed, and a guest whose free memory went
 *    back to its host (free page reporting; the Zen 5 KVM guest of
 *    2026-12-06 boots with page_reporting.page_reporting_order=11) waits for
 *    the host to fault it in again. Measured first, before the read buffer
 *    is touched. On that guest: about 1 GB/s after a few seconds without
 *    allocations, 4-15 GB/s right after a process freed memory; clearsim's
 *    benchmark case asks for about 19 MiB, so 20 ms against 2 ms.
 *  - Prints "GHZ GBPS FRESH_GBPS", the first two each over five
 *    measurements in a row (0.05 s, or one pass of the buffer, each): the
 *    work of all five over their time, so that time the vCPU was not running
 *    counts (steal), as it does in the runs timed next to it. GB = 1e9
 *    bytes.
 *  - Usage: clock (no arguments). Exit 1 where the add chain cannot be
 *    built (no inline assembly for the ISA) or memory runs out.
 */
#define _DEFAULT_SOURCE /* clock_gettime, madvise under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define ADDS_PER_ITER 8
#define READ_BYTES    ((size_t)32 << 20)
#define FRESH_BYTES   ((size_t)16 << 20)
#define HUGE_BYTES    ((size_t)2 << 20)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n iterations of ADDS_PER_ITER dependent adds; returns the seconds, or -1. */
static double chain(uint64_t n)
{
    uint64_t x = 0;
    double t0 = now_s();
    for (uint64_t i = 0; i < n; i++) {
#if defined(__x86_64__)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                         : "+r"(x));
#elif defined(__aarch64__)
        __asm__ volatile("add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
                         "add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
                         "add %0, %0, #1\n\tadd %0, %0, #1"
                         : "+r"(x));
#else
        (void)x;
        return -1;
#endif
    }
    return now_s() - t0;
}

static double clock_ghz(void)
{
    uint64_t n = 1u << 20;
    double s = chain(n);
    if (s < 0)
        return -1;
    while (s < 0.05 && n < (UINT64_C(1) << 40)) { /* about 0.05 s a run */
        n *= 2;
        s = chain(n);
    }
    double total = 0;
    for (int r = 0; r < 5; r++)
        total += chain(n);
    return 5.0 * (double)n * ADDS_PER_ITER / total / 1e9;
}

/* One pass over the buffer; the sum goes to *sink so that it is kept. */
static double read_pass(const uint64_t *buf, size_t words, volatile uint64_t *sink)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    double t0 = now_s();
    for (size_t i = 0; i + 4 <= words; i += 4) {
        a += buf[i];
        b += buf[i + 1];
        c += buf[i + 2];
        d += buf[i + 3];
    }
    double s = now_s() - t0;
    *sink = a + b + c + d;
    return s;
}

static double read_gbps(void)
{
    size_t words = READ_BYTES / sizeof(uint64_t);
    uint64_t *buf = malloc(READ_BYTES);
    if (!buf)
        return -1;
    for (size_t i = 0; i < words; i++)
        buf[i] = i;
    volatile uint64_t sink = 0;
    double total = 0;
    for (int r = 0; r < 5; r++)
        total += read_pass(buf, words, &sink);
    free(buf);
    return 5.0 * (double)READ_BYTES / total / 1e9;
}

/* The first write to each page of a fresh FRESH_BYTES block in huge pages
 * where the host allows them: GB/s, or -1. */
static double fresh_gbps(void)
{
    volatile char *buf = aligned_alloc(HUGE_BYTES, FRESH_BYTES);
    if (!buf)
        return -1;
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)buf, FRESH_BYTES, MADV_HUGEPAGE); /* a hint, as bigmem's */
#endif
    double t0 = now_s();
    for (size_t i = 0; i < FRESH_BYTES; i += 4096)
        buf[i] = 1;
    double s = now_s() - t0;
    free((void *)buf);
    return (double)FRESH_BYTES / s / 1e9;
}

int main(void)
{
    double fresh = fresh_gbps(); /* first: the read buffer is fresh memory too */
    double ghz = clock_ghz(), gbps = read_gbps();
    if (ghz < 0 || gbps < 0 || fresh < 0)
        return 1;
    printf("%.2f %.1f %.2f\n", ghz, gbps, fresh);
    return 0;
}
