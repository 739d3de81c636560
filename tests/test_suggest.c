/*
 * test_suggest.c - the nearest-name helper (sim/machine/suggest.c) at its
 * thresholds, and which run options apply to which workload
 * (point_check_applies).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/engine/point.h"
#include "sim/machine/suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("", ""), 0);
    assert_int_equal(suggest_distance("abc", ""), 3);
    assert_int_equal(suggest_distance("kitten", "sitting"), 3);
    assert_int_equal(suggest_distance("Jobs", "jobs"), 0); /* case-insensitive */
    char big[SUGGEST_NAME_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(suggest_distance(big, "a"), SIZE_MAX);
}

/* Near by edits: at most SUGGEST_MAX_EDITS (3), and 3 x edits <= length + 2. */
static void test_edit_thresholds(void **state)
{
    (void)state;
    const char *one[] = {"abcdefghij"};
    /* 10 letters: 3 edits is near (9 <= 12), 4 is not (beyond SUGGEST_MAX_EDITS) */
    assert_non_null(suggest_nearest("abcdefgXYZ", one, 1));
    assert_null(suggest_nearest("abcdefWXYZ", one, 1));
    /* 4 letters: 2 edits is near (6 <= 6), 3 are not (9 > 6) */
    const char *four[] = {"jobs"};
    assert_non_null(suggest_nearest("jbXs", four, 1));
    assert_null(suggest_nearest("XYZs", four, 1));
    /* 1 letter: 1 edit is near (3 <= 3) */
    const char *q[] = {"q"};
    assert_non_null(suggest_nearest("x", q, 1));
    /* the word itself is not a suggestion */
    assert_null(suggest_nearest("jobs", four, 1));
}

static void test_parts_and_order(void **state)
{
    (void)state;
    const char *machines[] = {"xeon-8358", "zen3-epyc-7j13", "zen4-epyc-9004", NULL};
    /* a prefix, or a whole part between separators, beats any edit */
    assert_string_equal(suggest_nearest("zen3", machines, SIZE_MAX), "zen3-epyc-7j13");
    assert_string_equal(suggest_nearest("9004", machines, SIZE_MAX), "zen4-epyc-9004");
    /* part of a part is not: "epy" is neither a part nor within 2 edits of one */
    assert_null(suggest_nearest("epy", machines, SIZE_MAX));
    /* fewest edits wins, then the shortest */
    const char *fns[] = {"rep_stosq", "rep_stosb", "rep_stos", NULL};
    assert_string_equal(suggest_nearest("rep_stosbb", fns, SIZE_MAX), "rep_stosb");
    assert_string_equal(suggest_nearest("rep_sto", fns, SIZE_MAX), "rep_stos");
    char buf[64];
    assert_string_equal(suggest_hint("x", buf, sizeof buf), " (did you mean 'x'?)");
    assert_string_equal(suggest_hint(NULL, buf, sizeof buf), "");
}

static void test_keep(void **state)
{
    (void)state;
    char reused[16], kept[16];
    suggest_t s;
    suggest_init(&s, "l2.mshr");
    snprintf(reused, sizeof reused, "l2.mshrs");
    assert_true(suggest_offer(&s, reused));
    suggest_keep(&s, kept, sizeof kept);
    snprintf(reused, sizeof reused, "zzzzzzzz");
    assert_false(suggest_offer(&s, reused));
    assert_string_equal(suggest_best(&s), "l2.mshrs");
}

/* point_check_applies: an option given for a workload that has no use for it. */
static int applies(const char *workload, const char *key, const char *value)
{
    static run_point_t p;
    char err[256];
    point_init(&p);
    assert_int_equal(point_set(&p, "workload", workload, err, sizeof err), 0);
    assert_int_equal(point_set(&p, key, value, err, sizeof err), 0);
    return point_check_applies(&p, err, sizeof err);
}

static void test_applies(void **state)
{
    (void)state;
    assert_int_equal(applies("mmap", "preempt", "full"), 0);
    assert_int_equal(applies("fault", "extent-cap", "2MB"), 0);
    assert_int_equal(applies("memset", "preempt", "full"), -1);
    assert_int_equal(applies("memset", "fault", "populate"), -1);
    assert_int_equal(applies("memset", "thp", "always"), -1);
    assert_int_equal(applies("memset", "chunk", "4KB"), 0);
    assert_int_equal(applies("mmap", "chunk", "4KB"), -1);
    assert_int_equal(applies("mmap", "fill", "1"), -1);
    assert_int_equal(applies("copy", "fill", "1"), 0);
    assert_int_equal(applies("load", "fill", "1"), -1);
    assert_int_equal(applies("load", "caller", "repeat"), -1);
    /* --page is every workload's (memset's buffer, as perf's -p) */
    assert_int_equal(applies("memset", "page", "2MB"), 0);
    assert_int_equal(applies("mmap", "page", "2MB"), 0);
    /* the message names the option and the workload */
    static run_point_t p;
    char err[256];
    point_init(&p);
    assert_int_equal(point_set(&p, "preempt", "full", err, sizeof err), 0);
    assert_int_equal(point_check_applies(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--preempt applies only to mmap and fault workloads and to "
                                "memset --caller extent"));
    assert_non_null(strstr(err, "not to memset --caller chunked"));
    /* memset with the caller it applies to; --fault-subpage with page only */
    point_init(&p);
    assert_int_equal(point_set(&p, "caller", "extent", err, sizeof err), 0);
    assert_int_equal(point_set(&p, "preempt", "full", err, sizeof err), 0);
    assert_int_equal(point_check_applies(&p, err, sizeof err), 0);
    assert_int_equal(point_set(&p, "fault-subpage", "3", err, sizeof err), 0);
    assert_int_equal(point_check_applies(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--fault-subpage applies only to memset --caller page, not to "
                                "memset --caller extent"));
}

/* -f takes perf's names, all and help */
static void test_function_names(void **state)
{
    (void)state;
    static run_point_t p;
    char err[256];
    point_init(&p);
    assert_int_equal(point_set(&p, "function", "x86-64-stosq", err, sizeof err), 0);
    assert_string_equal(p.spec.function, "rep_stosq");
    assert_int_equal(point_set(&p, "function", "default", err, sizeof err), 0);
    assert_string_equal(p.spec.function, "memset");
    assert_int_equal(point_set(&p, "function", "all", err, sizeof err), 0);
    assert_true(p.function_all);
    assert_int_equal(point_set(&p, "function", "help", err, sizeof err), 0);
    assert_true(p.function_help && !p.function_all);
    assert_int_equal(point_set(&p, "function", "x86-64-stosbb", err, sizeof err), -1);
    assert_non_null(strstr(err, "did you mean 'x86-64-stosb'?"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),        cmocka_unit_test(test_edit_thresholds),
        cmocka_unit_test(test_parts_and_order), cmocka_unit_test(test_keep),
        cmocka_unit_test(test_applies),         cmocka_unit_test(test_function_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
