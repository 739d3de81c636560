/*
 * native.h - run a workload natively on this host: the same wl_spec_t that
 * `clearsim run` simulates, executed with the real kernels (native mode of
 * kernels/clear_*.inc) or, for mmap, the host kernel's own page clearing.
 *
 * Notes
 *  - memset: a page-aligned anonymous mapping of size bytes (4 KiB pages with
 *    MADV_NOHUGEPAGE; 2 MiB hugetlb if enough pages are free, else THP via
 *    madvise(MADV_HUGEPAGE); 1 GiB hugetlb only), prefaulted with one call of
 *    the kernel over the whole buffer with fill 0xff (as perf bench mem
 *    memset does), an untimed warm-up (the workload repeated for opts.warm_ms,
 *    at least once), then `repeat` timed runs, each
 *    `loops` passes through the caller (chunked or repeat) of kernels/callers.h.
 *  - mmap: each loop maps size bytes (4 KiB: plain anonymous + MADV_NOHUGEPAGE;
 *    2 MiB: MAP_HUGETLB|MAP_HUGE_2MB if reserved, else THP via madvise; 1 GiB:
 *    MAP_HUGETLB|MAP_HUGE_1GB), faults it (demand: one byte written per page;
 *    populate: MAP_POPULATE for hugetlb, MADV_POPULATE_WRITE for 4 KiB/THP so
 *    that the huge-page advice is in place before the faults), and unmaps it.
 *    The host kernel clears the pages; spec->function, caller, preempt and
 *    extent_cap describe the simulated kernel only and are reported as given.
 *  - Timing: CLOCK_MONOTONIC around each timed run; the thread is pinned to
 *    one CPU for the duration of native_run() (its affinity is restored).
 *  - Counters (perf_event_open, libpfm4 names when built with it) count only
 *    the timed runs; counts are scaled by time_enabled/time_running when the
 *    kernel multiplexes them. When they cannot be opened, every counter is
 *    unsupported and counters_reason says why, once.
 *  - Verification (untimed, after the timed runs): memset - the buffer holds
 *    the fill the last run wrote; then it is poisoned with the complement and
 *    one more pass must write every byte again. mmap - a mapping is dirtied
 *    and unmapped, and a fresh one, faulted the same way, must read back zero.
 *    A mismatch is an error naming the first bad offset.
 *  - Units: seconds, bytes, bytes per second; counters are per timed run
 *    (mean over the runs).
 *  - Every result records when it was measured (UTC) and, unless opts.clock
 *    is off (callers that time the clock themselves), the core clock right
 *    before and after (host_measure_core_ghz, 8 trials): a figure from a
 *    shared guest means little without them.
 */
#ifndef CLEARSIM_NATIVE_H
#define CLEARSIM_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/run.h"
#include "sim/engine/workload.h"

#define NATIVE_REPEAT_DEFAULT 5u
#define NATIVE_REPEAT_MAX     1000u
#define NATIVE_CLOCK_TRIALS   8u /* host_measure_core_ghz trials before and after (~45 ms) */
/* The warm-up repeats the workload for at least this long (and at least
 * once) before the timed runs: a core that was idle or busy with other work
 * runs a memory stream at as little as half its rate for milliseconds
 * (docs/MICROBENCH.md, "Warm-up and the host's state"). */
#define NATIVE_WARM_MS_DEFAULT 100u
#define NATIVE_WARM_MS_MAX     10000u
#define NATIVE_WARM_RUNS_MAX   1000000u
/* native_run() return value when the host cannot run the workload (a missing
 * CPU feature, page size, THP, ...): err says what is missing. */
#define NATIVE_ENOTSUP (-2)

typedef enum native_page_mode {
    NATIVE_PAGE_4K = 0,  /* base pages (THP advised off) */
    NATIVE_PAGE_THP,     /* transparent huge pages, madvise(MADV_HUGEPAGE) */
    NATIVE_PAGE_HUGETLB, /* reserved hugetlb pages, MAP_HUGETLB */
} native_page_mode_t;

typedef struct native_opts {
    uint32_t repeat; /* timed runs after the warm-up, 1..NATIVE_REPEAT_MAX */
    int32_t cpu;     /* CPU to pin to; -1: the CPU the caller runs on */
    bool counters;   /* try perf counters */
    bool progress;   /* progress/ETA on stderr (drawn only when it is a terminal) */
    bool clock;      /* measure the core clock before and after the runs (~45 ms each) */
    uint32_t
        warm_ms; /* warm-up: the workload repeated for at least this long, 0..NATIVE_WARM_MS_MAX */
} native_opts_t;

/* Statistics of one quantity over the timed runs (GSL). ci95 is the
 * half-width of the 95% confidence interval of the mean (Student t with
 * n-1 degrees of freedom). stddev is the sample standard deviation. Both are
 * NAN when there is a single run. */
typedef struct native_stat {
    double mean;
    double stddev;
    double ci95;
} native_stat_t;

typedef struct native_result {
    /* The fields the run contract shares (docs/JSON.md): spec as run,
     * machine "host", bytes = loops x size (one run), seconds and
     * bytes_per_sec = means over the runs, counters = mean per run (all
     * unsupported when counters_reason is set), cycles = the cycles counter
     * (0 and cycles_measured false when it was not counted). stats stays
     * zero: there is no traffic breakdown natively. */
    run_result_t run;
    bool cycles_measured;

    uint32_t repeat;
    uint32_t cpu;        /* the CPU the runs were pinned to */
    uint32_t warm_runs;  /* untimed runs of the warm-up */
    double warm_seconds; /* how long the warm-up took */
    native_stat_t seconds;
    native_stat_t bytes_per_sec;
    double run_seconds[NATIVE_REPEAT_MAX]; /* each timed run, in order */

    native_page_mode_t page_mode;
    char page_how[192];  /* how the pages were obtained, e.g. "MAP_HUGETLB|MAP_HUGE_2MB" */
    uint64_t huge_bytes; /* bytes of the verified mapping backed by huge pages (smaps) */

    char counters_via[16];     /* "libpfm4" | "builtin" (PERF_TYPE_HW_CACHE encodings) | "" */
    char counters_reason[192]; /* why counters are missing; "" when all were counted */
    char host_model[256];      /* CPU model name */
    char kernel_release[65];   /* uname -r */
    char kernel_version[128];  /* uname -v */
    char kernel_preempt[32];   /* none | voluntary | full | lazy | rt | dynamic | unknown ... */
    char preempt_source[256];  /* where kernel_preempt was read */
    char date_utc[24];         /* when the timed runs started, "2026-12-01T18:44:29Z" */
    char thp_enabled[16];      /* the host's transparent_hugepage/enabled, "" unknown */
    uint64_t base_page_bytes;  /* the host kernel's base page (sysconf _SC_PAGESIZE) */
    double clock_ghz_before;   /* host_measure_core_ghz() before the warm-up; 0: not measured */
    double clock_ghz_after;    /* the same after the timed runs */
} native_result_t;

void native_opts_init(native_opts_t *o);

/* Run spec natively. Returns 0 with *out filled; NATIVE_ENOTSUP when the host
 * lacks what the run needs; -1 on any other failure (bad spec, mapping
 * failed, verification mismatch). err holds one line in both cases. */
int native_run(const wl_spec_t *spec, const native_opts_t *o, native_result_t *out, char *err,
               size_t errlen);

/* "4k" | "thp" | "hugetlb". */
const char *native_page_mode_name(native_page_mode_t m);

/* Mean, sample stddev and 95% CI half-width of x[0..n-1] (n >= 1). */
native_stat_t native_stats(const double *x, size_t n);

#endif
