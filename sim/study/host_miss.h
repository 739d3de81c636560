/*
 * host_miss.h - the TLB miss of a guest's 4 KiB host pages, from a plain
 * write probe and its _ahead twin (one load from each next page before the
 * stores reach it): what `crosscheck --gains` feeds the model each pass and
 * what `detect --measure` writes (docs/MODEL.md section 13).
 *
 * Notes
 *  - The model (models/model_xlate.h model_xl_write): a whole-line non-temporal store
 *    that takes a host page's TLB miss stalls issue for tlb.host_miss.nt_line
 *    while the lines already buffered drain, so a 4 KiB page of the probe
 *    takes max(issue + miss, link); the twin takes the link (a load took the
 *    miss first). The zero probe's link is the shortest the host has, so it
 *    shows the miss best.
 *  - The issue time comes from the model: the probe over 64 MiB with a write
 *    link that takes a line a cycle at once and no host below.
 *  - Library code: nothing is printed; errors come back as a reason.
 *  - Units: rates in GiB/s (binary), times in ns or core cycles as named.
 */
#ifndef CLEARSIM_HOST_MISS_H
#define CLEARSIM_HOST_MISS_H

#include <stddef.h>

#include "models/base/machine.h"
#include <stdbool.h>

#include "sim/engine/workload.h"

#define HOSTMISS_NOISE 0.05 /* a plain probe this much slower than its twin paid a miss */

/* The time of a 4 KiB page at rate_gib GiB/s, in ns (0 when the rate is not
 * positive). Pure. */
double hostmiss_page_ns(double rate_gib);

/* The miss in ns: the plain probe's time a 4 KiB page less its issue time,
 * when the plain probe is more than HOSTMISS_NOISE slower than its twin;
 * else 0 (none seen). 0 when either rate is unknown. Pure. */
double hostmiss_ns(double probe_plain_gib, double probe_ahead_gib, double issue_ns_page);

/* Whether the data probes deny a miss the zero probes show: the plain data
 * probe more than HOSTMISS_NOISE faster than its twin (a load ahead costs
 * reads, a store that pays the host's miss cannot outrun the twin whose load
 * took it). On the Zen 3 guest, whose host pays no miss (data/native/
 * ahead_kernels.sh), the plain zero probe dipped 9-26% under its twin in 5
 * of 44 passes while the data probe ran 7-12% over its own; in none of the
 * Zen 5 guest's 136 passes with a miss did it. false when either rate is
 * unknown. Pure. */
bool hostmiss_denied(double data_plain_gib, double data_ahead_gib);

/* The probe's issue time a 4 KiB page in the model of machine file `path`
 * (at its own clock), in core cycles: *cycles_page. Returns 0, or -1 with a
 * reason. */
int hostmiss_issue_cycles(const char *path, const wl_spec_t *probe, double *cycles_page, char *err,
                          size_t errlen);

/* The settings of a host whose miss is miss_ns (> 0) for a model of m:
 * tlb.host_page 4KiB, tlb.host_entries m's (else its tlb.entries_4k, to a
 * power of two), and
 * tlb.host_miss.* with nt_line = miss_ns and the other kinds in m's
 * proportions to nt_line (each = miss_ns when m gives no nt_line). Writes
 * "KEY=VALUE" strings into out[0..5]; returns how many (0 when miss_ns is
 * not positive). */
#define HOSTMISS_SETS 6
size_t hostmiss_sets(const machine_t *m, double miss_ns, char out[][MACHINE_SET_ARG_MAX]);

#endif
