/*
 * cpuid_cost.c - the time of one CPUID (leaf 7, subleaf 0) on this host: in
 * a guest, a VM exit. tests/cli/native_per_call.sh bounds a call's excess
 * time by it. Build and run: cc -std=c11 -O2 -o /tmp/cpuid_cost data/native/cpuid_cost.c
 * && /tmp/cpuid_cost (x86-64 only). Prints three rounds of 200,000.
 */
#define _POSIX_C_SOURCE 200809L
#include <cpuid.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    unsigned a, b, c, d, sink = 0;
    for (int round = 0; round < 3; round++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < 200000; i++) {
            __cpuid_count(7, 0, a, b, c, d);
            sink += a ^ b ^ c ^ d;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
        printf("cpuid leaf 7: %.1f ns\n", ns / 200000);
    }
    return sink == 1u; /* keeps the loop */
}
