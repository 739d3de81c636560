/*
 * test_trust.c - sim/machine/trust.c: the trust file of `clearsim report
 * --validation` read for one machine, and its one-line text.
 *
 * Notes
 *  - The files are written into a temporary directory by the test. Figures
 *    are fractions: 0.083 prints as 8.3%.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/machine/trust.h"

#define SHA_A "aaaa"
#define SHA_B "bbbb"

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *good(void)
{
    return write_file("good.csv", "# a comment\n"
                                  "Inputs fingerprint: 0123456789abcdef\n" TRUST_HEADER "\n"
                                  "zen5-epyc-9005," SHA_A ",8,0.083,0.5,6,0.12,0.2\n"
                                  "xeon-8358," SHA_B ",11,0.05,0.17,0,,\n");
}

static void test_found(void **state)
{
    (void)state;
    char err[512], text[512];
    trust_t t;
    assert_int_equal(trust_lookup_at(good(), "zen5-epyc-9005", SHA_A, &t, err, sizeof err), 0);
    assert_true(t.validated);
    assert_int_equal(t.cases, 8);
    assert_true(t.median_abs_err == 0.083);
    assert_int_equal(t.gains, 6);
    assert_true(t.median_gain_err == 0.12);
    assert_string_equal(trust_text(&t, text, sizeof text),
                        "validated on 8 published figures: median |error| 8.3%, gains 12.0% "
                        "(docs/VALIDATION.md)");
    /* no gains */
    assert_int_equal(trust_lookup_at(good(), "xeon-8358", SHA_B, &t, err, sizeof err), 0);
    assert_true(t.validated && t.gains == 0 && isnan(t.median_gain_err));
    assert_non_null(strstr(trust_text(&t, text, sizeof text), "median |error| 5.0%, no gains"));
}

static void test_not_validated(void **state)
{
    (void)state;
    char err[512], text[512];
    trust_t t;
    /* no line for the name */
    assert_int_equal(trust_lookup_at(good(), "graviton3", SHA_A, &t, err, sizeof err), 0);
    assert_false(t.validated);
    assert_false(t.other_file);
    assert_non_null(strstr(trust_text(&t, text, sizeof text), "not validated (no published"));
    /* a line for the name, of another file */
    assert_int_equal(trust_lookup_at(good(), "zen5-epyc-9005", SHA_B, &t, err, sizeof err), 0);
    assert_false(t.validated);
    assert_true(t.other_file);
    assert_non_null(strstr(trust_text(&t, text, sizeof text), "differs from this one"));
    /* no trust file at all */
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none.csv", dir);
    assert_int_equal(trust_lookup_at(missing, "zen5-epyc-9005", SHA_A, &t, err, sizeof err), 0);
    assert_false(t.validated);
}

static void test_malformed(void **state)
{
    (void)state;
    char err[512];
    trust_t t;
    const char *p = write_file("noheader.csv", "zen5-epyc-9005," SHA_A ",8,0.083,0.5,6,0.12,0.2\n");
    assert_int_equal(trust_lookup_at(p, "zen5-epyc-9005", SHA_A, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "noheader.csv:1: expected the header"));
    p = write_file("short.csv", TRUST_HEADER "\nzen5-epyc-9005," SHA_A ",8,0.083\n");
    assert_int_equal(trust_lookup_at(p, "zen5-epyc-9005", SHA_A, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "short.csv:2: expected"));
    p = write_file("negative.csv", TRUST_HEADER "\nzen5-epyc-9005," SHA_A ",8,-0.1,0.5,6,,\n");
    assert_int_equal(trust_lookup_at(p, "zen5-epyc-9005", SHA_A, &t, err, sizeof err), -1);
    p = write_file("fraction.csv", TRUST_HEADER "\nzen5-epyc-9005," SHA_A ",8.5,0.1,0.5,6,,\n");
    assert_int_equal(trust_lookup_at(p, "zen5-epyc-9005", SHA_A, &t, err, sizeof err), -1);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/clearsim-trust.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    static const char *const files[] = {"good.csv", "noheader.csv", "short.csv", "negative.csv",
                                        "fraction.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found),
        cmocka_unit_test(test_not_validated),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
