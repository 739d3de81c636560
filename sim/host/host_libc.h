/*
 * host_libc.h - the C library this program runs with: its name and version,
 * and the memset thresholds it chose on this host where it reports them.
 *
 * Notes
 *  - The version is gnu_get_libc_version() (glibc); a program built against
 *    another C library gets name "" and a reason.
 *  - glibc 2.33 and later print their x86 tuning with
 *    `ld.so --list-diagnostics`: x86.cpu_features.rep_stosb_threshold and,
 *    from 2.40, memset_non_temporal_threshold. The dynamic loader is the one
 *    this process was loaded by (/proc/self/maps). Those figures are what
 *    this host's memset uses; they override the version's rules.
 */
#ifndef CLEARSIM_HOST_LIBC_H
#define CLEARSIM_HOST_LIBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/host/host.h"

typedef struct host_libc {
    char libc[32];              /* "glibc-2.36", "" when unknown */
    bool have_stosb;            /* rep_stosb_threshold read from the loader */
    uint64_t stosb_above_bytes; /* memset takes rep stosb above this size */
    bool have_memset_nt;        /* memset_non_temporal_threshold read */
    uint64_t memset_nt_bytes;   /* memset takes NT stores from this size */
    char how[600];              /* where the figures came from, one line */
    char tunables[256];         /* the memset tunables of GLIBC_TUNABLES in the environment
                                 * ("glibc.cpu.x86_rep_stosb_threshold=4096"), "" none; the
                                 * loader's figures already include them */
} host_libc_t;

struct detect_value;
struct machine;

/* The libc.memset.* values of this host: libc_memset_policy() for its C
 * library on a copy of base with the host's identity, features, L2 and
 * line-zero block, at the nominal L3 l3_bytes; then the thresholds the
 * loader reports, which win. out[0..HOST_LIBC_VALUES) get path, value and a
 * '# detected:' comment (libc.name, then vector, rep_stosb_threshold,
 * nt_threshold, zva_threshold, mops). Returns HOST_LIBC_VALUES, or -1 with
 * a reason (not glibc, an unknown version). */
#define HOST_LIBC_VALUES 6
int host_libc_values(const host_info_t *h, const struct machine *base, uint64_t l2_bytes,
                     uint64_t l3_bytes, host_libc_t *lc, struct detect_value *out, char *err,
                     size_t errlen);

/* Fill *out. Returns 0 (a loader that prints no diagnostics is not an
 * error: have_* stay false and how says so), or -1 with a reason when the
 * C library is not glibc. */
int host_libc(host_libc_t *out, char *err, size_t errlen);

#endif
