/*
 * kern_fns.h - internal: the list of kernels and the declarations of the
 * functions that kernels/trace_mode.c and kernels/native_mode.c build from the shared
 * kernel sources. Only the .c files under kernels/ include this.
 *
 * Notes
 *  - Every kernel `foo` exists as kern_trace_foo (any host) and, when the
 *    host's ISA runs it, kern_native_foo. Declaring a native function that is
 *    not built is harmless; kernels.c only references the ones that exist.
 */
#ifndef CLEARSIM_KERN_FNS_H
#define CLEARSIM_KERN_FNS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

#define KERN_LIST_X86_CLEAR(X)                                                                     \
    X(rep_stosb)                                                                                   \
    X(rep_stosq) X(unrolled) X(movnti) X(clzero) X(avx2) X(avx512) X(avx512_nt) X(avx2_nt)
#define KERN_LIST_X86_AHEAD(X)                                                                     \
    X(rep_stosb_ahead) X(movnti_ahead) X(clzero_ahead) X(avx512_nt_ahead) X(avx2_nt_ahead)
#define KERN_LIST_X86(X)   KERN_LIST_X86_CLEAR(X) KERN_LIST_X86_AHEAD(X)
#define KERN_LIST_ARM64(X) X(stp) X(stnp) X(dc_zva) X(mops) X(mops_nt)
#define KERN_LIST_ANY(X)   X(memset)

#define KERN_DECLARE(name)                                                                         \
    void kern_trace_##name(kern_ctx_t *k, uint64_t addr, uint64_t len, uint8_t fill);              \
    void kern_native_##name(void *dst, size_t len, uint8_t fill);

#define KERN_BENCH_LIST_X86(X)                                                                     \
    X(load8) X(load32) X(load64) X(copy8) X(copy32) X(copy64) X(copy_nt8) X(copy_nt32) X(copy_nt64)
#define KERN_BENCH_LIST_ARM64(X) X(load_x16) X(load_q32) X(copy_x16) X(copy_q32) X(copy_nt_q32)
#define KERN_BENCH_LIST_ANY(X)   X(chase)

#define KERN_BENCH_DECLARE(name)                                                                   \
    void kern_trace_bench_##name(kern_ctx_t *k, uint64_t dst, uint64_t src, uint64_t n);           \
    uint64_t kern_native_bench_##name(void *dst, const void *src, uint64_t n);

KERN_BENCH_LIST_X86(KERN_BENCH_DECLARE)
KERN_BENCH_LIST_ARM64(KERN_BENCH_DECLARE)
KERN_BENCH_LIST_ANY(KERN_BENCH_DECLARE)

#undef KERN_BENCH_DECLARE

KERN_LIST_X86(KERN_DECLARE)
KERN_LIST_ARM64(KERN_DECLARE)
KERN_LIST_ANY(KERN_DECLARE)

#undef KERN_DECLARE

#endif
