/*
 * test_kernels_trace.c - the kernels in trace mode emit exactly the expected
 * op sequences (hand-computed), the memset model picks the expected path on
 * each side of every threshold, coalescing merges contiguous stores, and the
 * kernel checks give their reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "models/base/trace.h"

#define BASE 0x100000000000ull

/* ---------------------------------------------------------------- helpers */

typedef struct rec {
    trace_op_t *ops;
    size_t n, cap;
} rec_t;

static int rec_sink(void *ctx, const trace_op_t *op)
{
    rec_t *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->ops = realloc(r->ops, r->cap * sizeof *r->ops);
        assert_non_null(r->ops);
    }
    r->ops[r->n++] = *op;
    return 0;
}

static void rec_free(rec_t *r)
{
    free(r->ops);
    memset(r, 0, sizeof *r);
}

/* Run kernel `name` on machine m over [addr, addr + len) and record the ops. */
static void run(rec_t *r, const char *name, const machine_t *m, uint64_t addr, uint64_t len,
                uint8_t fill, bool coalesce)
{
    const kern_info_t *k = kern_find(name);
    assert_non_null(k);
    memset(r, 0, sizeof *r);
    trace_t *t = trace_create(rec_sink, r, coalesce);
    assert_non_null(t);
    kern_ctx_t ctx = {.trace = t, .machine = m};
    k->trace(&ctx, addr, len, fill);
    trace_flush(t);
    assert_int_equal(trace_error(t), 0);
    trace_destroy(t);
}

static void machine_x86(machine_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "test-x86");
    m->isa = MACHINE_ISA_X86_64;
    m->features = MACHINE_FEAT_ERMS | MACHINE_FEAT_FSRM | MACHINE_FEAT_CLZERO | MACHINE_FEAT_AVX2 |
                  MACHINE_FEAT_AVX512 | MACHINE_FEAT_SSE2;
    m->zva_block_bytes = 64;
    m->memset_vec_bytes = 32;
    m->memset_stosb_bytes = 2048;
    m->memset_nt_bytes = 65536;
}

static void machine_arm(machine_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "test-arm");
    m->isa = MACHINE_ISA_ARM64;
    m->features = MACHINE_FEAT_DCZVA;
    m->zva_block_bytes = 64;
    m->memset_vec_bytes = 16;
    m->memset_zva_bytes = 256;
    m->memset_mops = false;
}

static void check_op(const trace_op_t *op, trace_kind_t kind, uint64_t addr, uint64_t bytes,
                     uint32_t count, uint16_t width, uint8_t fill, uint32_t flags)
{
    assert_int_equal(op->kind, kind);
    assert_int_equal(op->addr, addr);
    assert_int_equal(op->bytes, bytes);
    assert_int_equal(op->count, count);
    assert_int_equal(op->width, width);
    assert_int_equal(op->fill, fill);
    assert_int_equal(op->flags, flags);
}

static void check_insns(const trace_op_t *op, uint32_t count)
{
    check_op(op, TRACE_INSNS, 0, 0, count, 0, 0, 0);
}

/* ops[from..from+n) are single stores of `kind`, width w, ascending from addr. */
static void check_stores(const rec_t *r, size_t from, size_t n, trace_kind_t kind, uint64_t addr,
                         uint16_t w, uint8_t fill)
{
    assert_true(from + n <= r->n);
    for (size_t i = 0; i < n; i++)
        check_op(&r->ops[from + i], kind, addr + i * w, w, 1, w, fill, 0);
}

/* Every byte of [a, a + n) is written by some op and no op writes outside. */
static void check_coverage(const rec_t *r, uint64_t a, uint64_t n)
{
    unsigned char *seen = calloc(n ? n : 1, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < r->n; i++) {
        const trace_op_t *op = &r->ops[i];
        if (op->kind != TRACE_STORE && op->kind != TRACE_STORE_NT && op->kind != TRACE_STRING &&
            op->kind != TRACE_LINE_ZERO)
            continue;
        assert_true(op->addr >= a);
        assert_true(op->addr + op->bytes <= a + n);
        memset(seen + (op->addr - a), 1, op->bytes);
    }
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
}

static size_t count_kind(const rec_t *r, trace_kind_t kind)
{
    size_t c = 0;
    for (size_t i = 0; i < r->n; i++)
        c += r->ops[i].kind == kind;
    return c;
}

/* ---------------------------------------------------------------- x86-64 */

static void test_movnti_256(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "movnti", &m, BASE, 256, 0, false);
    assert_int_equal(r.n, 1 + 32 + 1);
    check_insns(&r.ops[0], 4 + 3 * 4);
    check_stores(&r, 1, 32, TRACE_STORE_NT, BASE, 8, 0);
    check_op(&r.ops[33], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);
}

/* Every instruction the trace announces: TRACE_INSNS ops and what runs carry. */
static uint64_t insns_total(const rec_t *r)
{
    uint64_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->ops[i].kind == TRACE_INSNS ? r->ops[i].count : r->ops[i].insns;
    return n;
}

/* The nearest memory op before (dir -1) or after (+1) op i: loop control
 * (TRACE_INSNS) between is skipped. */
static const trace_op_t *mem_near(const rec_t *r, size_t i, int dir)
{
    for (size_t j = i; dir < 0 ? j-- > 0 : ++j < r->n;)
        if (r->ops[j].kind != TRACE_INSNS)
            return &r->ops[j];
    return NULL;
}

/* The _ahead kernels over three 4 KiB pages: one load from each next page
 * (BASE + 4096, BASE + 8192), between the stores of the line 320 B before
 * that page and the line 256 B before it; none from past the range; the
 * stores cover the range. rep_stosb_ahead loads from each page first.
 * Their loop control (setup, 3 a line, 4 a page loaded ahead) is announced
 * per iteration, so with coalescing each run carries its own lines' share:
 * the first run, page 0's 60 lines before the load, 3 x 60 of it, not the
 * whole call's (threshold: one line more or less would show). */
static void test_ahead_kernels(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    static const char *const names[] = {"avx512_nt_ahead", "movnti_ahead", "clzero_ahead",
                                        "avx2_nt_ahead"};
    static const uint64_t setup[] = {4, 4, 2, 4};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        rec_t r;
        run(&r, names[k], &m, BASE, 3 * 4096, 0, false);
        assert_int_equal(count_kind(&r, TRACE_LOAD), 2);
        assert_int_equal(insns_total(&r), setup[k] + 3 * 192 + 4 * 2);
        uint64_t page = BASE + 4096;
        for (size_t i = 0; i < r.n; i++) {
            if (r.ops[i].kind != TRACE_LOAD)
                continue;
            check_op(&r.ops[i], TRACE_LOAD, page, 8, 1, 8, 0, 0);
            const trace_op_t *before = mem_near(&r, i, -1), *after = mem_near(&r, i, +1);
            assert_non_null(before);
            assert_non_null(after);
            assert_int_equal(before->addr & ~63ull, page - 320);
            assert_int_equal(after->addr, page - 256);
            page += 4096;
        }
        rec_free(&r);
        run(&r, names[k], &m, BASE, 3 * 4096, 0, true);
        assert_int_equal(insns_total(&r), setup[k] + 3 * 192 + 4 * 2);
        size_t first = 0;
        while (first < r.n && r.ops[first].kind == TRACE_INSNS)
            first++;
        assert_true(first < r.n);
        assert_int_equal(r.ops[first].addr, BASE);
        assert_int_equal(r.ops[first].bytes, 60 * 64);
        assert_int_equal(r.ops[first].insns, 3 * 60);
        rec_free(&r);
        run(&r, names[k], &m, BASE, 4096, 0, false); /* one page: nothing past it */
        assert_int_equal(count_kind(&r, TRACE_LOAD), 0);
        rec_free(&r);
    }
    rec_t r;
    run(&r, "rep_stosb_ahead", &m, BASE, 3 * 4096, 0, true);
    assert_int_equal(r.n, 3 + 1);
    for (int i = 0; i < 3; i++)
        check_op(&r.ops[i], TRACE_LOAD, BASE + 4096ull * i, 8, 1, 8, 0, 0);
    assert_int_equal(insns_total(&r), 3 * 3 + 2);
    check_op(&r.ops[3], TRACE_STRING, BASE, 3 * 4096, 1, 1, 0, 0);
    rec_free(&r);
}

static void test_rep_stos(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "rep_stosb", &m, BASE, 4096, 0x5a, false);
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 2);
    check_op(&r.ops[1], TRACE_STRING, BASE, 4096, 1, 1, 0x5a, 0);
    rec_free(&r);

    run(&r, "rep_stosq", &m, BASE + 4096, 4096, 0, false);
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 5);
    check_op(&r.ops[1], TRACE_STRING, BASE + 4096, 4096, 1, 8, 0, 0);
    rec_free(&r);
}

static void test_unrolled_128(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "unrolled", &m, BASE, 128, 0xff, false);
    assert_int_equal(r.n, 1 + 16);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 16, TRACE_STORE, BASE, 8, 0xff);
    rec_free(&r);
}

static void test_clzero_256(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "clzero", &m, BASE, 256, 0, false);
    assert_int_equal(r.n, 1 + 4 + 1);
    check_insns(&r.ops[0], 2 + 3 * 4);
    for (int i = 0; i < 4; i++)
        check_op(&r.ops[1 + i], TRACE_LINE_ZERO, BASE + 64 * (uint64_t)i, 64, 1, 64, 0, 0);
    check_op(&r.ops[5], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);
}

static void test_vector_kernels(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "avx2", &m, BASE, 128, 1, false);
    assert_int_equal(r.n, 1 + 4);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 4, TRACE_STORE, BASE, 32, 1);
    rec_free(&r);

    run(&r, "avx512", &m, BASE, 128, 2, false);
    assert_int_equal(r.n, 1 + 2);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 2, TRACE_STORE, BASE, 64, 2);
    rec_free(&r);

    run(&r, "avx512_nt", &m, BASE, 128, 3, false);
    assert_int_equal(r.n, 1 + 2 + 1);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 2, TRACE_STORE_NT, BASE, 64, 3);
    check_op(&r.ops[3], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);

    /* two 32-byte vmovntdq a line, the loop control as avx512_nt's */
    run(&r, "avx2_nt", &m, BASE, 128, 4, false);
    assert_int_equal(r.n, 1 + 4 + 1);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 4, TRACE_STORE_NT, BASE, 32, 4);
    check_op(&r.ops[5], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);
}

/* ----------------------------------------------------------------- arm64 */

static void test_stp_stnp(void **state)
{
    (void)state;
    machine_t m;
    machine_arm(&m);
    rec_t r;
    run(&r, "stp", &m, BASE, 128, 0x7f, false);
    assert_int_equal(r.n, 1 + 8);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 8, TRACE_STORE, BASE, 16, 0x7f);
    rec_free(&r);

    run(&r, "stnp", &m, BASE, 128, 0, false);
    assert_int_equal(r.n, 1 + 8);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_stores(&r, 1, 8, TRACE_STORE_NT, BASE, 16, 0);
    rec_free(&r);
}

static void test_dc_zva_blocks(void **state)
{
    (void)state;
    machine_t m;
    machine_arm(&m);
    rec_t r;
    run(&r, "dc_zva", &m, BASE, 256, 0, false);
    assert_int_equal(r.n, 1 + 4);
    check_insns(&r.ops[0], 4 + 3 * 4);
    for (int i = 0; i < 4; i++)
        check_op(&r.ops[1 + i], TRACE_LINE_ZERO, BASE + 64 * (uint64_t)i, 64, 1, 64, 0, 0);
    rec_free(&r);

    m.zva_block_bytes = 128;
    run(&r, "dc_zva", &m, BASE, 256, 0, false);
    assert_int_equal(r.n, 1 + 2);
    check_insns(&r.ops[0], 4 + 3 * 2);
    check_op(&r.ops[1], TRACE_LINE_ZERO, BASE, 128, 1, 128, 0, 0);
    check_op(&r.ops[2], TRACE_LINE_ZERO, BASE + 128, 128, 1, 128, 0, 0);
    rec_free(&r);
}

static void test_mops(void **state)
{
    (void)state;
    machine_t m;
    machine_arm(&m);
    m.features |= MACHINE_FEAT_MOPS;
    rec_t r;
    run(&r, "mops", &m, BASE, 4096, 7, false);
    assert_int_equal(r.n, 1);
    check_op(&r.ops[0], TRACE_STRING, BASE, 4096, 3, 1, 7, 0);
    rec_free(&r);

    run(&r, "mops_nt", &m, BASE, 1 << 20, 0, false);
    assert_int_equal(r.n, 1);
    check_op(&r.ops[0], TRACE_STRING, BASE, 1 << 20, 3, 1, 0, TRACE_F_NT);
    rec_free(&r);
}

/* ------------------------------------------------------------ memset x86 */

static void test_memset_x86_small(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m); /* VEC 32, rep stosb >= 2048, NT >= 65536 */
    rec_t r;

    run(&r, "memset", &m, BASE, 16, 9, false); /* power of two below VEC: one store */
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 8);
    check_op(&r.ops[1], TRACE_STORE, BASE, 16, 1, 16, 9, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 24, 9, false); /* two overlapping 16-byte stores */
    assert_int_equal(r.n, 3);
    check_insns(&r.ops[0], 8);
    check_op(&r.ops[1], TRACE_STORE, BASE, 16, 1, 16, 9, 0);
    check_op(&r.ops[2], TRACE_STORE, BASE + 8, 16, 1, 16, 9, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 1, 9, false);
    assert_int_equal(r.n, 2);
    check_op(&r.ops[1], TRACE_STORE, BASE, 1, 1, 1, 9, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 64, 0, false); /* 2 VEC: two VEC stores */
    assert_int_equal(r.n, 3);
    check_insns(&r.ops[0], 6);
    check_stores(&r, 1, 2, TRACE_STORE, BASE, 32, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 128, 0, false); /* 4 VEC, thresholds consulted */
    assert_int_equal(r.n, 5);
    check_insns(&r.ops[0], 4 + 2 + 2 + 2 + 2);
    check_stores(&r, 1, 4, TRACE_STORE, BASE, 32, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 200, 0, false); /* 4 VEC < len <= 8 VEC: 4 + 4 */
    assert_int_equal(r.n, 9);
    check_insns(&r.ops[0], 4 + 2 + 2 + 2 + 2 + 2);
    check_stores(&r, 1, 4, TRACE_STORE, BASE, 32, 0);
    check_stores(&r, 5, 4, TRACE_STORE, BASE + 200 - 128, 32, 0);
    check_coverage(&r, BASE, 200);
    rec_free(&r);
}

static void test_memset_x86_thresholds(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;

    /* just below rep stosb: head 4, loop ceil((2047-128-128)/128) = 14 x 4, tail 4 */
    run(&r, "memset", &m, BASE, 2047, 0, false);
    assert_int_equal(count_kind(&r, TRACE_STRING), 0);
    assert_int_equal(count_kind(&r, TRACE_STORE), 4 + 14 * 4 + 4);
    check_insns(&r.ops[0], 4 + 2 + 2 + 2 + 2 + 2 + 3 + 3 * 14);
    check_stores(&r, 1, 8, TRACE_STORE, BASE, 32, 0); /* head + first loop iteration */
    check_coverage(&r, BASE, 2047);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 2048, 0x11, false);
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 4 + 2 + 2 + 2 + 2);
    check_op(&r.ops[1], TRACE_STRING, BASE, 2048, 1, 1, 0x11, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 65535, 0, false); /* just below NT: still rep stosb */
    assert_int_equal(r.n, 2);
    check_op(&r.ops[1], TRACE_STRING, BASE, 65535, 1, 1, 0, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 65536, 0, false); /* NT: 512 x 4 VEC, sfence, no tail */
    assert_int_equal(r.n, 1 + 2048 + 1);
    check_insns(&r.ops[0], 4 + 2 + 2 + 3 + 3 * 512);
    check_stores(&r, 1, 2048, TRACE_STORE_NT, BASE, 32, 0);
    check_op(&r.ops[2049], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);

    /* misaligned NT: temporal head, NT loop from the next VEC boundary, temporal tail */
    run(&r, "memset", &m, BASE + 8, 65536, 0, false);
    check_insns(&r.ops[0], 4 + 2 + 2 + 3 + 3 * 511);
    check_op(&r.ops[1], TRACE_STORE, BASE + 8, 32, 1, 32, 0, 0);
    check_stores(&r, 2, 511 * 4, TRACE_STORE_NT, BASE + 32, 32, 0);
    check_op(&r.ops[2 + 2044], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    assert_int_equal(r.n, 2 + 2044 + 1 + 4);
    check_coverage(&r, BASE + 8, 65536);
    rec_free(&r);

    /* thresholds of 0 mean never */
    m.memset_stosb_bytes = 0;
    m.memset_nt_bytes = 0;
    run(&r, "memset", &m, BASE, 1 << 20, 0, false);
    assert_int_equal(count_kind(&r, TRACE_STRING) + count_kind(&r, TRACE_STORE_NT), 0);
    assert_int_equal(count_kind(&r, TRACE_STORE), (1 << 20) / 32);
    check_coverage(&r, BASE, 1 << 20);
    rec_free(&r);
}

/* ---------------------------------------------------------- memset arm64 */

static void test_memset_arm64(void **state)
{
    (void)state;
    machine_t m;
    machine_arm(&m); /* W 16, DC ZVA at >= 256 with 64-byte blocks */
    rec_t r;

    run(&r, "memset", &m, BASE, 255, 0, false); /* below threshold: 15 + 1 overlapping */
    assert_int_equal(r.n, 1 + 16);
    check_insns(&r.ops[0], 4 + 2 + 3 + 3 * 4);
    check_stores(&r, 1, 15, TRACE_STORE, BASE, 16, 0);
    check_op(&r.ops[16], TRACE_STORE, BASE + 255 - 16, 16, 1, 16, 0, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 256, 0, false); /* at threshold, aligned: DC ZVA only */
    assert_int_equal(r.n, 1 + 4);
    check_insns(&r.ops[0], 4 + 2 + 3 + 3 * 4);
    for (int i = 0; i < 4; i++)
        check_op(&r.ops[1 + i], TRACE_LINE_ZERO, BASE + 64 * (uint64_t)i, 64, 1, 64, 0, 0);
    rec_free(&r);

    run(&r, "memset", &m, BASE, 256, 1, false); /* non-zero fill: STP */
    assert_int_equal(r.n, 1 + 16);
    check_stores(&r, 1, 16, TRACE_STORE, BASE, 16, 1);
    rec_free(&r);

    /* misaligned: 3 STP to the block boundary, 7 blocks, 1 STP tail */
    run(&r, "memset", &m, BASE + 16, 512, 0, false);
    assert_int_equal(r.n, 1 + 3 + 7 + 1);
    check_insns(&r.ops[0], 4 + 2 + (3 + 3) + 3 + 3 * 7 + (3 + 3));
    check_stores(&r, 1, 3, TRACE_STORE, BASE + 16, 16, 0);
    for (int i = 0; i < 7; i++)
        check_op(&r.ops[4 + i], TRACE_LINE_ZERO, BASE + 64 + 64 * (uint64_t)i, 64, 1, 64, 0, 0);
    check_op(&r.ops[11], TRACE_STORE, BASE + 512, 16, 1, 16, 0, 0);
    check_coverage(&r, BASE + 16, 512);
    rec_free(&r);

    m.features &= ~(uint32_t)MACHINE_FEAT_DCZVA; /* DC ZVA prohibited: STP */
    run(&r, "memset", &m, BASE, 4096, 0, false);
    assert_int_equal(count_kind(&r, TRACE_LINE_ZERO), 0);
    assert_int_equal(count_kind(&r, TRACE_STORE), 256);
    rec_free(&r);

    m.features |= MACHINE_FEAT_MOPS; /* MOPS present but libc.memset.mops false */
    run(&r, "memset", &m, BASE, 4096, 0, false);
    assert_int_equal(count_kind(&r, TRACE_STRING), 0);
    rec_free(&r);

    m.memset_mops = true;
    run(&r, "memset", &m, BASE, 4096, 0x33, false);
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 1);
    check_op(&r.ops[1], TRACE_STRING, BASE, 4096, 3, 1, 0x33, 0);
    rec_free(&r);
}

/* ------------------------------------------------------------ coalescing */

static void test_coalescing(void **state)
{
    (void)state;
    machine_t m;
    machine_x86(&m);
    rec_t r;
    run(&r, "unrolled", &m, BASE, 4096, 0, true);
    assert_int_equal(r.n, 2);
    check_insns(&r.ops[0], 4 + 3 * 64);
    check_op(&r.ops[1], TRACE_STORE, BASE, 4096, 512, 8, 0, 0);
    rec_free(&r);

    run(&r, "movnti", &m, BASE, 4096, 0, true);
    assert_int_equal(r.n, 3);
    check_op(&r.ops[1], TRACE_STORE_NT, BASE, 4096, 512, 8, 0, 0);
    check_op(&r.ops[2], TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    rec_free(&r);

    /* the same bytes and instructions either way */
    const char *names[] = {"avx2", "avx512", "avx512_nt", "avx2_nt", "clzero", "memset"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rec_t a, b;
        run(&a, names[i], &m, BASE, 8192, 0, false);
        run(&b, names[i], &m, BASE, 8192, 0, true);
        for (int kind = 0; kind < TRACE_KIND_COUNT; kind++) {
            uint64_t ba = 0, bb = 0, ca = 0, cb = 0;
            for (size_t j = 0; j < a.n; j++)
                if (a.ops[j].kind == kind) {
                    ba += a.ops[j].bytes;
                    ca += a.ops[j].count;
                }
            for (size_t j = 0; j < b.n; j++)
                if (b.ops[j].kind == kind) {
                    bb += b.ops[j].bytes;
                    cb += b.ops[j].count;
                }
            assert_int_equal(ba, bb);
            assert_int_equal(ca, cb);
        }
        assert_true(b.n <= a.n);
        rec_free(&a);
        rec_free(&b);
    }
}

/* ---------------------------------------------------------------- K_LOOP */

/* What a coalescing trace delivers for ops emitted one by one (no K_LOOP
 * repeat): the uncoalesced stream of the kernel fed through trace_emit(). */
static void recoalesce(rec_t *out, const rec_t *in)
{
    memset(out, 0, sizeof *out);
    trace_t *t = trace_create(rec_sink, out, true);
    assert_non_null(t);
    for (size_t i = 0; i < in->n; i++)
        trace_emit(t, &in->ops[i]);
    trace_flush(t);
    trace_destroy(t);
}

static void assert_same_ops(const rec_t *a, const rec_t *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->ops[i].kind, b->ops[i].kind);
        assert_int_equal(a->ops[i].addr, b->ops[i].addr);
        assert_int_equal(a->ops[i].bytes, b->ops[i].bytes);
        assert_int_equal(a->ops[i].count, b->ops[i].count);
        assert_int_equal(a->ops[i].insns, b->ops[i].insns);
        assert_int_equal(a->ops[i].width, b->ops[i].width);
        assert_int_equal(a->ops[i].fill, b->ops[i].fill);
        assert_int_equal(a->ops[i].flags, b->ops[i].flags);
    }
}

/* Every kernel's coalesced ops, with its uniform loops repeated at once, are
 * the ops of running every iteration, on sizes either side of memset's
 * thresholds and with odd heads and tails. */
static void test_loop_repeat_kernels(void **state)
{
    (void)state;
    machine_t mx, ma;
    machine_x86(&mx);
    machine_arm(&ma);
    const struct {
        const char *name;
        const machine_t *m;
    } ks[] = {{"unrolled", &mx},     {"movnti", &mx},        {"clzero", &mx},
              {"avx2", &mx},         {"avx512", &mx},        {"avx512_nt", &mx},
              {"movnti_ahead", &mx}, {"clzero_ahead", &mx},  {"avx512_nt_ahead", &mx},
              {"avx2_nt", &mx},      {"avx2_nt_ahead", &mx}, {"rep_stosb_ahead", &mx},
              {"memset", &mx},       {"stp", &ma},           {"stnp", &ma},
              {"dc_zva", &ma},       {"memset", &ma}};
    const uint64_t lens[] = {64, 128, 192, 4096, 65536 - 64, 65536, 65536 + 64, 1u << 20};
    const uint64_t offs[] = {0, 8, 40};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++)
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                bool mem = strcmp(ks[i].name, "memset") == 0;
                if (offs[o] && !mem)
                    continue; /* the other kernels take 64-byte aligned lines */
                rec_t one, ref, got;
                run(&one, ks[i].name, ks[i].m, BASE + offs[o], lens[j] - offs[o], 0, false);
                recoalesce(&ref, &one);
                run(&got, ks[i].name, ks[i].m, BASE + offs[o], lens[j] - offs[o], 0, true);
                assert_same_ops(&got, &ref);
                rec_free(&one);
                rec_free(&ref);
                rec_free(&got);
            }
}

/* One iteration of a uniform loop by hand: eight 8-byte stores. */
static void store_line(trace_t *t, uint64_t a)
{
    for (uint64_t i = 0; i < 64; i += 8)
        trace_emit_fields(t, TRACE_STORE, a + i, 8, 1, 8, 0, 0);
}

static uint64_t loop_lines(trace_t *t, uint64_t lines)
{
    uint64_t iters = 0;
    trace_mark_t m = trace_mark(t);
    for (uint64_t l = 0; l < lines;) {
        store_line(t, BASE + 64 * l);
        iters++;
        l++;
        if (l < lines)
            l += trace_repeat(t, &m, 64, lines - l);
        m = trace_mark(t);
    }
    return iters;
}

/* The run's count bound (UINT32_MAX >> 1): stores merge one by one until the
 * pending count reaches it, the next store still joins (trace_emit_slow()
 * merges it and delivers), so the first op counts 2^31 stores. The repeat
 * stops short of the bound and the iterations near it run one by one. */
static void test_loop_repeat_bound(void **state)
{
    (void)state;
    rec_t r = {0};
    trace_t *t = trace_create(rec_sink, &r, true);
    assert_non_null(t);
    const uint64_t lines = (UINT64_C(1) << 28) + 5; /* 2^31 + 40 stores */
    uint64_t iters = loop_lines(t, lines);
    trace_flush(t);
    trace_destroy(t);
    assert_true(iters < 16); /* the loop ran only a few iterations itself */
    assert_int_equal(r.n, 2);
    check_op(&r.ops[0], TRACE_STORE, BASE, UINT64_C(1) << 34, UINT32_C(1) << 31, 8, 0, 0);
    check_op(&r.ops[1], TRACE_STORE, BASE + (UINT64_C(1) << 34), 320, 40, 8, 0, 0);
    rec_free(&r);
}

/* Where the repeat must not apply. */
static void test_loop_repeat_refuses(void **state)
{
    (void)state;
    rec_t r = {0};
    /* coalescing off: every op is delivered as emitted */
    trace_t *t = trace_create(rec_sink, &r, false);
    trace_mark_t m = trace_mark(t);
    store_line(t, BASE);
    assert_int_equal(trace_repeat(t, &m, 64, 100), 0);
    trace_destroy(t);
    rec_free(&r);

    t = trace_create(rec_sink, &r, true);
    /* the first iteration starts the run (the op before it is delivered) */
    trace_emit_fields(t, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    m = trace_mark(t);
    store_line(t, BASE);
    assert_int_equal(trace_repeat(t, &m, 64, 100), 0);
    /* a whole iteration that extended the run: applied, up to `more` */
    m = trace_mark(t);
    store_line(t, BASE + 64);
    assert_int_equal(trace_repeat(t, &m, 64, 0), 0);
    assert_int_equal(trace_repeat(t, &m, 64, 3), 3);
    /* the step is not what the iteration covered */
    m = trace_mark(t);
    store_line(t, BASE + 64 * 5);
    assert_int_equal(trace_repeat(t, &m, 128, 10), 0);
    /* an iteration that ends the run (a fence) */
    m = trace_mark(t);
    store_line(t, BASE + 64 * 6);
    trace_emit_fields(t, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    assert_int_equal(trace_repeat(t, &m, 64, 10), 0);
    /* an iteration that delivered the run and began another at the same
     * address, one step longer: not an extension of it */
    store_line(t, BASE + 64 * 20);
    m = trace_mark(t);
    trace_emit_fields(t, TRACE_FENCE, 0, 0, 1, 0, 0, 0);
    store_line(t, BASE + 64 * 20);
    store_line(t, BASE + 64 * 21);
    assert_int_equal(trace_repeat(t, &m, 64, 10), 0);
    trace_flush(t);
    trace_destroy(t);
    assert_int_equal(r.n, 6);
    check_op(&r.ops[1], TRACE_STORE, BASE, 7 * 64, 56, 8, 0, 0);
    check_op(&r.ops[5], TRACE_STORE, BASE + 64 * 20, 128, 16, 8, 0, 0);
    rec_free(&r);
}

/* ---------------------------------------------------------------- checks */

static void test_checks(void **state)
{
    (void)state;
    machine_t x86, arm;
    machine_x86(&x86);
    machine_arm(&arm);
    char err[256];

    /* every kernel in the table has a trace function and a sane granule */
    size_t n = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++, n++) {
        assert_non_null(k->trace);
        assert_true(k->granule_bytes >= 1);
        assert_ptr_equal(kern_find(k->name), k);
    }
    assert_int_equal(n, 20);
    assert_null(kern_find("nope"));

    const kern_info_t *clz = kern_find("clzero");
    assert_int_equal(kern_check_machine(clz, &x86, err, sizeof err), 0);
    x86.features &= ~(uint32_t)MACHINE_FEAT_CLZERO;
    assert_int_equal(kern_check_machine(clz, &x86, err, sizeof err), -1);
    assert_string_equal(err, "function 'clzero' needs CPU feature clzero, which machine "
                             "'test-x86' lacks");
    assert_int_equal(kern_check_machine(clz, &arm, err, sizeof err), -1);
    assert_string_equal(err, "function 'clzero' needs CPU feature clzero, which machine "
                             "'test-arm' lacks");
    assert_int_equal(kern_check_machine(kern_find("stp"), &x86, err, sizeof err), -1);
    assert_string_equal(err, "function 'stp' is an arm64 kernel, but machine 'test-x86' is "
                             "x86_64");
    assert_int_equal(kern_check_machine(kern_find("memset"), &arm, err, sizeof err), 0);
    assert_int_equal(kern_check_machine(kern_find("mops"), &arm, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs CPU feature mops"));

    const kern_info_t *mov = kern_find("movnti");
    assert_int_equal(kern_check_len(mov, &x86, 4096, err, sizeof err), 0);
    assert_int_equal(kern_check_len(mov, &x86, 100, err, sizeof err), -1);
    assert_string_equal(err, "length 100 is not a multiple of 64 bytes, the granule of "
                             "function 'movnti'");
    assert_int_equal(kern_check_len(kern_find("rep_stosb"), &x86, 7, err, sizeof err), 0);
    assert_int_equal(kern_check_len(kern_find("rep_stosq"), &x86, 12, err, sizeof err), -1);

    const kern_info_t *zva = kern_find("dc_zva");
    arm.zva_block_bytes = 128;
    assert_int_equal(kern_check_len(zva, &arm, 256, err, sizeof err), 0);
    assert_int_equal(kern_check_len(zva, &arm, 192, err, sizeof err), -1);
    assert_non_null(strstr(err, "128-byte line-zero block of machine 'test-arm'"));

    assert_int_equal(kern_check_fill(clz, 0, err, sizeof err), 0);
    assert_int_equal(kern_check_fill(clz, 1, err, sizeof err), -1);
    assert_string_equal(err, "function 'clzero' can only write zeros (fill 1 requested)");
    assert_int_equal(kern_check_fill(zva, 0xff, err, sizeof err), -1);
    assert_int_equal(kern_check_fill(mov, 0xff, err, sizeof err), 0);
    assert_int_equal(kern_check_fill(mov, 256, err, sizeof err), -1);

    const char *names[4];
    assert_int_equal(kern_needs_names(kern_find("avx512_nt"), names, 4), 1);
    assert_string_equal(names[0], "avx512f");
    assert_int_equal(kern_needs_names(kern_find("unrolled"), names, 4), 0);
    assert_string_equal(kern_isa_name(KERN_ISA_ARM64), "arm64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_movnti_256),
        cmocka_unit_test(test_rep_stos),
        cmocka_unit_test(test_ahead_kernels),
        cmocka_unit_test(test_unrolled_128),
        cmocka_unit_test(test_clzero_256),
        cmocka_unit_test(test_vector_kernels),
        cmocka_unit_test(test_stp_stnp),
        cmocka_unit_test(test_dc_zva_blocks),
        cmocka_unit_test(test_mops),
        cmocka_unit_test(test_memset_x86_small),
        cmocka_unit_test(test_memset_x86_thresholds),
        cmocka_unit_test(test_memset_arm64),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_loop_repeat_kernels),
        cmocka_unit_test(test_loop_repeat_bound),
        cmocka_unit_test(test_loop_repeat_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
