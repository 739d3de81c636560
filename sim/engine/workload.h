/*
 * workload.h - the two workloads (perf bench mem memset / mmap) as trace
 * generators, and their validation.
 *
 * Notes
 *  - wl_trace() emits, through the kernels in trace mode, every op the
 *    workload performs, including its warm-up. It calls mark(ctx,
 *    WL_MARK_ROI_BEGIN) (after flushing the trace) where the measured region
 *    begins, and WL_MARK_PERIOD after each repeating unit of work (a chunk
 *    call, a folio) so that a runner can detect a steady state.
 *  - memset: perf bench prefaults by calling the function once over the whole
 *    buffer with fill 0xff before timing; then `loops` passes, each clearing
 *    the buffer in chunk-byte calls with the fill value.
 *  - mmap: each loop maps size bytes, takes one fault per folio (demand: a
 *    one-byte store at the folio start after the fault; populate: all
 *    faults at map time), each fault clearing its folio (wl_folio_bytes)
 *    through the caller in base-page subpages; then unmaps. The whole run is
 *    measured, as perf bench does.
 */
#ifndef CLEARSIM_WORKLOAD_H
#define CLEARSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/callers.h"
#include "models/base/machine.h"
#include "models/base/names.h"
#include "models/base/trace.h"

/* The two benchmarks of perf bench, then the microbenchmarks (sim/engine/
 * bench.c; docs/MICROBENCH.md says which public benchmark each one matches):
 * load, copy and latency run the kernels of kernels/bench_*.inc; store,
 * ntstore, linezero, fence and startup are memset with a kernel, caller and
 * chunk that isolate one property; fault is mmap on a small region. */
typedef enum wl_kind {
    WL_MEMSET = 0,
    WL_MMAP,
    WL_LOAD,     /* streaming reads, `loops` passes over size bytes */
    WL_COPY,     /* size bytes copied from one buffer to another, per pass */
    WL_LATENCY,  /* a pointer chase through every line of size bytes, per pass */
    WL_STORE,    /* temporal stores (write-allocate): memset, caller repeat */
    WL_NTSTORE,  /* non-temporal stores: memset, caller repeat */
    WL_LINEZERO, /* CLZERO / DC ZVA: memset, caller repeat */
    WL_FENCE,    /* chunk-byte non-temporal calls, each ending in its fence: memset chunked */
    WL_STARTUP,  /* chunk-byte rep stos / MOPS calls on a cache-resident buffer */
    WL_FAULT,    /* demand faults on a small region: mmap */
} wl_kind_t;
/* The microbenchmarks' line: their sizes are multiples of it. */
#define WL_LINE_BYTES 64u

/* The workload a kind runs as: memset for store..startup, mmap for fault,
 * itself otherwise. */
wl_kind_t wl_base_kind(wl_kind_t k);
/* Does the kind run a microbenchmark kernel (kernels/bench_*.inc: load,
 * copy, latency) rather than a clearing kernel? */
bool wl_uses_bench_kernel(wl_kind_t k);
/* Is function a kernel of workload kind (of the class a microbenchmark
 * takes: temporal stores for store, ...), and can machine m run it (its ISA
 * and features; m NULL: any machine)? What a function=all list holds. */
bool wl_function_of(wl_kind_t kind, const char *function, const machine_t *m);
typedef enum wl_caller {
    WL_CALLER_CHUNKED = 0,
    WL_CALLER_REPEAT,
    WL_CALLER_PAGE,
    WL_CALLER_EXTENT
} wl_caller_t;
typedef enum wl_fault { WL_FAULT_DEMAND = 0, WL_FAULT_POPULATE } wl_fault_t;
/* /sys/kernel/mm/transparent_hugepage/enabled of the simulated kernel. */
typedef enum wl_thp { WL_THP_NEVER = 0, WL_THP_MADVISE, WL_THP_ALWAYS } wl_thp_t;
typedef enum wl_mark { WL_MARK_ROI_BEGIN = 0, WL_MARK_PERIOD, WL_MARK_LOOP } wl_mark_t;

typedef struct wl_spec {
    wl_kind_t kind;
    char function[32];         /* kernel name (kern_find) */
    uint64_t size_bytes;       /* --size */
    uint64_t chunk_bytes;      /* --chunk (memset; 0 = size) */
    uint32_t loops;            /* --loops */
    uint32_t fill;             /* --fill, 0..255 */
    wl_caller_t caller;        /* memset: chunked (default) | repeat | page | extent (the
                                * kernel's folio callers over page_bytes folios); mmap:
                                * page | extent */
    wl_fault_t fault;          /* mmap: --fault */
    uint64_t page_bytes;       /* mmap: --page (the base page, or a hugetlb size); memset: 4 KiB */
    uint64_t base_page_bytes;  /* mmap: --base-page 4KB | 16KB | 64KB (16 and 64: arm64) */
    wl_thp_t thp;              /* mmap: --thp; with base pages, always faults PMD folios */
    caller_preempt_t preempt;  /* mmap, memset extent: --preempt */
    uint64_t fault_subpage;    /* memset page: the subpage the fault hit (--fault-subpage);
                                * process_huge_page() clears it last */
    uint64_t extent_cap_bytes; /* mmap, memset extent: --extent-cap */
    uint64_t base_addr;        /* simulated address of the buffer (page-size aligned) */
    uint64_t reuse_bytes;      /* memset: after each measured call, the consumer loads the
                                * first min(reuse_bytes, call length) bytes the call
                                * cleared, one 8-byte load per cache line (clearsim tune's
                                * re-fetch cost); 0 = none (perf bench) */
    uint64_t delay_bytes;      /* memset: after that touch, the consumer reads this many
                                * bytes of other memory (one 8-byte load per line, fresh
                                * lines at WL_DELAY_ADDR_OFFSET from the buffer) ... */
    uint64_t later_bytes;      /* ... then touches the next min(later_bytes, what is left)
                                * bytes of the call, one load per line; 0 = none */
} wl_spec_t;

/* Where the delay's other memory starts, from base_addr; its reads advance
 * through a ring of WL_DELAY_RING_BYTES, never twice the same line within a
 * ring's length. */
#define WL_DELAY_ADDR_OFFSET (1ull << 40)
#define WL_DELAY_RING_BYTES  (1ull << 39)

/* Defaults: memset, size 1 MiB, loops 1, fill 0, page 4 KiB, base page 4 KiB,
 * THP never, extent cap 8 MiB, no reuse. */
void wl_spec_init(wl_spec_t *s);
/* 0, or -1 with a one-line reason naming the option. m may be NULL (native). */
int wl_validate(const wl_spec_t *s, const machine_t *m, char *err, size_t errlen);

/* Called at each mark. For WL_MARK_PERIOD the return value is the number of
 * following periods whose kernel calls the workload must skip: the runner's
 * fast-forward has already accounted for them (their faults and touches are
 * still emitted). With WL_SKIP_ALL or'd in, the workload emits nothing at
 * all (calls, reschedules, faults, touches) until that many more period
 * marks would have passed, and delivers none of those period marks: exact
 * bulk stepping has moved the model past them. Other marks return 0. */
#define WL_SKIP_ALL (UINT64_C(1) << 63)
typedef uint64_t (*wl_mark_fn)(void *ctx, wl_mark_t mark);

/* The mmap workload's folios: the folio the kernel allocates for the fault
 * at byte offset off of the mapping (off a multiple of the base page).
 *  - --page larger than the base page: a hugetlb folio of page_bytes;
 *  - base pages, THP always: the PMD-sized folio (base page x base page / 8:
 *    2 MiB with 4 KiB pages, 32 MiB with 16 KiB, 512 MiB with 64 KiB) when
 *    the whole PMD range lies inside the mapping (which Linux aligns to it
 *    when it is at least that large), else a base page;
 *  - base pages, THP never, or madvise (perf bench mem mmap does not call
 *    madvise(MADV_HUGEPAGE), so its region is not advised): a base page. */
uint64_t wl_folio_bytes(const wl_spec_t *s, uint64_t off);
/* One pass of the memset workload over the buffer at addr (s->size_bytes), as
 * calls through cb: chunked (chunk-byte calls), repeat (one call), or the
 * kernel's folio callers, folio by folio (page_bytes each): page (subpages in
 * process_huge_page() order for a fault at fault_subpage; ascending for a
 * gigantic folio) or extent (capped under none/voluntary). The memset
 * workload runs in user space, so it takes no reschedule points: cb->resched
 * is not called (the mmap workload's faults keep them). The one definition of
 * the pass for the trace and the native runs. m may be NULL (native). */
void wl_memset_pass(const wl_spec_t *s, const machine_t *m, uint64_t addr, const caller_cb_t *cb);
/* The mmap workload's kernel calls per loop: each folio's calls through the
 * caller (m may be NULL: the default MAX_PAGE_ORDER). */
uint64_t wl_mmap_calls(const wl_spec_t *s, const machine_t *m);
/* The largest folio, in base pages, that the page caller clears in
 * process_huge_page() order (larger ones go in ascending order): the
 * machine's os.max_order_pages with 4 KiB pages (0: the default 1024), and
 * arm64's MAX_PAGE_ORDER with 16 KiB (order 11: 2048 pages) and 64 KiB
 * pages (order 13: 8192), so that a PMD folio of those is not "gigantic". */
uint32_t wl_max_order_pages(const wl_spec_t *s, const machine_t *m);
/* The PMD size of a base page (its THP folio). */
uint64_t wl_pmd_bytes(uint64_t base_page_bytes);

/* Emit the whole workload into t. Returns 0, or -1 with a reason. */
int wl_trace(const wl_spec_t *s, const machine_t *m, trace_t *t, wl_mark_fn mark, void *mark_ctx,
             char *err, size_t errlen);

/* The names users type for each enum (models/base/names.h). */
extern const name_value_t wl_kind_names[];
extern const name_value_t wl_caller_names[];
extern const name_value_t wl_fault_names[];
extern const name_value_t wl_thp_names[];
const char *wl_kind_name(wl_kind_t k);
const char *wl_caller_name(wl_caller_t c);
const char *wl_fault_name(wl_fault_t f);
const char *wl_thp_name(wl_thp_t t);
/* Bytes the workload clears (reads, copies) in its measured region
 * (loops x size). */
uint64_t wl_measured_bytes(const wl_spec_t *s);
/* The dependent loads of a latency workload's measured region (loops x
 * lines of size), 0 for every other kind. */
uint64_t wl_measured_loads(const wl_spec_t *s);

#endif
