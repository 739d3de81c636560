/*
 * test_predictions.c - the pieces of `clearsim report` that need no
 * simulation (sim/study/predictions.c): FNV-1a, reading the fingerprint line back,
 * --machines, what the fingerprint covers, and the case list.
 *
 * Notes
 *  - FNV-1a expectations are the published 64-bit FNV-1a test vectors
 *    (the empty string, "a", "foobar").
 *  - The fingerprint tests point $CLEARSIM_CONFIGS at a scratch directory
 *    and compare fingerprints before and after one change, so they do not
 *    depend on the contents of the source tree.
 *  - The case list of zen3-epyc-7j13 (x86-64 with clzero) and graviton3
 *    (arm64 with DC ZVA, without MOPS) is counted by hand: 2 page sizes x 4
 *    preemption models x 2 callers = 16 fault rows, of which 5 run: for
 *    2 MiB pages page-at-a-time and one extent (the folio is below the
 *    8 MiB cap, so every model makes the same single call); for 1 GiB pages
 *    page-at-a-time, 8 MiB extents (none, voluntary) and one 1 GiB extent
 *    (full, lazy); 3 kernels
 *    (rep_stosb, movnti, clzero / stp, dc_zva, stnp); 3 memset chunks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <limits.h>
#include <unistd.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/study/predictions.h"

static char err[1024];
static char scratch[PATH_MAX];

static void write_file(const char *name, const char *text)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", scratch, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", scratch, name);
    unlink(p);
}

static uint64_t fnv(const char *s)
{
    return predmd_fnv1a(PREDMD_FNV_OFFSET, s, strlen(s));
}

static void test_fnv1a_vectors(void **state)
{
    (void)state;
    assert_true(fnv("") == 0xcbf29ce484222325ull);
    assert_true(fnv("a") == 0xaf63dc4c8601ec8cull);
    assert_true(fnv("foobar") == 0x85944171f73967e8ull);
    /* incremental == one piece */
    uint64_t h = predmd_fnv1a(PREDMD_FNV_OFFSET, "foo", 3);
    assert_true(predmd_fnv1a(h, "bar", 3) == fnv("foobar"));
}

static void test_read_fingerprint(void **state)
{
    (void)state;
    char p[PATH_MAX + 64];
    uint64_t v = 0;
    snprintf(p, sizeof p, "%s/doc.md", scratch);

    write_file("doc.md", "# t\n\nInputs fingerprint: 00ff00ff00ff00ff\n\ntext\n");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), 0);
    assert_true(v == 0x00ff00ff00ff00ffull);

    /* the first line wins; CRLF is accepted */
    write_file("doc.md", "Inputs fingerprint: 0123456789abcdef\r\nInputs fingerprint: "
                         "1111111111111111\n");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), 0);
    assert_true(v == 0x0123456789abcdefull);

    write_file("doc.md", "Inputs fingerprint: 0123456789ABCDEF\n");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "malformed"));

    write_file("doc.md", "Inputs fingerprint: 0123456789abcdef0\n");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "malformed"));

    write_file("doc.md", "no fingerprint here\n inputs fingerprint: 0123456789abcdef\n");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "no 'Inputs fingerprint: ' line"));

    remove_file("doc.md");
    assert_int_equal(predmd_read_fingerprint(p, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read"));
}

static void test_select(void **state)
{
    (void)state;
    static char names[PREDMD_MACHINES_MAX][MACHINE_NAME_MAX];
    static char all[PREDMD_MACHINES_MAX][MACHINE_NAME_MAX];
    size_t n = 0, n_all = 0;
    bool usage = true;
    char cerr[512] = "";
    assert_int_equal(cfg_machine_list_bundled(all, PREDMD_MACHINES_MAX, &n_all, cerr, sizeof cerr),
                     0);

    assert_int_equal(predmd_select("all", names, PREDMD_MACHINES_MAX, &n, &usage, err, sizeof err),
                     0);
    assert_false(usage);
    assert_int_equal(n, n_all);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(names[i], all[i]);

    /* a list keeps its order */
    assert_int_equal(predmd_select("zen3-epyc-7j13,graviton3", names, PREDMD_MACHINES_MAX, &n,
                                   &usage, err, sizeof err),
                     0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "zen3-epyc-7j13");
    assert_string_equal(names[1], "graviton3");

    assert_int_equal(
        predmd_select("graviton3,nope", names, PREDMD_MACHINES_MAX, &n, &usage, err, sizeof err),
        -1);
    assert_true(usage);
    assert_non_null(strstr(err, "'nope' is not a bundled machine"));

    assert_int_equal(predmd_select("graviton3,graviton3", names, PREDMD_MACHINES_MAX, &n, &usage,
                                   err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "given twice"));

    assert_int_equal(
        predmd_select(",graviton3", names, PREDMD_MACHINES_MAX, &n, &usage, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty name"));

    /* max 1: two names are too many */
    assert_int_equal(
        predmd_select("zen3-epyc-7j13,graviton3", names, 1, &n, &usage, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1"));
}

static uint64_t fingerprint(const char *const *list, size_t n)
{
    static char names[4][MACHINE_NAME_MAX];
    for (size_t i = 0; i < n; i++)
        snprintf(names[i], MACHINE_NAME_MAX, "%s", list[i]);
    uint64_t fp = 0;
    assert_int_equal(
        predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, n, &fp, err, sizeof err), 0);
    return fp;
}

static void test_fingerprint_inputs(void **state)
{
    (void)state;
    const char *one[] = {"a"}, *two[] = {"a", "b"}, *swapped[] = {"b", "a"};
    assert_int_equal(setenv("CLEARSIM_CONFIGS", scratch, 1), 0);
    write_file("a.yaml", "name: a\n");

    uint64_t base = fingerprint(one, 1);
    assert_true(fingerprint(one, 1) == base); /* stable */
    assert_true(fingerprint(two, 2) != base); /* the machine list counts */
    assert_true(fingerprint(two, 2) != fingerprint(swapped, 2));

    write_file("a.yaml", "name: a\n#\n"); /* one more line */
    uint64_t changed = fingerprint(one, 1);
    assert_true(changed != base);
    write_file("a.yaml", "name: a\n"); /* back */
    assert_true(fingerprint(one, 1) == base);

    /* not inputs: hidden files (editors, outfile temporaries), other suffixes */
    write_file(".a.yaml.swp", "x");
    write_file(".b.yaml", "x");
    write_file("notes.txt", "x");
    assert_true(fingerprint(one, 1) == base);

    /* a new machine file is an input, whatever its contents */
    write_file("b.yaml", "");
    assert_true(fingerprint(one, 1) != base);
    remove_file("b.yaml");
    assert_true(fingerprint(one, 1) == base);

    /* the same bytes under another name differ */
    write_file("c.yaml", "name: a\n");
    remove_file("a.yaml");
    assert_true(fingerprint(one, 1) != base);
    remove_file("c.yaml");
    remove_file(".a.yaml.swp");
    remove_file(".b.yaml");
    remove_file("notes.txt");

    /* a directory that cannot be read */
    assert_int_equal(setenv("CLEARSIM_CONFIGS", "/nonexistent/clearsim-configs", 1), 0);
    static char names[1][MACHINE_NAME_MAX] = {"a"};
    uint64_t fp;
    assert_int_equal(
        predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, 1, &fp, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/clearsim-configs"));
    unsetenv("CLEARSIM_CONFIGS");
}

static void test_case_list(void **state)
{
    (void)state;
    static char names[2][MACHINE_NAME_MAX] = {"zen3-epyc-7j13", "graviton3"};
    predmd_t *r =
        predmd_create((const char(*)[MACHINE_NAME_MAX])names, 1, "zen3-epyc-7j13", err, sizeof err);
    if (!r)
        fail_msg("predmd_create: %s", err);
    assert_int_equal(predmd_n_rows(r), 16 + 3 + 3);
    assert_int_equal(predmd_n_runs(r), 5 + 3 + 3);
    predmd_destroy(r);

    r = predmd_create((const char(*)[MACHINE_NAME_MAX])names, 2, "zen3-epyc-7j13,graviton3", err,
                      sizeof err);
    if (!r)
        fail_msg("predmd_create: %s", err);
    assert_int_equal(predmd_n_rows(r), 2 * 22);
    assert_int_equal(predmd_n_runs(r), 2 * 11);
    predmd_destroy(r);
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/test_predictions.XXXXXX", t && t[0] ? t : "/tmp");
    return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_file("doc.md");
    return rmdir(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a_vectors), cmocka_unit_test(test_read_fingerprint),
        cmocka_unit_test(test_select),        cmocka_unit_test(test_fingerprint_inputs),
        cmocka_unit_test(test_case_list),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
