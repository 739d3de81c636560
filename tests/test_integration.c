/*
 * test_integration.c - whole workloads through run_predict on the bundled
 * Milan machine (configs/zen3-epyc-7j13.yaml), for regions larger than its
 * L3: the traffic and ordering effects the model must produce by mechanism.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/engine/run.h"

static machine_t *milan;

static int setup(void **state)
{
    (void)state;
    char path[1024];
    char e[512] = "";
    if (cfg_machine_resolve("zen3-epyc-7j13", path, sizeof(path), e, sizeof e))
        return -1;
    milan = cfg_machine_load(path, e, sizeof e);
    if (!milan)
        fprintf(stderr, "%s\n", e);
    return milan ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cfg_machine_destroy(milan);
    return 0;
}

static run_result_t predict(const char *function, uint64_t size, uint64_t chunk, uint32_t loops,
                            wl_caller_t caller)
{
    wl_spec_t s;
    wl_spec_init(&s);
    snprintf(s.function, sizeof(s.function), "%s", function);
    s.size_bytes = size;
    s.chunk_bytes = chunk;
    s.loops = loops;
    s.caller = caller;
    run_result_t r;
    char err[256];
    if (run_predict(milan, &s, NULL, &r, err, sizeof(err)))
        fail_msg("%s", err);
    return r;
}

static double dram_read(const run_result_t *r)
{
    return (double)r->stats.bytes[ST_DRAM_READS];
}

static double dram_write(const run_result_t *r)
{
    return (double)r->stats.bytes[ST_DRAM_WRITES];
}

static uint64_t counter(const run_result_t *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_counters; i++)
        if (strcmp(r->counters[i].name, name) == 0 && r->counters[i].supported)
            return r->counters[i].value;
    fail_msg("counter %s not supported", name);
    return 0;
}

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* Temporal write-allocate clearing of 256 MiB (8 x L3): every line is read for
 * ownership and written back, so DRAM reads match DRAM writes within 5%. */
static void test_write_allocate_doubles_traffic(void **state)
{
    (void)state;
    run_result_t r = predict("unrolled", 256 * MiB, 2 * MiB, 2, WL_CALLER_CHUNKED);
    double rd = dram_read(&r), wr = dram_write(&r);
    assert_true(rd > 0.95 * (double)r.bytes && rd < 1.05 * (double)r.bytes);
    assert_true(rd > 0.95 * wr && rd < 1.05 * wr);
    /* and rep stosb below the elision threshold does the same */
    r = predict("rep_stosb", 256 * MiB, 2 * MiB, 2, WL_CALLER_CHUNKED);
    rd = dram_read(&r);
    wr = dram_write(&r);
    assert_true(rd > 0.95 * wr && rd < 1.05 * wr);
}

/* Elided (rep stosb in 1 GiB calls), non-temporal and line-zeroing clearing
 * read less than 2% of the bytes they write. */
static void test_no_read_paths(void **state)
{
    (void)state;
    const char *fns[] = {"movnti", "clzero"};
    for (int i = 0; i < 2; i++) {
        run_result_t r = predict(fns[i], 512 * MiB, 2 * MiB, 1, WL_CALLER_CHUNKED);
        assert_true(dram_read(&r) < 0.02 * dram_write(&r));
        assert_true(dram_write(&r) >= 0.98 * (double)r.bytes);
    }
    run_result_t r = predict("rep_stosb", 2 * GiB, 1 * GiB, 1, WL_CALLER_CHUNKED);
    assert_true(r.stats.count[ST_STRING_ELIDED_LINES] > 0);
    assert_true(dram_read(&r) < 0.02 * dram_write(&r));
}

/* A 64 KiB buffer cleared 2000 times stays in the caches: no DRAM traffic in
 * the measured region, and more than 3x the DRAM-bound throughput. */
static void test_cache_resident_repeat(void **state)
{
    (void)state;
    run_result_t hot = predict("rep_stosb", 64 * 1024, 0, 2000, WL_CALLER_REPEAT);
    assert_int_equal(hot.stats.count[ST_DRAM_READS], 0);
    assert_int_equal(hot.stats.count[ST_DRAM_WRITES], 0);
    run_result_t cold = predict("rep_stosb", 256 * MiB, 2 * MiB, 1, WL_CALLER_CHUNKED);
    assert_true(hot.bytes_per_sec > 3 * cold.bytes_per_sec);
}

/* 4 KiB calls pay the per-call and startup costs and restart the string
 * engine's lookahead; 2 MiB calls do not. */
static void test_small_chunks_slower(void **state)
{
    (void)state;
    run_result_t k4 = predict("rep_stosb", 256 * MiB, 4096, 1, WL_CALLER_CHUNKED);
    run_result_t m2 = predict("rep_stosb", 256 * MiB, 2 * MiB, 1, WL_CALLER_CHUNKED);
    assert_true(k4.bytes_per_sec < m2.bytes_per_sec);
    assert_true(k4.stats.count[ST_CALLS] == 512 * m2.stats.count[ST_CALLS]);
}

/* Under write-allocate, L1-dcache-load-misses (the AMD event counts every
 * line the L1 allocates) is about one per cleared line. */
static void test_l1_misses_per_line(void **state)
{
    (void)state;
    run_result_t r = predict("rep_stosb", 256 * MiB, 2 * MiB, 1, WL_CALLER_CHUNKED);
    double per_line = (double)counter(&r, "L1-dcache-load-misses") / ((double)r.bytes / 64);
    assert_true(per_line > 0.95 && per_line < 1.05);
}

/* Every kernel this ISA has runs on the machine, in both workloads and every
 * caller, and reports cycles, seconds and a throughput. */
static void test_every_kernel_every_caller(void **state)
{
    (void)state;
    const char *fns[] = {"rep_stosb", "rep_stosq", "unrolled", "movnti",
                         "clzero",    "avx2",      "memset"};
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        run_result_t r = predict(fns[i], 8 * MiB, 1 * MiB, 1, WL_CALLER_CHUNKED);
        assert_true(r.cycles > 0 && r.seconds > 0 && r.bytes_per_sec > 0);
        r = predict(fns[i], 8 * MiB, 0, 2, WL_CALLER_REPEAT);
        assert_true(r.cycles > 0 && r.bytes_per_sec > 0);
        for (int c = 0; c < 2; c++) {
            wl_spec_t s;
            wl_spec_init(&s);
            s.kind = WL_MMAP;
            snprintf(s.function, sizeof(s.function), "%s", fns[i]);
            s.page_bytes = 2 * MiB;
            s.size_bytes = 8 * MiB;
            s.caller = c ? WL_CALLER_EXTENT : WL_CALLER_PAGE;
            char err[256];
            if (run_predict(milan, &s, NULL, &r, err, sizeof(err)))
                fail_msg("%s: %s", fns[i], err);
            assert_true(r.cycles > 0 && r.bytes_per_sec > 0);
            assert_int_equal(r.stats.count[ST_FAULTS], 4);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_allocate_doubles_traffic),
        cmocka_unit_test(test_no_read_paths),
        cmocka_unit_test(test_cache_resident_repeat),
        cmocka_unit_test(test_small_chunks_slower),
        cmocka_unit_test(test_l1_misses_per_line),
        cmocka_unit_test(test_every_kernel_every_caller),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
