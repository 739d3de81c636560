/*
 * test_model.c - the timing model's mechanisms on a tiny machine
 * (tests/tiny_machine.h), each against a hand-computed expectation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include <cmocka.h>

#include "models/dram.h"
#include "models/model.h"
#include "models/prefetch.h"
#include "models/string_op.h"
#include "tests/tiny_machine.h"

#define BASE 0x100000000ull

static model_t *mk(const machine_t *m)
{
    char err[256] = "";
    model_t *md = model_create(m, 1, err, sizeof(err));
    if (!md)
        fail_msg("model_create: %s", err);
    return md;
}

static void op(model_t *md, trace_kind_t kind, uint64_t addr, uint64_t bytes, uint32_t count,
               uint16_t width, uint8_t fill, uint32_t flags)
{
    trace_op_t o = {.addr = addr,
                    .bytes = bytes,
                    .count = count,
                    .width = width,
                    .kind = (uint8_t)kind,
                    .fill = fill,
                    .flags = flags};
    model_op(md, &o);
}

/* n full lines of 8-byte stores of the given kind, one op per store. */
static void lines(model_t *md, trace_kind_t kind, uint64_t addr, uint32_t n)
{
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t s = 0; s < 8; s++)
            op(md, kind, addr + l * 64ull + s * 8, 8, 1, 8, 0, 0);
}

static stats_t finish(model_t *md)
{
    stats_t st;
    model_drain(md);
    model_stats(md, &st);
    return st;
}

/* Write-allocate: every cold line is read for ownership, and each dirty line
 * pushed out of the 4-line L1 is written back to L2. */
static void test_rfo_count(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    lines(md, TRACE_STORE, BASE, 16);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_RFO], 16);
    assert_int_equal(st.count[ST_L1_FILLS_RFO], 16);
    assert_int_equal(st.count[ST_DRAM_READS], 16);
    assert_int_equal(st.bytes[ST_DRAM_READS], 16 * 64);
    assert_int_equal(st.count[ST_L1_WRITEBACKS], 12); /* 16 lines through 4 ways */
    assert_int_equal(st.count[ST_DRAM_WRITES], 0);    /* all still in L2 (16 lines) */
    assert_int_equal(st.count[ST_STORES], 128);
    model_destroy(md);
}

/* Coalesced and per-instruction traces give the same result. */
static void test_coalescing_invariant(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *a = mk(&m), *b = mk(&m);
    lines(a, TRACE_STORE, BASE, 32);
    op(b, TRACE_STORE, BASE, 32 * 64, 256, 8, 0, 0);
    stats_t sa = finish(a), sb = finish(b);
    for (int e = 0; e < ST_EVENT_COUNT; e++) {
        assert_int_equal(sa.count[e], sb.count[e]);
        assert_int_equal(sa.bytes[e], sb.bytes[e]);
    }
    model_destroy(a);
    model_destroy(b);
}

/* A full non-temporal line goes to memory without a read; a partial one is
 * masked (no read) or read-modify-write, as the machine says. */
static void test_nt_full_line_no_read(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    lines(md, TRACE_STORE_NT, BASE, 4);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 0);
    assert_int_equal(st.count[ST_DRAM_WRITES], 4);
    assert_int_equal(st.count[ST_WC_LINES], 4);
    assert_int_equal(st.count[ST_WC_PARTIAL], 0);
    assert_int_equal(st.count[ST_RFO], 0);
    model_destroy(md);

    md = mk(&m); /* masked partial line */
    op(md, TRACE_STORE_NT, BASE, 8, 1, 8, 0, 0);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 0);
    assert_int_equal(st.count[ST_WC_PARTIAL], 1);
    assert_int_equal(st.bytes[ST_DRAM_WRITES], 8);
    model_destroy(md);

    m.nt_partial = MACHINE_NT_PARTIAL_RMW;
    md = mk(&m);
    op(md, TRACE_STORE_NT, BASE, 8, 1, 8, 0, 0);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 1);
    model_destroy(md);
}

/* An NT store to a cached line invalidates the cached copy. */
static void test_nt_invalidates(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    lines(md, TRACE_STORE, BASE, 1); /* line now dirty in L1 */
    lines(md, TRACE_STORE_NT, BASE, 1);
    lines(md, TRACE_STORE, BASE, 1); /* must miss again */
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_L1_MISSES], 2);
    assert_int_equal(st.count[ST_L1_HITS], 0);
    model_destroy(md);
}

/* sfence waits for the WC buffers: 8 NT stores issue by cycle 8, the line is
 * handed to memory at 8 and acknowledged 50 cycles later; the fence stalls
 * from 8 to 58. */
static void test_fence_waits_for_wc(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    lines(md, TRACE_STORE_NT, BASE, 1);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    stats_t st;
    model_stats(md, &st);
    assert_int_equal(st.count[ST_FENCE_STALL_CYCLES], 50);
    assert_int_equal(st.count[ST_CYCLES], 58);
    model_destroy(md);

    /* With one WC buffer, the second line waits for the first's ack (58),
     * so the fence after two lines ends at 58 + 50 = 108. */
    m.wc_buffers = 1;
    md = mk(&m);
    lines(md, TRACE_STORE_NT, BASE, 2);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 108);
    model_destroy(md);
}

/* Victim L3: filled only by L2 evictions, never by memory fills. A
 * non-inclusive L3 is filled by memory fills too. */
static void test_victim_l3(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    for (int i = 0; i < 16; i++)
        op(md, TRACE_LOAD, BASE + 64ull * i, 8, 1, 8, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_L3_FILLS], 0); /* L2 holds all 16 */
    model_destroy(md);

    md = mk(&m);
    for (int i = 0; i < 17; i++)
        op(md, TRACE_LOAD, BASE + 64ull * i, 8, 1, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_L3_FILLS], 1); /* line 0, evicted by line 16 */
    assert_int_equal(st.count[ST_L2_WRITEBACKS], 0);
    /* Reading line 0 again hits L3 and moves it back up (exclusive). */
    op(md, TRACE_LOAD, BASE, 8, 1, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_L3_HITS], 1);
    model_destroy(md);

    /* l3.foreign_fills: other cores fill 4096 B a cycle into the 4-set L3,
     * 16 lines a cycle into each set: by the time line 0 is read again (its
     * L3 copy is cycles old) 16 foreign lines have pushed it out of its
     * 16-way set, so it comes from memory */
    m.l3_foreign_bpc = 4096;
    m.fault_4k_ns = 1000; /* a fault elsewhere: 1000 cycles with no L3 access */
    md = mk(&m);
    for (int i = 0; i < 17; i++)
        op(md, TRACE_LOAD, BASE + 64ull * i, 8, 1, 8, 0, 0);
    op(md, TRACE_FAULT, BASE + (1ull << 30), 4096, 0, 0, 0, 0);
    op(md, TRACE_LOAD, BASE, 8, 1, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_L3_FILLS],
                     2); /* line 0, then line 1 (evicted by line 0's refill) */
    assert_int_equal(st.count[ST_L3_HITS], 0);
    assert_int_equal(st.count[ST_DRAM_READS], 18);
    model_destroy(md);
    /* the same gap without foreign fills: line 0 is still in L3 */
    m.l3_foreign_bpc = 0;
    md = mk(&m);
    for (int i = 0; i < 17; i++)
        op(md, TRACE_LOAD, BASE + 64ull * i, 8, 1, 8, 0, 0);
    op(md, TRACE_FAULT, BASE + (1ull << 30), 4096, 0, 0, 0, 0);
    op(md, TRACE_LOAD, BASE, 8, 1, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_L3_HITS], 1);
    model_destroy(md);

    m.l3.incl = MACHINE_INCL_NINE;
    md = mk(&m);
    for (int i = 0; i < 17; i++)
        op(md, TRACE_LOAD, BASE + 64ull * i, 8, 1, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_L3_FILLS], 17);
    model_destroy(md);
}

/* l2.writeback_link: 16 lines written, then written again. The second pass
 * misses L1 on every line (4-line L1), finds it in L2 and pushes out a dirty
 * L1 line each time: 16 fills of 4 cycles each over a 16 B/cycle link, with
 * one 64-byte store per line (1 cycle) and 8 fill buffers, so the link binds:
 * separate, 16 x 4 cycles plus the L2 latency (10) and 2 of issue and commit.
 * Shared: each write-back also takes the link, 4 cycles right after its
 * line's fill, so the 15 write-backs ahead of the last fill add 60 cycles
 * (the 16th crosses after it, when nothing waits). A link of no bandwidth
 * limit (l2.bandwidth 0) costs nothing either way. */
static uint64_t second_pass(uint32_t fill_bpc, machine_link_t link)
{
    machine_t m;
    tiny_machine(&m);
    m.l2.fill_bpc = fill_bpc;
    m.l2_wb_link = link;
    model_t *md = mk(&m);
    for (int i = 0; i < 16; i++)
        op(md, TRACE_STORE, BASE + 64ull * i, 64, 1, 64, 0, 0);
    stats_t a = finish(md);
    for (int i = 0; i < 16; i++)
        op(md, TRACE_STORE, BASE + 64ull * i, 64, 1, 64, 0, 0);
    stats_t b = finish(md);
    assert_int_equal(b.count[ST_L2_HITS] - a.count[ST_L2_HITS], 16);
    assert_int_equal(b.count[ST_L1_WRITEBACKS] - a.count[ST_L1_WRITEBACKS], 16);
    model_destroy(md);
    return b.count[ST_CYCLES] - a.count[ST_CYCLES];
}

static void test_l2_writeback_link(void **state)
{
    (void)state;
    uint64_t sep = second_pass(16, MACHINE_LINK_SEPARATE);
    uint64_t sh = second_pass(16, MACHINE_LINK_SHARED);
    if (sep != 16 * 4 + 10 + 2 || sh != sep + 15 * 4)
        fail_msg("second pass: %llu cycles separate (want 76), %llu shared (want 136)",
                 (unsigned long long)sep, (unsigned long long)sh);
    assert_int_equal(second_pass(0, MACHINE_LINK_SHARED), second_pass(0, MACHINE_LINK_SEPARATE));
}

/* Dirty data leaves the hierarchy: 128 written lines through 16-line L2 and
 * 64-line victim L3 write 128 - 64 - 16 = 48 lines back to memory. */
static void test_dirty_writebacks_reach_memory(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    model_t *md = mk(&m);
    op(md, TRACE_STORE, BASE, 128 * 64, 1024, 8, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 128);
    assert_int_equal(st.count[ST_DRAM_WRITES], 48);
    assert_int_equal(st.count[ST_L3_WRITEBACKS], 48);
    model_destroy(md);
}

/* Stream prefetcher: trained after 2 accesses, degree 4, distance 8, never
 * past a 4 KiB boundary unless next_page and the next page is in the same
 * contiguous block. */
static void test_prefetch_boundary(void **state)
{
    (void)state;
    machine_prefetch_t c = {.enabled = true,
                            .train_lines = 2,
                            .degree_lines = 4,
                            .distance_lines = 8,
                            .boundary_bytes = 4096};
    pf_t *p = pf_create(&c, 64);
    uint64_t out[16];
    uint64_t page = 0x10000;
    assert_int_equal(pf_access(p, page + 56 * 64, out, 16), 0); /* first access */
    /* second: trained; lines 58..61 (degree 4, within distance 8) */
    assert_int_equal(pf_access(p, page + 57 * 64, out, 16), 4);
    assert_int_equal(out[0], page + 58 * 64);
    assert_int_equal(out[3], page + 61 * 64);
    /* third access (58): 62, 63 only - the page ends at line 63 */
    assert_int_equal(pf_access(p, page + 58 * 64, out, 16), 2);
    assert_int_equal(out[1], page + 63 * 64);
    assert_int_equal(pf_access(p, page + 59 * 64, out, 16), 0);
    pf_destroy(p);

    /* next_page inside a 2 MiB block: the stream runs on into the next page */
    c.next_page = true;
    p = pf_create(&c, 64);
    pf_set_contig(p, 2u << 20);
    pf_access(p, page + 56 * 64, out, 16);
    pf_access(p, page + 57 * 64, out, 16);
    assert_int_equal(pf_access(p, page + 58 * 64, out, 16), 4); /* 62, 63, 64, 65 */
    assert_int_equal(out[2], page + 64 * 64);
    /* the demand stream enters the next page: the stream is carried over
     * (no retraining) and keeps prefetching */
    pf_access(p, page + 59 * 64, out, 16);
    pf_access(p, page + 60 * 64, out, 16);
    pf_access(p, page + 61 * 64, out, 16);
    pf_access(p, page + 62 * 64, out, 16);
    pf_access(p, page + 63 * 64, out, 16);
    assert_true(pf_access(p, page + 64 * 64, out, 16) > 0);
    pf_destroy(p);

    /* ... but not across the contiguous block's end */
    p = pf_create(&c, 64);
    pf_set_contig(p, 4096);
    pf_access(p, page + 56 * 64, out, 16);
    pf_access(p, page + 57 * 64, out, 16);
    assert_int_equal(pf_access(p, page + 58 * 64, out, 16), 2);
    pf_destroy(p);
}

/* A string op's lookahead crosses a 4 KiB boundary within the op. Hand
 * computation (memory latency 100, 1 line per cycle, window 16 lines, no
 * startup): line k is requested at max(k + 1, commit(k - 16)) and commits
 * 100 + 1 cycles after its request, in order. Lines 0..15 commit at k + 102;
 * each later group of 16 at +85 more than the one before, so line k commits
 * at k + 102 + 85 * (k / 16) and line 127 at 824. In particular line 64 (the
 * first of the second page) is requested when line 48 has committed (405),
 * long before line 63 (420): the lookahead ran across the page boundary.
 * With a fence at the boundary, line 64 is requested at 421 instead and the
 * second page repeats the ramp (worked out below). */
static void test_string_lookahead_crosses_page(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.l2.size_bytes = 64 * 1024; /* big enough: no evictions to memory */
    m.l2.sets = 64;
    m.l2.mshrs = 64;
    m.l1.mshrs = 64;
    stats_t st;

    model_t *md = mk(&m);
    op(md, TRACE_STRING, BASE, 8192, 1, 1, 0, 0);
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 824);
    model_destroy(md);

    /* Two 4 KiB ops back to back: the second starts while the first's last
     * lines are in flight, so nothing is lost at the op boundary here. */
    md = mk(&m);
    op(md, TRACE_STRING, BASE, 4096, 1, 1, 0, 0);
    op(md, TRACE_STRING, BASE + 4096, 4096, 1, 1, 0, 0);
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 824);
    model_destroy(md);

    /* A fence at the boundary: line 63 commits at 420, line 64 is requested
     * at 421 and commits at 522, and line 127 at 522 + 63 + 85 * 3 = 840. */
    md = mk(&m);
    op(md, TRACE_STRING, BASE, 4096, 1, 1, 0, 0);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    op(md, TRACE_STRING, BASE + 4096, 4096, 1, 1, 0, 0);
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 840);
    model_destroy(md);
}

/* string.ordered_end and string.end_wait: two 4-line string ops (cold,
 * 256 B each), the second after the first. The engine issues a line a cycle
 * (t = 1..4); a line's data is back 100 cycles after its request at an idle
 * read link and commits a cycle later.
 *  - unordered: the second op overlaps the first: 109 cycles;
 *  - commit, idle link: the first op ends at its last commit (105), the
 *    second's lines are requested at 106..109 and its last commits at 210;
 *  - answer, idle link: the first op ends when its last line is answered,
 *    4 + 100 = 104 (a cycle before that line's commit), so 209;
 *  - with a read link of 64 cycles a line, data arrive at 101, 165, 229, 293
 *    (committed 294). Commit: the second op starts at 294 and its lines
 *    leave the link at 295 + 3 x 64 = 487, data at 587, commit 588.
 *    Answer: the first op ends at max(min(ready, t + 100)) = 104, and the
 *    second op's requests queue behind the first's on the link: its last
 *    line leaves at 193 + 4 x 64 = 449, data 549, commit 550, as unordered:
 *    a call's latency is exposed only while the link is idle. */
static void test_string_end_wait(void **state)
{
    (void)state;
    static const struct {
        bool ordered;
        machine_end_wait_t wait;
        double read_bpc; /* 0: no limit */
        uint64_t cycles;
    } cases[] = {
        {false, MACHINE_END_WAIT_COMMIT, 0, 109}, {true, MACHINE_END_WAIT_COMMIT, 0, 210},
        {true, MACHINE_END_WAIT_ANSWER, 0, 209},  {false, MACHINE_END_WAIT_ANSWER, 0, 109},
        {false, MACHINE_END_WAIT_COMMIT, 1, 550}, {true, MACHINE_END_WAIT_COMMIT, 1, 588},
        {true, MACHINE_END_WAIT_ANSWER, 1, 550},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        machine_t m;
        tiny_machine(&m);
        m.string_ordered_end = cases[i].ordered;
        m.string_end_wait = cases[i].wait;
        if (cases[i].read_bpc > 0) {
            m.mem_read_bpc = cases[i].read_bpc;
            m.mem_write_bpc = 64;
            m.mem_combined_bpc = 64;
        }
        model_t *md = mk(&m);
        op(md, TRACE_STRING, BASE, 256, 1, 1, 0, 0);
        op(md, TRACE_STRING, BASE + 8192, 256, 1, 1, 0, 0);
        stats_t st = finish(md);
        if (st.count[ST_CYCLES] != cases[i].cycles)
            fail_msg("case %zu: %llu cycles, expected %llu", i,
                     (unsigned long long)st.count[ST_CYCLES], (unsigned long long)cases[i].cycles);
        model_destroy(md);
    }
}

/* string.l1_fill_buffers: when the string engine's requests hold L1 fill
 * buffers, 8 of them bound a cold clear to 8 lines in flight; tracked at L2
 * they are bound by the lookahead (16 lines) and the L2's 16 miss slots, so
 * the same clear takes half as long once the round trips dominate. With 16
 * fill buffers the L1 never binds, and both give the same cycle count. */
static void test_string_l1_fill_buffers(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.l2.mshrs = 16;
    uint64_t cyc[2][2];
    for (int fb16 = 0; fb16 < 2; fb16++) {
        m.l1.mshrs = fb16 ? 16 : 8;
        for (int l1 = 0; l1 < 2; l1++) {
            m.string_l1_slots = l1;
            model_t *md = mk(&m);
            op(md, TRACE_STRING, BASE, 512 * 64, 1, 1, 0, 0);
            stats_t st = finish(md);
            cyc[fb16][l1] = st.count[ST_CYCLES];
            assert_int_equal(st.count[ST_RFO], 512); /* tracked elsewhere, still read */
            model_destroy(md);
        }
    }
    double ratio = (double)cyc[0][1] / (double)cyc[0][0];
    if (ratio < 1.8 || ratio > 2.2)
        fail_msg("8 fill buffers: %llu cycles held in L1, %llu tracked at L2 (ratio %.2f, want ~2)",
                 (unsigned long long)cyc[0][1], (unsigned long long)cyc[0][0], ratio);
    assert_int_equal(cyc[1][1], cyc[1][0]);
    assert_int_equal(cyc[1][0], cyc[0][0]); /* tracked at L2: the fill buffers play no part */
}

/* core.rfo_window: 70 cold lines cleared by stores of `width` bytes, no
 * prefetchers, memory 100 cycles away, no bandwidth limit, 8 L1 fill
 * buffers, a store buffer of `entries`. Returns the cycles. */
static uint64_t rfo_window_clear(machine_rfo_window_t mode, uint32_t entries, uint16_t width)
{
    machine_t m;
    tiny_machine(&m);
    m.l1.size_bytes = 1024; /* 16 lines: the lines in flight stay in L1 */
    m.l1.ways = 16;
    m.l1.sets = 1;
    m.l2.size_bytes = 64 * 1024; /* and in L2: nothing is written back */
    m.l2.sets = 64;
    m.store_buffer_entries = entries;
    m.rfo_window = mode;
    model_t *md = mk(&m);
    op(md, TRACE_STORE, BASE, 70 * 64, 70 * 64 / width, width, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_RFO], 70);
    model_destroy(md);
    return st.count[ST_CYCLES];
}

/* core.rfo_window by hand. Eight 8-byte stores a line issue in 8 cycles and
 * commit 8 cycles after the line arrives, 100 cycles after its RFO. A store
 * buffer of 56 entries holds 7 lines: line 7 asks for ownership only when
 * line 0 commits (116), so each 7 lines take 108 cycles, and line
 * 69 = 7 x 9 + 6 commits at 116 + 9 x 108 + 6 x 8 = 1136. With fill_buffers
 * the 8 fill buffers hold 8 lines: line 69 = 8 x 8 + 5 commits at
 * 116 + 8 x 108 + 5 x 8 = 1020. At the threshold, a store buffer of 64
 * entries already holds the 8 lines and the mode changes nothing; with one
 * 64-byte store a line the fill buffers bind in both modes. */
static void test_rfo_window(void **state)
{
    (void)state;
    assert_int_equal(rfo_window_clear(MACHINE_RFO_STORE_BUFFER, 56, 8), 1136);
    assert_int_equal(rfo_window_clear(MACHINE_RFO_FILL_BUFFERS, 56, 8), 1020);
    assert_int_equal(rfo_window_clear(MACHINE_RFO_STORE_BUFFER, 64, 8), 1020);
    assert_int_equal(rfo_window_clear(MACHINE_RFO_FILL_BUFFERS, 64, 8), 1020);
    assert_int_equal(rfo_window_clear(MACHINE_RFO_STORE_BUFFER, 56, 64),
                     rfo_window_clear(MACHINE_RFO_FILL_BUFFERS, 56, 64));
}

/* prefetch.stores: a next-line prefetcher (train 2, degree 1, distance 1)
 * over 16 lines of one page issues for lines 2..16, 15 lines, whether the
 * lines are stored (stores: true) or loaded; with stores: false a store
 * stream issues none, a load stream still 15. At L2 the same with the L1
 * prefetcher off: every line misses L1, and the L2 prefetcher trains on the
 * RFOs only when its stores key says so. */
static void test_prefetch_stores(void **state)
{
    (void)state;
    for (int level = 1; level <= 2; level++) {
        for (int stores = 0; stores < 2; stores++) {
            for (int load = 0; load < 2; load++) {
                machine_t m;
                tiny_machine(&m);
                machine_prefetch_t *p = level == 1 ? &m.l1.prefetch : &m.l2.prefetch;
                *p = (machine_prefetch_t){.enabled = true,
                                          .train_lines = 2,
                                          .degree_lines = 1,
                                          .distance_lines = 1,
                                          .boundary_bytes = 4096,
                                          .stores = stores};
                model_t *md = mk(&m);
                lines(md, load ? TRACE_LOAD : TRACE_STORE, BASE, 16);
                stats_t st = finish(md);
                uint64_t got = st.count[level == 1 ? ST_L1_PREFETCH : ST_L2_PREFETCH];
                uint64_t want = stores || load ? 15 : 0;
                if (got != want)
                    fail_msg("L%d prefetcher, stores %d, %s stream: %llu prefetches, want %llu",
                             level, stores, load ? "load" : "store", (unsigned long long)got,
                             (unsigned long long)want);
                model_destroy(md);
            }
        }
    }
}

/* Startup table: linear between points, flat outside. */
static void test_startup_interpolation(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.n_startup = 3;
    m.startup[0] = (machine_point_t){.len_bytes = 0, .cycles = 30};
    m.startup[1] = (machine_point_t){.len_bytes = 4096, .cycles = 50};
    m.startup[2] = (machine_point_t){.len_bytes = 8192, .cycles = 90};
    assert_true(string_startup_cycles(&m, 0) == 30);
    assert_true(string_startup_cycles(&m, 2048) == 40);
    assert_true(string_startup_cycles(&m, 4095) > 49.99 && string_startup_cycles(&m, 4095) < 50);
    assert_true(string_startup_cycles(&m, 4096) == 50);
    assert_true(string_startup_cycles(&m, 6144) == 70);
    assert_true(string_startup_cycles(&m, 1u << 30) == 90);
}

/* Elision threshold: at threshold - 1 the op allocates (RFO per line), at
 * the threshold no line is read. In `remaining` mode only the lines with at
 * least threshold bytes left are elided. */
static void test_elide_threshold(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.elide_enabled = true;
    m.elide_threshold_bytes = 2048;
    assert_false(string_elides(&m, 2047, 2047, 0, false));
    assert_true(string_elides(&m, 2048, 2048, 0, false));
    m.elide_zero_only = true;
    assert_false(string_elides(&m, 4096, 4096, 1, false));
    assert_true(string_elides(&m, 4096, 4096, 0, false));
    assert_true(string_elides(&m, 64, 64, 5, true)); /* MOPS N forms never allocate */
    m.elide_zero_only = false;

    model_t *md = mk(&m);
    op(md, TRACE_STRING, BASE, 2048 - 64, 1, 1, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_RFO], 31);
    assert_int_equal(st.count[ST_STRING_ELIDED_LINES], 0);
    model_destroy(md);

    md = mk(&m);
    op(md, TRACE_STRING, BASE, 2048, 1, 1, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_RFO], 0);
    assert_int_equal(st.count[ST_DRAM_READS], 0);
    assert_int_equal(st.count[ST_STRING_ELIDED_LINES], 32);
    model_destroy(md);

    m.elide_mode = MACHINE_ELIDE_REMAINING;
    md = mk(&m);
    op(md, TRACE_STRING, BASE, 4096, 1, 1, 0, 0);
    st = finish(md);
    /* lines with >= 2048 bytes remaining: the first 33 (4096 - 64*32 = 2048) */
    assert_int_equal(st.count[ST_STRING_ELIDED_LINES], 33);
    assert_int_equal(st.count[ST_RFO], 31);
    model_destroy(md);
}

/* Write streaming: the first enter_lines - 1 full-line misses allocate; from
 * the enter_lines-th on, lines bypass L1; a partial line, a kernel call or a
 * fault ends the run; the l2 / l3 thresholds count the run from its first
 * line. */
static void test_write_streaming(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.ws_enabled = true;
    m.ws_enter_lines = 4;
    model_t *md = mk(&m);
    op(md, TRACE_STORE, BASE, 3 * 64, 24, 8, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_WS_ENTRIES], 0); /* threshold - 1 */
    assert_int_equal(st.count[ST_RFO], 3);
    op(md, TRACE_STORE, BASE + 3 * 64, 64, 8, 8, 0, 0);
    op(md, TRACE_STORE, BASE + 4 * 64, 4 * 64, 32, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_WS_ENTRIES], 1); /* at threshold */
    assert_int_equal(st.count[ST_RFO], 3);        /* lines 3..7 not read */
    assert_int_equal(st.count[ST_L1_NOALLOC], 5);
    op(md, TRACE_STORE, BASE + 8 * 64, 8, 1, 8, 0, 0); /* partial line */
    st = finish(md);
    assert_int_equal(st.count[ST_WS_EXITS], 1);
    assert_int_equal(st.count[ST_RFO], 4);
    model_destroy(md);

    /* The thresholds count the run from its first line: with l2 = 6 lines and
     * l3 = 7 lines, lines 0..2 allocate (RFO), 3..5 go to L2, line 6 (run
     * 448 B > 384) skips L2 into L3, line 7 (512 B > 448) skips L3 too. */
    m.ws_l2_bytes = 6 * 64;
    m.ws_l3_bytes = 7 * 64;
    md = mk(&m);
    op(md, TRACE_STORE, BASE, 8 * 64, 64, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_RFO], 3);
    assert_int_equal(st.count[ST_L2_FILLS], 3 + 3); /* 3 RFO fills + 3 streamed into L2 */
    assert_int_equal(st.count[ST_L3_FILLS], 1);     /* line 6 */
    assert_int_equal(st.count[ST_DRAM_WRITES], 1);  /* line 7, around every cache */
    /* A kernel call (its caller's own stores) ends the run: the next run's
     * first 3 lines allocate again. So does a fault. */
    op(md, TRACE_CALL_BEGIN, BASE + 8 * 64, 8 * 64, 0, 0, 0, 0);
    op(md, TRACE_STORE, BASE + 8 * 64, 4 * 64, 32, 8, 0, 0);
    op(md, TRACE_FAULT, BASE + 12 * 64, 4096, 0, 0, 0, 0);
    op(md, TRACE_STORE, BASE + 12 * 64, 4 * 64, 32, 8, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_WS_EXITS], 2);
    assert_int_equal(st.count[ST_WS_ENTRIES], 3);
    assert_int_equal(st.count[ST_RFO], 3 + 3 + 3);
    model_destroy(md);

    /* A DC ZVA enters the mode at once: none of its lines allocates in L1;
     * the thresholds still count from the first line (lines 0..5 to L2,
     * line 6 to L3, line 7 around the caches). */
    m.lz_policy = MACHINE_LZ_ALLOCATE;
    md = mk(&m);
    for (int i = 0; i < 8; i++)
        op(md, TRACE_LINE_ZERO, BASE + 64ull * i, 64, 1, 64, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_WS_ENTRIES], 1);
    assert_int_equal(st.count[ST_L1_FILLS_NOREAD], 0);
    assert_int_equal(st.count[ST_L2_FILLS], 6);
    assert_int_equal(st.count[ST_L3_FILLS], 1);
    assert_int_equal(st.count[ST_DRAM_WRITES], 1);
    model_destroy(md);
}

/* CLZERO with the memory policy: no read, line written around the caches. */
static void test_line_zero(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.lz_policy = MACHINE_LZ_MEMORY;
    model_t *md = mk(&m);
    for (int i = 0; i < 8; i++)
        op(md, TRACE_LINE_ZERO, BASE + 64ull * i, 64, 1, 64, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 0);
    assert_int_equal(st.count[ST_DRAM_WRITES], 8);
    model_destroy(md);

    m.lz_policy = MACHINE_LZ_ALLOCATE;
    md = mk(&m);
    for (int i = 0; i < 8; i++)
        op(md, TRACE_LINE_ZERO, BASE + 64ull * i, 64, 1, 64, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_DRAM_READS], 0);
    assert_int_equal(st.count[ST_L1_FILLS_NOREAD], 8);
    model_destroy(md);
}

/* memory.turnaround: 1 GHz, a 64 B/cycle bus (1 cycle a line), turnaround
 * 8 ns and batches of 4 writes, so a write of a batch that reads interleave
 * with pays 2 x 8 / 4 = 4 cycles more. Eight writes alone: 8 cycles of bus.
 * One read, then eight writes: the read's cycle, the first batch (which
 * follows a read) 4 x 5, the second 4 x 1: 25. A read between the batches
 * turns only the second: 4 + 1 + 20 = 25. No turnaround: 9. */
static double bus_cycles(double turn_ns, const char *pattern)
{
    machine_t m;
    tiny_machine(&m);
    m.mem_combined_bpc = 64;
    m.mem_turnaround_ns = turn_ns;
    m.mem_write_queue = 4;
    dram_t *d = dram_create(&m);
    assert_non_null(d);
    for (const char *p = pattern; *p; p++)
        if (*p == 'r')
            dram_read(d, 0);
        else
            dram_write(d, 0, DRAM_LINE_DATA);
    double c = dram_drain(d, 0);
    dram_destroy(d);
    return c;
}

static void test_dram_turnaround(void **state)
{
    (void)state;
    assert_true(bus_cycles(8, "wwwwwwww") == 8);
    assert_true(bus_cycles(8, "rwwwwwwww") == 25);
    assert_true(bus_cycles(8, "wwwwrwwww") == 25);
    assert_true(bus_cycles(0, "rwwwwwwww") == 9);
}

/* Attribution of a read that waits for the bus: to the write link when the
 * write ahead of it took the bus only when the link let it go, else to the
 * bus. Bus and link in cycles a line (64 B / bytes a cycle), two writes then
 * a read, all at t = 0:
 *  - link 8, bus 1: the second write starts at 8 (the link), holds the bus
 *    to 9; the read starts at 9, waiting for the write link;
 *  - link 1, bus 8: the second write starts at 1, the bus is busy to 8 with
 *    the first and to 16 with it; the read starts at 16, waiting for the bus. */
static stats_bound_t read_behind_writes(double write_bpc, double bus_bpc, double *start)
{
    machine_t m;
    tiny_machine(&m);
    m.mem_read_bpc = 64;
    m.mem_write_bpc = write_bpc;
    m.mem_combined_bpc = bus_bpc;
    m.mem_write_queue = 4;
    dram_t *d = dram_create(&m);
    assert_non_null(d);
    dram_write(d, 0, DRAM_LINE_DATA);
    dram_write(d, 0, DRAM_LINE_DATA);
    *start = dram_read(d, 0) - m.mem_latency_ns * m.freq_ghz;
    stats_bound_t why = dram_why(d);
    dram_destroy(d);
    return why;
}

static void test_dram_read_behind_write_why(void **state)
{
    (void)state;
    double start;
    assert_int_equal(read_behind_writes(8, 64, &start), STATS_BOUND(ST_BOUND_MEM_WRITE_LINK));
    assert_true(fabs(start - 9) < 1e-9);
    assert_int_equal(read_behind_writes(64, 8, &start), STATS_BOUND(ST_BOUND_MEM_BUS));
    assert_true(fabs(start - 16) < 1e-9);
}

/* memory.zero_data_fraction: a full line of zero data from NT stores costs
 * that share of a data line on the write link; a partial line, a line of
 * other data and a line a zeroing operation writes do not. 1 GHz, a write
 * link of 1 B/cycle (64 cycles a line), a write latency of 1 cycle, so the
 * link binds: eight full lines of zeros take 8 x 64 x 0.5 = 256 cycles of
 * link, of 0x5a 8 x 64 = 512; lines of seven 8-byte stores (56 B, one
 * store short of the line) cost as data whatever they hold. */
static void zero_data_machine(machine_t *m, double zero_data, double write_latency_ns)
{
    tiny_machine(m);
    m->mem_write_bpc = 1;
    m->mem_write_latency_ns = write_latency_ns;
    m->mem_zero_data_fraction = zero_data;
    m->mem_zero_write_fraction = 0.25; /* zeroing operations' lines only */
}

static uint64_t nt_cycles_most(double zero_data, uint8_t fill, uint32_t stores_a_line,
                               uint32_t most)
{
    machine_t m;
    zero_data_machine(&m, zero_data, 1);
    m.mem_zero_data_stores = most;
    model_t *md = mk(&m);
    for (uint32_t l = 0; l < 8; l++)
        for (uint32_t s = 0; s < stores_a_line; s++)
            op(md, TRACE_STORE_NT, BASE + l * 64ull + s * (64 / stores_a_line), 64 / stores_a_line,
               1, (uint16_t)(64 / stores_a_line), fill, 0);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    stats_t st = finish(md);
    model_destroy(md);
    return st.count[ST_CYCLES];
}

static uint64_t nt_cycles(double zero_data, uint8_t fill, uint32_t stores_a_line)
{
    return nt_cycles_most(zero_data, fill, stores_a_line, 0);
}

static void test_nt_zero_data(void **state)
{
    (void)state;
    uint64_t data = nt_cycles(0.5, 0x5a, 8), zeros = nt_cycles(0.5, 0, 8);
    assert_int_equal(data - zeros, 8 * 64 / 2);
    assert_int_equal(nt_cycles(1, 0, 8), data); /* the default: data does not matter */
    assert_int_equal(nt_cycles(0.5, 0, 7), nt_cycles(0.5, 0x5a, 7)); /* partial lines (63 B) */
    /* memory.zero_data_stores: a line of zeros costs less only when written with at most
     * that many stores; 8 MOVNTI-like stores at the threshold 8 and one store under it */
    assert_int_equal(nt_cycles_most(0.5, 0, 8, 8), zeros);
    assert_int_equal(nt_cycles_most(0.5, 0, 8, 7), data);
    assert_int_equal(nt_cycles_most(0.5, 0, 1, 1), nt_cycles(0.5, 0, 1));
    assert_int_equal(nt_cycles_most(0.5, 0, 2, 1), nt_cycles(0.5, 0x5a, 2));
    assert_int_equal(nt_cycles(0.5, 0x5a, 2) - nt_cycles(0.5, 0, 2), 8 * 64 / 2);
    /* the link's own share: a line of zeros at 0.5 takes 32 cycles */
    machine_t m;
    zero_data_machine(&m, 0.5, 50);
    dram_t *d = dram_create(&m);
    assert_non_null(d);
    assert_true(dram_write(d, 0, DRAM_LINE_ZEROS) == 50); /* acknowledged at the write latency */
    assert_true(dram_drain(d, 0) == 32);                  /* its link time */
    dram_write(d, 0, DRAM_LINE_ZEROS);
    dram_write(d, 0, DRAM_LINE_DATA);
    dram_write(d, 0, DRAM_LINE_ZEROING);
    assert_true(dram_drain(d, 0) == 32 + 32 + 64 + 16);
    dram_destroy(d);
}

/* memory.zero_writeback_fraction: the write-back of a cached line that holds
 * zeros costs that share of a data line on the write link. A write-allocate
 * clear of 2048 lines (8-byte stores, 128 times the caches' 84 lines) with
 * a write link of 1 B/cycle (64 cycles a data line), which binds (8 L1 miss
 * slots read a line each per 100 cycles, 12.5 a line): every line is read,
 * written and, but for the lines still cached at the end, written back.
 * Zeros at 0.5 save 32 cycles a write-back; at 1 (the default) zeros cost as
 * data; a line written with seven 8-byte stores of zeros (56 B: part of a
 * line, whose rest came from memory) is data whatever the fraction. */
/* then: a second op over the first 8 bytes of each line, of that fill (-1: none) */
static uint64_t wb_cycles_then(double fraction, uint8_t fill, uint32_t stores_a_line, int then,
                               uint64_t *wb)
{
    machine_t m;
    tiny_machine(&m);
    m.mem_write_bpc = 1;
    m.mem_write_latency_ns = 1;
    m.mem_zero_writeback_fraction = fraction;
    model_t *md = mk(&m);
    for (uint32_t l = 0; l < 2048; l++) {
        op(md, TRACE_STORE, BASE + l * 64ull, stores_a_line * 8ull, stores_a_line, 8, fill, 0);
        if (then >= 0)
            op(md, TRACE_STORE, BASE + l * 64ull, 8, 1, 8, (uint8_t)then, 0);
    }
    stats_t st = finish(md);
    model_destroy(md);
    *wb = st.count[ST_DRAM_WRITES];
    return st.count[ST_CYCLES];
}

static uint64_t wb_cycles(double fraction, uint8_t fill, uint32_t stores_a_line, uint64_t *wb)
{
    return wb_cycles_then(fraction, fill, stores_a_line, -1, wb);
}

static void test_writeback_zeros(void **state)
{
    (void)state;
    uint64_t wb_data, wb_zeros, wb;
    uint64_t data = wb_cycles(0.5, 0x5a, 8, &wb_data), zeros = wb_cycles(0.5, 0, 8, &wb_zeros);
    assert_int_equal(wb_data, wb_zeros);
    assert_true(wb_data >= 2048 - 84 && wb_data <= 2048);
    /* the link's time, 64 cycles a write-back of data and 32 of zeros, after the
     * caches' 84 lines have filled at 12.5 cycles a line (1050) */
    assert_true(data >= wb_data * 64 + 1000 && data <= wb_data * 64 + 1200);
    assert_true(zeros >= wb_zeros * 32 + 1000 && zeros <= wb_zeros * 32 + 1200);
    assert_true(data - zeros + 100 >= wb_data * 32 && data - zeros <= wb_data * 32 + 100);
    /* threshold: at 1 zeros are data, cycle for cycle */
    assert_int_equal(wb_cycles(1, 0, 8, &wb), wb_cycles(1, 0x5a, 8, &wb));
    assert_int_equal(wb_cycles(1, 0, 8, &wb), data);
    /* part of a line: data */
    assert_int_equal(wb_cycles(0.5, 0, 7, &wb), wb_cycles(0.5, 0x5a, 7, &wb));
    /* a whole line of zeros, then 8 bytes of zeros over it: still zeros (within the
     * 300 cycles: the second op adds a store a line, mostly hidden behind the link); 8
     * bytes of data over it: data (likewise) */
    uint64_t z_then_z = wb_cycles_then(0.5, 0, 8, 0, &wb);
    assert_int_equal(wb, wb_zeros);
    assert_true(z_then_z >= zeros && z_then_z <= zeros + 300);
    uint64_t z_then_d = wb_cycles_then(0.5, 0, 8, 0x5a, &wb);
    assert_int_equal(wb, wb_data);
    assert_true(z_then_d >= data && z_then_d <= data + 300);
    /* the link's own share: a written-back line of zeros at 0.5 takes 32 cycles */
    machine_t m;
    tiny_machine(&m);
    m.mem_write_bpc = 1;
    m.mem_zero_writeback_fraction = 0.5;
    dram_t *d = dram_create(&m);
    assert_non_null(d);
    dram_write(d, 0, DRAM_LINE_WB_ZEROS);
    dram_write(d, 0, DRAM_LINE_DATA);
    assert_true(dram_drain(d, 0) == 32 + 64);
    dram_destroy(d);
}

/* Exact bulk stepping on the tiny machine. Every set count is below the
 * commit ring's 4096 lines, so the period P is 4096 lines. A 2 MiB run of
 * 8-byte stores (32768 lines, 8 periods): the snapshot is taken at op line
 * P, when the ring is not full yet (the lines still in the store and fill
 * buffers have not committed), so the comparison at 2P fails; its state is
 * the next snapshot, the comparison at 3P proves the period, and the 5
 * periods left are applied at once (20480 lines; no tail: a store run does
 * not elide). With 8193 lines fewer, 2 periods are left after 3P (8192
 * lines); a run of 3P lines ends where the comparison would be, and steps
 * nothing. Every count but the bound.* attribution (within a cycle or two a
 * stepped period) is what simulating every line gives, and the cycles
 * within rounding. */
static void run_lines(model_t *md, uint64_t n)
{
    op(md, TRACE_STORE, BASE, n * 64, (uint32_t)(n * 8), 8, 0, 0);
}

static void test_bulk_steps(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    const struct {
        uint64_t lines, stepped;
    } cases[] = {{32768, 20480}, {32768 - 8193, 8192}, {12288, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        model_t *a = mk(&m), *b = mk(&m);
        model_set_bulk(b, false);
        run_lines(a, cases[c].lines);
        run_lines(b, cases[c].lines);
        stats_t sa = finish(a), sb = finish(b);
        assert_int_equal(model_bulk_lines(a), cases[c].stepped);
        assert_int_equal(model_bulk_lines(b), 0);
        for (int e = 0; e < ST_EVENT_COUNT; e++) {
            if (e == ST_CYCLES || (e >= ST_BOUND_STORE_ISSUE && e <= ST_BOUND_OTHER))
                continue;
            assert_int_equal(sa.count[e], sb.count[e]);
            assert_int_equal(sa.bytes[e], sb.bytes[e]);
        }
        double ca = (double)sa.count[ST_CYCLES], cb = (double)sb.count[ST_CYCLES];
        assert_true(fabs(ca - cb) <= 1 + 1e-8 * cb);
        uint64_t bound_diff = 0;
        for (int e = ST_BOUND_STORE_ISSUE; e <= ST_BOUND_OTHER; e++)
            bound_diff +=
                sa.count[e] > sb.count[e] ? sa.count[e] - sb.count[e] : sb.count[e] - sa.count[e];
        assert_true(bound_diff <= 2 * (cases[c].stepped / 4096) + 2);
        model_destroy(a);
        model_destroy(b);
    }
}

/* Faults and reschedule points cost their configured time. */
static void test_fault_cost(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.fault_4k_ns = 1000;
    m.fault_2m_ns = 5000;
    m.fault_1g_ns = 70000;
    m.resched_ns = 20;
    m.populate_fraction = 0.5;
    model_t *md = mk(&m);
    op(md, TRACE_FAULT, BASE, 4096, 0, 0, 0, 0);
    op(md, TRACE_FAULT, BASE, 2u << 20, 0, 0, 0, 0);
    op(md, TRACE_FAULT, BASE, 1u << 30, 0, 0, 0, 0);
    op(md, TRACE_FAULT, BASE, 2u << 20, 0, 0, 0, TRACE_F_POPULATE);
    op(md, TRACE_RESCHED, 0, 0, 0, 0, 0, 0);
    stats_t st;
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 1000 + 5000 + 70000 + 2500 + 20);
    assert_int_equal(st.count[ST_FAULTS], 4);
    model_destroy(md);
}

/* A guest's host pages (tlb.host_page 4 KiB, 4 entries): a write that reads
 * nothing first and takes a host page's TLB miss stalls issue for
 * tlb.host_miss.* (40 ns = 40 cycles at 1 GHz) while the lines already
 * buffered drain. Eight WC buffers, each held 50 cycles; four lines of page
 * 0, then one of page 1. Without the host: lines at 1..5, the last
 * acknowledged at 55, where the fence ends. With it: line 0 misses at 1
 * and goes at 41, lines 1-3 at 42..44, line 4 misses at 45 and goes at 85:
 * the fence ends at 135. */
static uint64_t host_page_cycles(machine_t *m, uint32_t page0_lines, uint32_t page1_lines,
                                 bool load_first, uint64_t *host_misses)
{
    model_t *md = mk(m);
    model_set_mapping(md, 2u << 20, 2u << 20);
    if (load_first) /* a load of page 1 takes its miss first */
        op(md, TRACE_LOAD, BASE + 4096, 8, 1, 8, 0, 0);
    for (uint32_t l = 0; l < page0_lines; l++)
        op(md, TRACE_STORE_NT, BASE + 64ull * l, 64, 1, 64, 0x5a, 0);
    for (uint32_t l = 0; l < page1_lines; l++)
        op(md, TRACE_STORE_NT, BASE + 4096 + 64ull * l, 64, 1, 64, 0x5a, 0);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    stats_t st;
    model_stats(md, &st);
    *host_misses = st.count[ST_TLB_HOST_MISSES];
    model_destroy(md);
    return st.count[ST_CYCLES];
}

static void test_host_page_miss(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.wc_buffers = 8;
    uint64_t hm;
    assert_int_equal(host_page_cycles(&m, 4, 1, false, &hm), 55); /* no host below */
    assert_int_equal(hm, 0);
    m.tlb_host_page_bytes = 4096;
    m.tlb_host_entries = 4;
    assert_int_equal(host_page_cycles(&m, 4, 1, false, &hm), 55); /* no cost given */
    m.tlb_host_nt_line_ns = 40;
    assert_int_equal(host_page_cycles(&m, 4, 1, false, &hm), 135);
    assert_int_equal(hm, 2);
    /* threshold - 1: five lines of page 0 stay on its translation: one miss,
     * lines at 41..45, the last acknowledged at 95 */
    assert_int_equal(host_page_cycles(&m, 5, 0, false, &hm), 95);
    assert_int_equal(hm, 1);
    /* a load took page 1's miss first: only page 0's is paid (the lines as
     * five of one page, acknowledged by 95; the run ends at 100, when the
     * load's line arrives from memory) */
    assert_int_equal(host_page_cycles(&m, 4, 1, true, &hm), 100);
    assert_int_equal(hm, 1);
    /* narrower stores pay nt_narrow: 8 x 8 B a line, 8 cycles to issue one;
     * line 0 issues at 8, misses: 8 + 40 = 48 ... line 4 at 48 + 4 x 8 = 80,
     * misses: 120, acknowledged 170. nt_narrow 0: it pays tlb.walk (0). */
    m.tlb_host_nt_narrow_ns = 40;
    m.tlb_host_nt_line_ns = 0;
    model_t *md = mk(&m);
    model_set_mapping(md, 2u << 20, 2u << 20);
    lines(md, TRACE_STORE_NT, BASE, 4);
    lines(md, TRACE_STORE_NT, BASE + 4096, 1);
    op(md, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    stats_t st;
    model_stats(md, &st);
    assert_int_equal(st.count[ST_CYCLES], 170);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 2);
    model_destroy(md);
    /* a host's 2 MiB page under the guest's 2 MiB mapping: one translation,
     * one miss for both 4 KiB pages (95, as five lines of one page) */
    m.tlb_host_nt_line_ns = 40;
    m.tlb_host_page_bytes = 2u << 20;
    assert_int_equal(host_page_cycles(&m, 4, 1, false, &hm), 95);
    assert_int_equal(hm, 1);
}

/* The other kinds pay their own cost: a line-zeroing command to memory
 * (line_zero) and every line of a string op (string), read for ownership
 * below the elision threshold or elided at it; its two pages miss twice. */
static void test_host_page_kinds(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.tlb_host_page_bytes = 4096;
    m.tlb_host_entries = 4;
    m.tlb_host_line_zero_ns = 30;
    m.tlb_host_string_ns = 20;
    m.lz_policy = MACHINE_LZ_MEMORY;
    model_t *md = mk(&m);
    model_set_mapping(md, 2u << 20, 2u << 20);
    for (int i = 0; i < 65; i++) /* 64 lines of page 0, one of page 1 */
        op(md, TRACE_LINE_ZERO, BASE + 64ull * i, 64, 1, 64, 0, 0);
    stats_t st = finish(md);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 2);
    model_destroy(md);

    md = mk(&m); /* 8 KiB of rep stosb below the elision threshold: its lines pay too */
    model_set_mapping(md, 2u << 20, 2u << 20);
    op(md, TRACE_STRING, BASE, 8192, 1, 1, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 2);
    model_destroy(md);

    m.elide_enabled = true;
    m.elide_threshold_bytes = 4096;
    md = mk(&m); /* at the threshold: every line elided, each page's first pays */
    model_set_mapping(md, 2u << 20, 2u << 20);
    op(md, TRACE_STRING, BASE, 8192, 1, 1, 0, 0);
    st = finish(md);
    assert_int_equal(st.count[ST_STRING_ELIDED_LINES], 128);
    assert_int_equal(st.count[ST_TLB_HOST_MISSES], 2);
    model_destroy(md);
}

/* Cycles of 4 KiB rep stosb calls on consecutive pages (or one call over
 * them all) with an ordered end, and a host miss of string_ns; elided: every
 * line written around the caches (elision from 4 KiB) to a memory that
 * takes it at once. */
static uint64_t string_calls_cycles(double string_ns, uint32_t calls, bool one_op, bool elided)
{
    machine_t m;
    tiny_machine(&m);
    m.string_ordered_end = true;
    m.tlb_host_page_bytes = 4096;
    m.tlb_host_entries = 4;
    m.tlb_host_string_ns = string_ns;
    m.elide_enabled = elided;
    m.elide_threshold_bytes = elided ? 4096 : UINT64_MAX;
    if (elided) /* memory takes a line at once: the engine's issue binds */
        m.mem_write_latency_ns = 0;
    model_t *md = mk(&m);
    model_set_mapping(md, 2u << 20, 2u << 20);
    if (one_op)
        op(md, TRACE_STRING, BASE, 4096ull * calls, 1, 1, 0, 0);
    else
        for (uint32_t c = 0; c < calls; c++)
            op(md, TRACE_STRING, BASE + 4096ull * c, 4096, 1, 1, 0, 0);
    stats_t st = finish(md);
    model_destroy(md);
    return st.count[ST_CYCLES];
}

/* A string op's first translation starts when the op before it had issued
 * its last line, while its ordered end was waited for: 4 KiB calls whose
 * lines are read for ownership (each call waits 100 cycles and more for
 * memory) pay only the first call's miss, whatever their number. One op
 * over elided lines, which wait for nothing, pays each page's miss: its
 * three pages take 2 x 20 cycles more than one page alone. (With the tiny
 * machine's 4 WC buffers held 50 cycles each, the buffered lines would
 * hide a 20-cycle stall.) */
static void test_host_page_string_calls(void **state)
{
    (void)state;
    uint64_t one =
        string_calls_cycles(20, 1, false, false) - string_calls_cycles(0, 1, false, false);
    assert_true(one > 0 && one <= 20);
    assert_int_equal(string_calls_cycles(20, 3, false, false),
                     string_calls_cycles(0, 3, false, false) + one);
    uint64_t e1 = string_calls_cycles(20, 1, false, true) - string_calls_cycles(0, 1, false, true);
    uint64_t e3 = string_calls_cycles(20, 3, true, true) - string_calls_cycles(0, 3, true, true);
    assert_int_equal(e3, e1 + 2 * 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfo_count),
        cmocka_unit_test(test_coalescing_invariant),
        cmocka_unit_test(test_nt_full_line_no_read),
        cmocka_unit_test(test_nt_invalidates),
        cmocka_unit_test(test_fence_waits_for_wc),
        cmocka_unit_test(test_victim_l3),
        cmocka_unit_test(test_l2_writeback_link),
        cmocka_unit_test(test_rfo_window),
        cmocka_unit_test(test_dram_turnaround),
        cmocka_unit_test(test_dram_read_behind_write_why),
        cmocka_unit_test(test_nt_zero_data),
        cmocka_unit_test(test_writeback_zeros),
        cmocka_unit_test(test_dirty_writebacks_reach_memory),
        cmocka_unit_test(test_prefetch_boundary),
        cmocka_unit_test(test_prefetch_stores),
        cmocka_unit_test(test_string_lookahead_crosses_page),
        cmocka_unit_test(test_string_end_wait),
        cmocka_unit_test(test_string_l1_fill_buffers),
        cmocka_unit_test(test_startup_interpolation),
        cmocka_unit_test(test_elide_threshold),
        cmocka_unit_test(test_write_streaming),
        cmocka_unit_test(test_line_zero),
        cmocka_unit_test(test_host_page_miss),
        cmocka_unit_test(test_host_page_kinds),
        cmocka_unit_test(test_host_page_string_calls),
        cmocka_unit_test(test_fault_cost),
        cmocka_unit_test(test_bulk_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
