/*
 * test_tune.c - `clearsim tune`'s recommendations from a cost curve
 * (sim/study/tune_policy.c): raw bands, the significance threshold at and
 * one step below it, merging, the best single threshold, the sign of every
 * gain and the hardware switch point. The curves are written by hand, so
 * every expectation is computed here from the times given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/study/tune.h"

#define N_MAX 8

typedef struct curve {
    tune_size_t sizes[N_MAX];
    size_t n;
    tune_result_t r;
} curve_t;

/* A curve of n sizes 4 KiB x 2^i, weights 1, with strategies temporal,
 * nontemporal and (when lz) linezero; current is temporal unless
 * own_current, which gives current its own curve. t[s][i] are the totals. */
static void build(curve_t *c, size_t n, bool lz, bool own_current, const double t[4][N_MAX])
{
    memset(c, 0, sizeof *c);
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->sizes[i].size_bytes = 4096ull << i;
        c->sizes[i].weight = 1;
    }
    tune_result_t *r = &c->r;
    r->have[TUNE_TEMPORAL] = r->have[TUNE_NONTEMPORAL] = r->have[TUNE_CURRENT] = true;
    r->have[TUNE_LINEZERO] = lz;
    snprintf(r->function[TUNE_TEMPORAL], 32, "stp");
    snprintf(r->function[TUNE_NONTEMPORAL], 32, "stnp");
    snprintf(r->function[TUNE_LINEZERO], 32, "%s", lz ? "dc_zva" : "");
    snprintf(r->function[TUNE_CURRENT], 32, "%s", own_current ? "memset" : "stp");
    r->current_as = own_current ? TUNE_CURRENT : TUNE_TEMPORAL;
    tune_strategy_t st[4];
    size_t per = 0;
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || own_current))
            st[per++] = (tune_strategy_t)s;
    r->n_curve = n * per;
    r->curve = calloc(r->n_curve, sizeof *r->curve);
    assert_non_null(r->curve);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < per; k++) {
            tune_point_t *p = &r->curve[i * per + k];
            p->size_bytes = c->sizes[i].size_bytes;
            p->weight = 1;
            p->strategy = st[k];
            p->total_seconds = t[st[k]][i];
            p->clear_seconds = t[st[k]][i];
        }
}

static void policy(curve_t *c, double min_gain)
{
    char err[256];
    assert_int_equal(tune_policy(c->sizes, c->n, min_gain, &c->r, err, sizeof err), 0);
}

/* Every band that is not the current policy saves time, and every reported
 * gain has the sign of what the band recommends. */
static void check_signs(const curve_t *c)
{
    const tune_result_t *r = &c->r;
    for (size_t k = 0; k < r->n_bands; k++) {
        const tune_band_t *b = &r->bands[k];
        tune_strategy_t s = b->strategy == TUNE_CURRENT ? r->current_as : b->strategy;
        tune_strategy_t cur = r->current_as;
        if (s != cur)
            assert_true(b->gain > 0);
        else
            assert_true(b->gain == 0);
    }
    assert_true(r->policy_gain >= 0);
    assert_true(r->policy_gain_over_single >= -1e-12);
    /* a threshold found saves time; "never" saves none */
    for (size_t i = 0; i < r->n_pairs; i++)
        assert_true(r->pairs[i].found ? r->pairs[i].gain > 0 : r->pairs[i].gain == 0);
}

static void test_raw_bands(void **state)
{
    (void)state;
    /* temporal cheapest at 0, 1 and 4; nontemporal 20% cheaper at 2 and 3 */
    const double t[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 2, 4, 8, 16},
        [TUNE_NONTEMPORAL] = {2, 4, 3.2, 6.4, 32},
    };
    curve_t c;
    build(&c, 5, false, false, t);
    policy(&c, 0.01);
    const tune_result_t *r = &c.r;
    assert_int_equal(r->n_bands, 3);
    assert_int_equal(r->bands[0].from_bytes, 0);
    assert_int_equal(r->bands[0].strategy, TUNE_TEMPORAL);
    assert_int_equal(r->bands[1].strategy, TUNE_NONTEMPORAL);
    assert_int_equal(r->bands[1].from_bytes, 16384);
    assert_int_equal(r->bands[1].after_bytes, 8192);
    assert_int_equal(r->bands[1].to_bytes, 65536);
    assert_int_equal(r->bands[2].strategy, TUNE_TEMPORAL);
    assert_int_equal(r->bands[2].to_bytes, 0);
    assert_int_equal(r->n_merged, 0);
    assert_false(r->policy_is_current);
    /* current = temporal everywhere: 31 per 5 clears; the policy 28.6 */
    assert_float_equal(r->current_expected_seconds, 31.0 / 5, 1e-12);
    assert_float_equal(r->policy_expected_seconds, 28.6 / 5, 1e-12);
    assert_float_equal(r->policy_gain, 1 - 28.6 / 31, 1e-12);
    /* the band's own gain: 1 - 9.6 / 12 */
    assert_float_equal(r->bands[1].gain, 0.2, 1e-12);
    assert_float_equal(r->bands[1].gain_share, 2.4 / 31, 1e-12);
    assert_float_equal(r->bands[1].weight, 0.4, 1e-12);
    /* best single threshold temporal -> nontemporal: never (switching at 2
     * adds 16 at size 4), so the policy beats it by the band's saving */
    assert_int_equal(r->n_pairs, 1);
    assert_false(r->pairs[0].found);
    assert_float_equal(r->pairs[0].gain, 0, 1e-12);
    assert_float_equal(r->policy_gain_over_single, 1 - 28.6 / 31, 1e-12);
    check_signs(&c);
    tune_result_free(&c.r);
}

/* The significance threshold (0.25 here, so that every number is exact in
 * binary): a band exactly at it is merged, one just past it kept. */
static void test_significance_threshold(void **state)
{
    (void)state;
    const double below[4][N_MAX] = {
        [TUNE_TEMPORAL] = {4, 4, 4}, [TUNE_NONTEMPORAL] = {8, 3, 8}, /* gain 0.25 exactly: not >
                                                                        0.25 */
    };
    const double at[4][N_MAX] = {
        [TUNE_TEMPORAL] = {4, 4, 4}, [TUNE_NONTEMPORAL] = {8, 2.99, 8}, /* gain 0.2525 */
    };
    curve_t c;
    build(&c, 3, false, false, below);
    policy(&c, 0.25);
    assert_int_equal(c.r.n_bands, 1);
    assert_int_equal(c.r.bands[0].strategy, TUNE_TEMPORAL);
    assert_true(c.r.bands[0].merged);
    assert_int_equal(c.r.n_merged, 2);
    assert_true(c.r.policy_is_current);
    check_signs(&c);
    tune_result_free(&c.r);

    build(&c, 3, false, false, at);
    policy(&c, 0.25);
    assert_int_equal(c.r.n_bands, 3);
    assert_int_equal(c.r.bands[1].strategy, TUNE_NONTEMPORAL);
    assert_false(c.r.policy_is_current);
    check_signs(&c);
    tune_result_free(&c.r);

    /* the points' error bounds raise the threshold: 0.15 + 0.15 */
    build(&c, 3, false, false, at);
    for (size_t i = 0; i < c.r.n_curve; i++)
        c.r.curve[i].error_bound = 0.15;
    policy(&c, 0.25);
    assert_int_equal(c.r.n_bands, 1);
    assert_int_equal(c.r.bands[0].strategy, TUNE_TEMPORAL);
    assert_true(c.r.policy_is_current);
    assert_true(c.r.bands[0].merged);
    check_signs(&c);
    tune_result_free(&c.r);
}

/* A band that beats neither neighbour takes the cheaper neighbour's
 * strategy; one band is merged, the rest kept. */
static void test_merge_into_neighbour(void **state)
{
    (void)state;
    /* nontemporal 30% cheaper at 0-1 and 3-4, linezero 0.5% cheaper than
     * nontemporal at 2 (and 30% cheaper than temporal) */
    const double t[4][N_MAX] = {
        [TUNE_TEMPORAL] = {10, 10, 10, 10, 10},
        [TUNE_NONTEMPORAL] = {7, 7, 7, 7, 7},
        [TUNE_LINEZERO] = {9, 9, 6.965, 9, 9},
    };
    curve_t c;
    build(&c, 5, true, false, t);
    policy(&c, 0.01);
    assert_int_equal(c.r.n_bands, 1);
    assert_int_equal(c.r.bands[0].strategy, TUNE_NONTEMPORAL);
    assert_true(c.r.bands[0].merged);
    assert_int_equal(c.r.n_merged, 2);
    assert_float_equal(c.r.bands[0].gain, 0.3, 1e-12);
    /* single threshold: nontemporal from the first size */
    assert_true(c.r.pairs[0].found);
    assert_int_equal(c.r.pairs[0].threshold_bytes, 4096);
    assert_int_equal(c.r.best_pair, 0);
    check_signs(&c);
    tune_result_free(&c.r);
}

/* A cheaper strategy at small sizes survives a distribution whose time is
 * dominated by the large ones (the test is per size, not weighted). */
static void test_small_band_survives_weights(void **state)
{
    (void)state;
    const double t[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 2, 4, 8, 1000},
        [TUNE_NONTEMPORAL] = {0.5, 1, 2, 9, 1001},
    };
    curve_t c;
    build(&c, 5, false, false, t);
    policy(&c, 0.01);
    assert_int_equal(c.r.n_bands, 2);
    assert_int_equal(c.r.bands[0].strategy, TUNE_NONTEMPORAL);
    assert_int_equal(c.r.bands[1].from_bytes, 4096u << 3);
    /* nt_threshold_bytes: the first band is non-temporal from 0 */
    assert_float_equal(c.r.bands[0].gain, 1 - 3.5 / 7, 1e-12);
    /* the best single threshold: nontemporal everywhere (1013.5 against
     * 1014 from the second size and 1015 for never); the policy 1011.5 */
    assert_true(c.r.pairs[0].found);
    assert_int_equal(c.r.pairs[0].threshold_bytes, 4096);
    assert_float_equal(c.r.policy_gain, 3.5 / 1015, 1e-12);
    assert_float_equal(c.r.policy_gain_over_single, 1 - 1011.5 / 1013.5, 1e-12);
    check_signs(&c);
    tune_result_free(&c.r);
}

/* The current policy has its own curve (arm64 memset): a temporal band
 * that is not cheaper than memset becomes memset. */
static void test_own_current(void **state)
{
    (void)state;
    const double t[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1.0, 2.0, 4.0},
        [TUNE_NONTEMPORAL] = {3, 6, 2.0},
        [TUNE_CURRENT] = {0.5, 2.001953125, 4.125},
    };
    curve_t c;
    build(&c, 3, false, true, t);
    policy(&c, 0.01);
    /* size 0: memset 50% cheaper; size 1: stp 0.1% cheaper (merged into
     * memset); size 2: stnp 52% cheaper than memset */
    assert_int_equal(c.r.n_bands, 2);
    assert_int_equal(c.r.bands[0].strategy, TUNE_CURRENT);
    assert_int_equal(c.r.bands[1].strategy, TUNE_NONTEMPORAL);
    assert_int_equal(c.r.bands[1].from_bytes, 16384);
    check_signs(&c);
    /* the single threshold is from the current policy: memset -> stnp at
     * 16 KiB, 4.501953125 against 6.626953125 for memset alone */
    assert_int_equal(c.r.pairs[0].from, TUNE_CURRENT);
    assert_true(c.r.pairs[0].found);
    assert_int_equal(c.r.pairs[0].threshold_bytes, 16384);
    assert_float_equal(c.r.pairs[0].gain, 1 - 4.501953125 / 6.626953125, 1e-12);
    assert_float_equal(c.r.pairs[0].gain_over_from, c.r.pairs[0].gain, 1e-15);
    assert_float_equal(c.r.policy_expected_seconds, 4.501953125 / 3, 1e-12);
    assert_float_equal(c.r.policy_gain_over_single, 0, 1e-12);
    tune_result_free(&c.r);

    /* no threshold: stp 0.5% cheaper than memset (merged), stnp dearer; the
     * policy is memset and no worse than "never switch" */
    const double none[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 1},
        [TUNE_NONTEMPORAL] = {2, 2},
        [TUNE_CURRENT] = {1.005, 1.005},
    };
    build(&c, 2, false, true, none);
    policy(&c, 0.01);
    assert_int_equal(c.r.n_bands, 1);
    assert_int_equal(c.r.bands[0].strategy, TUNE_CURRENT);
    assert_true(c.r.bands[0].merged);
    assert_true(c.r.policy_is_current);
    assert_false(c.r.pairs[0].found);
    assert_int_equal(c.r.best_pair, c.r.n_pairs);
    assert_float_equal(c.r.policy_gain_over_single, 0, 1e-12);
    check_signs(&c);
    tune_result_free(&c.r);

    /* stp barely cheaper at small sizes, stnp much cheaper at the largest:
     * the small sizes stay memset, the largest is stnp, and the single
     * threshold gives the same policy */
    const double tail[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 1, 10},
        [TUNE_NONTEMPORAL] = {3, 3, 5},
        [TUNE_CURRENT] = {1.005, 1.005, 10},
    };
    build(&c, 3, false, true, tail);
    policy(&c, 0.01);
    assert_int_equal(c.r.n_bands, 2);
    assert_int_equal(c.r.bands[0].strategy, TUNE_CURRENT);
    assert_int_equal(c.r.bands[1].strategy, TUNE_NONTEMPORAL);
    assert_true(c.r.pairs[0].found);
    assert_int_equal(c.r.pairs[0].threshold_bytes, 16384);
    assert_float_equal(c.r.policy_gain_over_single, 0, 1e-12);
    check_signs(&c);
    tune_result_free(&c.r);
}

/* The hardware's own switch point: software non-temporal stores above it. */
static void test_hw_switch(void **state)
{
    (void)state;
    const double agree[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 2, 4, 8},
        [TUNE_NONTEMPORAL] = {0.5, 1, 4.02, 8.04},
    };
    curve_t c;
    build(&c, 4, false, false, agree);
    c.r.hw_switch = true;
    c.r.hw_switch_bytes = 16384; /* sizes 2 and 3 */
    policy(&c, 0.01);
    assert_true(c.r.hw_checked);
    assert_true(c.r.hw_agrees);
    assert_float_equal(c.r.hw_software_gain, 0, 1e-12); /* it loses: no gain */
    assert_int_equal(c.r.n_bands, 2);
    assert_true(c.r.bands[1].hw_switch_inside);
    assert_false(c.r.bands[0].hw_switch_inside);
    tune_result_free(&c.r);

    const double beat[4][N_MAX] = {
        [TUNE_TEMPORAL] = {1, 2, 4, 8},
        [TUNE_NONTEMPORAL] = {2, 4, 8, 4},
    };
    build(&c, 4, false, false, beat);
    c.r.hw_switch = true;
    c.r.hw_switch_bytes = 16384;
    policy(&c, 0.01);
    assert_false(c.r.hw_agrees);
    assert_float_equal(c.r.hw_software_gain, 0.5, 1e-12);
    tune_result_free(&c.r);

    /* a switch point above every size is not checked */
    build(&c, 4, false, false, agree);
    c.r.hw_switch = true;
    c.r.hw_switch_bytes = 1u << 20;
    policy(&c, 0.01);
    assert_false(c.r.hw_checked);
    tune_result_free(&c.r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_bands),
        cmocka_unit_test(test_significance_threshold),
        cmocka_unit_test(test_merge_into_neighbour),
        cmocka_unit_test(test_small_band_survives_weights),
        cmocka_unit_test(test_own_current),
        cmocka_unit_test(test_hw_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
