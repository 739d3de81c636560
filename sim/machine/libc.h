/*
 * libc.h - what a C library's memset does on a machine: its vector width,
 * and from which sizes it takes rep stosb, non-temporal stores, DC ZVA or
 * the MOPS instructions (the libc.memset.* keys), from the library's name
 * and version.
 *
 * Notes
 *  - Only glibc is known, x86-64 2.31 and later and aarch64 2.31 and later.
 *    The rules are those of the upstream release branches as Debian and
 *    Ubuntu ship them (docs/LIBC.md gives the commit behind each rule):
 *      x86-64 vector: 64 with AVX-512 unless glibc prefers not to use it
 *        (every Intel CPU up to 2.34, Intel CPUs without AVX-VNNI from 2.35;
 *        never AMD), else 32 with AVX2, else 16.
 *      rep stosb: above 2048 bytes with ERMS; from 2.40 never on AMD.
 *      non-temporal: from 2.40, Intel only (not Skylake-SP, model 0x55),
 *        at (L3 + L2 when L3 is not inclusive) / 2; before 2.40 never.
 *        2.41+ on an AMD CPU without ERMS: 3/4 of L3 (Avoid_STOSB).
 *      aarch64: MOPS from 2.39 with FEAT_MOPS; DC ZVA for a zero fill with
 *        a 64-byte block from 256 bytes (2.41 and later: above 128 bytes).
 *  - Sizes are the machine keys' meaning: memset uses the path from this
 *    size on ("above 2048" is 2049); 0 = never.
 *  - l3_bytes: the L3 the library sees (CPUID), which is the nominal size
 *    even where a guest's effective share is smaller.
 */
#ifndef CLEARSIM_LIBC_H
#define CLEARSIM_LIBC_H

#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"

#define LIBC_WHY_MAX 200

typedef struct libc_memset {
    uint32_t vector_bytes;
    uint64_t rep_stosb_bytes; /* 0 = never */
    uint64_t nt_bytes;        /* 0 = never */
    uint64_t zva_bytes;       /* 0 = never */
    int mops;                 /* 0 / 1 */
    /* the rule behind each value, one line each */
    char vector_why[LIBC_WHY_MAX], rep_stosb_why[LIBC_WHY_MAX], nt_why[LIBC_WHY_MAX],
        zva_why[LIBC_WHY_MAX], mops_why[LIBC_WHY_MAX];
} libc_memset_t;

/* Parse "glibc-2.36" (also "glibc 2.36", "glibc-2.36.1") into major, minor.
 * Returns 0, or -1 with a reason naming what is accepted. */
int libc_parse(const char *libc, unsigned *major, unsigned *minor, char *err, size_t errlen);

/* memset's policy for library `libc` on machine m (its ISA, vendor, family,
 * model, features and L2), with an L3 of l3_bytes (0: none). Returns 0, or
 * -1 with a reason. */
int libc_memset_policy(const char *libc, const machine_t *m, uint64_t l3_bytes, libc_memset_t *out,
                       char *err, size_t errlen);

#endif
