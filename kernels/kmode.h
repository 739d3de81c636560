/*
 * kmode.h - the mode macros every clearing kernel is written against.
 *
 * A kernel source (kernels/clear_*.inc) is compiled twice:
 *   kernels/native_mode.c   #define KMODE_NATIVE  real instructions on real memory
 *   kernels/trace_mode.c    #define KMODE_TRACE   one trace_op_t per instruction that
 *                                            matters to the memory model
 * and must include this header after defining exactly one of the two.
 *
 * Notes
 *  - K_KERNEL(name) { body } defines one kernel. Inside the body:
 *      k     kern_ctx_t * (trace: where ops go and the machine; native: NULL)
 *      p     K_ADDR, the first byte to clear (native: unsigned char *;
 *            trace: uint64_t simulated address, never dereferenced)
 *      len   uint64_t bytes, fill uint8_t byte value
 *    It expands to kern_native_<name>(void *, size_t, uint8_t) (a wrapper
 *    around a static body) or kern_trace_<name>(kern_ctx_t *, uint64_t,
 *    uint64_t, uint8_t). K_KERNEL_TARGET(name, "avx2") also gives the native
 *    body __attribute__((target(...))), so the file builds with default flags.
 *  - Access macros (width is bytes per instruction; v is the fill byte
 *    repeated in every byte, K_FILL64(fill)):
 *      K_STORE(a, width, v)          temporal store        -> TRACE_STORE
 *      K_STORE_NT(a, width, v)       non-temporal store    -> TRACE_STORE_NT
 *      K_LINE_ZERO(a, block)         CLZERO / DC ZVA       -> TRACE_LINE_ZERO
 *      K_REP_STOS(a, n, fill, elem)  rep stosb/stosq       -> TRACE_STRING, width elem
 *      K_MOPS_SET(a, n, fill, nt)    SETP/SETM/SETE (nt: the N forms)
 *                                                          -> TRACE_STRING, count 3
 *      K_FENCE()                     sfence                -> TRACE_FENCE
 *      K_INSNS(n)                    n other instructions  -> TRACE_INSNS (native: nothing)
 *      K_LOOP(v, start, end, step)   for (uint64_t v = start; v < end; v += step): a loop
 *                                    whose body depends on v only through the addresses
 *                                    it gives its accesses (every iteration emits the same
 *                                    ops, moved on by step). Native: exactly that for
 *                                    loop. Trace: once an iteration has only extended the
 *                                    pending run by step, the iterations left are added
 *                                    to it at once (trace_repeat(), models/base/trace.h);
 *                                    the ops delivered are the same as running them.
 *      K_ZVA_BLOCK()                 bytes one line-zero instruction clears
 *                                    (trace: machine's line_zero.block, 64 if unset;
 *                                    native x86-64: the constant 64, as Linux's
 *                                    CLZERO loop steps; native arm64: 4 << DCZID_EL0.BS,
 *                                    read once when the program loads)
 *  - Microbenchmark kernels (kernels/bench_*.inc): K_BENCH(name) { body }
 *    defines kern_native_bench_<name>(void *dst, const void *src, uint64_t n)
 *    -> uint64_t, or kern_trace_bench_<name>(kern_ctx_t *, uint64_t dst,
 *    uint64_t src, uint64_t n). Inside: k, d (dst), s (src), n (bytes, or
 *    steps for a chase); the body ends with K_BENCH_RETURN(v).
 *      K_LOAD(a, width)              one load                -> TRACE_LOAD
 *      K_COPY_LINE(d, s, width)      a 64-byte line: its loads, then its
 *                                    stores of the loaded data
 *                                                -> TRACE_LOAD x n, TRACE_STORE x n
 *                                    (trace: the stores carry k->copy_fill,
 *                                    the byte the source holds)
 *      K_COPY_LINE_NT(d, s, width)   the same with non-temporal stores
 *                                                -> TRACE_LOAD x n, TRACE_STORE_NT x n
 *      K_CHASE(p)                    p = *p, a load that depends on the one
 *                                    before it -> TRACE_LOAD, TRACE_F_DEP (trace:
 *                                    the next address from k->chase, the order
 *                                    kern_chase_order() built natively too)
 *  - Native kernels run their own instructions and nothing else: no CPUID,
 *    system call, allocation or feature test inside a call. What a kernel
 *    needs from the host is read once, outside any timed call (CPUID is a VM
 *    exit in a guest, microseconds long). tests/cli/native_kernel_code.sh
 *    disassembles the native kernels to hold this.
 *  - Native widths: x86-64 K_STORE 8 (movq), 32 (vmovdqa ymm), 64 (vmovdqa64
 *    zmm); K_STORE_NT 8 (movnti), 32 (vmovntdq ymm), 64 (vmovntdq zmm); K_REP_STOS
 *    elem 1 or 8.
 *    arm64 K_STORE 16 (stp), K_STORE_NT 16 (stnp). Every one is inline asm, so
 *    the exact instruction executes; the compiler cannot merge the stores or
 *    turn a loop into a memset call. Native vector stores need the address
 *    aligned to their width (all kernels are called on 64-byte aligned memory).
 *  - In trace mode K_INSNS(0) emits nothing, and counts above UINT32_MAX are
 *    split over several ops. A K_INSNS right after a run's accesses joins
 *    that run (models/base/trace.c), so K_LOOP still repeats the iteration;
 *    one before a call's first access stands alone, and the model spreads it
 *    over the run that follows. A loop whose body holds more than one run
 *    announces its loop control per iteration, after the accesses.
 */
#ifndef CLEARSIM_KMODE_H
#define CLEARSIM_KMODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/kern_fns.h"
#include "kernels/kernels.h"
#include "models/base/trace.h"

#if defined(KMODE_NATIVE) == defined(KMODE_TRACE)
#error "define exactly one of KMODE_NATIVE and KMODE_TRACE before including kernels/kmode.h"
#endif

#define K_LINE         64u
#define K_FILL64(fill) ((uint64_t)(uint8_t)(fill)*UINT64_C(0x0101010101010101))

/* ------------------------------------------------------------------ trace */
#if defined(KMODE_TRACE)

#define K_ADDR uint64_t

static inline void k_trace_op(kern_ctx_t *k, trace_kind_t kind, uint64_t addr, uint64_t bytes,
                              uint32_t count, uint32_t width, uint8_t fill, uint32_t flags)
{
    trace_emit_fields(k->trace, kind, addr, bytes, count, (uint16_t)width, fill, flags);
}

static inline void k_trace_insns(kern_ctx_t *k, uint64_t n)
{
    while (n > 0) {
        uint32_t c = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        k_trace_op(k, TRACE_INSNS, 0, 0, c, 0, 0, 0);
        n -= c;
    }
}

static inline uint64_t k_trace_zva_block(const kern_ctx_t *k)
{
    if (k->machine && k->machine->zva_block_bytes)
        return k->machine->zva_block_bytes;
    return K_LINE;
}

/* K_LOOP's state: the loop's end and step, and where the current iteration began. */
typedef struct k_loop {
    uint64_t end, step;
    trace_mark_t mark;
    bool done;
} k_loop_t;

static inline k_loop_t k_loop_begin(const kern_ctx_t *k, uint64_t end, uint64_t step)
{
    k_loop_t l = {.end = end, .step = step, .mark = trace_mark(k->trace), .done = false};
    return l;
}

/* The loop variable's next value after the iteration at v, past any iterations
 * trace_repeat() applied at once. */
static inline uint64_t k_loop_next(kern_ctx_t *k, k_loop_t *l, uint64_t v)
{
    uint64_t next = v + l->step;
    if (next < l->end) {
        uint64_t left = (l->end - next + l->step - 1) / l->step;
        next += trace_repeat(k->trace, &l->mark, l->step, left) * l->step;
        l->mark = trace_mark(k->trace);
    }
    return next;
}

#define K_LOOP(v, from_, to_, by_)                                                                 \
    for (k_loop_t k_loop_ = k_loop_begin(k, (to_), (by_)); !k_loop_.done; k_loop_.done = true)     \
        for (uint64_t v = (from_); v < k_loop_.end; v = k_loop_next(k, &k_loop_, v))

#define K_KERNEL(name)             void kern_trace_##name(kern_ctx_t *k, K_ADDR p, uint64_t len, uint8_t fill)
#define K_KERNEL_TARGET(name, tgt) K_KERNEL(name)

#define K_STORE(a, width, v) k_trace_op(k, TRACE_STORE, (a), (width), 1, (width), (uint8_t)(v), 0)
#define K_STORE_NT(a, width, v)                                                                    \
    k_trace_op(k, TRACE_STORE_NT, (a), (width), 1, (width), (uint8_t)(v), 0)
#define K_LINE_ZERO(a, block)        k_trace_op(k, TRACE_LINE_ZERO, (a), (block), 1, (block), 0, 0)
#define K_REP_STOS(a, n, fill, elem) k_trace_op(k, TRACE_STRING, (a), (n), 1, (elem), (fill), 0)
#define K_MOPS_SET(a, n, fill, nt)                                                                 \
    k_trace_op(k, TRACE_STRING, (a), (n), 3, 1, (fill), (nt) ? TRACE_F_NT : 0u)
#define K_FENCE()     k_trace_op(k, TRACE_FENCE, 0, 0, 1, 0, 0, 0)
#define K_INSNS(n)    k_trace_insns(k, (n))
#define K_ZVA_BLOCK() k_trace_zva_block(k)

/* The line after the chase's current one (k->chase: the same single-cycle order
 * kern_chase_order() writes into the native buffer). */
static inline uint64_t k_trace_chase_next(const kern_ctx_t *k, uint64_t a)
{
    uint64_t i = (a - k->chase_base) / K_LINE;
    return k->chase_base + (uint64_t)k->chase_next[i] * K_LINE;
}

#define K_BENCH_(name)            void kern_trace_bench_##name(kern_ctx_t *k, K_ADDR d, K_ADDR s, uint64_t n)
#define K_BENCH(name)             K_BENCH_(name)
#define K_BENCH_TARGET(name, tgt) K_BENCH_(name)
#define K_BENCH_RETURN(v)         ((void)(v), (void)d, (void)s)
#define K_LOAD(a, width)          k_trace_op(k, TRACE_LOAD, (a), (width), 1, (width), 0, 0)
#define K_COPY_LINE(dl, sl, width)                                                                 \
    do {                                                                                           \
        for (uint32_t k_i_ = 0; k_i_ < K_LINE; k_i_ += (width))                                    \
            K_LOAD((sl) + k_i_, (width));                                                          \
        for (uint32_t k_i_ = 0; k_i_ < K_LINE; k_i_ += (width))                                    \
            K_STORE((dl) + k_i_, (width), k->copy_fill);                                           \
    } while (0)
#define K_COPY_LINE_NT(dl, sl, width)                                                              \
    do {                                                                                           \
        for (uint32_t k_i_ = 0; k_i_ < K_LINE; k_i_ += (width))                                    \
            K_LOAD((sl) + k_i_, (width));                                                          \
        for (uint32_t k_i_ = 0; k_i_ < K_LINE; k_i_ += (width))                                    \
            K_STORE_NT((dl) + k_i_, (width), k->copy_fill);                                        \
    } while (0)
#define K_CHASE(p)                                                                                 \
    do {                                                                                           \
        k_trace_op(k, TRACE_LOAD, (p), 8, 1, 8, 0, TRACE_F_DEP);                                   \
        (p) = k_trace_chase_next(k, (p));                                                          \
    } while (0)

#endif /* KMODE_TRACE */

/* ----------------------------------------------------------------- native */
#if defined(KMODE_NATIVE)

#define K_ADDR unsigned char *

#define K_NATIVE_KERNEL_(name, attrs)                                                              \
    static attrs void k_body_##name(kern_ctx_t *k, K_ADDR p, uint64_t len, uint8_t fill);          \
    void kern_native_##name(void *dst, size_t len, uint8_t fill)                                   \
    {                                                                                              \
        k_body_##name(NULL, (K_ADDR)dst, (uint64_t)len, fill);                                     \
    }                                                                                              \
    static attrs void k_body_##name(kern_ctx_t *k __attribute__((unused)), K_ADDR p, uint64_t len, \
                                    uint8_t fill)
#define K_KERNEL(name)             K_NATIVE_KERNEL_(name, )
#define K_KERNEL_TARGET(name, tgt) K_NATIVE_KERNEL_(name, __attribute__((target(tgt))))
#define K_INSNS(n)                 ((void)0)
#define K_LOOP(v, from_, to_, by_) for (uint64_t v = (from_); v < (to_); v += (by_))

#define K_NATIVE_BENCH_(name, attrs)                                                               \
    static attrs uint64_t k_bench_##name(K_ADDR d, K_ADDR s, uint64_t n);                          \
    uint64_t kern_native_bench_##name(void *dst, const void *src, uint64_t n)                      \
    {                                                                                              \
        return k_bench_##name((K_ADDR)dst, (K_ADDR)(uintptr_t)src, n);                             \
    }                                                                                              \
    static attrs uint64_t k_bench_##name(K_ADDR d __attribute__((unused)),                         \
                                         K_ADDR s __attribute__((unused)), uint64_t n)
#define K_BENCH(name)             K_NATIVE_BENCH_(name, )
#define K_BENCH_TARGET(name, tgt) K_NATIVE_BENCH_(name, __attribute__((target(tgt))))
#define K_BENCH_RETURN(v)         return (uint64_t)(uintptr_t)(v)
/* p = *p: one dependent load. */
#define K_CHASE(p) ((p) = *(K_ADDR volatile *)(void *)(p))

#if defined(__x86_64__)
#include <immintrin.h>

#define K_NI static inline __attribute__((always_inline))

K_NI void k_nat_store8(unsigned char *a, uint64_t v)
{
    __asm__ volatile("movq %1, %0" : "=m"(*(uint64_t *)(void *)a) : "r"(v));
}

K_NI void k_nat_store_nt8(unsigned char *a, uint64_t v)
{
    __asm__ volatile("movnti %1, %0" : "=m"(*(uint64_t *)(void *)a) : "r"(v));
}

__attribute__((target("avx2"))) K_NI void k_nat_store32(unsigned char *a, uint64_t v)
{
    __m256i x = _mm256_set1_epi64x((long long)v);
    __asm__ volatile("vmovdqa %1, %0" : "=m"(*(__m256i *)(void *)a) : "x"(x));
}

__attribute__((target("avx512f"))) K_NI void k_nat_store64(unsigned char *a, uint64_t v)
{
    __m512i x = _mm512_set1_epi64((long long)v);
    __asm__ volatile("vmovdqa64 %1, %0" : "=m"(*(__m512i *)(void *)a) : "v"(x));
}

__attribute__((target("avx2"))) K_NI void k_nat_store_nt32(unsigned char *a, uint64_t v)
{
    __m256i x = _mm256_set1_epi64x((long long)v);
    __asm__ volatile("vmovntdq %1, %0" : "=m"(*(__m256i *)(void *)a) : "x"(x));
}

__attribute__((target("avx512f"))) K_NI void k_nat_store_nt64(unsigned char *a, uint64_t v)
{
    __m512i x = _mm512_set1_epi64((long long)v);
    __asm__ volatile("vmovntdq %1, %0" : "=m"(*(__m512i *)(void *)a) : "v"(x));
}

K_NI void k_nat_rep_stos1(unsigned char *a, uint64_t n, uint8_t fill)
{
    void *d = a;
    uint64_t c = n;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(fill) : "memory");
}

K_NI void k_nat_rep_stos8(unsigned char *a, uint64_t n, uint8_t fill)
{
    void *d = a;
    uint64_t c = n / 8;
    __asm__ volatile("rep stosq" : "+D"(d), "+c"(c) : "a"(K_FILL64(fill)) : "memory");
}

/* CLZERO zeroes the cache line that contains RAX. */
K_NI void k_nat_clzero(unsigned char *a)
{
    __asm__ volatile("clzero" : : "a"(a) : "memory");
}

K_NI void k_nat_sfence(void)
{
    __asm__ volatile("sfence" : : : "memory");
}

/* Microbenchmark loads: the loaded value goes to a register no one reads. */
K_NI void k_nat_load8(const unsigned char *a)
{
    uint64_t x;
    __asm__ volatile("movq %1, %0" : "=r"(x) : "m"(*(const uint64_t *)(const void *)a));
}

__attribute__((target("avx2"))) K_NI void k_nat_load32(const unsigned char *a)
{
    __asm__ volatile("vmovdqa %0, %%ymm0" : : "m"(*(const __m256i *)(const void *)a) : "xmm0");
}

__attribute__((target("avx512f"))) K_NI void k_nat_load64(const unsigned char *a)
{
    __asm__ volatile("vmovdqa64 %0, %%zmm0" : : "m"(*(const __m512i *)(const void *)a) : "xmm0");
}

/* The eight 8-byte loads of the line at s into a0..a7 (declared here). */
#define K_NAT_LOAD_LINE8(s)                                                                        \
    uint64_t a0, a1, a2, a3, a4, a5, a6, a7;                                                       \
    __asm__ volatile("movq 0(%8), %0\n\tmovq 8(%8), %1\n\tmovq 16(%8), %2\n\tmovq 24(%8), %3\n\t"  \
                     "movq 32(%8), %4\n\tmovq 40(%8), %5\n\tmovq 48(%8), %6\n\tmovq 56(%8), %7"    \
                     : "=&r"(a0), "=&r"(a1), "=&r"(a2), "=&r"(a3), "=&r"(a4), "=&r"(a5),           \
                       "=&r"(a6), "=&r"(a7)                                                        \
                     : "r"(s)                                                                      \
                     : "memory")

/* One 64-byte line: every load of it into registers, then every store. */
K_NI void k_nat_copy_line8(unsigned char *d, const unsigned char *s)
{
    K_NAT_LOAD_LINE8(s);
    __asm__ volatile("movq %1, 0(%0)\n\tmovq %2, 8(%0)\n\tmovq %3, 16(%0)\n\tmovq %4, 24(%0)\n\t"
                     "movq %5, 32(%0)\n\tmovq %6, 40(%0)\n\tmovq %7, 48(%0)\n\tmovq %8, 56(%0)"
                     :
                     : "r"(d), "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a6),
                       "r"(a7)
                     : "memory");
}

__attribute__((target("avx2"))) K_NI void k_nat_copy_line32(unsigned char *d,
                                                            const unsigned char *s)
{
    __asm__ volatile("vmovdqa 0(%1), %%ymm0\n\tvmovdqa 32(%1), %%ymm1\n\t"
                     "vmovdqa %%ymm0, 0(%0)\n\tvmovdqa %%ymm1, 32(%0)"
                     :
                     : "r"(d), "r"(s)
                     : "xmm0", "xmm1", "memory");
}

__attribute__((target("avx512f"))) K_NI void k_nat_copy_line64(unsigned char *d,
                                                               const unsigned char *s)
{
    __asm__ volatile("vmovdqa64 0(%1), %%zmm0\n\tvmovdqa64 %%zmm0, 0(%0)"
                     :
                     : "r"(d), "r"(s)
                     : "xmm0", "memory");
}

/* The same line with non-temporal stores (MOVNTI, VMOVNTDQ). */
K_NI void k_nat_copy_line_nt8(unsigned char *d, const unsigned char *s)
{
    K_NAT_LOAD_LINE8(s);
    __asm__ volatile("movnti %1, 0(%0)\n\tmovnti %2, 8(%0)\n\tmovnti %3, 16(%0)\n\t"
                     "movnti %4, 24(%0)\n\tmovnti %5, 32(%0)\n\tmovnti %6, 40(%0)\n\t"
                     "movnti %7, 48(%0)\n\tmovnti %8, 56(%0)"
                     :
                     : "r"(d), "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a6),
                       "r"(a7)
                     : "memory");
}

__attribute__((target("avx2"))) K_NI void k_nat_copy_line_nt32(unsigned char *d,
                                                               const unsigned char *s)
{
    __asm__ volatile("vmovdqa 0(%1), %%ymm0\n\tvmovdqa 32(%1), %%ymm1\n\t"
                     "vmovntdq %%ymm0, 0(%0)\n\tvmovntdq %%ymm1, 32(%0)"
                     :
                     : "r"(d), "r"(s)
                     : "xmm0", "xmm1", "memory");
}

__attribute__((target("avx512f"))) K_NI void k_nat_copy_line_nt64(unsigned char *d,
                                                                  const unsigned char *s)
{
    __asm__ volatile("vmovdqa64 0(%1), %%zmm0\n\tvmovntdq %%zmm0, 0(%0)"
                     :
                     : "r"(d), "r"(s)
                     : "xmm0", "memory");
}

#define K_LOAD(a, width)              k_nat_load##width((a))
#define K_COPY_LINE(dl, sl, width)    k_nat_copy_line##width((dl), (sl))
#define K_COPY_LINE_NT(dl, sl, width) k_nat_copy_line_nt##width((dl), (sl))
#define K_STORE(a, width, v)          k_nat_store##width((a), (v))
#define K_STORE_NT(a, width, v)       k_nat_store_nt##width((a), (v))
#define K_LINE_ZERO(a, block)         ((void)(block), k_nat_clzero(a))
#define K_REP_STOS(a, n, fill, elem)  k_nat_rep_stos##elem((a), (n), (fill))
#define K_FENCE()                     k_nat_sfence()
/* CLZERO clears the line that holds RAX. Linux's CLZERO loop steps by a constant 64 bytes;
 * kern_native_supported() refuses clzero on a host whose CPUID line size is not 64. */
#define K_ZVA_BLOCK() ((uint64_t)K_LINE)

#elif defined(__aarch64__)

#define K_NI static inline __attribute__((always_inline))

K_NI void k_nat_store16(unsigned char *a, uint64_t v)
{
    __asm__ volatile("stp %x1, %x1, [%0]" : : "r"(a), "r"(v) : "memory");
}

K_NI void k_nat_store_nt16(unsigned char *a, uint64_t v)
{
    __asm__ volatile("stnp %x1, %x1, [%0]" : : "r"(a), "r"(v) : "memory");
}

K_NI void k_nat_dc_zva(unsigned char *a)
{
    __asm__ volatile("dc zva, %0" : : "r"(a) : "memory");
}

/* FEAT_MOPS SET* (needs binutils >= 2.38 or a current clang). The three
 * instructions update the address and count registers as they go. */
K_NI void k_nat_mops_set(unsigned char *a, uint64_t n, uint8_t fill, int nt)
{
    uint64_t v = fill;
    if (nt)
        __asm__ volatile(".arch_extension mops\n\t"
                         "setpn [%0]!, %1!, %2\n\t"
                         "setmn [%0]!, %1!, %2\n\t"
                         "seten [%0]!, %1!, %2"
                         : "+r"(a), "+r"(n)
                         : "r"(v)
                         : "memory", "cc");
    else
        __asm__ volatile(".arch_extension mops\n\t"
                         "setp [%0]!, %1!, %2\n\t"
                         "setm [%0]!, %1!, %2\n\t"
                         "sete [%0]!, %1!, %2"
                         : "+r"(a), "+r"(n)
                         : "r"(v)
                         : "memory", "cc");
}

K_NI void k_nat_dmb(void)
{
    __asm__ volatile("dmb ishst" : : : "memory");
}

/* DC ZVA block: 4 << DCZID_EL0.BS bytes, read once when the program loads (kernels/native_mode.c);
 * 0 when DCZID_EL0.DZP prohibits DC ZVA, and then kern_native_supported() refuses dc_zva. */
extern uint64_t kern_nat_zva_block_bytes;

K_NI void k_nat_load16(const unsigned char *a)
{
    uint64_t x, y;
    __asm__ volatile("ldp %x0, %x1, [%2]" : "=&r"(x), "=&r"(y) : "r"(a) : "memory");
}

K_NI void k_nat_load32(const unsigned char *a)
{
    __asm__ volatile("ldp q0, q1, [%0]" : : "r"(a) : "v0", "v1", "memory");
}

K_NI void k_nat_copy_line16(unsigned char *d, const unsigned char *s)
{
    __asm__ volatile("ldp x9, x10, [%1]\n\tldp x11, x12, [%1, #16]\n\t"
                     "ldp x13, x14, [%1, #32]\n\tldp x15, x16, [%1, #48]\n\t"
                     "stp x9, x10, [%0]\n\tstp x11, x12, [%0, #16]\n\t"
                     "stp x13, x14, [%0, #32]\n\tstp x15, x16, [%0, #48]"
                     :
                     : "r"(d), "r"(s)
                     : "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "memory");
}

K_NI void k_nat_copy_line32(unsigned char *d, const unsigned char *s)
{
    __asm__ volatile("ldp q0, q1, [%1]\n\tldp q2, q3, [%1, #32]\n\t"
                     "stp q0, q1, [%0]\n\tstp q2, q3, [%0, #32]"
                     :
                     : "r"(d), "r"(s)
                     : "v0", "v1", "v2", "v3", "memory");
}

/* The same line with non-temporal pair stores (STNP). */
K_NI void k_nat_copy_line_nt32(unsigned char *d, const unsigned char *s)
{
    __asm__ volatile("ldp q0, q1, [%1]\n\tldp q2, q3, [%1, #32]\n\t"
                     "stnp q0, q1, [%0]\n\tstnp q2, q3, [%0, #32]"
                     :
                     : "r"(d), "r"(s)
                     : "v0", "v1", "v2", "v3", "memory");
}

#define K_LOAD(a, width)              k_nat_load##width((a))
#define K_COPY_LINE(dl, sl, width)    k_nat_copy_line##width((dl), (sl))
#define K_COPY_LINE_NT(dl, sl, width) k_nat_copy_line_nt##width((dl), (sl))
#define K_STORE(a, width, v)          k_nat_store##width((a), (v))
#define K_STORE_NT(a, width, v)       k_nat_store_nt##width((a), (v))
#define K_LINE_ZERO(a, block)         ((void)(block), k_nat_dc_zva(a))
#define K_MOPS_SET(a, n, fill, nt)    k_nat_mops_set((a), (n), (fill), (nt))
#define K_FENCE()                     k_nat_dmb()
#define K_ZVA_BLOCK()                 kern_nat_zva_block_bytes

#endif /* host ISA */

#endif /* KMODE_NATIVE */

#endif
