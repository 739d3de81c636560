/*
 * measure.h - `clearsim detect --measure`: the microbenchmark suite run
 * natively on this host, the machine parameters it gives (measured directly
 * or fitted to it), and a machine file for the host built from them.
 *
 * Notes
 *  - The chain is microbenchmark figures -> machine parameters. Clears
 *    appear at L1 size (store, non-temporal and line-zero issue, the fence
 *    drain, call and string startup costs; the sizes avoid crosscheck's
 *    repeat sizes) and, for the write path, as non-temporal stores of data
 *    and of zeros and line zeroing over 1 GiB, the footprint of the clearing
 *    cases they serve (issue 44: a native measurement of the silicon at hand
 *    may set a mechanism). Crosscheck's chunked cases of those kernels are
 *    then no held-out test of the write path; its other cases are.
 *  - Phases: (1) the working clock and a latency sweep, from L1 to 1.5 x
 *    the nominal L3, which gives the effective L3 (the size where half of a
 *    chase's loads miss; in a guest, the share the other tenants leave);
 *    (2) the rest of the suite, at sizes set from the caches so found
 *    (docs/MICROBENCH.md lists every figure and what it determines).
 *  - Each figure is the median over its timed runs (a dirty host's
 *    outliers stay out), with its 95% interval kept; the clock is measured
 *    around each figure and the file's core.freq is their median.
 *  - Values: measured directly (core.freq, l1/l2.latency from a chase that
 *    hits one level, the effective l3.size, the string startup table), then
 *    fitted in stages with calibrate's fitter, each stage on its own
 *    figures: L3 latency; DRAM latency and the page walk; the core's issue
 *    rates; L2; L3; DRAM bandwidths; the write-combining path; call and
 *    string costs; faults. Values the suite cannot observe (geometry beyond
 *    sysfs, prefetcher shape, policies, the kernel's own costs) come from
 *    the base machine file, which for the same silicon is a fact about the
 *    CPU; the file says which and why.
 *  - memset's policy comes from this host's C library (sim/host/host_libc,
 *    sim/machine/libc).
 */
#ifndef CLEARSIM_MEASURE_H
#define CLEARSIM_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/host/host.h"

#define MEASURE_FIGS_MAX 64
#define MEASURE_RUNS_MAX 40

typedef struct measure_fig {
    machine_mb_t mb;       /* what ran and its value (mb.value; mb.source says "measured ...") */
    unsigned stage;        /* fit stage 1..9; 0: not a fit target (derives a value, or kept) */
    double ci95_rel;       /* half-width of the 95% interval of the mean, relative to the value */
    double clock_ghz;      /* the clock around its runs */
    double adds_per_cycle; /* the core's share after its runs (host_measure_adds_per_cycle) */
    uint32_t runs;         /* timed runs (pooled over the passes) */
    double sec[MEASURE_RUNS_MAX]; /* their times */
    bool skipped;                 /* the host cannot run it (why) */
    char why[200];
} measure_fig_t;

typedef struct measure_opts {
    uint32_t repeat;  /* timed runs per figure (default 5) */
    int32_t cpu;      /* CPU to pin to, -1: the current one */
    bool progress;    /* progress and ETA on a terminal */
    unsigned threads; /* model runs at once while fitting */
    size_t max_iter;  /* fit iterations per stage */
} measure_opts_t;

typedef struct measure measure_t;

void measure_opts_init(measure_opts_t *o);

/* A measurement of host h with structural values from the machine file at
 * base_path (base_why: why that one). Returns NULL with a reason. */
measure_t *measure_create(const host_info_t *h, const char *base_path, const char *base_why,
                          const measure_opts_t *o, char *err, size_t errlen);
void measure_destroy(measure_t *ms);

/* Take the figures of the machine file at path (its microbench: section,
 * matched by id) instead of running them: measure_native then fills the
 * suite from it, and measure_fit fits to them. Returns 0, or -1. */
int measure_use_figures(measure_t *ms, const char *path, char *err, size_t errlen);

/* Run the suite natively. Returns 0, or -1 with a reason (a figure the host
 * cannot run is skipped with its reason, not an error). */
int measure_native(measure_t *ms, char *err, size_t errlen);

/* Derive and fit the parameters from the figures. Returns 0, or -1. */
int measure_fit(measure_t *ms, char *err, size_t errlen);

/* The machine file, called `name`: every value with its source, and the
 * figures in its microbench: section. `command` is recorded in the header.
 * Returns a malloc'd string that loads, or NULL with a reason. */
char *measure_machine_yaml(measure_t *ms, const char *name, const char *command, char *err,
                           size_t errlen);

/* The figures, in suite order. */
const measure_fig_t *measure_figs(const measure_t *ms, size_t *n);

/* The effective L3 found (bytes) and how, after measure_native. */
uint64_t measure_l3_effective(const measure_t *ms, const char **how);

/* The L3 a chase sweep shows: sizes[i] (bytes, ascending, all above the L2)
 * with their ns per load lat[i]; the L2's latency l2_ns and size; the DRAM
 * latency dram_ns; the L3 a victim of the L2 (capacity L2 + L3) or not. The
 * first point gives the L3 latency (for a victim L3, after taking out the
 * loads that hit the L2); at each size, the share of loads that miss is
 * (lat - cached) / (dram_ns - cached), where cached is what the loads would
 * take if all hit L2 or L3. The capacity is where that share reaches one
 * half, interpolated in log size; the L3 is it less the L2 for a victim.
 * When the first point's L3 time comes out at half of dram_ns or more, that
 * point misses already and gives the capacity (at least half the L2). A
 * step of at least SWEEP_CLIFF (3) times the point before it is the cliff:
 * when the share has not reached one half by the point past it, the
 * capacity is half way across it in log size (past a cliff a loaded host's
 * DRAM latency still rises with the footprint). nominal_l3 when no point
 * reaches one half and there is no cliff. Pure, for the tests. */
uint64_t measure_l3_from_sweep(const uint64_t *sizes, const double *lat, size_t n, double l2_ns,
                               uint64_t l2_bytes, double dram_ns, bool victim, uint64_t nominal_l3);

/* Has a chase sweep reached DRAM? lat[0..n) are its points' ns per load by
 * ascending size: true when the last 3 are within 10% of each other, at
 * least 10 x the L2's latency l2_ns and at least 2 x l3_hit_ns, an L3 hit's
 * time (0: none known). Phase 1 then stops and sizes its DRAM reference
 * from that point. Pure, for the tests. */
bool measure_sweep_at_dram(const double *lat, size_t n, double l2_ns, double l3_hit_ns);

/* Is a sweep point of size_bytes at the edge of a cache whose loads half
 * miss at half_bytes (more than half and less than 4 times it)? Such a
 * point is checked within its own, wider tolerance (docs/MICROBENCH.md,
 * section 3). Pure, for the tests. */
bool measure_at_l3_edge(uint64_t size_bytes, uint64_t half_bytes);

/* core.rfo_window from the narrow / wide DRAM copy ratio: the host's, and
 * the model's with store_buffer and with fill_buffers. 0 (store_buffer) or
 * 1 (fill_buffers) when the host's ratio is at least MEASURE_RFO_CLEAR
 * times nearer one than the other in log terms; -1 when it is not (the
 * copies do not tell them apart: the base file's value stays). Pure, for
 * the tests. */
#define MEASURE_RFO_CLEAR 2.0
int measure_rfo_pick(double host, double store_buffer, double fill_buffers);

#endif
