/*
 * xc_gains.h - the folio-clearing gains measured natively on this host and
 * predicted by the model at the host's measured state: what `clearsim
 * crosscheck --gains` prints and writes (issue 44).
 *
 * Notes
 *  - The product is the gain: the ratio of two ways of clearing on one CPU.
 *    The cases clear a prefaulted buffer (1 GiB by default) of 2 MiB folios
 *    through the kernel's callers (memset --caller page|extent,
 *    wl_memset_pass): the base is page-at-a-time with the host's clear_page
 *    kernel (4 KiB calls in process_huge_page order), the ways are one call
 *    per folio (extent, preempt lazy) with that kernel and with each
 *    non-temporal and line-zeroing kernel both the host and the machine run
 *    (of the vector non-temporal stores the widest only),
 *    and page-at-a-time again for a fault at the last subpage (the subpages
 *    then go up, 0..N-3, where the base's go down, N-1..2: the direction
 *    across 4 KiB boundaries).
 *  - The host's state moves (a guest's write path has halved within half an
 *    hour, and what a line of zeros saves on it against a line of data went
 *    from 0.6 to nothing), so the cases are measured in interleaved passes,
 *    each with eight probes of the same pages: a DRAM chase (over 64 MiB, at
 *    most the cases' size), and over the cases' size a DRAM read (the
 *    widest load), a DRAM write of data (the widest non-temporal store with
 *    fill 0x5a), the same write of zeros, the last two again through
 *    that kernel's _ahead twin (one load from each 4 KiB page before the
 *    stores reach it), and fills of data and of zeros with the widest
 *    temporal store, one call per 2 MiB folio (each line read for
 *    ownership and written back), each over a buffer of the cases' size:
 *    this guest's
 *    write path runs 1.5-3 times faster over 512 MiB than over 1 GiB
 *    (docs/MODEL.md section 12). Each pass's order is rotated by one.
 *  - A gain's native figure is per pass (the way's rate over the base's in
 *    the same pass); its range is the least and greatest over the passes.
 *  - The model predicts each pass's cases with that pass's state, the
 *    machine file with:
 *    - memory.read_bandwidth: the read probe's rate;
 *    - memory.latency: a chase's time a load over XCG_LATENCY_BYTES (at
 *      most the cases' size) of the same pages: page-at-a-time's 4 KiB
 *      calls wait about one DRAM latency each (string.ordered_end), and a
 *      guest's is not its SKU's (the Zen 5 guest's 64 MiB chase took
 *      150-190 ns where Turin's published latency is about 115);
 *    - memory.write_bandwidth: the data probe's rate, its _ahead twin's when
 *      it ran (the link without the host's miss);
 *    - memory.zero_data_fraction: the data probe's rate over the zero
 *      probe's (the twins' when they ran), at most 1: what a line of zero
 *      data costs on the host's write path now. On the Zen 5 guest the
 *      plain probes ran alike (the host's miss bound both) while the twins
 *      ran at 28-33 and 52-55 GiB/s;
 *    - memory.combined_bandwidth (lshare_bus_gib): the read and data rates'
 *      sum, or twice the fill's rate when that is less (its two lines a
 *      line met a limit the two links share). On the Zen 5 guest fills of
 *      data ran at 22-26 GiB/s where reads alone ran at 31-32 and NT data
 *      writes at 35-36 (data/native/fill_bus.sh, docs/MODEL.md section 13);
 *      copies had run too slowly to show it (data/native/bus_study.sh);
 *    - memory.zero_writeback_fraction (lshare_zero_writeback): from the
 *      fills of data and of zeros, each a line read and one written back on
 *      the bus they share: twice the data fill over the zero fill, less one
 *      (the zero share above when no fill ran). On the Zen 5 guest fills of
 *      zeros ran at 28-33 GiB/s against 22-26 with data, 0.6, about the NT
 *      probes' zero share; on the Zen 3 guest 13.3-14.2 against 12.9-14.1,
 *      about 1, while its NT zeros cost 0.45 of data (fill_bus.sh);
 *    - when the zero probe paid a host page's miss (hostmiss_ns > 0,
 *      sim/study/host_miss.h) and the data probes do not deny it
 *      (hostmiss_denied: the plain data probe more than the noise faster
 *      than its twin):
 *      tlb.host_page 4 KiB, tlb.host_entries the file's (else its
 *      tlb.entries_4k), tlb.host_miss.nt_line that miss, and the other
 *      kinds in the file's proportions to nt_line (the same miss when the
 *      file gives none);
 *    - the clock measured around the pass (unless --clock file).
 *    A line-zeroing command (CLZERO, an elided rep stos) is no line of
 *    data: its share, memory.zero_write_fraction, stays the file's. The
 *    model also predicts each case at the file's own figures.
 *  - A way that clears with the zero probe's kernel is not judged: its
 *    lines' cost on the write path is the probe's (xcg_gain_t.probe_set).
 *  - A gain is "within" when the model's mean gain over the passes lies in
 *    the native range widened by XCG_TOLERANCE on each side (lo / (1 + t) ..
 *    hi x (1 + t)).
 *  - Library code: nothing is printed; errors come back as a reason.
 *  - Units: rates in GiB/s (binary, perf's GB/sec), clocks in GHz.
 */
#ifndef CLEARSIM_XC_GAINS_H
#define CLEARSIM_XC_GAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/engine/progress.h"
#include "sim/engine/workload.h"
#include "sim/host/host.h"

#define XCG_PASSES_MAX     16
#define XCG_CASES_MAX      16 /* 8 probes, 2 page-at-a-time, the base's extent, 5 ways */
#define XCG_TOLERANCE      0.15
#define XCG_DEFAULT_BYTES  (1ull << 30)
#define XCG_DEFAULT_PASSES 3
#define XCG_LATENCY_BYTES  (64ull << 20) /* the latency probe's footprint, at most */

typedef enum xcg_role {
    XCG_PROBE_READ = 0,    /* the pass's DRAM read rate */
    XCG_PROBE_WRITE,       /* the pass's DRAM write rate for lines of data */
    XCG_PROBE_ZERO,        /* the same stores of zeros: the pass's zero-line discount */
    XCG_PROBE_WRITE_AHEAD, /* the data probe's _ahead twin: the link without the host's miss */
    XCG_PROBE_ZERO_AHEAD,  /* the zero probe's: the zero lines' link without it */
    XCG_PROBE_LATENCY,     /* a chase: the pass's DRAM latency, in ns a load (native_gib) */
    XCG_BASE,              /* page-at-a-time: every gain's denominator */
    XCG_WAY,               /* one call per folio: a gain's numerator */
    XCG_PROBE_FILL,        /* a temporal fill of data: a line read and a line written back */
    XCG_PROBE_FILL_ZERO,   /* the same fill of zeros: what a written-back zero line costs */
} xcg_role_t;

typedef struct xcg_case {
    char id[48];
    char args[200]; /* the equivalent `clearsim run` / `native` options */
    xcg_role_t role;
    wl_spec_t spec;
    double native_gib[XCG_PASSES_MAX]; /* mean of the pass's timed runs (probe-latency: ns) */
    double clock_ghz[XCG_PASSES_MAX];  /* around the case's runs in the pass, 0: unknown */
    double model_gib[XCG_PASSES_MAX];  /* predicted at the pass's state */
    double model_file_gib;             /* predicted at the file's own memory and clock */
    char why[256];                     /* a native or model failure */
} xcg_case_t;

typedef struct xcg_study {
    xcg_case_t cs[XCG_CASES_MAX];
    size_t n;
    size_t cap;                          /* cases it may hold: XCG_CASES_MAX (less in tests) */
    bool full;                           /* a case did not fit (xcg_build fails) */
    uint32_t passes;                     /* passes measured */
    double pass_ghz[XCG_PASSES_MAX];     /* the pass's mean clock, 0: unknown */
    double host_miss_ns[XCG_PASSES_MAX]; /* the host page miss the model took (xcg_predict) */
    double issue_cycles_page; /* the zero probe's issue time a 4 KiB page, in the model */
    char started_utc[32];     /* ISO 8601 */
} xcg_study_t;

/* Whether a case of this role is one of a pass's probes (the host's state),
 * which the model does not predict. */
bool xcg_role_is_probe(xcg_role_t r);

/* One gain over the passes. */
typedef struct xcg_gain {
    const xcg_case_t *way;
    double native_lo, native_hi, native_mean;
    double model_lo, model_hi, model_mean; /* at each pass's state */
    double model_file;                     /* at the file's own memory figures */
    bool within;                           /* model_mean inside the widened native range */
    bool probe_set; /* the way clears with the zero probe's kernel: its cost is the probe's */
} xcg_gain_t;

/* The cases for this host and machine over size_bytes (a multiple of 2 MiB;
 * 0: XCG_DEFAULT_BYTES). Returns the count, or 0 with *why set when the host
 * has no 2 MiB pages or no clearing kernel that both run. */
size_t xcg_build(xcg_study_t *st, const machine_t *m, const host_info_t *h, uint64_t size_bytes,
                 char *why, size_t whylen);

/* xcg_build with room for cap cases (1..XCG_CASES_MAX): 0 with *why set
 * when they do not fit, never a case dropped. Exposed for the tests. */
size_t xcg_build_cap(xcg_study_t *st, const machine_t *m, const host_info_t *h, uint64_t size_bytes,
                     size_t cap, char *why, size_t whylen);
/* Measure pass `pass` (0-based, < XCG_PASSES_MAX) of every case natively,
 * `repeat` timed runs each, pinned to cpu (-1: where it runs). Returns 0,
 * or native_run's code with the case's why set (*failed names it). */
int xcg_measure_pass(xcg_study_t *st, uint32_t pass, uint32_t repeat, long cpu,
                     const xcg_case_t **failed);
/* Predict every case of every measured pass at that pass's state (at its
 * clock unless at_file_clock), and at the file's own memory figures, with
 * `threads` model runs at once. Returns 0, or -1 with a reason. */
int xcg_predict(xcg_study_t *st, const machine_t *m, bool at_file_clock, unsigned threads,
                progress_t *pg, char *err, size_t errlen);
/* The gains of the ways over the base, in case order; returns their count. */
size_t xcg_gains(const xcg_study_t *st, xcg_gain_t *out, size_t max);
/* The study as CSV (atomically): a row per pass and case (native and model
 * GiB/s, the pass's clock, probes and the zero_data_fraction and bus the
 * model took from them). Returns 0, or -1 with a reason. */
int xcg_write_csv(const char *path, const xcg_study_t *st, const char *machine, char *err,
                  size_t errlen);

#endif
