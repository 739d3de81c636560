/*
 * test_goldens.c - the published figures of the calibrated machines, pinned.
 *
 * Every case of data/calibration/zen3-epyc-7j13.yaml and the demand-fault
 * cases of xeon-8358.yaml are predicted and must lie within the tolerance
 * the data file states for them (Milan's demand-fault GB/s 10%, its counters
 * 15%, its chunk sweep 15%; Ice Lake-SP's demand faults 15%). The changes calibration-milan.md
 * reports (extent against page-at-a-time) must be within 10 percentage points. Validation cases are
 * included: they were never fitted.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/study/calibrate.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"

typedef struct golden {
    machine_t *m;
    cal_data_t *d;
    double pred[CAL_CASES_MAX];
} golden_t;

static void load(golden_t *g, const char *machine)
{
    char path[1024], data[1200], err[512];
    char e[512] = "";
    if (cfg_machine_resolve(machine, path, sizeof(path), e, sizeof e))
        fail_msg("%s", e);
    g->m = cfg_machine_load(path, e, sizeof e);
    if (!g->m)
        fail_msg("%s", e);
    snprintf(data, sizeof(data), "%s/data/calibration/%s.yaml", CLEARSIM_SOURCE_DIR, machine);
    g->d = cal_load(data, g->m, err, sizeof(err));
    if (!g->d)
        fail_msg("%s", err);
    if (cal_predict_all(g->m, g->d, false, 2, g->pred, err, sizeof(err)))
        fail_msg("%s", err);
}

static void unload(golden_t *g)
{
    cal_destroy(g->d);
    cfg_machine_destroy(g->m);
}

/* Cases whose id starts with `prefix` ("" = all) must be within tolerance;
 * the others are printed for information. */
static int check_tolerances(const golden_t *g, const char *prefix)
{
    int bad = 0;
    for (size_t i = 0; i < g->d->n_cases; i++) {
        const cal_case_t *c = &g->d->cases[i];
        double e = cal_rel_error(c, g->pred[i]);
        bool pinned = strncmp(c->id, prefix, strlen(prefix)) == 0;
        bool ok = !pinned || c->tolerance <= 0 || fabs(e) <= c->tolerance;
        printf("  %-28s %-26s measured %9.4g predicted %9.4g %+6.1f%% (tolerance %.0f%%)%s\n",
               c->id, c->metric, c->value, g->pred[i], 100 * e, 100 * c->tolerance,
               !pinned ? "  (not pinned)"
               : ok    ? ""
                       : "  FAIL");
        bad += !ok;
    }
    return bad;
}

static double pred_of(const golden_t *g, const char *id)
{
    for (size_t i = 0; i < g->d->n_cases; i++)
        if (strcmp(g->d->cases[i].id, id) == 0)
            return g->pred[i];
    fail_msg("no case %s", id);
    return NAN;
}

static void test_milan(void **state)
{
    (void)state;
    golden_t g;
    load(&g, "zen3-epyc-7j13");
    int bad = check_tolerances(&g, "");
    /* calibration-milan.md: change (%) of extent over page-at-a-time */
    static const struct {
        const char *page, *extent;
        double change_pct;
    } ch[] = {
        {"fault-2m-page", "fault-2m-extent", 39.4},
        {"fault-1g-page-voluntary", "fault-1g-extent-voluntary", 1.6},
        {"fault-1g-page-full", "fault-1g-extent-full", 146.8},
    };
    for (size_t i = 0; i < sizeof(ch) / sizeof(ch[0]); i++) {
        double c = 100 * (pred_of(&g, ch[i].extent) / pred_of(&g, ch[i].page) - 1);
        bool ok = fabs(c - ch[i].change_pct) <= 10.0;
        printf("  change %-24s published %+6.1f%% predicted %+6.1f%% (tolerance 10 pp)%s\n",
               ch[i].extent, ch[i].change_pct, c, ok ? "" : "  FAIL");
        bad += !ok;
    }
    unload(&g);
    assert_int_equal(bad, 0);
}

static void test_icelake(void **state)
{
    (void)state;
    golden_t g;
    load(&g, "xeon-8358");
    /* issue 5 pins Ice Lake-SP's demand-fault figures; the chunk sweep and
     * MOVNTI are printed */
    int bad = check_tolerances(&g, "fault-");
    unload(&g);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_milan),
        cmocka_unit_test(test_icelake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
