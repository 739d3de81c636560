/*
 * test_published_rule.c - the rule of the corpus (sim/study/validate_rule.c):
 * no case of data/published/ is a fit target of a bundled machine file's
 * microbench: section or of the calibration data, except the calibration set
 * and each machine's one anchor, which may set the memory write link only.
 *
 * Notes
 *  - test_bundled checks the bundled corpus against every bundled machine
 *    file and every calibration data file whose machine is bundled, and that
 *    a calibration case is of a machine with calibration data. With no
 *    corpus file yet it checks nothing (and says so).
 *  - The fixtures (tests/fixtures/published/rule/) show that the check
 *    fails: a corpus of two made-up cases (FIXR: a judge fill figure of
 *    12.5 GB/s and an anchor) against three copies of graviton3.yaml named
 *    rule-fixture: clean/ (the anchor sets memory.write_bandwidth and names
 *    it: passes), fits-published/ (a microbench figure of 12.5 GB/s: fails)
 *    and anchor-moved/ (the anchor also sets memory.latency: fails).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/study/calibrate.h"
#include "sim/study/validate.h"

#define FIX CLEARSIM_SOURCE_DIR "/tests/fixtures/published/rule"

static val_corpus_t *fixture_corpus(void)
{
    char err[1024] = "";
    bool usage = false;
    val_corpus_t *c = val_load(FIX "/corpus", NULL, NULL, &usage, err, sizeof err);
    if (!c)
        fail_msg("%s", err);
    assert_int_equal(val_n_cases(c), 2);
    return c;
}

/* val_rule_machine on the fixture machine file of folder `dir`: its result, why in why. */
static int rule_on(const val_corpus_t *c, const char *dir, char *why, size_t whylen)
{
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, "%s/%s/rule-fixture.yaml", FIX, dir);
    machine_t *m = cfg_machine_load(path, err, sizeof err);
    if (!m)
        fail_msg("%s", err);
    why[0] = '\0';
    int rc = val_rule_machine(c, m, path, why, whylen, err, sizeof err);
    if (rc < 0)
        fail_msg("%s", err);
    cfg_machine_destroy(m);
    return rc;
}

static void test_fixture_clean(void **state)
{
    (void)state;
    char why[1024];
    val_corpus_t *c = fixture_corpus();
    assert_int_equal(rule_on(c, "clean", why, sizeof why), 0);
    val_destroy(c);
}

static void test_fixture_fits_published(void **state)
{
    (void)state;
    char why[1024];
    val_corpus_t *c = fixture_corpus();
    assert_int_equal(rule_on(c, "fits-published", why, sizeof why), 1);
    assert_non_null(strstr(why, "fill-dram"));
    assert_non_null(strstr(why, "fixr-fill"));
    assert_non_null(strstr(why, "never its fit target"));
    val_destroy(c);
}

static void test_fixture_anchor_moved(void **state)
{
    (void)state;
    char why[1024];
    val_corpus_t *c = fixture_corpus();
    assert_int_equal(rule_on(c, "anchor-moved", why, sizeof why), 1);
    assert_non_null(strstr(why, "memory.latency"));
    assert_non_null(strstr(why, "fixr-anchor"));
    val_destroy(c);
}

/* The match itself: 12.5 GB/s against a 12.5 GB/s case, within 0.5%, and
 * a figure copied without its unit (12.5 "GB/s-decimal" as 12.5). */
static void test_matches(void **state)
{
    (void)state;
    val_case_t v = {0};
    snprintf(v.unit, sizeof v.unit, "GB/s");
    v.figure = 12.5;
    v.published_bps = 12.5 * 1073741824.0;
    assert_true(val_rule_matches(&v, 12.5));
    assert_true(val_rule_matches(&v, 12.5 * 1.004));
    assert_false(val_rule_matches(&v, 12.5 * 1.006));
    snprintf(v.unit, sizeof v.unit, "GB/s-decimal");
    v.published_bps = 12.5e9; /* 11.64 GiB/s */
    assert_true(val_rule_matches(&v, 12.5));
    assert_true(val_rule_matches(&v, 12.5e9 / 1073741824.0));
    assert_false(val_rule_matches(&v, 12.0));
}

static void test_bundled(void **state)
{
    (void)state;
    char err[1024] = "", why[1024] = "", dir[1024];
    bool usage = false;
    snprintf(dir, sizeof dir, "%s/data/published", CLEARSIM_SOURCE_DIR);
    DIR *d = opendir(dir);
    if (!d) {
        print_message("no corpus directory %s: nothing to check\n", dir);
        return;
    }
    closedir(d);
    val_corpus_t *c = val_load(dir, NULL, NULL, &usage, err, sizeof err);
    if (!c)
        fail_msg("%s", err);
    static char names[256][MACHINE_NAME_MAX];
    size_t n = 0;
    if (cfg_machine_list_bundled(names, 256, &n, err, sizeof err) != 0)
        fail_msg("%s", err);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/configs/%s.yaml", CLEARSIM_SOURCE_DIR, names[i]);
        machine_t *m = cfg_machine_load(path, err, sizeof err);
        if (!m)
            fail_msg("%s", err);
        int rc = val_rule_machine(c, m, path, why, sizeof why, err, sizeof err);
        if (rc < 0)
            fail_msg("%s", err);
        if (rc > 0) {
            print_error("%s\n", why);
            bad++;
        }
        char cal[1024];
        snprintf(cal, sizeof cal, "%s/data/calibration/%s.yaml", CLEARSIM_SOURCE_DIR, names[i]);
        FILE *f = fopen(cal, "r");
        if (f) {
            fclose(f);
            cal_data_t *data = cal_load(cal, m, err, sizeof err);
            if (!data)
                fail_msg("%s", err);
            if (val_rule_calibration(c, data, why, sizeof why) != 0) {
                print_error("%s\n", why);
                bad++;
            }
            cal_destroy(data);
        }
        cfg_machine_destroy(m);
    }
    /* calibration cases only where the machine has calibration data (Milan, Ice Lake-SP) */
    for (size_t i = 0; i < val_n_cases(c); i++) {
        const val_case_t *v = val_case(c, i);
        char cal[1024];
        snprintf(cal, sizeof cal, "%s/data/calibration/%s.yaml", CLEARSIM_SOURCE_DIR, v->machine);
        if (v->role == VAL_ROLE_CALIBRATION && access(cal, R_OK) != 0) {
            print_error("%s:%u: %s is role: calibration, but %s has no calibration data\n", v->file,
                        (unsigned)v->line, v->id, v->machine);
            bad++;
        }
    }
    val_destroy(c);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches),
        cmocka_unit_test(test_fixture_clean),
        cmocka_unit_test(test_fixture_fits_published),
        cmocka_unit_test(test_fixture_anchor_moved),
        cmocka_unit_test(test_bundled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
