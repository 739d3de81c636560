/*
 * test_callers.c - call sequences of the page, extent and chunked callers,
 * against hand-derived orders (process_huge_page(), clear_gigantic_page(),
 * capped extents).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/callers.h"

#define FOLIO 0x100000000000ull
#define SUB   CALLER_SUBPAGE_BYTES

/* Events in order: a call (addr, len) or a reschedule point (len 0). */
typedef struct ev {
    uint64_t addr, len;
} ev_t;

typedef struct rec {
    ev_t *ev;
    size_t n, cap;
} rec_t;

static void push(rec_t *r, uint64_t addr, uint64_t len)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        assert_non_null(r->ev);
    }
    r->ev[r->n++] = (ev_t){addr, len};
}

static void on_clear(void *ctx, uint64_t addr, uint64_t len)
{
    push(ctx, addr, len);
}

static void on_resched(void *ctx)
{
    push(ctx, 0, 0);
}

static caller_cb_t cb_for(rec_t *r)
{
    memset(r, 0, sizeof *r);
    return (caller_cb_t){.clear = on_clear, .resched = on_resched, .ctx = r};
}

/* Every other event is a resched followed by one 4 KiB call; returns the
 * subpage index sequence in order (caller frees). */
static uint64_t *subpage_order(const rec_t *r, uint64_t *n)
{
    assert_int_equal(r->n % 2, 0);
    *n = r->n / 2;
    uint64_t *idx = malloc((*n ? *n : 1) * sizeof *idx);
    assert_non_null(idx);
    for (uint64_t i = 0; i < *n; i++) {
        assert_int_equal(r->ev[2 * i].len, 0); /* resched before each subpage */
        assert_int_equal(r->ev[2 * i + 1].len, SUB);
        idx[i] = (r->ev[2 * i + 1].addr - FOLIO) / SUB;
    }
    return idx;
}

static void test_page_fault_at_0(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_page(FOLIO, 2ull << 20, FOLIO, 0, 1024, &cb);
    uint64_t n;
    uint64_t *idx = subpage_order(&r, &n);
    assert_int_equal(n, 512);
    for (uint64_t i = 0; i < 512; i++)
        assert_int_equal(idx[i], 511 - i); /* 511 down to 0, the target last */
    free(idx);
    free(r.ev);
}

static void test_page_fault_at_300(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_page(FOLIO, 2ull << 20, FOLIO + 300 * SUB + 123, 0, 1024, &cb);
    uint64_t n;
    uint64_t *idx = subpage_order(&r, &n);
    assert_int_equal(n, 512);
    /* 2n > N: base = 88; 0..87 ascending, then (88,511), (89,510), ..., (299,300) */
    for (uint64_t i = 0; i < 88; i++)
        assert_int_equal(idx[i], i);
    for (uint64_t i = 0; i < 212; i++) {
        assert_int_equal(idx[88 + 2 * i], 88 + i);
        assert_int_equal(idx[88 + 2 * i + 1], 511 - i);
    }
    assert_int_equal(idx[511], 300);
    unsigned char seen[512] = {0};
    for (uint64_t i = 0; i < n; i++)
        seen[idx[i]]++;
    for (int i = 0; i < 512; i++)
        assert_int_equal(seen[i], 1);
    free(idx);
    free(r.ev);
}

static void test_page_fault_low_half(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    /* N = 8, n = 2: 7, 6, 5, 4, then (0,3), (1,2) */
    caller_page(FOLIO, 8 * SUB, FOLIO + 2 * SUB, 0, 1024, &cb);
    uint64_t n;
    uint64_t *idx = subpage_order(&r, &n);
    const uint64_t want[] = {7, 6, 5, 4, 0, 3, 1, 2};
    assert_int_equal(n, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(idx[i], want[i]);
    free(idx);
    free(r.ev);
}

static void test_page_single(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_page(FOLIO, SUB, FOLIO, 0, 1024, &cb);
    assert_int_equal(r.n, 1); /* an order-0 page: no reschedule point */
    assert_int_equal(r.ev[0].addr, FOLIO);
    assert_int_equal(r.ev[0].len, SUB);
    free(r.ev);
}

static void test_page_gigantic(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_page(FOLIO, 1ull << 30, FOLIO + (5ull << 20), 0, 1024, &cb);
    uint64_t n;
    uint64_t *idx = subpage_order(&r, &n);
    assert_int_equal(n, 262144);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(idx[i], i);
    free(idx);
    free(r.ev);

    /* a 2 MiB folio is gigantic when max_order_pages < 512 */
    cb = cb_for(&r);
    caller_page(FOLIO, 2ull << 20, FOLIO + (2ull << 20) - 1, 0, 256, &cb);
    idx = subpage_order(&r, &n);
    assert_int_equal(n, 512);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(idx[i], i);
    free(idx);
    free(r.ev);
}

static void test_extent(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_extent(FOLIO, 1ull << 30, CALLER_PREEMPT_VOLUNTARY, CALLER_DEFAULT_EXTENT_CAP_BYTES,
                  &cb);
    assert_int_equal(r.n, 128 + 127);
    for (uint64_t i = 0; i < 128; i++) {
        assert_int_equal(r.ev[2 * i].addr, FOLIO + i * (8ull << 20));
        assert_int_equal(r.ev[2 * i].len, 8ull << 20);
        if (i < 127)
            assert_int_equal(r.ev[2 * i + 1].len, 0); /* resched between extents */
    }
    free(r.ev);

    cb = cb_for(&r);
    caller_extent(FOLIO, 1ull << 30, CALLER_PREEMPT_NONE, 0, &cb); /* 0: default cap */
    assert_int_equal(r.n, 255);
    free(r.ev);

    cb = cb_for(&r);
    caller_extent(FOLIO, 1ull << 30, CALLER_PREEMPT_FULL, CALLER_DEFAULT_EXTENT_CAP_BYTES, &cb);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].addr, FOLIO);
    assert_int_equal(r.ev[0].len, 1ull << 30);
    free(r.ev);

    cb = cb_for(&r);
    caller_extent(FOLIO, 1ull << 30, CALLER_PREEMPT_LAZY, CALLER_DEFAULT_EXTENT_CAP_BYTES, &cb);
    assert_int_equal(r.n, 1);
    free(r.ev);

    /* 2 MiB folio under a 8 MiB cap: one extent, no resched */
    cb = cb_for(&r);
    caller_extent(FOLIO, 2ull << 20, CALLER_PREEMPT_NONE, 8ull << 20, &cb);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].len, 2ull << 20);
    free(r.ev);

    /* cap not dividing the folio: the last extent is shorter */
    cb = cb_for(&r);
    caller_extent(FOLIO, 10 * SUB, CALLER_PREEMPT_VOLUNTARY, 4 * SUB, &cb);
    assert_int_equal(r.n, 5);
    assert_int_equal(r.ev[0].len, 4 * SUB);
    assert_int_equal(r.ev[2].len, 4 * SUB);
    assert_int_equal(r.ev[4].addr, FOLIO + 8 * SUB);
    assert_int_equal(r.ev[4].len, 2 * SUB);
    free(r.ev);
}

static void test_chunked(void **state)
{
    (void)state;
    rec_t r;
    caller_cb_t cb = cb_for(&r);
    caller_chunked(FOLIO, 10000, 4096, &cb);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.ev[0].addr, FOLIO);
    assert_int_equal(r.ev[1].addr, FOLIO + 4096);
    assert_int_equal(r.ev[2].addr, FOLIO + 8192);
    assert_int_equal(r.ev[2].len, 10000 - 8192);
    free(r.ev);

    cb = cb_for(&r);
    caller_chunked(FOLIO, 1 << 20, 0, &cb); /* 0: one call */
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].len, 1 << 20);
    free(r.ev);
}

static void test_preempt_names(void **state)
{
    (void)state;
    caller_preempt_t p;
    const char *names[] = {"none", "voluntary", "full", "lazy"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(caller_preempt_parse(names[i], &p), 0);
        assert_int_equal(p, i);
        assert_string_equal(caller_preempt_name(p), names[i]);
    }
    assert_int_equal(caller_preempt_parse("rt", &p), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_fault_at_0),
        cmocka_unit_test(test_page_fault_at_300),
        cmocka_unit_test(test_page_fault_low_half),
        cmocka_unit_test(test_page_single),
        cmocka_unit_test(test_page_gigantic),
        cmocka_unit_test(test_extent),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_preempt_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
