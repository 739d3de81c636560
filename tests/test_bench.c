/*
 * test_bench.c - the microbenchmark workloads through the whole prediction
 * path (workload -> kernel trace -> model) on the tiny machine
 * (tests/tiny_machine.h), each against a hand-computed figure, at and next
 * to the capacity that changes it; and the pure helpers of detect
 * --measure (the effective L3 from a latency sweep, the C library's memset
 * policy).
 *
 * The tiny machine runs at 1 GHz, so cycles are ns. Its front end never
 * limits (insns_per_cycle 0), there is no TLB, no prefetcher and no
 * bandwidth limit, so a dependent load costs exactly the latency of the
 * level that holds its line: a chase over N lines that all stay in one
 * level takes N x that latency per pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/libc.h"
#include "sim/study/measure.h"
#include "tests/tiny_machine.h"

static run_result_t res;

/* Predict `args` (clearsim run options) on m; returns the result. */
static const run_result_t *predict(const machine_t *m, const char *args)
{
    static run_point_t p;
    char err[512] = "";
    point_init(&p);
    if (point_parse_args(&p, args, err, sizeof err))
        fail_msg("%s: %s", args, err);
    point_apply_defaults(&p, m);
    if (wl_validate(&p.spec, m, err, sizeof err))
        fail_msg("%s: %s", args, err);
    p.opts.exact = true;
    if (run_predict(m, &p.spec, &p.opts, &res, err, sizeof err))
        fail_msg("%s: %s", args, err);
    return &res;
}

static void chase_ns(const machine_t *m, uint32_t lines, double want_ns)
{
    char args[128];
    snprintf(args, sizeof args, "--workload latency -s %u -l 3", lines * 64);
    const run_result_t *r = predict(m, args);
    if (r->ns_per_load < want_ns - 1e-9 || r->ns_per_load > want_ns + 1e-9)
        fail_msg("chase over %u lines: %.6f ns per load, want %.6f", lines, r->ns_per_load,
                 want_ns);
    /* N x L per pass, 3 passes */
    assert_int_equal(r->cycles, (uint64_t)(3 * lines * want_ns + 0.5));
}

/* L1 (4 lines, latency 4): a chase over 4 lines stays there; over 5 every
 * line is gone before it comes round again (LRU and a cycle) and comes from
 * L2 (16 lines, latency 10) - up to 16; over 17 from the victim L3 (64
 * lines more, latency 30) - up to 16 + 64 = 80; over 81 from memory. */
static void test_chase_levels(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    chase_ns(&m, 2, 4);
    chase_ns(&m, 4, 4);
    chase_ns(&m, 5, 10);
    chase_ns(&m, 16, 10);
    chase_ns(&m, 24, 30);
    chase_ns(&m, 64, 30);
}

/* Past every cache: the DRAM latency (100 ns) on top of nothing else. */
static void test_chase_memory(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    chase_ns(&m, 256, 100);
    /* twice the latency, twice the time */
    m.mem_latency_ns = 200;
    chase_ns(&m, 256, 200);
}

/* Streaming loads from L1 at core.load_bandwidth 16 B/cycle: a 64-byte line
 * every 4 cycles (16 GB/s at 1 GHz); at 32 B/cycle every 2. */
static void test_load_port(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.load_bpc = 16;
    /* 64 passes x 4 lines x 4 cycles, and the last line's L1 latency (4) */
    const run_result_t *r = predict(&m, "--workload load -f load8 -s 256 -l 64");
    assert_int_equal(r->cycles, 64 * 4 * 4 + 4);
    m.load_bpc = 32;
    r = predict(&m, "--workload load -f load8 -s 256 -l 64");
    assert_int_equal(r->cycles, 64 * 4 * 2 + 4);
}

/* core.store_bandwidth: the L1 write port commits at most that many bytes a
 * cycle. 8-byte stores at one a cycle are 8 B/cycle, 8 cycles a line: a port
 * of 8 B/cycle does not bind (as none), one of 7 B/cycle does (64/7 cycles a
 * line), and one of 4 B/cycle takes 16 cycles a line. */
static void test_store_port(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    const char *args = "--workload store -f unrolled -s 256 -l 64";
    uint64_t none = predict(&m, args)->cycles;
    m.store_bpc = 8;
    assert_int_equal(predict(&m, args)->cycles, none);
    m.store_bpc = 7;
    uint64_t seven = predict(&m, args)->cycles;
    assert_true(seven > none);
    m.store_bpc = 4;
    uint64_t four = predict(&m, args)->cycles;
    /* 64 passes x 4 lines x (16 - 8) cycles more than without a port limit */
    assert_int_equal(four - none, 64 * 4 * 8);
    /* a 64-byte store (one slot a line) at 16 B/cycle: 4 cycles a line */
    m.store_bpc = 16;
    m.features |= MACHINE_FEAT_AVX512;
    uint64_t wide16 = predict(&m, "--workload store -f avx512 -s 256 -l 64")->cycles;
    m.store_bpc = 0;
    uint64_t wide = predict(&m, "--workload store -f avx512 -s 256 -l 64")->cycles;
    assert_int_equal(wide16 - wide, 64 * 4 * 3);
}

/* Loads that miss wait for a fill buffer: with one L1 miss slot, a stream
 * from memory (100 ns a line) moves 64 B per 100 ns; with two, twice that. */
static void test_load_fill_buffers(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.l1.mshrs = 1;
    m.l2.mshrs = 8;
    const run_result_t *r = predict(&m, "--workload load -f load8 -s 65536");
    double one = r->bytes_per_sec;
    assert_true(one > 0.64e9 * 0.97 && one < 0.64e9 * 1.03);
    m.l1.mshrs = 2;
    r = predict(&m, "--workload load -f load8 -s 65536");
    assert_true(r->bytes_per_sec > 2 * one * 0.97 && r->bytes_per_sec < 2 * one * 1.03);
}

/* The copy writes its source's byte: a zero source is no zeroing
 * operation, so memory.zero_write_fraction does not apply to it. */
static void test_copy_zero_source(void **state)
{
    (void)state;
    machine_t m;
    tiny_machine(&m);
    m.mem_write_bpc = 1; /* 64 cycles a line on the write link */
    m.mem_zero_write_fraction = 0.25;
    double a = predict(&m, "--workload copy -f copy_nt8 -s 65536")->bytes_per_sec;
    double b = predict(&m, "--workload copy -f copy_nt8 -s 65536 --fill 0x5a")->bytes_per_sec;
    assert_true(a > b * 0.999 && a < b * 1.001);
    /* 64 B per 64 cycles (1 GHz) = 1 GB/s */
    assert_true(a > 1e9 * 0.97 && a < 1e9 * 1.03);
}

/* ---- the effective L3 from a latency sweep ---- */

/* L2 1 MiB at 5 ns, DRAM 100 ns, a victim L3: at 2 MiB all loads are cached
 * (half in L2); a point where half of what is not in L2 or L3 misses sits at
 * the capacity, and the L3 is it less the L2. */
static void test_l3_from_sweep(void **state)
{
    (void)state;
    const uint64_t M = 1ull << 20;
    /* cached latency at s: (1M x 5 + (s - 1M) x 20) / s, l3 = 20 ns */
    uint64_t sizes[] = {2 * M, 4 * M, 8 * M, 16 * M};
    double lat[4];
    lat[0] = (1.0 * 5 + 1.0 * 20) / 2; /* 12.5: the first point gives l3 = 20 */
    lat[1] = (1.0 * 5 + 3.0 * 20) / 4; /* all cached */
    /* at 8 MiB exactly half miss: cached (5 + 7 x 20) / 8 = 18.125 */
    lat[2] = 18.125 + 0.5 * (100 - 18.125);
    lat[3] = 95;
    uint64_t l3 = measure_l3_from_sweep(sizes, lat, 4, 5, M, 100, true, 32 * M);
    assert_int_equal(l3, 7 * M);
    /* not a victim: the capacity is the L3 */
    assert_int_equal(measure_l3_from_sweep(sizes, lat, 4, 5, M, 100, false, 32 * M) > 6 * M, 1);
    /* no point reaches half: the nominal size */
    lat[2] = lat[3] = 19;
    assert_int_equal(measure_l3_from_sweep(sizes, lat, 4, 5, M, 100, true, 32 * M), 32 * M);
    /* the first point misses already (a guest with no L3 share): its L3
     * time (2 x lat0 - 5) reaches half of the DRAM 100 ns at lat0 = 27.5 */
    double miss[4] = {27.5, 96, 98, 99};
    assert_int_equal(measure_l3_from_sweep(sizes, miss, 4, 5, M, 100, true, 32 * M), M);
    miss[0] = 50; /* not a victim: the first point's own time */
    assert_int_equal(measure_l3_from_sweep(sizes, miss, 4, 5, M, 100, false, 32 * M), 2 * M);
    /* just below: an L3 of 49.99 ns, the share rule (half miss at 4 MiB:
     * cached (5 + 3 x 49.99) / 4 = 38.74, lat 69.4) */
    miss[0] = 27.495;
    miss[1] = 38.7425 + 0.5 * (100 - 38.7425);
    assert_int_equal(measure_l3_from_sweep(sizes, miss, 4, 5, M, 100, true, 32 * M), 3 * M);

    /* A cliff (the Zen 5 guest's sweep of 2026-12-05, L2 1 MiB at 5.52 ns):
     * 18.11 ns at 4608 KiB, 105.9 at 6912 KiB (5.8 x), and past it DRAM's
     * own latency rising to 313 ns at 256 MiB. Against 313 the share at
     * 6912 KiB is 0.30 and reaches one half only at 34944 KiB; the cliff puts
     * the capacity half way across it, sqrt(4608 x 6912) KiB = 5643.7 KiB,
     * and the victim L3 1 MiB less: 4619.7 KiB. */
    const uint64_t K = 1024;
    uint64_t zs[] = {2048 * K,  3072 * K,  4608 * K,  6912 * K,
                     10368 * K, 15552 * K, 23296 * K, 34944 * K};
    double zl[] = {14.41, 16.35, 18.11, 105.9, 131.5, 141.7, 156.5, 167};
    uint64_t got = measure_l3_from_sweep(zs, zl, 8, 5.521, M, 313.1, true, 32 * M);
    if (got < 4619 * K || got > 4620 * K)
        fail_msg("cliff: %llu bytes, want 4619.7 KiB", (unsigned long long)got);
    /* at the threshold: a step of exactly 3 x is a cliff, 2.99 x is not
     * (then the half-miss share against 313 ns, near 34944 KiB) */
    zl[3] = 3 * zl[2];
    assert_int_equal(measure_l3_from_sweep(zs, zl, 8, 5.521, M, 313.1, true, 32 * M), got);
    zl[3] = 2.99 * zl[2];
    assert_true(measure_l3_from_sweep(zs, zl, 8, 5.521, M, 313.1, true, 32 * M) > 30 * M);
}

/* core.rfo_window's pick, in log distance: the Zen 5 guest's copies of
 * 15:00 (host 0.94; model 0.72 store_buffer, 1.00 fill_buffers) pick
 * fill_buffers; those of 15:33 (0.87; 0.77, 1.00) are too near both and keep
 * the base's. At the threshold: fill_buffers at exactly twice as near,
 * not just under. */
static void test_rfo_pick(void **state)
{
    (void)state;
    assert_int_equal(measure_rfo_pick(0.94, 0.72, 1.00), 1);
    assert_int_equal(measure_rfo_pick(0.87, 0.77, 1.00), -1);
    assert_int_equal(measure_rfo_pick(0.55, 0.50, 1.00), 0);
    double h = exp((log(0.5) + 2 * log(1.0)) / 3); /* log distance 1/3 to 1.0, 2/3 to 0.5 */
    assert_int_equal(measure_rfo_pick(h * 1.000001, 0.5, 1.0), 1);
    assert_int_equal(measure_rfo_pick(h * 0.999, 0.5, 1.0), -1);
    assert_int_equal(measure_rfo_pick(0, 0.5, 1.0), -1);
}

static void test_sweep_at_dram(void **state)
{
    (void)state;
    /* three points within 10%, each at least 10 x the L2's 10 ns */
    double lat[] = {40, 100, 105, 110};
    assert_false(measure_sweep_at_dram(lat, 2, 10, 0)); /* two points only */
    assert_false(measure_sweep_at_dram(lat, 3, 10, 0)); /* 40 .. 105: not flat */
    assert_true(measure_sweep_at_dram(lat, 4, 10, 0));  /* 100 .. 110: 10% */
    lat[3] = 110.01;                                    /* a hair over 10% */
    assert_false(measure_sweep_at_dram(lat, 4, 10, 0));
    lat[3] = 110;
    assert_false(measure_sweep_at_dram(lat, 4, 10.001, 0)); /* 100 < 10 x L2 */
    /* the L3 hit floor: 100 ns is 2 x a 50 ns hit, not 2 x 50.001 */
    assert_true(measure_sweep_at_dram(lat, 4, 10, 50));
    assert_false(measure_sweep_at_dram(lat, 4, 10, 50.001));
    /* an L3 plateau at 4 x the L2 does not stop it */
    double l3[] = {14, 14.2, 14.1};
    assert_false(measure_sweep_at_dram(l3, 3, 3.5, 0));
    /* nor an SLC at 17.5 x its L2 (AmpereOne: 38 ns against 2.2) */
    double slc[] = {38, 39, 38.5};
    assert_true(measure_sweep_at_dram(slc, 3, 2.2, 0));
    assert_false(measure_sweep_at_dram(slc, 3, 2.2, 38.3));
    assert_false(measure_sweep_at_dram(lat, 4, 0, 0));
}

/* ---- memset by C library version ---- */

static void zen3(machine_t *m)
{
    tiny_machine(m);
    strcpy(m->vendor, "amd");
    m->family = 0x19;
    m->model = 0x1;
    m->features = MACHINE_FEAT_ERMS | MACHINE_FEAT_FSRM | MACHINE_FEAT_AVX2 | MACHINE_FEAT_SSE2;
}

/* The L3's edge: more than half, less than 4 times the half-miss size. */
static void test_l3_edge(void **state)
{
    (void)state;
    const uint64_t half = 4 << 20;
    assert_false(measure_at_l3_edge(2 << 20, half));       /* half of it */
    assert_true(measure_at_l3_edge((2 << 20) + 64, half)); /* a line above */
    assert_true(measure_at_l3_edge(half, half));
    assert_true(measure_at_l3_edge((16 << 20) - 64, half)); /* a line below 4 x */
    assert_false(measure_at_l3_edge(16 << 20, half));       /* 4 x */
    assert_false(measure_at_l3_edge(1 << 20, 0));           /* no edge found */
}

static void test_libc_glibc(void **state)
{
    (void)state;
    machine_t m;
    libc_memset_t p;
    char err[256];
    zen3(&m);
    /* 2.36 (Debian 12): rep stosb above 2048 on every vendor, no NT path */
    assert_int_equal(libc_memset_policy("glibc-2.36", &m, 32ull << 20, &p, err, sizeof err), 0);
    assert_int_equal(p.vector_bytes, 32);
    assert_int_equal(p.rep_stosb_bytes, 2049);
    assert_int_equal(p.nt_bytes, 0);
    /* 2.39 still; 2.40: never rep stosb on AMD */
    assert_int_equal(libc_memset_policy("glibc 2.39", &m, 32ull << 20, &p, err, sizeof err), 0);
    assert_int_equal(p.rep_stosb_bytes, 2049);
    assert_int_equal(libc_memset_policy("glibc-2.40", &m, 32ull << 20, &p, err, sizeof err), 0);
    assert_int_equal(p.rep_stosb_bytes, 0);
    assert_int_equal(p.nt_bytes, 0);
    /* Intel Sapphire Rapids, 2.40: AVX-512 kept (AVX-VNNI), NT at (L3 + L2) / 2 */
    tiny_machine(&m);
    strcpy(m.vendor, "intel");
    m.family = 6;
    m.model = 0x8f;
    m.features = MACHINE_FEAT_ERMS | MACHINE_FEAT_AVX2 | MACHINE_FEAT_AVX512 | MACHINE_FEAT_SSE2;
    m.l2.size_bytes = 2ull << 20;
    m.l3.incl = MACHINE_INCL_NINE;
    assert_int_equal(libc_memset_policy("glibc-2.40", &m, 105ull << 20, &p, err, sizeof err), 0);
    assert_int_equal(p.vector_bytes, 64);
    assert_int_equal(p.nt_bytes, (107ull << 20) / 2);
    /* 2.34: every Intel prefers no AVX-512 */
    assert_int_equal(libc_memset_policy("glibc-2.34", &m, 105ull << 20, &p, err, sizeof err), 0);
    assert_int_equal(p.vector_bytes, 32);
    /* not glibc, no version, too old */
    assert_int_equal(libc_memset_policy("musl-1.2", &m, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown C library"));
    assert_int_equal(libc_memset_policy("glibc", &m, 0, &p, err, sizeof err), -1);
    assert_int_equal(libc_memset_policy("glibc-2.30", &m, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "2.31 and later"));
}

static void test_libc_aarch64(void **state)
{
    (void)state;
    machine_t m;
    libc_memset_t p;
    char err[256];
    tiny_machine(&m);
    m.isa = MACHINE_ISA_ARM64;
    m.features = MACHINE_FEAT_DCZVA | MACHINE_FEAT_MOPS;
    m.zva_block_bytes = 64;
    assert_int_equal(libc_memset_policy("glibc-2.38", &m, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.mops, 0);
    assert_int_equal(p.zva_bytes, 256);
    assert_int_equal(libc_memset_policy("glibc-2.39", &m, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.mops, 1);
    assert_int_equal(libc_memset_policy("glibc-2.41", &m, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.zva_bytes, 129);
    m.zva_block_bytes = 128;
    assert_int_equal(libc_memset_policy("glibc-2.41", &m, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.zva_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chase_levels),      cmocka_unit_test(test_chase_memory),
        cmocka_unit_test(test_load_port),         cmocka_unit_test(test_store_port),
        cmocka_unit_test(test_load_fill_buffers), cmocka_unit_test(test_copy_zero_source),
        cmocka_unit_test(test_l3_from_sweep),     cmocka_unit_test(test_sweep_at_dram),
        cmocka_unit_test(test_rfo_pick),          cmocka_unit_test(test_l3_edge),
        cmocka_unit_test(test_libc_glibc),        cmocka_unit_test(test_libc_aarch64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
