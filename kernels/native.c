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
#include "kernels/clear_x86.inc"
#elif defined(__aarch64__)
#include "kernels/clear_arm64.inc"
#endif
#include "kernels/clear_memset.inc"

uint32_t kern_native_block_bytes(void)
{
#if defined(__x86_64__)
    return (uint32_t)k_nat_line_bytes();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
    if (v & 0x10) /* DZP: DC ZVA prohibited */
        return 0;
    return (uint32_t)k_nat_zva_block();
#else
    return 0;
#endif
}
