/*
 * test_reuse.c - the consumer's touch after each clear (wl_spec_t.reuse_bytes,
 * sim/engine/workload.c), which `clearsim tune` uses to price the re-fetch of
 * what a clear did not leave in cache.
 *
 * Notes
 *  - A recording sink checks where the loads go: after each measured call,
 *    one 8-byte load per line of the first min(reuse, call length) bytes of
 *    that call, none in the warm-up; validation names the rule broken.
 *  - A run on the tiny machine (tests/tiny_machine.h) checks the direction:
 *    a touch of 1 KiB (fits L2) after a temporal clear hits in cache, the
 *    same touch after a non-temporal clear misses to memory and costs more.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/stats.h"
#include "sim/engine/run.h"
#include "models/base/trace.h"
#include "sim/engine/workload.h"
#include "tiny_machine.h"

typedef struct rec {
    bool roi;
    uint64_t loads, roi_loads, calls;
    uint64_t last_call_addr, last_call_len;
    bool loads_in_range; /* every load within the last call's first reuse bytes */
    uint64_t reuse;
    uint64_t next_expected; /* next load address expected after a call */
} rec_t;

static int rec_sink(void *ctx, const trace_op_t *op)
{
    rec_t *r = ctx;
    if (op->kind == TRACE_CALL_BEGIN) {
        r->calls++;
        r->last_call_addr = op->addr;
        r->last_call_len = op->bytes;
        r->next_expected = op->addr;
    } else if (op->kind == TRACE_LOAD) {
        r->loads += op->count;
        if (r->roi)
            r->roi_loads += op->count;
        uint64_t lim = r->reuse < r->last_call_len ? r->reuse : r->last_call_len;
        if (op->addr != r->next_expected || op->addr + op->bytes > r->last_call_addr + lim ||
            op->bytes != 8)
            r->loads_in_range = false;
        r->next_expected = op->addr + 64;
    }
    return 0;
}

static uint64_t rec_mark(void *ctx, wl_mark_t mark)
{
    rec_t *r = ctx;
    if (mark == WL_MARK_ROI_BEGIN)
        r->roi = true;
    return 0;
}

static void trace_spec(const wl_spec_t *s, const machine_t *m, rec_t *r)
{
    char err[256];
    memset(r, 0, sizeof *r);
    r->reuse = s->reuse_bytes;
    r->loads_in_range = true;
    trace_t *t = trace_create(rec_sink, r, false);
    assert_non_null(t);
    assert_int_equal(wl_trace(s, m, t, rec_mark, r, err, sizeof err), 0);
    trace_destroy(t);
}

/* rep_stosb over 16 KiB in 4 KiB calls, `loops` passes, touching reuse bytes. */
static void chunked_spec(wl_spec_t *s, uint32_t loops, uint64_t reuse)
{
    wl_spec_init(s);
    snprintf(s->function, sizeof s->function, "rep_stosb");
    s->size_bytes = 16384;
    s->chunk_bytes = 4096;
    s->loops = loops;
    s->reuse_bytes = reuse;
}

static void test_loads_follow_each_measured_call(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    wl_spec_t s;
    chunked_spec(&s, 2, 1024);
    rec_t r;
    trace_spec(&s, &m, &r);
    /* 4 calls per loop x 2 loops, 1024 / 64 = 16 loads each; none in warm-up */
    assert_int_equal(r.roi_loads, 2 * 4 * 16);
    assert_int_equal(r.loads, r.roi_loads);
    assert_true(r.loads_in_range);

    /* reuse larger than a call: only the call's own bytes are touched */
    s.reuse_bytes = 8192;
    trace_spec(&s, &m, &r);
    assert_int_equal(r.roi_loads, 2 * 4 * (4096 / 64));
    assert_true(r.loads_in_range);

    /* no reuse: no loads (perf bench) */
    s.reuse_bytes = 0;
    trace_spec(&s, &m, &r);
    assert_int_equal(r.loads, 0);
}

/* The faulting thread's order per call: the first reuse bytes, then the
 * delay's reads through the ring (each call's after the previous call's),
 * then the next later bytes of the call. */
typedef struct drec {
    uint64_t call_addr, call_len, ring_base;
    uint64_t reuse, delay, later;
    uint64_t k;         /* loads since the call began */
    uint64_t ring_next; /* the next ring line expected */
    uint64_t ring_loads, call_loads;
    bool ok;
} drec_t;

static int drec_sink(void *ctx, const trace_op_t *op)
{
    drec_t *r = ctx;
    if (op->kind == TRACE_CALL_BEGIN) {
        r->call_addr = op->addr;
        r->call_len = op->bytes;
        r->k = 0;
        return 0;
    }
    if (op->kind != TRACE_LOAD)
        return 0;
    const uint64_t now = r->reuse / 64, ring = r->delay / 64;
    uint64_t want;
    if (r->k < now) {
        want = r->call_addr + 64 * r->k;
        r->call_loads++;
    } else if (r->k < now + ring) {
        want = r->ring_base + r->ring_next;
        r->ring_next += 64;
        r->ring_loads++;
    } else {
        want = r->call_addr + r->reuse + 64 * (r->k - now - ring);
        r->call_loads++;
        if (want + 8 > r->call_addr + r->call_len || r->k - now - ring >= r->later / 64)
            r->ok = false;
    }
    if (op->addr != want || op->bytes != 8)
        r->ok = false;
    r->k++;
    return 0;
}

/* Trace s into r, expecting `later` bytes touched after the delay. */
static void trace_delay(const wl_spec_t *s, const machine_t *m, uint64_t later, drec_t *r)
{
    char err[256];
    *r = (drec_t){.reuse = s->reuse_bytes, .delay = s->delay_bytes, .later = later, .ok = true};
    r->ring_base = s->base_addr + WL_DELAY_ADDR_OFFSET;
    trace_t *t = trace_create(drec_sink, r, false);
    assert_non_null(t);
    assert_int_equal(wl_trace(s, m, t, NULL, NULL, err, sizeof err), 0);
    trace_destroy(t);
}

static void test_delay_then_rest(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    wl_spec_t s;
    chunked_spec(&s, 1, 1024);
    s.delay_bytes = 512;
    s.later_bytes = 2048;
    drec_t r;
    char err[256];
    trace_delay(&s, &m, 2048, &r);
    assert_true(r.ok);
    /* 4 calls: 16 + 32 loads of the call each, 8 of the ring each */
    assert_int_equal(r.call_loads, 4 * (16 + 32));
    assert_int_equal(r.ring_loads, 4 * 8);

    /* later larger than what is left of the call: the rest of the call only */
    s.later_bytes = 16384;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), 0);
    trace_delay(&s, &m, 3072, &r);
    assert_true(r.ok);
    assert_int_equal(r.call_loads, 4 * (4096 / 64));

    /* later than --size is refused; so is a delay past the ring */
    s.later_bytes = 32768;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "later touch"));
    s.later_bytes = 0;
    s.delay_bytes = WL_DELAY_RING_BYTES + 64;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "delay"));
}

/* The delay evicts what the clear left in cache: after 16 KiB of other reads
 * (4 x the tiny L2 + L3), the later touch of 512 bytes reads all of them
 * from memory again; with no delay the same touches hit (no more memory
 * reads than the clear alone). */
static void test_delay_evicts(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    char err[256];
    uint64_t dram[4];
    /* 0: clear alone; 1: clear + delay; 2: + subpage touch and later touch;
     * 3: the same touches without a delay */
    const uint64_t reuse[4] = {0, 0, 64, 64}, delay[4] = {0, 16384, 16384, 0},
                   later[4] = {0, 0, 512, 512};
    for (int i = 0; i < 4; i++) {
        wl_spec_t s;
        wl_spec_init(&s);
        snprintf(s.function, sizeof s.function, "rep_stosb");
        s.size_bytes = 1024;
        s.reuse_bytes = reuse[i];
        s.delay_bytes = delay[i];
        s.later_bytes = later[i];
        run_opts_t o;
        run_opts_init(&o);
        o.exact = true;
        run_result_t *res = calloc(1, sizeof *res);
        assert_non_null(res);
        assert_int_equal(run_predict(&m, &s, &o, res, err, sizeof err), 0);
        dram[i] = res->stats.bytes[ST_DRAM_READS];
        free(res);
    }
    /* the delay reads 16 KiB of other memory */
    assert_int_equal(dram[1] - dram[0], 16384);
    /* the 64-byte subpage touch comes right after the clear and hits; the
     * 512 later bytes come after the delay and miss */
    assert_int_equal(dram[2] - dram[1], 512);
    /* no delay: every touch hits */
    assert_int_equal(dram[3], dram[0]);
}

static void test_validation(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    wl_spec_t s;
    char err[256] = "";
    wl_spec_init(&s);
    s.size_bytes = 4096;
    s.reuse_bytes = 8192;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "reuse"));
    assert_non_null(strstr(err, "larger than --size"));

    wl_spec_init(&s);
    s.kind = WL_MMAP;
    s.caller = WL_CALLER_PAGE;
    s.size_bytes = 8192;
    s.reuse_bytes = 4096;
    snprintf(s.function, sizeof s.function, "rep_stosb");
    err[0] = '\0';
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "memset"));
    s.reuse_bytes = 0;
    assert_int_equal(wl_validate(&s, &m, err, sizeof err), 0);
}

static void run_touch(const machine_t *m, const char *fn, uint64_t reuse, run_result_t *res)
{
    char err[256];
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof s.function, "%s", fn);
    s.size_bytes = 1024;
    s.reuse_bytes = reuse;
    run_opts_t o;
    run_opts_init(&o);
    o.exact = true;
    assert_int_equal(run_predict(m, &s, &o, res, err, sizeof err), 0);
}

static void test_refetch_direction(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    run_result_t *base = calloc(1, sizeof *base), *touch = calloc(1, sizeof *touch);
    run_result_t *nt = calloc(1, sizeof *nt), *nt_touch = calloc(1, sizeof *nt_touch);
    assert_non_null(base);
    assert_non_null(touch);
    assert_non_null(nt);
    assert_non_null(nt_touch);

    /* temporal: 1 KiB fits L2, so the 16 loads hit in cache: no memory reads */
    run_touch(&m, "rep_stosb", 0, base);
    run_touch(&m, "rep_stosb", 1024, touch);
    assert_int_equal(touch->stats.count[ST_LOADS], 16);
    assert_int_equal(base->stats.count[ST_LOADS], 0);
    assert_int_equal(touch->stats.bytes[ST_DRAM_READS], base->stats.bytes[ST_DRAM_READS]);

    /* non-temporal: the lines went to memory, so the touch reads them back */
    run_touch(&m, "movnti", 0, nt);
    run_touch(&m, "movnti", 1024, nt_touch);
    assert_int_equal(nt_touch->stats.bytes[ST_DRAM_READS] - nt->stats.bytes[ST_DRAM_READS], 1024);
    /* and the re-fetch costs more after the non-temporal clear */
    assert_true(nt_touch->cycles - nt->cycles > touch->cycles - base->cycles);
    free(base);
    free(touch);
    free(nt);
    free(nt_touch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loads_follow_each_measured_call),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_delay_then_rest),
        cmocka_unit_test(test_delay_evicts),
        cmocka_unit_test(test_refetch_direction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
