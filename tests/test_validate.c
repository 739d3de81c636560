/*
 * test_validate.c - sim/study/validate.c: units to bytes per second, the
 * median, a case's command line as a run point, and the corpus loader's
 * errors (file:line:col, the key, the value, the rule) on the fixtures of
 * tests/fixtures/published/badfiles/.
 *
 * Notes
 *  - Expected values are computed by hand: 2 GB/s is 2 x 2^30 B/s; 50 ms
 *    for 1 GiB is 2^30 / 0.05 = 21474836480 B/s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "sim/engine/point.h"
#include "sim/study/validate.h"

#define BAD CLEARSIM_SOURCE_DIR "/tests/fixtures/published/badfiles/"

static void test_units(void **state)
{
    (void)state;
    char why[256];
    double bps = 0;
    assert_int_equal(val_unit_bps(2, "GB/s", 0, &bps, why, sizeof why), 0);
    assert_true(bps == 2147483648.0);
    assert_int_equal(val_unit_bps(2, "gib/S", 0, &bps, why, sizeof why), 0);
    assert_true(bps == 2147483648.0);
    assert_int_equal(val_unit_bps(2, "GB/s-decimal", 0, &bps, why, sizeof why), 0);
    assert_true(bps == 2e9);
    assert_int_equal(val_unit_bps(1500, "MB/s", 0, &bps, why, sizeof why), 0);
    assert_true(bps == 1.5e9);
    assert_int_equal(val_unit_bps(3, "MiB/s", 0, &bps, why, sizeof why), 0);
    assert_true(bps == 3145728.0);
    assert_int_equal(val_unit_bps(50, "ms", 1073741824.0, &bps, why, sizeof why), 0);
    assert_true(fabs(bps - 21474836480.0) < 1e-3);
    assert_int_equal(val_unit_bps(2, "s", 4e9, &bps, why, sizeof why), 0);
    assert_true(bps == 2e9);
    assert_int_equal(val_unit_bps(250, "us", 1e6, &bps, why, sizeof why), 0);
    assert_true(fabs(bps - 4e9) < 1e-3);
    assert_int_equal(val_unit_bps(500, "ns", 4096, &bps, why, sizeof why), 0);
    assert_true(fabs(bps - 8.192e9) < 1e-3);
    /* refused */
    assert_int_equal(val_unit_bps(3, "ms", 0, &bps, why, sizeof why), -1);
    assert_non_null(strstr(why, "needs bytes:"));
    assert_int_equal(val_unit_bps(3, "GB/sec", 0, &bps, why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown unit 'GB/sec'"));
    assert_int_equal(val_unit_bps(0, "GB/s", 0, &bps, why, sizeof why), -1);
    assert_int_equal(val_unit_bps(-1, "GB/s", 0, &bps, why, sizeof why), -1);
}

static void test_median(void **state)
{
    (void)state;
    double odd[] = {0.3, 0.1, 0.2};
    double even[] = {0.4, 0.1, 0.3, 0.2};
    double one[] = {0.7};
    assert_true(val_median(odd, 3) == 0.2);
    assert_true(fabs(val_median(even, 4) - 0.25) < 1e-15);
    assert_true(val_median(one, 1) == 0.7);
    assert_true(isnan(val_median(NULL, 0)));
}

static void test_command(void **state)
{
    (void)state;
    static run_point_t p;
    char why[512];
    /* run: the case's machine when --machine is not given */
    assert_int_equal(val_command_point("run --workload mmap --page 2MB -s 64MB --caller extent",
                                       "zen3-epyc-7j13", &p, why, sizeof why),
                     0);
    assert_string_equal(p.machine, "zen3-epyc-7j13");
    assert_int_equal(p.spec.kind, WL_MMAP);
    assert_true(p.spec.page_bytes == 2097152);
    assert_true(p.spec.size_bytes == 67108864);
    /* bench: perf's -f, -l, -k */
    assert_int_equal(val_command_point("bench mem memset -s 64MB -k 4KB -l 3 -f x86-64-stosq",
                                       "zen3-epyc-7j13", &p, why, sizeof why),
                     0);
    assert_int_equal(p.spec.kind, WL_MEMSET);
    assert_string_equal(p.spec.function, "rep_stosq");
    assert_true(p.spec.chunk_bytes == 4096);
    assert_int_equal(p.spec.loops, 3);
    assert_int_equal(val_command_point("bench mem map -p 1GB -f populate -s 4GB --nr_loops=2",
                                       "zen3-epyc-7j13", &p, why, sizeof why),
                     0);
    assert_int_equal(p.spec.kind, WL_MMAP);
    assert_int_equal(p.spec.fault, WL_FAULT_POPULATE);
    assert_int_equal(p.spec.loops, 2);
    /* refused */
    assert_int_equal(val_command_point("bench mem memset -s 1MB", "m", &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "bench needs -f"));
    assert_int_equal(
        val_command_point("bench mem memset -s 1MB -f all -c", "m", &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "cycles/byte"));
    assert_int_equal(val_command_point("sweep -s 1MB", "m", &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "'run' or 'bench'"));
    assert_int_equal(val_command_point("run --machine a -s 1MB", "b", &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "not the case's machine (b)"));
}

typedef struct bad_file {
    const char *file;
    const char *want; /* substring of the error, after the path */
} bad_file_t;

static void test_bad_files(void **state)
{
    (void)state;
    static const bad_file_t bad[] = {
        {"unknown-key.yaml", "unknown-key.yaml:10:5: cases.comand: unknown key"},
        {"time-no-bytes.yaml", "time-no-bytes.yaml:9:11: cases.unit: a time in ms needs bytes:"},
        {"bad-command.yaml", "bad-command.yaml:10:14: cases.command: 'bench mem memset -s 1MB': "
                             "bench needs -f"},
        {"other-machine.yaml", "not the case's machine (zen3-epyc-7j13)"},
        {"gain-unknown.yaml", "gain-unknown.yaml:13:16: gains.numerator: 'bg-2' is not the id "
                              "of a case"},
        {"negative.yaml", "negative.yaml:8:13: cases.figure: '-3' must be positive"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[512], err[1024] = "";
        snprintf(path, sizeof path, "%s%s", BAD, bad[i].file);
        val_corpus_t *c = val_load_file(path, err, sizeof err);
        if (c) {
            val_destroy(c);
            fail_msg("%s loaded", bad[i].file);
        }
        if (!strstr(err, bad[i].want))
            fail_msg("%s: '%s' does not hold '%s'", bad[i].file, err, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
