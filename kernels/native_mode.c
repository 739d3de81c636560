/*
 * native.c - the clearing kernels compiled as real instructions on real
 * memory (kernels/kmode.h, KMODE_NATIVE).
 *
 * Notes
 *  - Only the host ISA's kernels are built (x86-64 or arm64), plus memset,
 *    which calls the C library. The AVX2/AVX-512 kernels carry
 *    __attribute__((target)) so this file builds with default flags; calling
 *    one on a CPU without the feature raises SIGILL, so callers check
 *    kern_native_supported() first.
 *  - Every access is inline asm (see kmode.h): the instruction named by the
 *    kernel is the one that runs.
 */
#define KMODE_NATIVE
#include "kernels/kmode.h"

#if defined(__x86_64__)
#include "kernels/bench_x86.inc"
#include "kernels/clear_x86.inc"
#elif defined(__aarch64__)
#include "kernels/bench_arm64.inc"
#include "kernels/clear_arm64.inc"
#endif
#if defined(__x86_64__) || defined(__aarch64__)
#include "kernels/bench_chase.inc"
#endif
#include "kernels/clear_memset.inc"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* The host's line-zero block, read here and never inside a kernel call:
 *  - x86-64: the line CLZERO clears, CPUID.1:EBX[15:8] (CLFLUSH line size) x 8. The kernel
 *    steps by the constant 64 (kmode.h), so kern_native_supported() refuses clzero when this is
 *    not 64.
 *  - arm64: 4 << DCZID_EL0.BS (4-byte words, log2), or 0 when DCZID_EL0.DZP prohibits DC ZVA. */
#if defined(__aarch64__)
uint64_t kern_nat_zva_block_bytes;

__attribute__((constructor)) static void k_nat_read_dczid(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
    kern_nat_zva_block_bytes = (v & 0x10) ? 0 : UINT64_C(4) << (v & 0xf);
}
#endif

uint32_t kern_native_block_bytes(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && ((b >> 8) & 0xff))
        return ((b >> 8) & 0xff) * 8u;
    return K_LINE;
#elif defined(__aarch64__)
    return (uint32_t)kern_nat_zva_block_bytes;
#else
    return 0;
#endif
}
