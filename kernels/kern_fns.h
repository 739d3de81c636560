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

#define KERN_LIST_X86(X)                                                                           \
    X(rep_stosb) X(rep_stosq) X(unrolled) X(movnti) X(clzero) X(avx2) X(avx512) X(avx512_nt)
#define KERN_LIST_ARM64(X) X(stp) X(stnp) X(dc_zva) X(mops) X(mops_nt)
#define KERN_LIST_ANY(X)   X(memset)

#define KERN_DECLARE(name)                                                                         \
    void kern_trace_##name(kern_ctx_t *k, uint64_t addr, uint64_t len, uint8_t fill);              \
    void kern_native_##name(void *dst, size_t len, uint8_t fill);

KERN_LIST_X86(KERN_DECLARE)
KERN_LIST_ARM64(KERN_DECLARE)
KERN_LIST_ANY(KERN_DECLARE)

#undef KERN_DECLARE

#endif
