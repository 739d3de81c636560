/*
 * kernels.c - the kernel table and the checks that decide whether a kernel
 * may run: on a simulated machine (ISA, CPU features, length, fill) or
 * natively on this host.
 *
 * Notes
 *  - The table is in display order: x86-64 kernels, arm64 kernels, then the
 *    ISA-independent memset. `native` is NULL for kernels of the other ISA.
 *  - needs lists only features without which the instruction cannot execute
 *    (clzero, AVX2, AVX-512F, FEAT_MOPS, DC ZVA permitted). ERMS/FSRM/REP_GOOD
 *    change how fast rep stos* is, not whether it runs, so rep_stosb and
 *    rep_stosq need nothing; MOVNTI is SSE2, which every x86-64 CPU has.
 *  - Granules: the bytes one loop iteration covers (64), 8 for rep stosq,
 *    1 for rep stosb, MOPS and memset. clzero and dc_zva additionally need a
 *    multiple of the line-zero block (machine's line_zero.block; natively the
 *    host's, kern_native_block_bytes()).
 *  - A non-zero fill is rejected for the zero-only kernels (clzero, dc_zva)
 *    by kern_check_fill(), since the instruction has no value operand.
 */
#include "kernels/kernels.h"
#include "models/base/errbuf.h"

#include <stdio.h>
#include <string.h>

#include "kernels/kern_fns.h"

#if defined(__x86_64__)
#define NATIVE_X86(name) kern_native_##name
#else
#define NATIVE_X86(name) NULL
#endif
#if defined(__aarch64__)
#define NATIVE_ARM64(name) kern_native_##name
#else
#define NATIVE_ARM64(name) NULL
#endif

#define X86(name, desc, needs, granule, cls, fences, width)                                        \
    {                                                                                              \
#name, desc, KERN_ISA_X86_64, needs, granule, kern_trace_##name, NATIVE_X86(name), false,  \
            cls, fences, width                                                                     \
    }
#define ARM64(name, desc, needs, granule, cls, width)                                              \
    {                                                                                              \
#name, desc, KERN_ISA_ARM64, needs, granule, kern_trace_##name, NATIVE_ARM64(name), false, \
            cls, false, width                                                                      \
    }

static const kern_info_t kern_tab[] = {
    X86(rep_stosb, "rep stosb, RCX = len (ERMS/FSRM clear_page)", 0, 1, KERN_CLASS_STRING, false,
        0),
    X86(rep_stosq, "rep stosq, RCX = len/8 (REP_GOOD clear_page)", 0, 8, KERN_CLASS_STRING, false,
        0),
    X86(unrolled, "8 x movq per 64-byte line (clear_page_orig)", 0, 64, KERN_CLASS_STORE, false, 8),
    X86(movnti, "8 x movnti per 64-byte line, then sfence", 0, 64, KERN_CLASS_NT, true, 8),
    {"clzero", "clzero per 64-byte line, then sfence (AMD; zero only)", KERN_ISA_X86_64,
     MACHINE_FEAT_CLZERO, 64, kern_trace_clzero, NATIVE_X86(clzero), true, KERN_CLASS_LINEZERO,
     true, 64},
    X86(avx2, "2 x vmovdqa (32 B) per 64-byte line", MACHINE_FEAT_AVX2, 64, KERN_CLASS_STORE, false,
        32),
    X86(avx512, "1 x vmovdqa64 (64 B) per 64-byte line", MACHINE_FEAT_AVX512, 64, KERN_CLASS_STORE,
        false, 64),
    X86(avx512_nt, "1 x vmovntdq (64 B) per 64-byte line, then sfence", MACHINE_FEAT_AVX512, 64,
        KERN_CLASS_NT, true, 64),
    X86(avx2_nt, "2 x vmovntdq (32 B) per 64-byte line, then sfence", MACHINE_FEAT_AVX2, 64,
        KERN_CLASS_NT, true, 32),
    X86(rep_stosb_ahead, "one load from each 4 KiB page of the range, then rep stosb", 0, 8,
        KERN_CLASS_STRING, false, 0),
    X86(movnti_ahead, "movnti, with one load from the next 4 KiB page 256 B before it", 0, 64,
        KERN_CLASS_NT, true, 8),
    {"clzero_ahead", "clzero, with one load from the next 4 KiB page 256 B before it",
     KERN_ISA_X86_64, MACHINE_FEAT_CLZERO, 64, kern_trace_clzero_ahead, NATIVE_X86(clzero_ahead),
     true, KERN_CLASS_LINEZERO, true, 64},
    X86(avx512_nt_ahead, "avx512_nt, with one load from the next 4 KiB page 256 B before it",
        MACHINE_FEAT_AVX512, 64, KERN_CLASS_NT, true, 64),
    X86(avx2_nt_ahead, "avx2_nt, with one load from the next 4 KiB page 256 B before it",
        MACHINE_FEAT_AVX2, 64, KERN_CLASS_NT, true, 32),
    ARM64(stp, "4 x stp (16 B) per 64 bytes", 0, 64, KERN_CLASS_STORE, 16),
    ARM64(stnp, "4 x stnp (16 B) per 64 bytes (clear_page without DC ZVA)", 0, 64, KERN_CLASS_NT,
          16),
    {"dc_zva", "dc zva per block (clear_page; zero only)", KERN_ISA_ARM64, MACHINE_FEAT_DCZVA, 64,
     kern_trace_dc_zva, NATIVE_ARM64(dc_zva), true, KERN_CLASS_LINEZERO, false, 64},
    ARM64(mops, "setp/setm/sete over the whole length (FEAT_MOPS)", MACHINE_FEAT_MOPS, 1,
          KERN_CLASS_STRING, 0),
    ARM64(mops_nt, "setpn/setmn/seten, non-temporal (FEAT_MOPS)", MACHINE_FEAT_MOPS, 1,
          KERN_CLASS_STRING, 0),
    {"memset", "the C library's memset (size-based dispatch)", KERN_ISA_ANY, 0, 1,
     kern_trace_memset, kern_native_memset, false, KERN_CLASS_LIBC, false, 0},
    {NULL, NULL, KERN_ISA_ANY, 0, 0, NULL, NULL, false, KERN_CLASS_STRING, false, 0},
};

const kern_info_t *kern_table(void)
{
    return kern_tab;
}

const kern_info_t *kern_find(const char *name)
{
    if (!name)
        return NULL;
    for (const kern_info_t *k = kern_tab; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

/* perf bench mem memset's names of the same kernels (tools/perf/bench/
 * mem-memset-x86-64-asm-def.h and the clear_pages series: "default" is the C
 * library's memset). */
static const struct {
    const char *perf_name, *name;
} perf_names[] = {
    {"default", "memset"},         {"x86-64-unrolled", "unrolled"}, {"x86-64-stosq", "rep_stosq"},
    {"x86-64-stosb", "rep_stosb"}, {"x86-64-movnt", "movnti"},      {NULL, NULL},
};

const kern_info_t *kern_find_perf(const char *perf_name)
{
    for (size_t i = 0; perf_name && perf_names[i].perf_name; i++)
        if (strcmp(perf_names[i].perf_name, perf_name) == 0)
            return kern_find(perf_names[i].name);
    return NULL;
}

const char *kern_perf_name(const kern_info_t *k)
{
    for (size_t i = 0; k && perf_names[i].perf_name; i++)
        if (strcmp(perf_names[i].name, k->name) == 0)
            return perf_names[i].perf_name;
    return NULL;
}

const char *kern_isa_name(kern_isa_t isa)
{
    switch (isa) {
    case KERN_ISA_X86_64:
        return "x86_64";
    case KERN_ISA_ARM64:
        return "arm64";
    case KERN_ISA_ANY:
        return "any";
    }
    return "?";
}

static const struct {
    uint32_t bit;
    const char *name;
} feature_names[] = {
    {MACHINE_FEAT_ERMS, "erms"},      {MACHINE_FEAT_FSRM, "fsrm"},
    {MACHINE_FEAT_FZRM, "fzrm"},      {MACHINE_FEAT_FSRS, "fsrs"},
    {MACHINE_FEAT_CLZERO, "clzero"},  {MACHINE_FEAT_AVX2, "avx2"},
    {MACHINE_FEAT_AVX512, "avx512f"}, {MACHINE_FEAT_REP_GOOD, "rep_good"},
    {MACHINE_FEAT_SSE2, "sse2"},      {MACHINE_FEAT_MOPS, "mops"},
    {MACHINE_FEAT_DCZVA, "dczva"},
};

const char *kern_feature_name(uint32_t bit)
{
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
        if (feature_names[i].bit == bit)
            return feature_names[i].name;
    return NULL;
}

size_t kern_needs_names(const kern_info_t *k, const char **names, size_t max)
{
    size_t n = 0;
    for (uint32_t bit = 1; bit && n < max; bit <<= 1) {
        if (!(k->needs & bit))
            continue;
        const char *s = kern_feature_name(bit);
        names[n++] = s ? s : "?";
    }
    return n;
}

static machine_isa_t to_cfg_isa(kern_isa_t isa)
{
    return isa == KERN_ISA_ARM64 ? MACHINE_ISA_ARM64 : MACHINE_ISA_X86_64;
}

/* First needed feature missing from `have`, or 0. */
static uint32_t first_missing(uint32_t needs, uint32_t have)
{
    uint32_t missing = needs & ~have;
    return missing ? missing & -missing : 0;
}

int kern_check_machine(const kern_info_t *k, const machine_t *m, char *err, size_t errlen)
{
    uint32_t miss = first_missing(k->needs, m->features);
    if (miss) {
        const char *f = kern_feature_name(miss);
        errbuf_set(err, errlen, "function '%s' needs CPU feature %s, which machine '%s' lacks",
                   k->name, f ? f : "?", m->name);
        return -1;
    }
    if (k->isa != KERN_ISA_ANY && to_cfg_isa(k->isa) != m->isa) {
        errbuf_set(err, errlen, "function '%s' is an %s kernel, but machine '%s' is %s", k->name,
                   kern_isa_name(k->isa), m->name, machine_isa_name(m->isa));
        return -1;
    }
    return 0;
}

int kern_check_len(const kern_info_t *k, const machine_t *m, uint64_t len, char *err, size_t errlen)
{
    if (k->granule_bytes > 1 && len % k->granule_bytes) {
        errbuf_set(err, errlen,
                   "length %llu is not a multiple of %u bytes, the granule of function '%s'",
                   (unsigned long long)len, k->granule_bytes, k->name);
        return -1;
    }
    if (k->zero_only) {
        uint64_t block = 0;
        const char *whose = "";
        if (m) {
            block = m->zva_block_bytes ? m->zva_block_bytes : 64;
            whose = m->name;
        } else if (k->native) {
            block = kern_native_block_bytes();
            whose = "this host";
        }
        if (block > 1 && len % block) {
            errbuf_set(err, errlen,
                       "length %llu is not a multiple of the %llu-byte line-zero block of %s%s%s "
                       "(function '%s')",
                       (unsigned long long)len, (unsigned long long)block, m ? "machine '" : "",
                       whose, m ? "'" : "", k->name);
            return -1;
        }
    }
    return 0;
}

int kern_check_fill(const kern_info_t *k, uint32_t fill, char *err, size_t errlen)
{
    if (fill > 255) {
        errbuf_set(err, errlen, "fill %u is not a byte value (0..255)", fill);
        return -1;
    }
    if (k->zero_only && fill != 0) {
        errbuf_set(err, errlen, "function '%s' can only write zeros (fill %u requested)", k->name,
                   fill);
        return -1;
    }
    return 0;
}

/* A kernel of ISA kisa needing `needs` runs natively here: its ISA built
 * (native), every needed feature present; else false with the reason. */
static bool native_built(const char *name, bool native, kern_isa_t kisa, uint32_t needs,
                         machine_isa_t isa, uint32_t features, const char *host_name, char *why,
                         size_t whylen)
{
    if (!native) {
        errbuf_set(why, whylen, "function '%s' is an %s kernel; this host is %s", name,
                   kern_isa_name(kisa), machine_isa_name(isa));
        return false;
    }
    uint32_t miss = first_missing(needs, features);
    if (miss) {
        const char *f = kern_feature_name(miss);
        errbuf_set(why, whylen, "function '%s' needs CPU feature %s, which this host (%s) lacks",
                   name, f ? f : "?", host_name);
        return false;
    }
    return true;
}

bool kern_native_supported(const kern_info_t *k, machine_isa_t isa, uint32_t features,
                           const char *host_name, char *why, size_t whylen)
{
    if (!native_built(k->name, k->native != NULL, k->isa, k->needs, isa, features, host_name, why,
                      whylen))
        return false;
    if (k->zero_only && kern_native_block_bytes() == 0) {
        errbuf_set(why, whylen, "function '%s': this host has no usable line-zero instruction",
                   k->name);
        return false;
    }
#if defined(__x86_64__)
    /* The native CLZERO loop steps by 64 bytes, as Linux's does (kernels/kmode.h). */
    if (k->zero_only && kern_native_block_bytes() != 64) {
        errbuf_set(why, whylen,
                   "function '%s' steps by 64-byte lines; this host's line is %u bytes", k->name,
                   kern_native_block_bytes());
        return false;
    }
#endif
    return true;
}

const kern_info_t *kern_widest(kern_class_t cls, bool need_fence, machine_isa_t isa,
                               uint32_t features)
{
    const kern_info_t *best = NULL;
    for (const kern_info_t *k = kern_tab; k->name; k++) {
        if (k->cls != cls || (need_fence && !k->fences) ||
            (k->isa != KERN_ISA_ANY && to_cfg_isa(k->isa) != isa) ||
            first_missing(k->needs, features))
            continue;
        if (!best || k->width_bytes > best->width_bytes)
            best = k;
    }
    return best;
}

/* ---- microbenchmark kernels ---------------------------------------------- */

#if defined(__x86_64__)
#define BNATIVE_X86(name) kern_native_bench_##name
#else
#define BNATIVE_X86(name) NULL
#endif
#if defined(__aarch64__)
#define BNATIVE_ARM64(name) kern_native_bench_##name
#else
#define BNATIVE_ARM64(name) NULL
#endif
#if defined(__x86_64__) || defined(__aarch64__)
#define BNATIVE_ANY(name) kern_native_bench_##name
#else
#define BNATIVE_ANY(name) NULL
#endif

#define BENCH(name, desc, kind, isa, needs, width, native)                                         \
    {                                                                                              \
#name, desc, kind, isa, needs, width, kern_trace_bench_##name, native(name)                \
    }

static const kern_bench_t bench_tab[] = {
    BENCH(load8, "8 x movq loads per 64-byte line", KERN_BENCH_LOAD, KERN_ISA_X86_64, 0, 8,
          BNATIVE_X86),
    BENCH(load32, "2 x vmovdqa (32 B) loads per line", KERN_BENCH_LOAD, KERN_ISA_X86_64,
          MACHINE_FEAT_AVX2, 32, BNATIVE_X86),
    BENCH(load64, "1 x vmovdqa64 (64 B) load per line", KERN_BENCH_LOAD, KERN_ISA_X86_64,
          MACHINE_FEAT_AVX512, 64, BNATIVE_X86),
    BENCH(copy8, "a line of 8 movq loads, then 8 movq stores", KERN_BENCH_COPY, KERN_ISA_X86_64, 0,
          8, BNATIVE_X86),
    BENCH(copy32, "a line of 2 vmovdqa loads, then 2 stores", KERN_BENCH_COPY, KERN_ISA_X86_64,
          MACHINE_FEAT_AVX2, 32, BNATIVE_X86),
    BENCH(copy64, "a line: 1 vmovdqa64 load, then 1 store", KERN_BENCH_COPY, KERN_ISA_X86_64,
          MACHINE_FEAT_AVX512, 64, BNATIVE_X86),
    BENCH(copy_nt8, "a line of 8 movq loads, then 8 movnti; sfence", KERN_BENCH_COPY_NT,
          KERN_ISA_X86_64, 0, 8, BNATIVE_X86),
    BENCH(copy_nt32, "a line of 2 vmovdqa loads, then 2 vmovntdq; sfence", KERN_BENCH_COPY_NT,
          KERN_ISA_X86_64, MACHINE_FEAT_AVX2, 32, BNATIVE_X86),
    BENCH(copy_nt64, "a line: 1 vmovdqa64 load, then 1 vmovntdq; sfence", KERN_BENCH_COPY_NT,
          KERN_ISA_X86_64, MACHINE_FEAT_AVX512, 64, BNATIVE_X86),
    BENCH(load_x16, "4 x ldp (X registers, 16 B) per 64 bytes", KERN_BENCH_LOAD, KERN_ISA_ARM64, 0,
          16, BNATIVE_ARM64),
    BENCH(load_q32, "2 x ldp (Q registers, 32 B) per 64 bytes", KERN_BENCH_LOAD, KERN_ISA_ARM64, 0,
          32, BNATIVE_ARM64),
    BENCH(copy_x16, "a line of 4 ldp X, then 4 stp", KERN_BENCH_COPY, KERN_ISA_ARM64, 0, 16,
          BNATIVE_ARM64),
    BENCH(copy_q32, "a line of 2 ldp Q, then 2 stp", KERN_BENCH_COPY, KERN_ISA_ARM64, 0, 32,
          BNATIVE_ARM64),
    BENCH(copy_nt_q32, "a line of 2 ldp Q, then 2 stnp; dmb", KERN_BENCH_COPY_NT, KERN_ISA_ARM64, 0,
          32, BNATIVE_ARM64),
    BENCH(chase, "dependent 8-byte loads in a random cycle through the lines", KERN_BENCH_CHASE,
          KERN_ISA_ANY, 0, 8, BNATIVE_ANY),
    {NULL, NULL, KERN_BENCH_LOAD, KERN_ISA_ANY, 0, 0, NULL, NULL},
};

const kern_bench_t *kern_bench_table(void)
{
    return bench_tab;
}

const kern_bench_t *kern_bench_find(const char *name)
{
    for (const kern_bench_t *b = bench_tab; name && b->name; b++)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

int kern_bench_check_machine(const kern_bench_t *b, const machine_t *m, char *err, size_t errlen)
{
    if (b->isa != KERN_ISA_ANY && to_cfg_isa(b->isa) != m->isa)
        return errbuf_set(err, errlen, "function '%s' is an %s kernel, but machine '%s' is %s",
                          b->name, kern_isa_name(b->isa), m->name, machine_isa_name(m->isa));
    uint32_t miss = first_missing(b->needs, m->features);
    if (miss)
        return errbuf_set(err, errlen,
                          "function '%s' needs CPU feature %s, which machine '%s' lacks", b->name,
                          kern_feature_name(miss), m->name);
    return 0;
}

bool kern_bench_native_supported(const kern_bench_t *b, machine_isa_t isa, uint32_t features,
                                 const char *host_name, char *why, size_t whylen)
{
    return native_built(b->name, b->native != NULL, b->isa, b->needs, isa, features, host_name, why,
                        whylen);
}

const kern_bench_t *kern_bench_widest(kern_bench_kind_t kind, machine_isa_t isa, uint32_t features)
{
    const kern_bench_t *best = NULL;
    for (const kern_bench_t *b = bench_tab; b->name; b++) {
        if (b->kind != kind || (b->isa != KERN_ISA_ANY && to_cfg_isa(b->isa) != isa) ||
            first_missing(b->needs, features))
            continue;
        if (!best || b->width_bytes > best->width_bytes)
            best = b;
    }
    return best;
}

void kern_chase_order(uint32_t *next, uint32_t n, uint64_t seed)
{
    /* Sattolo's shuffle gives a permutation that is one cycle of all n
     * elements, so i -> next[i] visits every line before it returns; its
     * swaps are drawn with splitmix64. */
    for (uint32_t i = 0; i < n; i++)
        next[i] = i;
    uint64_t x = seed;
    for (uint32_t i = n; i > 1; i--) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        uint32_t j = (uint32_t)(z % (i - 1)); /* j < i - 1: Sattolo, not Fisher-Yates */
        uint32_t t = next[i - 1];
        next[i - 1] = next[j];
        next[j] = t;
    }
}
