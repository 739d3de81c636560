/*
 * test_units.c - sim/machine/units.c: sizes (exact, with the uint64_t boundaries),
 * times, frequencies, bandwidths, plain numbers, and size formatting.
 *
 * Notes
 *  - Expected values are computed by hand (powers of two written out).
 *  - Every rejected input is checked for the rule named in `why`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/machine/units.h"

typedef struct size_ok {
    const char *in;
    uint64_t want;
} size_ok_t;

typedef struct bad_case {
    const char *in;
    const char *why; /* substring of the reason */
} bad_case_t;

static void test_size_ok(void **state)
{
    (void)state;
    static const size_ok_t cases[] = {
        {"0", 0},
        {"4096", 4096},
        {"4096B", 4096},
        {"4KiB", 4096},
        {"4KB", 4096},
        {"4kb", 4096},
        {"32 KiB", 32768},
        {"1.25MiB", 1310720},
        {"0.5KiB", 512},
        {"1.5KB", 1536},
        {"2MiB", 2097152},
        {"1GB", 1073741824},
        {"3TiB", UINT64_C(3298534883328)},
        {"1e3B", 1000},
        {"1e3", 1000},
        {"2.5e1B", 25},
        {"0.125e1KiB", 1280},
        {"0x1000", 4096},
        {"0x10 KiB", 16384},
        {"0x100000 B", 1048576},
        {"0x1b0 MiB", UINT64_C(0x1b0) << 20},
        {"+8", 8},
        {"00012", 12},
        {"1.000B", 1},
        {"18446744073709551615", UINT64_MAX},
        {"18446744073709551615B", UINT64_MAX},
        {"0xffffffffffffffff", UINT64_MAX},
        {"16383PiB", UINT64_C(16383) << 50},
        {"15EiB", UINT64_C(15) << 60},
        {"15.75EiB", UINT64_C(18158513697557839872)},
        {"17179869183GiB", UINT64_C(17179869183) << 30},
        {"0.0009765625KiB", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t v = 12345;
        char why[256] = "";
        int rc = unit_parse_size(cases[i].in, &v, why, sizeof(why));
        if (rc != 0)
            print_error("input '%s': %s\n", cases[i].in, why);
        assert_int_equal(rc, 0);
        assert_true(v == cases[i].want);
    }
}

static void test_size_bad(void **state)
{
    (void)state;
    static const bad_case_t cases[] = {
        {"18446744073709551616B", "too large"},
        {"18446744073709551616", "too large"},
        {"0x10000000000000000", "too large"},
        {"0x1000000000000000 KiB", "too large"},
        {"0x10KiB", "write a blank between a hex number and its unit"},
        {"0x100000B", "ambiguous: B is a hex digit; write 0x100000 B"},
        {"0x1b", "ambiguous"},
        {"16EiB", "too large"},
        {"16384PiB", "too large"},
        {"17179869184GiB", "too large"},
        {"1e30B", "too large"},
        {"1e20", "too large"},
        {"16.5EiB", "too large"},
        {"-1KB", "must not be negative"},
        {"-0", "must not be negative"},
        {"", "empty"},
        {"   ", "empty"},
        {"abc", "not a number"},
        {"KiB", "not a number"},
        {"nan", "not a number"},
        {"inf", "not a number"},
        {"0x", "no hex digits"},
        {".", "not a number"},
        {"12KX", "unknown unit 'KX'"},
        {"12KB junk", "unknown unit 'KB junk'"},
        {"12 K B", "unknown unit"},
        {"1..2", "unknown unit"},
        {"0.1KiB", "not a whole number of bytes"},
        {"1.5B", "not a whole number of bytes"},
        {"3e-1KiB", "not a whole number of bytes"},
        {"0.00000000000000000000000000001B", "not a whole number of bytes"},
        {"1e", "unknown unit 'e'"},
        {"4GB/s", "unknown unit"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t v = 777;
        char why[256] = "";
        int rc = unit_parse_size(cases[i].in, &v, why, sizeof(why));
        if (rc == 0 || strstr(why, cases[i].why) == NULL)
            print_error("input '%s': rc %d why '%s' (want '%s')\n", cases[i].in, rc, why,
                        cases[i].why);
        assert_int_equal(rc, -1);
        assert_non_null(strstr(why, cases[i].why));
        assert_true(v == 777); /* untouched on error */
    }
    /* NULL why is allowed */
    uint64_t v;
    assert_int_equal(unit_parse_size("x", &v, NULL, 0), -1);
    assert_int_equal(unit_parse_size(NULL, &v, NULL, 0), -1);
}

/* A long value is echoed shortened (64 characters), so the reason fits a
 * small buffer (the fuzzer's case: 261 tabs, then 0xb). */
static void test_size_long_value(void **state)
{
    (void)state;
    char s[300], why[256];
    memset(s, '\t', 261);
    snprintf(s + 261, sizeof s - 261, "0xb");
    uint64_t v = 0;
    assert_int_equal(unit_parse_size(s, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "is ambiguous"));
    memset(s, '\t', 261);
    snprintf(s + 261, sizeof s - 261, "0x10KB");
    assert_int_equal(unit_parse_size(s, &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "write a blank between a hex number and its unit"));
}

static void test_format_size(void **state)
{
    (void)state;
    static const struct {
        uint64_t in;
        const char *want;
    } cases[] = {
        {0, "0B"},
        {1, "1B"},
        {1536, "1536B"},
        {4096, "4KiB"},
        {2097152, "2MiB"},
        {3 * 1073741824ull, "3GiB"},
        {UINT64_C(1) << 40, "1TiB"},
        {UINT64_C(16383) << 50, "16383PiB"},
        {UINT64_C(1) << 60, "1EiB"},
        {UINT64_MAX, "18446744073709551615B"},
        {UINT64_C(33554432) + 1024, "32769KiB"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[40];
        unit_format_size(cases[i].in, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].want);
        /* round trip */
        uint64_t back = 0;
        assert_int_equal(unit_parse_size(buf, &back, NULL, 0), 0);
        assert_true(back == cases[i].in);
    }
    char small[4];
    unit_format_size(4096, small, sizeof(small)); /* truncates, stays terminated */
    assert_string_equal(small, "4Ki");
}

static void test_time(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        double value;
        bool cycles;
    } ok[] = {
        {"4cycles", 4, true},  {"1cycle", 1, true},  {"0.5 cycles", 0.5, true},
        {"1.5ns", 1.5, false}, {"2us", 2000, false}, {"3ms", 3e6, false},
        {"1s", 1e9, false},    {"0ns", 0, false},    {"1e2ns", 100, false},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        unit_time_t t = {0, false};
        char why[200] = "";
        assert_int_equal(unit_parse_time(ok[i].in, &t, why, sizeof(why)), 0);
        assert_true(t.value == ok[i].value);
        assert_int_equal(t.cycles, ok[i].cycles);
    }
    static const bad_case_t bad[] = {
        {"12", "missing unit"},         {"12 parsecs", "unknown unit 'parsecs'"},
        {"-1ns", "negative"},           {"nanns", "not a number"},
        {"infns", "not a number"},      {"1e999ns", "out of range"},
        {"4 NS", "unknown unit"},       {"", "empty"},
        {"4nsx", "unknown unit 'nsx'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unit_time_t t;
        char why[200] = "";
        assert_int_equal(unit_parse_time(bad[i].in, &t, why, sizeof(why)), -1);
        if (!strstr(why, bad[i].why))
            print_error("input '%s': why '%s'\n", bad[i].in, why);
        assert_non_null(strstr(why, bad[i].why));
    }
}

static void test_freq(void **state)
{
    (void)state;
    double g = 0;
    char why[200];
    assert_int_equal(unit_parse_freq("2.42GHz", &g, why, sizeof(why)), 0);
    assert_true(g == 2.42);
    assert_int_equal(unit_parse_freq("2600MHz", &g, why, sizeof(why)), 0);
    assert_true(g == 2.6);
    assert_int_equal(unit_parse_freq("3 GHz", &g, why, sizeof(why)), 0);
    assert_true(g == 3.0);
    assert_int_equal(unit_parse_freq("0GHz", &g, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "positive"));
    assert_int_equal(unit_parse_freq("2.6", &g, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "missing unit"));
    assert_int_equal(unit_parse_freq("2.6Ghz", &g, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "unknown unit 'Ghz'"));
    assert_int_equal(unit_parse_freq("-2GHz", &g, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "negative"));
}

static void test_bw(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        double value;
        bool per_cycle;
    } ok[] = {
        {"16GB/s", 16.0 * 1073741824.0, false},
        {"16GiB/s", 16.0 * 1073741824.0, false},
        {"100MB/s", 100.0 * 1048576.0, false},
        {"1.5MiB/s", 1.5 * 1048576.0, false},
        {"2KiB/s", 2048, false},
        {"1TB/s", 1099511627776.0, false},
        {"10B/s", 10, false},
        {"32B/cycle", 32, true},
        {"29.2 B/cycle", 29.2, true},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        unit_bw_t b = {0, false};
        char why[200] = "";
        assert_int_equal(unit_parse_bw(ok[i].in, &b, why, sizeof(why)), 0);
        assert_true(b.value == ok[i].value);
        assert_int_equal(b.per_cycle, ok[i].per_cycle);
    }
    static const bad_case_t bad[] = {
        {"32", "missing unit"}, {"3 GB/sec", "unknown unit 'GB/sec'"}, {"3Gb/s", "unknown unit"},
        {"-1GB/s", "negative"}, {"1e400GB/s", "out of range"},         {"4B/cyc", "unknown unit"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unit_bw_t b;
        char why[200] = "";
        assert_int_equal(unit_parse_bw(bad[i].in, &b, why, sizeof(why)), -1);
        if (!strstr(why, bad[i].why))
            print_error("input '%s': why '%s'\n", bad[i].in, why);
        assert_non_null(strstr(why, bad[i].why));
    }
}

static void test_plain_numbers(void **state)
{
    (void)state;
    uint64_t u = 0;
    double d = 0;
    char why[200];
    assert_int_equal(unit_parse_u64("42", &u, why, sizeof(why)), 0);
    assert_true(u == 42);
    assert_int_equal(unit_parse_u64("0x19", &u, why, sizeof(why)), 0);
    assert_true(u == 25);
    assert_int_equal(unit_parse_u64("18446744073709551615", &u, why, sizeof(why)), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(unit_parse_u64("18446744073709551616", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "too large"));
    assert_int_equal(unit_parse_u64("-1", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "negative"));
    assert_int_equal(unit_parse_u64("1.5", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "whole number"));
    assert_int_equal(unit_parse_u64("1e3", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "whole number"));
    assert_int_equal(unit_parse_u64("12abc", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "unexpected 'abc'"));
    assert_int_equal(unit_parse_u64("", &u, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "empty"));

    assert_int_equal(unit_parse_double("1.5", &d, why, sizeof(why)), 0);
    assert_true(d == 1.5);
    assert_int_equal(unit_parse_double("-2", &d, why, sizeof(why)), 0);
    assert_true(d == -2.0);
    assert_int_equal(unit_parse_double("1e3", &d, why, sizeof(why)), 0);
    assert_true(d == 1000.0);
    assert_int_equal(unit_parse_double(".5", &d, why, sizeof(why)), 0);
    assert_true(d == 0.5);
    assert_int_equal(unit_parse_double("0x10", &d, why, sizeof(why)), 0);
    assert_true(d == 16.0);
    assert_int_equal(unit_parse_double("nan", &d, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "not a number"));
    assert_int_equal(unit_parse_double("-inf", &d, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "not a number"));
    assert_int_equal(unit_parse_double("1e999", &d, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "out of range"));
    assert_int_equal(unit_parse_double("0x1p3", &d, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "unexpected 'p3'"));
    assert_int_equal(unit_parse_double("2 cats", &d, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "unexpected 'cats'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_ok),       cmocka_unit_test(test_size_bad),
        cmocka_unit_test(test_format_size),   cmocka_unit_test(test_time),
        cmocka_unit_test(test_freq),          cmocka_unit_test(test_bw),
        cmocka_unit_test(test_plain_numbers), cmocka_unit_test(test_size_long_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
