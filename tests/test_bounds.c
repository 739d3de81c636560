/*
 * test_bounds.c - bottleneck attribution (docs/MODEL.md "Bottleneck
 * attribution") on the tiny machine (tests/tiny_machine.h): which resource
 * bounds each clear, that the bound cycles sum to the measured cycles, and
 * that the shares of sim/engine/bounds.c sum to 1, against hand-computed
 * expectations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/model.h"
#include "sim/engine/bounds.h"
#include "tests/tiny_machine.h"

#define BASE  0x10000000ull
#define LINES 4096u /* 256 KiB: 64 times the 4 KiB L3 */

static model_t *mk(const machine_t *m)
{
    char err[256] = "";
    model_t *md = model_create(m, 1, err, sizeof(err));
    if (!md)
        fail_msg("model_create: %s", err);
    return md;
}

/* The tiny machine as a guest whose host backs it with 4 KiB pages that
 * the TLB holds 4 of, and 64 WC buffers; its model maps 2 MiB pages. */
static model_t *mk_host_pages(machine_t *m, double nt_line_ns, double walk_cycles)
{
    m->wc_buffers = 64;
    m->tlb_host_page_bytes = 4096;
    m->tlb_host_entries = 4;
    m->tlb_host_nt_line_ns = nt_line_ns;
    m->tlb_walk_cycles = walk_cycles;
    model_t *md = mk(m);
    model_set_mapping(md, 2u << 20, 2u << 20);
    return md;
}

/* count stores of width bytes, bytes in all, from addr. */
static void op_w(model_t *md, trace_kind_t kind, uint64_t addr, uint64_t bytes, uint32_t count,
                 uint32_t width)
{
    trace_op_t o = {
        .addr = addr, .bytes = bytes, .count = count, .width = width, .kind = (uint8_t)kind};
    model_op(md, &o);
}

static void op(model_t *md, trace_kind_t kind, uint64_t addr, uint64_t bytes, uint32_t count)
{
    op_w(md, kind, addr, bytes, count, 8);
}

/* n full lines of stores of the given kind and width, one op per line. */
static void lines_w(model_t *md, trace_kind_t kind, uint64_t addr, uint32_t n, uint32_t width)
{
    for (uint32_t l = 0; l < n; l++)
        op_w(md, kind, addr + l * 64ull, 64, 64 / width, width);
}

/* n full lines of 8-byte stores of the given kind. */
static void lines(model_t *md, trace_kind_t kind, uint64_t addr, uint32_t n)
{
    lines_w(md, kind, addr, n, 8);
}

static stats_t finish(model_t *md)
{
    stats_t st;
    model_drain(md);
    model_stats(md, &st);
    model_destroy(md);
    return st;
}

static uint64_t bound_sum(const stats_t *st)
{
    uint64_t s = 0;
    for (int i = 0; i < ST_BOUND_COUNT; i++)
        s += st->count[ST_BOUND_STORE_ISSUE + i];
    return s;
}

static double share(const stats_t *st, stats_event_t e)
{

    return (double)st->count[e] / (double)bound_sum(st);
}

/* The shares of the breakdown sum to 1 and are sorted. */
static void check_breakdown(const stats_t *st, const machine_t *m, stats_event_t top)
{
    bounds_entry_t e[ST_BOUND_COUNT];
    size_t n = bounds_breakdown(st, m, e);
    assert_true(n >= 1);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += e[i].share;
        if (i)
            assert_true(e[i - 1].cycles >= e[i].cycles);
    }
    assert_true(sum > 1 - 1e-12 && sum < 1 + 1e-12); /* by construction: a format check */
    assert_int_equal(e[0].res->event, top);
    /* no time went unattributed */
    assert_int_equal(st->count[ST_BOUND_OTHER], 0);
    const bounds_resource_t *res;
    double s;
    assert_true(bounds_top(st, &res, &s));
    assert_int_equal(res->event, top);
}

/* A write-allocate clear far larger than L3 with 2 L2 miss slots: each line's
 * RFO holds a slot for the 100-cycle memory latency, so lines complete in
 * pairs every 100 cycles, LINES x 50 cycles in all. Of each 100: the first
 * line's commit follows its data (the slots x DRAM latency), the second's
 * commit follows the first's through the 8-cycle L1 write port (store
 * issue): 92 and 8. The bound cycles sum to the cycles. */
static void test_miss_slots_times_dram_latency(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.l2.mshrs = 2;
    model_t *md = mk(&m);
    lines(md, TRACE_STORE, BASE, LINES);
    stats_t st = finish(md);
    uint64_t cyc = st.count[ST_CYCLES];
    assert_true(cyc >= LINES * 50ull && cyc <= LINES * 50ull + 200);
    assert_int_equal(bound_sum(&st), cyc);
    assert_true(st.count[ST_BOUND_STORE_ISSUE] + 16 >= LINES / 2 * 8ull &&
                st.count[ST_BOUND_STORE_ISSUE] <= LINES / 2 * 8ull + 16);
    assert_true(share(&st, ST_BOUND_L2_MISS_SLOTS_DRAM) > 0.91);
    check_breakdown(&st, &m, ST_BOUND_L2_MISS_SLOTS_DRAM);
    /* the slots were busy all the time: 2 x 100 slot-cycles per 100 cycles */
    bounds_entry_t e[ST_BOUND_COUNT];
    bounds_breakdown(&st, &m, e);
    assert_true(e[0].has_occupancy && e[0].occupancy > 0.97 && e[0].occupancy <= 1.0);
}

/* Non-temporal stores through 4 WC buffers, each held for the 50-cycle
 * write acknowledgement: 4 lines every 50 cycles. Issue takes 1 cycle a
 * line (8 stores of 1/8 cycle): of each 50, the first line waits 47 for a
 * buffer (the write path) and the other three issue 1 apart. */
static void test_nt_write_path(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.nt_store_cycles = 0.125;
    model_t *md = mk(&m);
    lines(md, TRACE_STORE_NT, BASE, LINES);
    stats_t st = finish(md);
    uint64_t cyc = st.count[ST_CYCLES];
    assert_true(cyc >= LINES * 25ull / 2 && cyc <= LINES * 25ull / 2 + 100);
    assert_int_equal(bound_sum(&st), cyc);
    uint64_t wc = st.count[ST_BOUND_WC_BUFFERS];
    assert_true(wc + 100 >= LINES / 4 * 47ull && wc <= LINES / 4 * 47ull + 100);
    assert_true(share(&st, ST_BOUND_WC_BUFFERS) > 0.93);
    check_breakdown(&st, &m, ST_BOUND_WC_BUFFERS);
}

/* The same with a memory write link of 8 B/cycle (8 cycles a line) and the
 * acknowledgement shorter than that behind 4 buffers: the link bounds it. */
static void test_nt_write_link(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.mem_write_bpc = 4; /* 16 cycles a line: slower than issue (8) and the buffers (12.5) */
    model_t *md = mk(&m);
    lines(md, TRACE_STORE_NT, BASE, LINES);
    stats_t st = finish(md);
    uint64_t cyc = st.count[ST_CYCLES];
    assert_true(cyc >= LINES * 16ull && cyc <= LINES * 16ull + 200);
    assert_int_equal(bound_sum(&st), cyc);
    assert_true(share(&st, ST_BOUND_MEM_WRITE_LINK) > 0.97);
    check_breakdown(&st, &m, ST_BOUND_MEM_WRITE_LINK);
}

/* Clearing the same 4 lines again and again hits L1: 8 stores a line at 1 a
 * cycle, so store issue bounds it: 8 cycles a line. */
static void test_store_issue(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    for (int r = 0; r < 1000; r++)
        lines(md, TRACE_STORE, BASE, 4);
    stats_t st = finish(md);
    uint64_t cyc = st.count[ST_CYCLES];
    assert_true(cyc >= 4000 * 8ull && cyc <= 4000 * 8ull + 400);
    assert_int_equal(bound_sum(&st), cyc);
    assert_true(share(&st, ST_BOUND_STORE_ISSUE) > 0.97);
    check_breakdown(&st, &m, ST_BOUND_STORE_ISSUE);
}

/* Faults and calls are fixed costs: 3 faults of 1000 cycles and 10 calls of
 * 50 cycles, nothing else: 3000 and 500 cycles. */
static void test_faults_and_calls(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.fault_4k_ns = 1000;
    m.call_cycles = 50;
    m.insns_per_cycle = 4;
    model_t *md = mk(&m);
    for (int i = 0; i < 3; i++)
        op(md, TRACE_FAULT, BASE + i * 4096ull, 4096, 0);
    for (int i = 0; i < 10; i++) {
        op(md, TRACE_CALL_BEGIN, 0, 0, 0);
        op(md, TRACE_CALL_END, 0, 0, 0);
    }
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_CYCLES], 3500);
    assert_int_equal(bound_sum(&st), 3500);
    assert_int_equal(st.count[ST_BOUND_FAULTS], 3000);
    assert_int_equal(st.count[ST_BOUND_CALLS], 500);
    check_breakdown(&st, &m, ST_BOUND_FAULTS);
}

/* A guest's host pages (tlb.host_page 4 KiB, 4 entries) whose miss costs a
 * whole-line non-temporal store 400 ns (400 cycles at 1 GHz): each of the 64
 * pages stalls issue 400 cycles, then its 64 lines issue a cycle apart (one
 * 64-byte store a line; 64 WC buffers held 50 cycles each keep up): 464
 * cycles a page, 400 of them the host miss's (bound.host_misses,
 * busy.host_misses 64 x 400), 64 the non-temporal issue's. threshold - 1:
 * with the host page's cost 0 the misses pay tlb.walk (0), and none is
 * counted under host_misses. */
static void test_host_misses(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk_host_pages(&m, 400, 0);
    lines_w(md, TRACE_STORE_NT, BASE, LINES, 64);
    stats_t st = finish(md);
    uint64_t cyc = st.count[ST_CYCLES];
    assert_true(cyc >= 64 * 464ull && cyc <= 64 * 464ull + 100);
    assert_int_equal(bound_sum(&st), cyc);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 64);
    assert_int_equal(st.count[ST_BUSY_HOST_MISSES], 64 * 400ull);
    assert_true(st.count[ST_BOUND_HOST_MISSES] + 64 >= 64 * 400ull &&
                st.count[ST_BOUND_HOST_MISSES] <= 64 * 400ull + 64);
    assert_true(st.count[ST_BOUND_NT_STORE_ISSUE] + 100 >= 64 * 64ull);
    check_breakdown(&st, &m, ST_BOUND_HOST_MISSES);
    bounds_entry_t e[ST_BOUND_COUNT];
    bounds_breakdown(&st, &m, e);
    assert_string_equal(e[0].res->key, "tlb.host_miss");
    assert_true(e[0].has_occupancy);
    assert_true(e[0].occupancy > 64 * 400.0 / (64 * 464 + 100) &&
                e[0].occupancy <= 400.0 / 464 + 1e-9);

    md = mk_host_pages(&m, 0, 0);
    lines_w(md, TRACE_STORE_NT, BASE, LINES, 64);
    st = finish(md);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 0);
    assert_int_equal(st.count[ST_BOUND_HOST_MISSES], 0);
    assert_int_equal(st.count[ST_BUSY_HOST_MISSES], 0);
    assert_true(st.count[ST_CYCLES] <= 64 * 64ull + 100);
}

/* NT stores with one load from the next 4 KiB page 256 B before it (the
 * _ahead kernels), on a host's 4 KiB pages that the TLB holds 4 of, 64
 * pages, a walk of `walk` cycles; returns the stats. */
static stats_t loads_ahead(machine_t *m, double walk)
{
    tiny_machine(m);
    model_t *md = mk_host_pages(m, 0, walk);
    for (uint64_t p = 0; p < 64; p++) {
        uint64_t page = BASE + p * 4096;
        lines_w(md, TRACE_STORE_NT, page, 60, 64);
        op(md, TRACE_LOAD, page + 4096, 8, 1);
        lines_w(md, TRACE_STORE_NT, page + 60 * 64, 4, 64);
    }
    return finish(md);
}

/* The load's walk holds its own request and the next page's first store,
 * not the issue of the 4 lines between (a cycle each). A walk of 300: page
 * 0's first line walks (300). The load, issued when a page's 60th line has,
 * walks 300; the next page's first line, due 5 cycles after the load,
 * waits for it and completes as it ends: 359 cycles from one page's first
 * line to the next's. Page 63 ends with the last load (from the page past
 * the range): its 60 lines, its walk and its data (100 ns at 1 GHz), which
 * the drain waits for. So 300 + 63 x 359 + 60 + 300 + 100 cycles. The walks
 * bound 300 + 63 x 296 of them and NT issue 63 x 64; the drain counts the
 * last load's lead, at most its walk and its data. At the threshold, a walk
 * as long as the 5 cycles between the load and the next page's first line
 * is hidden; one cycle longer each of pages 0..62 waits a cycle, and the
 * first walk and the last load one more each: 65 cycles more. */
static void test_loads_ahead(void **state)
{
    (void)state;
    machine_t m;
    stats_t st = loads_ahead(&m, 300);
    uint64_t cyc = st.count[ST_CYCLES];
    const uint64_t want = 300 + 63 * 359ull + 60 + 300 + 100;
    assert_true(cyc + 2 >= want && cyc <= want + 2);
    assert_int_equal(bound_sum(&st), cyc);
    assert_true(st.count[ST_BOUND_TLB_WALKS] + 2 >= 300 + 63 * 296ull &&
                st.count[ST_BOUND_TLB_WALKS] <= 300 + 63 * 296ull + 2);
    assert_true(st.count[ST_BOUND_NT_STORE_ISSUE] + 2 >= 63 * 64ull &&
                st.count[ST_BOUND_NT_STORE_ISSUE] <= 63 * 64ull + 2);
    assert_true(st.count[ST_BOUND_DRAM_LATENCY] <= 60 + 300 + 100);
    check_breakdown(&st, &m, ST_BOUND_TLB_WALKS);

    stats_t w4 = loads_ahead(&m, 4), hid = loads_ahead(&m, 5), over = loads_ahead(&m, 6);
    const uint64_t h = hid.count[ST_CYCLES], o = over.count[ST_CYCLES];
    assert_int_equal(h - w4.count[ST_CYCLES], 1 + 1); /* below it, the first walk and the last */
    assert_int_equal(o - h, 63 + 1 + 1);
    assert_true(hid.count[ST_BOUND_TLB_WALKS] <= 5 + 1);
    assert_true(over.count[ST_BOUND_TLB_WALKS] >= 6 + 63);
}

/* Three loads from three new pages back to back, then a line stored to each
 * page: one walk is in flight at a time, so the second load's walk starts
 * when the first's ends and the third's when the second's does; the last
 * store waits for the third walk, the run ends with its load's data. A walk
 * one cycle longer ends the run 3 cycles later (each walk in turn), where
 * walks side by side would move it by 1. */
static uint64_t three_walks(machine_t *m, double walk)
{
    tiny_machine(m);
    model_t *md = mk_host_pages(m, 0, walk);
    for (uint64_t p = 1; p <= 3; p++)
        op(md, TRACE_LOAD, BASE + p * 4096, 8, 1);
    for (uint64_t p = 1; p <= 3; p++)
        lines_w(md, TRACE_STORE_NT, BASE + p * 4096 + 64, 1, 64);
    stats_t st = finish(md);
    assert_int_equal(bound_sum(&st), st.count[ST_CYCLES]);
    assert_int_equal(st.count[ST_TLB_LOAD_MISSES], 3);
    return st.count[ST_CYCLES];
}

static void test_walks_one_at_a_time(void **state)
{
    (void)state;
    machine_t m;
    const uint64_t a = three_walks(&m, 100), b = three_walks(&m, 101);
    assert_true(a >= 3 * 100);
    assert_int_equal(b - a, 3);
}

/* Fast-forward adds the bound events with the rest: a long clear with it on
 * counts within 1% of the same clear simulated exactly, and the sum still
 * equals the cycles. */
static void test_fast_forward_scales_bounds(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.l2.mshrs = 2;
    stats_t st[2];
    for (int ff = 0; ff < 2; ff++) {
        model_t *md = mk(&m);
        model_set_fast_forward(md, ff != 0);
        op(md, TRACE_STORE, BASE, 64ull * 40000, 8 * 40000);
        st[ff] = finish(md);
    }
    for (int ff = 0; ff < 2; ff++) {
        uint64_t cyc = st[ff].count[ST_CYCLES], sum = bound_sum(&st[ff]);
        assert_true(sum + 8 >= cyc && sum <= cyc + 8);
    }
    double a = (double)st[0].count[ST_BOUND_L2_MISS_SLOTS_DRAM];
    double b = (double)st[1].count[ST_BOUND_L2_MISS_SLOTS_DRAM];
    assert_true(b > a * 0.99 && b < a * 1.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_miss_slots_times_dram_latency),
        cmocka_unit_test(test_nt_write_path),
        cmocka_unit_test(test_nt_write_link),
        cmocka_unit_test(test_store_issue),
        cmocka_unit_test(test_faults_and_calls),
        cmocka_unit_test(test_host_misses),
        cmocka_unit_test(test_loads_ahead),
        cmocka_unit_test(test_walks_one_at_a_time),
        cmocka_unit_test(test_fast_forward_scales_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
