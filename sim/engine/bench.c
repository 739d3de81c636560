/*
 * bench.c - the load, copy and latency microbenchmarks as trace generators
 * (see bench.h).
 */
#include "sim/engine/bench.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/machine/units.h"

static kern_bench_kind_t bench_kind_of(wl_kind_t k)
{
    return k == WL_LOAD ? KERN_BENCH_LOAD : k == WL_COPY ? KERN_BENCH_COPY : KERN_BENCH_CHASE;
}

bool wl_bench_kernel_of(wl_kind_t kind, const kern_bench_t *b)
{
    return b->kind == bench_kind_of(kind) || (kind == WL_COPY && b->kind == KERN_BENCH_COPY_NT);
}

int wl_validate_bench(const wl_spec_t *s, const machine_t *m, char *err, size_t errlen)
{
    char a[32], why[256];
    const kern_bench_t *b = kern_bench_find(s->function);
    if (!b || !wl_bench_kernel_of(s->kind, b))
        return errbuf_set(err, errlen,
                          "--function %s: not a kernel of the %s workload (see "
                          "'clearsim functions')",
                          s->function, wl_kind_name(s->kind));
    if (m && kern_bench_check_machine(b, m, why, sizeof why))
        return errbuf_set(err, errlen, "--function %s: %s", s->function, why);
    unit_format_size(s->size_bytes, a, sizeof a);
    if (s->size_bytes % WL_LINE_BYTES || s->size_bytes < 2 * WL_LINE_BYTES)
        return errbuf_set(err, errlen,
                          "--size %s: the %s workload takes a multiple of %u bytes, "
                          "at least two lines",
                          a, wl_kind_name(s->kind), WL_LINE_BYTES);
    if (s->kind == WL_LATENCY && s->size_bytes / WL_LINE_BYTES > UINT32_MAX)
        return errbuf_set(err, errlen, "--size %s: at most 2^32 lines to chase", a);
    if (s->caller != WL_CALLER_REPEAT)
        return errbuf_set(err, errlen,
                          "--caller %s: the %s workload covers the whole size per "
                          "pass (repeat)",
                          wl_caller_name(s->caller), wl_kind_name(s->kind));
    if (s->chunk_bytes && s->chunk_bytes != s->size_bytes)
        return errbuf_set(err, errlen, "--chunk: the %s workload covers the whole size per pass",
                          wl_kind_name(s->kind));
    if (s->fill && s->kind != WL_COPY)
        return errbuf_set(err, errlen, "--fill: the %s workload writes no fill value",
                          wl_kind_name(s->kind));
    if (s->reuse_bytes || s->delay_bytes || s->later_bytes)
        return errbuf_set(err, errlen, "reuse applies only to the memset workload");
    return 0;
}

uint64_t wl_bench_copy_dst(const wl_spec_t *s)
{
    uint64_t page = s->page_bytes ? s->page_bytes : 4096;
    return s->base_addr + (s->size_bytes + page - 1) / page * page;
}

typedef struct bench_run {
    kern_ctx_t k;
    const kern_bench_t *b;
    const wl_spec_t *s;
    wl_mark_fn mark;
    void *mark_ctx;
    uint64_t skip;
} bench_run_t;

static void emit(trace_t *t, trace_kind_t kind, uint64_t addr, uint64_t bytes)
{
    trace_op_t op = {.addr = addr, .bytes = bytes, .kind = (uint8_t)kind};
    trace_emit(t, &op);
}

static uint64_t mark(bench_run_t *r, wl_mark_t what)
{
    trace_flush(r->k.trace);
    return r->mark ? r->mark(r->mark_ctx, what) : 0;
}

/* One pass: a kernel call over the whole buffer (n: bytes, or steps). */
static void pass(bench_run_t *r, uint64_t dst, uint64_t src, uint64_t n)
{
    emit(r->k.trace, TRACE_CALL_BEGIN, src, r->s->size_bytes);
    r->b->trace(&r->k, dst, src, n);
    emit(r->k.trace, TRACE_CALL_END, src, r->s->size_bytes);
}

int wl_trace_bench(const wl_spec_t *s, const machine_t *m, trace_t *t, wl_mark_fn mark_fn,
                   void *mark_ctx, char *err, size_t errlen)
{
    bench_run_t r = {.k = {.trace = t, .machine = m, .copy_fill = (uint8_t)s->fill},
                     .b = kern_bench_find(s->function),
                     .s = s,
                     .mark = mark_fn,
                     .mark_ctx = mark_ctx};
    const uint64_t src = s->base_addr, lines = s->size_bytes / WL_LINE_BYTES;
    uint64_t dst = s->kind == WL_COPY ? wl_bench_copy_dst(s) : 0, n = s->size_bytes;
    uint32_t *next = NULL;
    if (s->kind == WL_LATENCY) {
        next = malloc(lines * sizeof *next);
        if (!next)
            return errbuf_set(err, errlen, "out of memory for a chase of %llu lines",
                              (unsigned long long)lines);
        kern_chase_order(next, (uint32_t)lines, WL_CHASE_SEED);
        r.k.chase_next = next;
        r.k.chase_base = src;
        /* setup: every line gets the address of its successor */
        for (uint64_t i = 0; i < lines; i++) {
            trace_op_t op = {.addr = src + i * WL_LINE_BYTES,
                             .bytes = 8,
                             .count = 1,
                             .width = 8,
                             .kind = TRACE_STORE};
            trace_emit(t, &op);
        }
        n = lines; /* steps per pass */
    }
    pass(&r, dst, src, n); /* warm-up */
    mark(&r, WL_MARK_ROI_BEGIN);
    for (uint32_t l = 0; l < s->loops && !trace_error(t); l++) {
        if (r.skip)
            r.skip--; /* fast-forwarded: the runner has counted this pass */
        else
            pass(&r, dst, src, n);
        r.skip += mark(&r, WL_MARK_PERIOD);
        mark(&r, WL_MARK_LOOP);
    }
    trace_flush(t);
    free(next);
    return 0;
}
