/*
 * test_workload.c - the memset and mmap workloads emit the hand-counted ops
 * and marks in the right order, stop when the sink stops, and reject bad
 * specs with one-line errors naming the option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/engine/workload.h"

#define MIB (1ull << 20)

typedef struct mark_rec {
    wl_mark_t mark;
    size_t at; /* ops delivered when the mark came */
} mark_rec_t;

typedef struct rec {
    trace_op_t *ops;
    size_t n, cap;
    size_t stop_after;       /* 0 = never */
    uint64_t skip_at_period; /* periods to skip after the first period mark */
    mark_rec_t marks[64];
    size_t nmarks;
    uint64_t mark_counts[3];
} rec_t;

static int rec_sink(void *ctx, const trace_op_t *op)
{
    rec_t *r = ctx;
    if (r->stop_after && r->n >= r->stop_after)
        return 7;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->ops = realloc(r->ops, r->cap * sizeof *r->ops);
        assert_non_null(r->ops);
    }
    r->ops[r->n++] = *op;
    return 0;
}

static uint64_t rec_mark(void *ctx, wl_mark_t m)
{
    rec_t *r = ctx;
    r->mark_counts[m]++;
    if (r->nmarks < sizeof r->marks / sizeof r->marks[0])
        r->marks[r->nmarks++] = (mark_rec_t){m, r->n};
    return r->skip_at_period && m == WL_MARK_PERIOD && r->mark_counts[m] == 1 ? r->skip_at_period
                                                                              : 0;
}

static size_t count_kind(const rec_t *r, trace_kind_t k)
{
    size_t c = 0;
    for (size_t i = 0; i < r->n; i++)
        c += r->ops[i].kind == k;
    return c;
}

static void machine_x86(machine_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "test-x86");
    m->isa = MACHINE_ISA_X86_64;
    m->features = MACHINE_FEAT_ERMS | MACHINE_FEAT_AVX2 | MACHINE_FEAT_SSE2;
    m->zva_block_bytes = 64;
    m->memset_vec_bytes = 32;
    m->max_order_pages = 1024;
}

static void machine_arm(machine_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "test-arm");
    m->isa = MACHINE_ISA_ARM64;
    m->features = MACHINE_FEAT_DCZVA;
    m->zva_block_bytes = 64;
    m->memset_vec_bytes = 16;
    m->max_order_pages = 1024;
}

static int run(const wl_spec_t *s, const machine_t *m, rec_t *r, bool coalesce, char *err,
               size_t errlen)
{
    trace_t *t = trace_create(rec_sink, r, coalesce);
    assert_non_null(t);
    int rc = wl_trace(s, m, t, rec_mark, r, err, errlen);
    trace_flush(t);
    trace_destroy(t);
    return rc;
}

/* ---------------------------------------------------------------- memset */

static void test_memset_chunked(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "unrolled");
    s.size_bytes = 64 << 10;
    s.chunk_bytes = 16 << 10;
    s.loops = 2;
    s.fill = 0x42;
    rec_t r = {0};
    char err[256];
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);

    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 1 + 2 * 4);
    assert_int_equal(count_kind(&r, TRACE_CALL_END), 1 + 2 * 4);
    assert_int_equal(count_kind(&r, TRACE_STORE), 8192 + 2 * 8192);
    assert_int_equal(count_kind(&r, TRACE_INSNS), 9);
    assert_int_equal(count_kind(&r, TRACE_RESCHED) + count_kind(&r, TRACE_FAULT), 0);
    assert_int_equal(r.n, 9 * 3 + 3 * 8192);

    /* warm-up: one call over the whole buffer with 0xff */
    assert_int_equal(r.ops[0].kind, TRACE_CALL_BEGIN);
    assert_int_equal(r.ops[0].addr, s.base_addr);
    assert_int_equal(r.ops[0].bytes, 64 << 10);
    assert_int_equal(r.ops[1].kind, TRACE_INSNS);
    assert_int_equal(r.ops[1].count, 4 + 3 * 1024);
    assert_int_equal(r.ops[2].fill, 0xff);
    assert_int_equal(r.ops[8194].kind, TRACE_CALL_END);

    /* marks: ROI after the warm-up, a period per call, a loop per pass */
    static const wl_mark_t want[] = {WL_MARK_ROI_BEGIN, WL_MARK_PERIOD, WL_MARK_PERIOD,
                                     WL_MARK_PERIOD,    WL_MARK_PERIOD, WL_MARK_LOOP,
                                     WL_MARK_PERIOD,    WL_MARK_PERIOD, WL_MARK_PERIOD,
                                     WL_MARK_PERIOD,    WL_MARK_LOOP};
    assert_int_equal(r.nmarks, 11);
    for (size_t i = 0; i < 11; i++)
        assert_int_equal(r.marks[i].mark, want[i]);
    assert_int_equal(r.marks[0].at, 8195);
    assert_int_equal(r.marks[1].at, 8195 + 2051);
    assert_int_equal(r.marks[10].at, r.n);

    /* measured calls: 16 KiB chunks with the fill */
    const trace_op_t *c = &r.ops[8195];
    assert_int_equal(c[0].kind, TRACE_CALL_BEGIN);
    assert_int_equal(c[0].bytes, 16 << 10);
    assert_int_equal(c[1].count, 4 + 3 * 256);
    assert_int_equal(c[2].fill, 0x42);
    assert_int_equal(c[2051].addr, s.base_addr + (16 << 10));
    assert_int_equal(wl_measured_bytes(&s), 2 * (64 << 10));
    free(r.ops);

    /* coalesced: one store op per call */
    rec_t q = {0};
    assert_int_equal(run(&s, &m, &q, true, err, sizeof err), 0);
    assert_int_equal(count_kind(&q, TRACE_STORE), 9);
    assert_int_equal(q.marks[0].at, 4);
    free(q.ops);
}

static void test_memset_repeat(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.caller = WL_CALLER_REPEAT;
    s.size_bytes = 1 * MIB;
    s.loops = 3;
    rec_t r = {0};
    char err[256];
    assert_int_equal(run(&s, &m, &r, true, err, sizeof err), 0);
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 4);
    assert_int_equal(count_kind(&r, TRACE_STRING), 4);
    assert_int_equal(r.mark_counts[WL_MARK_ROI_BEGIN], 1);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 3);
    assert_int_equal(r.mark_counts[WL_MARK_LOOP], 3);
    for (size_t i = 0; i < r.n; i++)
        if (r.ops[i].kind == TRACE_STRING)
            assert_int_equal(r.ops[i].bytes, MIB);
    free(r.ops);
}

/* ------------------------------------------------------------------ mmap */

static void test_mmap_page_demand(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.caller = WL_CALLER_PAGE;
    s.size_bytes = 4 * MIB;
    s.page_bytes = 2 * MIB;
    rec_t r = {0};
    char err[256];
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);

    assert_int_equal(count_kind(&r, TRACE_FAULT), 2);
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 1024);
    assert_int_equal(count_kind(&r, TRACE_RESCHED), 1024);
    assert_int_equal(count_kind(&r, TRACE_STRING), 1024);
    assert_int_equal(count_kind(&r, TRACE_STORE), 2);
    assert_int_equal(count_kind(&r, TRACE_INSNS), 1024 + 2);
    assert_int_equal(r.n, 2 + 2 + 1024 * 5 + 2);

    /* folio 0: touch loop, fault, subpages 511..0, then the user's store */
    const uint64_t b = s.base_addr;
    assert_int_equal(r.ops[0].kind, TRACE_INSNS);
    assert_int_equal(r.ops[0].count, 4);
    assert_int_equal(r.ops[1].kind, TRACE_FAULT);
    assert_int_equal(r.ops[1].addr, b);
    assert_int_equal(r.ops[1].bytes, 2 * MIB);
    assert_int_equal(r.ops[1].flags, 0);
    assert_int_equal(r.ops[2].kind, TRACE_RESCHED);
    assert_int_equal(r.ops[3].kind, TRACE_CALL_BEGIN);
    assert_int_equal(r.ops[3].addr, b + 511 * 4096);
    assert_int_equal(r.ops[3].bytes, 4096);
    assert_int_equal(r.ops[5].kind, TRACE_STRING);
    assert_int_equal(r.ops[5].bytes, 4096);
    const trace_op_t *last = &r.ops[2 + 511 * 5];
    assert_int_equal(last[1].addr, b);
    assert_int_equal(last[5].kind, TRACE_STORE);
    assert_int_equal(last[5].addr, b);
    assert_int_equal(last[5].bytes, 1);
    assert_int_equal(last[6].kind, TRACE_INSNS);
    assert_int_equal(last[7].kind, TRACE_FAULT);
    assert_int_equal(last[7].addr, b + 2 * MIB);

    /* a period per kernel call (subpage), a loop mark at the end */
    assert_int_equal(r.mark_counts[WL_MARK_ROI_BEGIN], 1);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 1024);
    assert_int_equal(r.mark_counts[WL_MARK_LOOP], 1);
    assert_int_equal(r.marks[0].mark, WL_MARK_ROI_BEGIN);
    assert_int_equal(r.marks[0].at, 0);
    assert_int_equal(r.marks[1].mark, WL_MARK_PERIOD);
    assert_int_equal(r.marks[1].at, 2 + 5); /* insns, fault, then resched + one call */
    free(r.ops);

    /* every preemption model: the same calls and reschedule points (the
     * loop's work per subpage; os.resched) */
    const caller_preempt_t models[] = {CALLER_PREEMPT_VOLUNTARY, CALLER_PREEMPT_FULL,
                                       CALLER_PREEMPT_LAZY};
    for (size_t i = 0; i < 3; i++) {
        s.preempt = models[i];
        rec_t q = {0};
        assert_int_equal(run(&s, &m, &q, false, err, sizeof err), 0);
        assert_int_equal(count_kind(&q, TRACE_CALL_BEGIN), 1024);
        assert_int_equal(count_kind(&q, TRACE_RESCHED), 1024);
        free(q.ops);
    }
}

/* memset's folio callers: the kernel's call sequence over each folio of the
 * prefaulted buffer, with no reschedule points (user space). */
static void test_memset_folio_callers(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.caller = WL_CALLER_PAGE;
    s.size_bytes = 4 * MIB;
    s.page_bytes = 2 * MIB;
    s.fault_subpage = 1;
    rec_t r = {0};
    char err[256];
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    /* the warm-up call over the buffer, then 2 folios x 512 subpage calls */
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 1 + 1024);
    assert_int_equal(count_kind(&r, TRACE_RESCHED), 0);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 1024);
    /* process_huge_page order for target 1 of 512: 511 down to 2, then 0, 1 */
    uint64_t order[1025];
    size_t n = 0;
    for (size_t i = 0; i < r.n; i++)
        if (r.ops[i].kind == TRACE_CALL_BEGIN)
            order[n++] = r.ops[i].addr - s.base_addr;
    assert_int_equal(order[1], 511 * 4096);
    assert_int_equal(order[510], 2 * 4096);
    assert_int_equal(order[511], 0);
    assert_int_equal(order[512], 4096);
    assert_int_equal(order[513], 2 * MIB + 511 * 4096); /* the second folio */
    free(r.ops);

    /* extent: one call per folio under lazy, 512 KiB extents under none */
    s.caller = WL_CALLER_EXTENT;
    s.fault_subpage = 0;
    s.preempt = CALLER_PREEMPT_LAZY;
    rec_t e = {0};
    assert_int_equal(run(&s, &m, &e, false, err, sizeof err), 0);
    assert_int_equal(count_kind(&e, TRACE_CALL_BEGIN), 1 + 2);
    free(e.ops);
    s.preempt = CALLER_PREEMPT_NONE;
    s.extent_cap_bytes = 512 * 1024;
    rec_t c = {0};
    assert_int_equal(run(&s, &m, &c, false, err, sizeof err), 0);
    assert_int_equal(count_kind(&c, TRACE_CALL_BEGIN), 1 + 8);
    assert_int_equal(count_kind(&c, TRACE_RESCHED), 0);
    free(c.ops);
}

static void test_mmap_extent_populate(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.caller = WL_CALLER_EXTENT;
    s.fault = WL_FAULT_POPULATE;
    s.preempt = CALLER_PREEMPT_VOLUNTARY;
    s.size_bytes = 4 * MIB;
    s.page_bytes = 2 * MIB;
    s.loops = 2;
    rec_t r = {0};
    char err[256];
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    assert_int_equal(count_kind(&r, TRACE_FAULT), 4);
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 4);
    assert_int_equal(count_kind(&r, TRACE_RESCHED), 0);
    assert_int_equal(count_kind(&r, TRACE_STORE), 0);
    assert_int_equal(r.ops[0].kind, TRACE_FAULT);
    assert_int_equal(r.ops[0].flags, TRACE_F_POPULATE);
    assert_int_equal(r.ops[1].bytes, 2 * MIB);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 4);
    assert_int_equal(r.mark_counts[WL_MARK_LOOP], 2);
    free(r.ops);

    /* a 1 GiB page under voluntary: 128 extents of 8 MiB, 127 reschedule points */
    s.size_bytes = 1ull << 30;
    s.page_bytes = 1ull << 30;
    s.loops = 1;
    memset(&r, 0, sizeof r);
    assert_int_equal(run(&s, &m, &r, true, err, sizeof err), 0);
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 128);
    assert_int_equal(count_kind(&r, TRACE_RESCHED), 127);
    free(r.ops);

    s.preempt = CALLER_PREEMPT_FULL;
    memset(&r, 0, sizeof r);
    assert_int_equal(run(&s, &m, &r, true, err, sizeof err), 0);
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 1);
    assert_int_equal(r.ops[1].bytes, 1ull << 30);
    free(r.ops);
}

/* Fault and call sizes of a run, in order: TRACE_FAULT bytes, then the
 * clears (TRACE_CALL_BEGIN bytes) up to the next fault. */
static void fault_sizes(const rec_t *r, uint64_t *faults, size_t *nf, uint64_t *calls, size_t *nc,
                        size_t max)
{
    *nf = *nc = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->ops[i].kind == TRACE_FAULT && *nf < max)
            faults[(*nf)++] = r->ops[i].bytes;
        if (r->ops[i].kind == TRACE_CALL_BEGIN && *nc < max)
            calls[(*nc)++] = r->ops[i].bytes;
    }
}

/* --thp and --base-page: the folios the kernel would allocate are what the
 * callers clear. With 4 KiB pages a PMD is 2 MiB: a 5 MiB mapping under THP
 * always faults two 2 MiB folios and 256 base pages for the last 1 MiB; one
 * base page short of a PMD (2 MiB - 4 KiB) gets no huge folio at all. */
static void test_mmap_thp(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.caller = WL_CALLER_EXTENT;
    s.preempt = CALLER_PREEMPT_FULL;
    s.thp = WL_THP_ALWAYS;
    s.size_bytes = 5 * MIB;
    static uint64_t f[4096], c[4096];
    size_t nf, nc;
    rec_t r = {0};
    char err[256];
    assert_int_equal(wl_pmd_bytes(4096), 2 * MIB);
    assert_int_equal(wl_pmd_bytes(16384), 32 * MIB);
    assert_int_equal(wl_pmd_bytes(65536), 512 * MIB);
    assert_int_equal(wl_folio_bytes(&s, 0), 2 * MIB);
    assert_int_equal(wl_folio_bytes(&s, 4 * MIB), 4096);
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    fault_sizes(&r, f, &nf, c, &nc, 4096);
    assert_int_equal(nf, 2 + 256);
    assert_int_equal(nc, 2 + 256);
    assert_int_equal(f[0], 2 * MIB);
    assert_int_equal(f[1], 2 * MIB);
    assert_int_equal(f[2], 4096);
    assert_int_equal(f[257], 4096);
    assert_int_equal(c[0], 2 * MIB); /* full: one extent per folio */
    assert_int_equal(c[2], 4096);
    assert_int_equal(wl_mmap_calls(&s, &m), 258);
    free(r.ops);

    /* the page caller clears a THP folio in 512 subpages of 4 KiB */
    s.caller = WL_CALLER_PAGE;
    s.size_bytes = 2 * MIB;
    memset(&r, 0, sizeof r);
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    fault_sizes(&r, f, &nf, c, &nc, 4096);
    assert_int_equal(nf, 1);
    assert_int_equal(f[0], 2 * MIB);
    assert_int_equal(nc, 512);
    assert_int_equal(c[0], 4096);
    assert_int_equal(wl_mmap_calls(&s, &m), 512);
    free(r.ops);

    /* threshold - 1: 2 MiB - 4 KiB holds no PMD range: 511 base pages */
    s.size_bytes = 2 * MIB - 4096;
    memset(&r, 0, sizeof r);
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    fault_sizes(&r, f, &nf, c, &nc, 4096);
    assert_int_equal(nf, 511);
    assert_int_equal(f[0], 4096);
    free(r.ops);

    /* never and madvise (perf bench does not advise its region): base pages */
    s.size_bytes = 2 * MIB;
    for (int mode = WL_THP_NEVER; mode <= WL_THP_MADVISE; mode++) {
        s.thp = (wl_thp_t)mode;
        memset(&r, 0, sizeof r);
        assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
        fault_sizes(&r, f, &nf, c, &nc, 4096);
        assert_int_equal(nf, 512);
        assert_int_equal(f[0], 4096);
        free(r.ops);
    }
    /* a hugetlb page takes no --thp; x86 has no 16 KiB base pages */
    s.thp = WL_THP_ALWAYS;
    s.page_bytes = 2 * MIB;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "--thp always"));
    s.page_bytes = 16384;
    s.base_page_bytes = 16384;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "--base-page 16KiB: only arm64"));

    /* arm64, 16 KiB base pages: the PMD folio is 32 MiB, cleared in 16 KiB
     * subpages (clear_page clears PAGE_SIZE) */
    machine_t a;
    machine_arm(&a);
    snprintf(s.function, sizeof s.function, "dc_zva");
    s.size_bytes = 32 * MIB;
    memset(&r, 0, sizeof r);
    assert_int_equal(run(&s, &a, &r, true, err, sizeof err), 0);
    fault_sizes(&r, f, &nf, c, &nc, 4096);
    assert_int_equal(nf, 1);
    assert_int_equal(f[0], 32 * MIB);
    assert_int_equal(nc, 2048);
    assert_int_equal(c[0], 16384);
    free(r.ops);
    /* 16 KiB pages take --page 16KB or 32MB, not 2MB */
    s.thp = WL_THP_NEVER;
    s.page_bytes = 2 * MIB;
    assert_int_equal(wl_validate(&s, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "16KB or 32MB"));
}

/* Fast-forward: calls the mark callback asks to skip emit nothing, and the
 * workload resumes with the call after them. */
static void test_skip_periods(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.size_bytes = 64 << 10;
    s.chunk_bytes = 16 << 10;
    s.loops = 2;
    rec_t r = {.skip_at_period = 5}; /* after call 1 of 8, skip calls 2..6 */
    char err[256];
    assert_int_equal(run(&s, &m, &r, false, err, sizeof err), 0);
    /* warm-up + 8 timed calls - 5 skipped */
    assert_int_equal(count_kind(&r, TRACE_CALL_BEGIN), 1 + 8 - 5);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 8 - 5);
    /* the calls after the skip are the 3rd and 4th chunks of loop 2 */
    size_t seen = 0;
    uint64_t addrs[8];
    for (size_t i = 0; i < r.n; i++)
        if (r.ops[i].kind == TRACE_STRING && seen < 8)
            addrs[seen++] = r.ops[i].addr;
    assert_int_equal(seen, 4);
    assert_int_equal(addrs[1], s.base_addr);
    assert_int_equal(addrs[2], s.base_addr + 2 * (16 << 10));
    assert_int_equal(addrs[3], s.base_addr + 3 * (16 << 10));
    free(r.ops);

    /* mmap: folios */
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    snprintf(s.function, sizeof s.function, "rep_stosb");
    s.page_bytes = 2u << 20;
    s.size_bytes = 8u << 20;
    s.caller = WL_CALLER_EXTENT;
    s.preempt = CALLER_PREEMPT_FULL;
    rec_t r2 = {.skip_at_period = 2};
    assert_int_equal(run(&s, &m, &r2, false, err, sizeof err), 0);
    /* calls (one per folio here) are skipped; faults and touches are not */
    assert_int_equal(count_kind(&r2, TRACE_FAULT), 4);
    assert_int_equal(count_kind(&r2, TRACE_CALL_BEGIN), 4 - 2);
    assert_int_equal(count_kind(&r2, TRACE_STORE), 4);
    assert_int_equal(r2.mark_counts[WL_MARK_PERIOD], 4 - 2);
    free(r2.ops);
}

static void test_sink_stop(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "unrolled");
    s.chunk_bytes = 4096;
    s.loops = 10;
    rec_t r = {0};
    r.stop_after = 1000;
    char err[256];
    trace_t *t = trace_create(rec_sink, &r, false);
    assert_int_equal(wl_trace(&s, &m, t, rec_mark, &r, err, sizeof err), 0);
    assert_int_equal(trace_error(t), 7);
    trace_destroy(t);
    assert_int_equal(r.n, 1000);
    assert_int_equal(r.mark_counts[WL_MARK_PERIOD], 0); /* stopped inside the warm-up */
    assert_true(r.mark_counts[WL_MARK_LOOP] <= 1);
    free(r.ops);
}

/* ------------------------------------------------------------ validation */

static void expect_err(const wl_spec_t *s, const machine_t *m, const char *want)
{
    char err[256] = "";
    assert_int_equal(wl_validate(s, m, err, sizeof err), -1);
    if (strstr(err, want) == NULL)
        fail_msg("error '%s' does not contain '%s'", err, want);
    assert_null(strchr(err, '\n'));
}

static void test_validate(void **state)
{
    (void)state;
    machine_t x86, arm;
    machine_x86(&x86);
    machine_arm(&arm);
    wl_spec_t s, d;
    wl_spec_init(&d);
    char err[256];
    assert_int_equal(wl_validate(&d, &x86, err, sizeof err), 0);
    assert_int_equal(wl_validate(&d, &arm, err, sizeof err), 0);
    assert_int_equal(wl_validate(&d, NULL, err, sizeof err), 0);

    s = d;
    s.chunk_bytes = 2 * MIB;
    expect_err(&s, &x86, "--chunk (2MiB) is larger than --size (1MiB)");
    s = d;
    s.loops = 0;
    expect_err(&s, &x86, "--loops must be at least 1");
    s = d;
    s.fill = 256;
    expect_err(&s, &x86, "--fill 256 is out of range 0..255");
    s = d;
    s.size_bytes = 0;
    expect_err(&s, &x86, "--size must be greater than 0");
    s = d;
    snprintf(s.function, sizeof s.function, "nope");
    expect_err(&s, &x86, "--function nope: unknown function");
    s = d;
    snprintf(s.function, sizeof s.function, "movnti");
    s.chunk_bytes = 100;
    expect_err(&s, &x86, "--chunk 100B: length 100 is not a multiple of 64 bytes");
    s.chunk_bytes = 0;
    s.size_bytes = 1000;
    expect_err(&s, &x86, "--size 1000B: length 1000 is not a multiple of 64 bytes");
    s = d;
    snprintf(s.function, sizeof s.function, "clzero");
    expect_err(&s, &x86,
               "--function clzero: function 'clzero' needs CPU feature clzero, which "
               "machine 'test-x86' lacks");
    x86.features |= MACHINE_FEAT_CLZERO;
    assert_int_equal(wl_validate(&s, &x86, err, sizeof err), 0);
    s.fill = 1;
    expect_err(&s, &x86, "--fill 1: function 'clzero' can only write zeros");
    s = d;
    snprintf(s.function, sizeof s.function, "stp");
    expect_err(&s, &x86,
               "--function stp: function 'stp' is an arm64 kernel, but machine "
               "'test-x86' is x86_64");
    assert_int_equal(wl_validate(&s, &arm, err, sizeof err), 0);
    assert_int_equal(wl_validate(&s, NULL, err, sizeof err), 0);
    snprintf(s.function, sizeof s.function, "dc_zva");
    s.fill = 3;
    expect_err(&s, &arm, "--fill 3: function 'dc_zva' can only write zeros");
    s = d;
    s.caller = WL_CALLER_PAGE;
    expect_err(&s, &x86, "--caller page clears the buffer folio by folio: give the folio with");
    /* the folio callers: whole folios, no --chunk, a subpage inside the folio */
    s.page_bytes = 2ull << 20;
    s.size_bytes = 3ull << 20;
    expect_err(&s, &x86, "--size 3MiB is not a multiple of the folio (--page 2MiB)");
    s.size_bytes = 4ull << 20;
    assert_int_equal(wl_validate(&s, &x86, err, sizeof err), 0);
    s.fault_subpage = 511; /* the last subpage: valid */
    assert_int_equal(wl_validate(&s, &x86, err, sizeof err), 0);
    s.fault_subpage = 512; /* one past it */
    expect_err(&s, &x86, "--fault-subpage 512: a 2MiB folio has subpages 0..511");
    s.fault_subpage = 0;
    s.chunk_bytes = 4096;
    expect_err(&s, &x86, "--chunk applies only to --caller chunked (--caller page clears folio");
    s.chunk_bytes = 0;
    s.caller = WL_CALLER_EXTENT;
    s.fault_subpage = 3;
    expect_err(&s, &x86, "--fault-subpage applies only to --caller page");
    s.fault_subpage = 0;
    s.extent_cap_bytes = 4095;
    expect_err(&s, &x86, "--extent-cap 4095B: must be a non-zero multiple of the base page");
    s = d;
    s.caller = WL_CALLER_REPEAT;
    s.chunk_bytes = 4096;
    expect_err(&s, &x86, "--chunk applies only to --caller chunked");
    s = d;
    s.page_bytes = 8192;
    expect_err(&s, &x86, "--page 8KiB: must be 4KB, 2MB or 1GB");

    wl_spec_t mm = d;
    mm.kind = WL_MMAP;
    mm.caller = WL_CALLER_PAGE;
    mm.page_bytes = 2 * MIB;
    mm.size_bytes = 4 * MIB;
    assert_int_equal(wl_validate(&mm, &x86, err, sizeof err), 0);
    s = mm;
    s.size_bytes = 3 * MIB;
    expect_err(&s, &x86, "--size 3MiB is not a multiple of --page 2MiB");
    s = mm;
    s.caller = WL_CALLER_CHUNKED;
    expect_err(&s, &x86, "--caller chunked is not valid for the mmap workload");
    s = mm;
    s.extent_cap_bytes = 0;
    expect_err(&s, &x86, "--extent-cap 0B: must be a non-zero multiple of the base page (4KiB)");
    s.extent_cap_bytes = 1000;
    expect_err(&s, &x86, "--extent-cap 1000B: must be a non-zero multiple of the base page (4KiB)");
    s = mm;
    s.fill = 1;
    expect_err(&s, &x86, "--fill 1: the mmap workload clears pages with zeros");
    s = mm;
    s.chunk_bytes = 4096;
    expect_err(&s, &x86, "--chunk applies only to the memset workload");
    s = mm;
    s.base_addr += 4096;
    expect_err(&s, &x86, "is not aligned to the page size (2MiB)");

    /* wl_trace refuses an invalid spec with the same error */
    s = d;
    s.loops = 0;
    rec_t r = {0};
    assert_int_equal(run(&s, &x86, &r, false, err, sizeof err), -1);
    assert_string_equal(err, "--loops must be at least 1");
    assert_int_equal(r.n, 0);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(wl_kind_name(WL_MMAP), "mmap");
    assert_string_equal(wl_caller_name(WL_CALLER_EXTENT), "extent");
    assert_string_equal(wl_fault_name(WL_FAULT_POPULATE), "populate");
    wl_spec_t s;
    wl_spec_init(&s);
    assert_int_equal(s.size_bytes, MIB);
    assert_int_equal(s.loops, 1);
    assert_int_equal(s.page_bytes, 4096);
    assert_int_equal(s.extent_cap_bytes, 8 * MIB);
    assert_int_equal(s.base_addr % (1ull << 30), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memset_chunked),
        cmocka_unit_test(test_memset_repeat),
        cmocka_unit_test(test_memset_folio_callers),
        cmocka_unit_test(test_mmap_page_demand),
        cmocka_unit_test(test_mmap_extent_populate),
        cmocka_unit_test(test_mmap_thp),
        cmocka_unit_test(test_skip_periods),
        cmocka_unit_test(test_sink_stop),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
