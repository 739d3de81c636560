/*
 * clock.c - the core clock this process gets right now, for bench/run.
 *
 * Notes
 *  - A chain of dependent integer adds retires one add per cycle on every
 *    core clearsim's hosts have had (x86-64 and arm64), so adds / second is
 *    the clock the process ran at. On a guest whose vCPU shares its core,
 *    or is descheduled, it is the clock it *got*: that is the figure that
 *    explains a slow benchmark run (2026-12-06, an EPYC KVM guest read
 *    anywhere from 1.8 to 3.5 GHz within minutes).
 *  - Prints the best of five 0.05 s measurements in GHz, one line.
 *  - Usage: clock (no arguments). Exit 1 where the chain cannot be built
 *    (no inline assembly for the ISA).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ADDS_PER_ITER 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n iterations of ADDS_PER_ITER dependent adds; returns the seconds. */
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

int main(void)
{
    uint64_t n = 1u << 20;
    double s = chain(n);
    if (s < 0)
        return 1;
    while (s < 0.05 && n < (UINT64_C(1) << 40)) { /* about 0.05 s a run */
        n *= 2;
        s = chain(n);
    }
    double best = 0;
    for (int r = 0; r < 5; r++) {
        double ghz = (double)n * ADDS_PER_ITER / chain(n) / 1e9;
        if (ghz > best)
            best = ghz;
    }
    printf("%.2f\n", best);
    return 0;
}
