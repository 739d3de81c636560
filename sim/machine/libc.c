/*
 * libc.c - the C library's memset policy by name and version (see libc.h).
 *
 * Notes
 *  - Intel server models with AVX-VNNI (glibc 2.35+ then keeps its AVX-512
 *    memset): Sapphire Rapids 0x8f, Emerald Rapids 0xcf, Granite Rapids
 *    0xad / 0xae (family 6). Skylake-SP / Cascade Lake is model 0x55.
 */
#include "sim/machine/libc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/base/errbuf.h"

#define STOSB_ABOVE_BYTES 2048u /* __x86_rep_stosb_threshold: memset takes rep stosb above it */

int libc_parse(const char *libc, unsigned *major, unsigned *minor, char *err, size_t errlen)
{
    const char *p = libc;
    if (!p || strncasecmp(p, "glibc", 5) != 0)
        return errbuf_set(err, errlen,
                          "--libc '%s': unknown C library (known: glibc-VERSION, e.g. glibc-2.36)",
                          libc ? libc : "");
    p += 5;
    if (*p == '-' || *p == ' ')
        p++;
    char *end;
    unsigned long a = strtoul(p, &end, 10);
    if (end == p || *end != '.')
        return errbuf_set(err, errlen, "--libc '%s': no version (e.g. glibc-2.36)", libc);
    p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || (*end && *end != '.'))
        return errbuf_set(err, errlen, "--libc '%s': the version is MAJOR.MINOR (e.g. 2.36)", libc);
    if (a != 2 || b < 31 || b > 99)
        return errbuf_set(err, errlen,
                          "--libc '%s': glibc 2.31 and later are known (memset's rules before "
                          "2.31 are not described)",
                          libc);
    *major = (unsigned)a;
    *minor = (unsigned)b;
    return 0;
}

static bool is_vendor(const machine_t *m, const char *v)
{
    return strcasecmp(m->vendor, v) == 0;
}

static bool intel_has_avx_vnni(const machine_t *m)
{
    static const uint32_t models[] = {0x8f, 0xcf, 0xad, 0xae};
    if (!is_vendor(m, "intel") || m->family != 6)
        return false;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (m->model == models[i])
            return true;
    return false;
}

static void x86_policy(unsigned minor, const machine_t *m, uint64_t l3_bytes, libc_memset_t *o)
{
    const bool intel = is_vendor(m, "intel"), amd = is_vendor(m, "amd") || is_vendor(m, "hygon");
    const bool erms = m->features & MACHINE_FEAT_ERMS;
    const bool avx512 = m->features & MACHINE_FEAT_AVX512;
    bool no_avx512 = intel && (minor <= 34 || !intel_has_avx_vnni(m));
    if (avx512 && !no_avx512) {
        o->vector_bytes = 64;
        snprintf(o->vector_why, LIBC_WHY_MAX,
                 "glibc 2.%u: __memset_avx512_unaligned%s (AVX-512, "
                 "Prefer_No_AVX512 not set)",
                 minor, erms ? "_erms" : "");
    } else if (m->features & MACHINE_FEAT_AVX2) {
        o->vector_bytes = 32;
        snprintf(o->vector_why, LIBC_WHY_MAX,
                 "glibc 2.%u: __memset_%s_unaligned%s (32-byte "
                 "vectors%s)",
                 minor, avx512 && minor >= 34 ? "evex" : "avx2", erms ? "_erms" : "",
                 avx512 ? "; Prefer_No_AVX512 on this Intel model" : "");
    } else {
        o->vector_bytes = 16;
        snprintf(o->vector_why, LIBC_WHY_MAX, "glibc 2.%u: __memset_sse2_unaligned%s", minor,
                 erms ? "_erms" : "");
    }

    if (erms && !(amd && minor >= 40)) {
        o->rep_stosb_bytes = STOSB_ABOVE_BYTES + 1;
        snprintf(o->rep_stosb_why, LIBC_WHY_MAX,
                 "glibc 2.%u: rep stosb above "
                 "x86_rep_stosb_threshold = 2048 (ERMS)",
                 minor);
    } else {
        o->rep_stosb_bytes = 0;
        snprintf(o->rep_stosb_why, LIBC_WHY_MAX, "glibc 2.%u: %s", minor,
                 erms ? "rep_stosb_threshold = SIZE_MAX on AMD from 2.40 (272708884c): never"
                      : "no ERMS: the variant has no rep stosb path");
    }

    uint64_t l2 = m->l2.size_bytes;
    bool l3_inclusive = m->l3.present && m->l3.incl == MACHINE_INCL_INCLUSIVE;
    o->nt_bytes = 0;
    if (minor < 40) {
        snprintf(o->nt_why, LIBC_WHY_MAX,
                 "glibc 2.%u: memset has no non-temporal path before "
                 "2.40",
                 minor);
    } else if (intel && !(m->family == 6 && m->model == 0x55) && l3_bytes) {
        o->nt_bytes = (l3_bytes + (l3_inclusive ? 0 : l2)) / 2;
        snprintf(o->nt_why, LIBC_WHY_MAX,
                 "glibc 2.%u: x86_memset_non_temporal_threshold = (L3%s) / "
                 "2 on Intel (reached through the rep stosb path)",
                 minor, l3_inclusive ? "" : " + L2, not inclusive");
    } else if (amd && !erms && minor >= 41 && l3_bytes) {
        o->nt_bytes = l3_bytes / 4 * 3;
        o->rep_stosb_bytes = o->nt_bytes;
        snprintf(o->nt_why, LIBC_WHY_MAX,
                 "glibc 2.%u: Avoid_STOSB without ERMS: rep_stosb_threshold "
                 "= the NT threshold, 3/4 of L3",
                 minor);
    } else {
        snprintf(o->nt_why, LIBC_WHY_MAX,
                 "glibc 2.%u: the non-temporal path sits behind rep stosb, "
                 "%s",
                 minor, intel ? "disabled on this model" : "which this CPU never takes");
    }
    o->zva_bytes = 0;
    snprintf(o->zva_why, LIBC_WHY_MAX, "arm64 only");
    o->mops = 0;
    snprintf(o->mops_why, LIBC_WHY_MAX, "arm64 only");
}

static void arm64_policy(unsigned minor, const machine_t *m, libc_memset_t *o)
{
    o->vector_bytes = 32;
    snprintf(o->vector_why, LIBC_WHY_MAX, "glibc 2.%u aarch64: stp q0, q0 (32 bytes a store)",
             minor);
    o->rep_stosb_bytes = 0;
    o->nt_bytes = 0;
    snprintf(o->rep_stosb_why, LIBC_WHY_MAX, "x86 only");
    snprintf(o->nt_why, LIBC_WHY_MAX, "glibc 2.%u aarch64: no non-temporal memset path", minor);
    o->mops = minor >= 39 && (m->features & MACHINE_FEAT_MOPS);
    snprintf(o->mops_why, LIBC_WHY_MAX, "glibc 2.%u: %s", minor,
             minor < 39                          ? "__memset_mops arrived in 2.39"
             : (m->features & MACHINE_FEAT_MOPS) ? "__memset_mops is picked first with FEAT_MOPS"
                                                 : "no FEAT_MOPS");
    bool zva64 = (m->features & MACHINE_FEAT_DCZVA) && m->zva_block_bytes == 64;
    if (!zva64) {
        o->zva_bytes = 0;
        snprintf(o->zva_why, LIBC_WHY_MAX, "glibc 2.%u: DC ZVA only with a 64-byte block", minor);
    } else if (minor >= 41) {
        o->zva_bytes = 129;
        snprintf(o->zva_why, LIBC_WHY_MAX,
                 "glibc 2.%u: zero fills above 128 bytes use DC ZVA "
                 "(cec3aef324)",
                 minor);
    } else {
        o->zva_bytes = 256;
        snprintf(o->zva_why, LIBC_WHY_MAX, "glibc 2.%u: zero fills from 256 bytes use DC ZVA",
                 minor);
    }
}

int libc_memset_policy(const char *libc, const machine_t *m, uint64_t l3_bytes, libc_memset_t *out,
                       char *err, size_t errlen)
{
    unsigned major, minor;
    if (libc_parse(libc, &major, &minor, err, errlen))
        return -1;
    memset(out, 0, sizeof *out);
    if (m->isa == MACHINE_ISA_ARM64)
        arm64_policy(minor, m, out);
    else
        x86_policy(minor, m, l3_bytes, out);
    return 0;
}
