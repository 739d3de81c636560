/*
 * bench.h - the microbenchmark workloads that run the kernels of
 * kernels/bench_*.inc (load, copy, latency) as trace generators, and their
 * validation. The memset-based microbenchmarks (store, ntstore, linezero,
 * fence, startup) and fault run through sim/engine/workload.c.
 *
 * Notes
 *  - load: a warm-up pass, then `loops` passes of the load kernel over size
 *    bytes at base_addr, one kernel call per pass.
 *  - copy: the same with the copy kernel, from base_addr to the next
 *    page-aligned address after it (dst = base + size rounded up to the
 *    page).
 *  - latency: setup writes the address of the next line at the start of
 *    every line, in ascending line order (8-byte stores, as the native setup
 *    does), then a warm-up pass, then `loops` passes of the chase, each a
 *    call of size / 64 dependent loads through the single random cycle that
 *    kern_chase_order(WL_CHASE_SEED) gives, natively too. The mapping is
 *    page_bytes (2 MiB by default): the TLB sees that page size.
 *  - WL_MARK_ROI_BEGIN after the warm-up; WL_MARK_PERIOD and WL_MARK_LOOP
 *    after each measured pass.
 */
#ifndef CLEARSIM_BENCH_H
#define CLEARSIM_BENCH_H

#include <stddef.h>

#include "models/base/machine.h"
#include "kernels/kernels.h"
#include "sim/engine/workload.h"

/* The seed of the chase order, the same natively and in trace mode. */
#define WL_CHASE_SEED 0x5eedc0ffeeull

/* 0, or -1 with a one-line reason naming the option. m may be NULL. */
int wl_validate_bench(const wl_spec_t *s, const machine_t *m, char *err, size_t errlen);
/* Is microbenchmark kernel b one of workload kind's (load, copy, latency)? */
bool wl_bench_kernel_of(wl_kind_t kind, const kern_bench_t *b);
/* Emit the workload into t (wl_trace's contract). */
int wl_trace_bench(const wl_spec_t *s, const machine_t *m, trace_t *t, wl_mark_fn mark,
                   void *mark_ctx, char *err, size_t errlen);
/* Where the copy workload's destination starts. */
uint64_t wl_bench_copy_dst(const wl_spec_t *s);

#endif
