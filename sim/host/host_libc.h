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

typedef struct host_libc {
    char libc[32];              /* "glibc-2.36", "" when unknown */
    bool have_stosb;            /* rep_stosb_threshold read from the loader */
    uint64_t stosb_above_bytes; /* memset takes rep stosb above this size */
    bool have_memset_nt;        /* memset_non_temporal_threshold read */
    uint64_t memset_nt_bytes;   /* memset takes NT stores from this size */
    char how[600];              /* where the figures came from, one line */
} host_libc_t;

/* Fill *out. Returns 0 (a loader that prints no diagnostics is not an
 * error: have_* stay false and how says so), or -1 with a reason when the
 * C library is not glibc. */
int host_libc(host_libc_t *out, char *err, size_t errlen);

#endif
