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

#define X86(name, desc, needs, granule)                                                            \
    {                                                                                              \
#name, desc, KERN_ISA_X86_64, needs, granule, kern_trace_##name, NATIVE_X86(name), false   \
    }
#define ARM64(name, desc, needs, granule)                                                          \
    {                                                                                              \
#name, desc, KERN_ISA_ARM64, needs, granule, kern_trace_##name, NATIVE_ARM64(name), false  \
    }

static const kern_info_t kern_tab[] = {
    X86(rep_stosb, "rep stosb, RCX = len (ERMS/FSRM clear_page)", 0, 1),
    X86(rep_stosq, "rep stosq, RCX = len/8 (REP_GOOD clear_page)", 0, 8),
    X86(unrolled, "8 x movq per 64-byte line (clear_page_orig)", 0, 64),
    X86(movnti, "8 x movnti per 64-byte line, then sfence", 0, 64),
    {"clzero", "clzero per 64-byte line, then sfence (AMD; zero only)", KERN_ISA_X86_64,
     MACHINE_FEAT_CLZERO, 64, kern_trace_clzero, NATIVE_X86(clzero), true},
    X86(avx2, "2 x vmovdqa (32 B) per 64-byte line", MACHINE_FEAT_AVX2, 64),
    X86(avx512, "1 x vmovdqa64 (64 B) per 64-byte line", MACHINE_FEAT_AVX512, 64),
    X86(avx512_nt, "1 x vmovntdq (64 B) per 64-byte line, then sfence", MACHINE_FEAT_AVX512, 64),
    ARM64(stp, "4 x stp (16 B) per 64 bytes", 0, 64),
    ARM64(stnp, "4 x stnp (16 B) per 64 bytes (clear_page without DC ZVA)", 0, 64),
    {"dc_zva", "dc zva per block (clear_page; zero only)", KERN_ISA_ARM64, MACHINE_FEAT_DCZVA, 64,
     kern_trace_dc_zva, NATIVE_ARM64(dc_zva), true},
    ARM64(mops, "setp/setm/sete over the whole length (FEAT_MOPS)", MACHINE_FEAT_MOPS, 1),
    ARM64(mops_nt, "setpn/setmn/seten, non-temporal (FEAT_MOPS)", MACHINE_FEAT_MOPS, 1),
    {"memset", "the C library's memset (size-based dispatch)", KERN_ISA_ANY, 0, 1,
     kern_trace_memset, kern_native_memset, false},
    {NULL, NULL, KERN_ISA_ANY, 0, 0, NULL, NULL, false},
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

bool kern_native_supported(const kern_info_t *k, machine_isa_t isa, uint32_t features,
                           const char *host_name, char *why, size_t whylen)
{
    if (!k->native) {
        errbuf_set(why, whylen, "function '%s' is an %s kernel; this host is %s", k->name,
                   kern_isa_name(k->isa), machine_isa_name(isa));
        return false;
    }
    uint32_t miss = first_missing(k->needs, features);
    if (miss) {
        const char *f = kern_feature_name(miss);
        errbuf_set(why, whylen, "function '%s' needs CPU feature %s, which this host (%s) lacks",
                   k->name, f ? f : "?", host_name);
        return false;
    }
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
