/*
 * tune_policy.c - `clearsim tune`'s recommendations from its cost curve:
 * the best single thresholds, the piecewise policy and the hardware's own
 * switch point (see tune.h for the curve).
 *
 * Notes
 *  - Raw bands: at each sampled size the strategy with the least total time
 *    (clear + re-fetch); ties keep the current policy's strategy, then the
 *    order temporal, nontemporal, linezero. Runs of one strategy are bands.
 *  - Significance: band b (strategy s) beats strategy a when, at one of its
 *    sizes at least, 1 - t_s / t_a exceeds max(min_gain, eb_s + eb_a), eb
 *    being the two points' stated error bounds (run_result_t.error_bound).
 *    It is a per-size test, not a weighted one, so a band where a strategy is
 *    much cheaper at small sizes survives a distribution whose time is
 *    dominated by large clears.
 *  - Merging, for bands that are not the current policy: while one does not
 *    beat the current policy, or one of its neighbours, the one with the
 *    largest shortfall takes the current policy's strategy (or, when it beats
 *    the current policy, the cheaper neighbour it does not beat). Bands of
 *    the current policy are never merged away: where nothing is
 *    significantly cheaper, the machine keeps what it does. A band whose
 *    weighted gain over the current policy is not positive becomes the
 *    current policy too, so no band's gain has the wrong sign. If no band is
 *    left that differs from the current policy, the policy is the current
 *    one ("no significant difference").
 *  - Best single threshold from the current policy to X (nontemporal or
 *    linezero): every k, the current policy below sizes[k], X from it, and
 *    k = n for "never"; the least expected time wins, ties the later switch.
 *    A switch whose X beats the current policy by no more than the
 *    significance threshold at every size from it is "never". The policy is
 *    never worse than the best single threshold: when that threshold is
 *    cheaper than the merged bands, the bands become its two bands (which
 *    obey the rules: its switch is significant and saves time over its band).
 *  - A band is `merged` when some size in it has a cheaper strategy, each by
 *    no more than the significance threshold; `outweighed` when one is
 *    significantly cheaper at some size but the band's strategy is cheaper
 *    over the band's weighted clears.
 *  - Units: bytes, seconds; gains are fractions of time saved.
 */
#include "sim/study/tune.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"

/* ------------------------------------------------------------------------ */
/* the curve                                                                 */

static bool in_curve(const tune_result_t *r, int s)
{
    return r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT);
}

static size_t per_size(const tune_result_t *r)
{
    size_t per = 0;
    for (int t = 0; t < TUNE_STRATEGIES; t++)
        per += in_curve(r, t);
    return per;
}

static tune_strategy_t resolve(const tune_result_t *r, tune_strategy_t s)
{
    return s == TUNE_CURRENT && r->current_as != TUNE_CURRENT ? r->current_as : s;
}

static const tune_point_t *point_at(const tune_result_t *r, size_t i, tune_strategy_t s)
{
    s = resolve(r, s);
    size_t k = 0;
    for (int t = 0; t < (int)s; t++)
        k += in_curve(r, t);
    return &r->curve[i * per_size(r) + k];
}

double tune_total_seconds(const tune_result_t *r, size_t i, tune_strategy_t s)
{
    return point_at(r, i, s)->total_seconds;
}

/* ------------------------------------------------------------------------ */
/* the hardware's own switch point                                           */

void tune_hw_switch(const machine_t *m, tune_result_t *r)
{
    r->hw_switch = false;
    r->hw_switch_bytes = 0;
    r->hw_switch_key[0] = '\0';
    const char *fn = r->function[TUNE_TEMPORAL];
    if (m->isa == MACHINE_ISA_ARM64) {
        if (!m->ws_enabled)
            return;
        bool l3 = m->l3.present && m->ws_l3_bytes;
        uint64_t b = l3 ? m->ws_l3_bytes : m->ws_l2_bytes;
        if (!b)
            return;
        r->hw_switch = true;
        r->hw_switch_bytes = b;
        snprintf(r->hw_switch_key, sizeof r->hw_switch_key, "write_streaming.%s", l3 ? "l3" : "l2");
    } else if (m->elide_enabled && strncmp(fn, "rep_stos", 8) == 0) {
        r->hw_switch = true;
        r->hw_switch_bytes = m->elide_threshold_bytes;
        snprintf(r->hw_switch_key, sizeof r->hw_switch_key, "string.elide");
    }
}

/* ------------------------------------------------------------------------ */
/* bands                                                                     */

typedef struct pol {
    const tune_size_t *sizes;
    size_t n;
    double min_gain;
    const tune_result_t *r;
    tune_strategy_t cur; /* the current policy's strategy (resolved) */
} pol_t;

static double t_of(const pol_t *p, size_t i, tune_strategy_t s)
{
    return tune_total_seconds(p->r, i, s);
}

static double eb_of(const pol_t *p, size_t i, tune_strategy_t s)
{
    double e = point_at(p->r, i, s)->error_bound;
    return isfinite(e) && e > 0 ? e : 0;
}

/* How far band [a, b] with strategy s beats strategy x at its best size,
 * beyond the significance threshold there (> 0: significant). */
static double excess(const pol_t *p, size_t a, size_t b, tune_strategy_t s, tune_strategy_t x)
{
    double best = -INFINITY;
    for (size_t i = a; i <= b; i++) {
        double ts = t_of(p, i, s), tx = t_of(p, i, x);
        if (!(tx > 0))
            continue;
        double thr = fmax(p->min_gain, eb_of(p, i, s) + eb_of(p, i, x));
        best = fmax(best, 1.0 - ts / tx - thr);
    }
    return best;
}

static double band_cost(const pol_t *p, size_t a, size_t b, tune_strategy_t s)
{
    double c = 0;
    for (size_t i = a; i <= b; i++)
        c += p->sizes[i].weight * t_of(p, i, s);
    return c;
}

/* The end of the band that starts at a. */
static size_t band_end(const tune_strategy_t *as, size_t n, size_t a)
{
    size_t b = a;
    while (b + 1 < n && as[b + 1] == as[a])
        b++;
    return b;
}

/* One merge step: 1 when a band was given another strategy. */
static int merge_once(const pol_t *p, tune_strategy_t *as)
{
    double best_ex = INFINITY;
    size_t best_a = 0, best_b = 0;
    tune_strategy_t best_to = TUNE_TEMPORAL;
    bool any = false;
    for (size_t a = 0; a < p->n;) {
        size_t b = band_end(as, p->n, a);
        tune_strategy_t s = as[a];
        bool found = false;
        double ex_to = 0, cost_to = INFINITY;
        tune_strategy_t to = s;
        if (s != p->cur) {
            /* no significant difference from the current policy: keep it */
            double ex = excess(p, a, b, s, p->cur);
            if (ex <= 0) {
                found = true;
                to = p->cur;
                ex_to = ex;
            }
            /* else the cheaper neighbour it does not beat */
            tune_strategy_t nb[2];
            size_t nn = 0;
            if (a > 0)
                nb[nn++] = as[a - 1];
            if (b + 1 < p->n)
                nb[nn++] = as[b + 1];
            for (size_t k = 0; !found && k < nn; k++) {
                double exk = excess(p, a, b, s, nb[k]);
                double c = band_cost(p, a, b, nb[k]);
                if (exk <= 0 && c < cost_to) {
                    to = nb[k];
                    ex_to = exk;
                    cost_to = c;
                }
            }
            found = found || cost_to < INFINITY;
        }
        if (found && (!any || ex_to < best_ex)) {
            any = true;
            best_ex = ex_to;
            best_a = a;
            best_b = b;
            best_to = to;
        }
        a = b + 1;
    }
    if (!any)
        return 0;
    for (size_t i = best_a; i <= best_b; i++)
        as[i] = best_to;
    return 1;
}

/* A band that is not the current policy and has no positive weighted gain
 * over it becomes the current policy: 1 when one did. */
static int drop_losers(const pol_t *p, tune_strategy_t *as)
{
    int changed = 0;
    for (size_t a = 0; a < p->n;) {
        size_t b = band_end(as, p->n, a);
        if (as[a] != p->cur && !(band_cost(p, a, b, as[a]) < band_cost(p, a, b, p->cur))) {
            for (size_t i = a; i <= b; i++)
                as[i] = p->cur;
            changed = 1;
        }
        a = b + 1;
    }
    return changed;
}

static double expected(const pol_t *p, const tune_strategy_t *as)
{
    double sum = 0, wsum = 0;
    for (size_t i = 0; i < p->n; i++) {
        sum += p->sizes[i].weight * t_of(p, i, as[i]);
        wsum += p->sizes[i].weight;
    }
    return sum / wsum;
}

static size_t count_bands(const tune_strategy_t *as, size_t n)
{
    size_t k = 0;
    for (size_t a = 0; a < n; a = band_end(as, n, a) + 1)
        k++;
    return k;
}

/* The best single threshold from the current policy to pair->to, written
 * into *pair; the assignment it gives into as (may be NULL). */
static void single(const pol_t *p, tune_pair_t *pair, tune_strategy_t *as)
{
    size_t best_k = p->n;
    double best = INFINITY;
    for (size_t k = p->n + 1; k-- > 0;) {
        double sum = 0, wsum = 0;
        for (size_t i = 0; i < p->n; i++) {
            sum += p->sizes[i].weight * t_of(p, i, i >= k ? pair->to : p->cur);
            wsum += p->sizes[i].weight;
        }
        double e = sum / wsum;
        if (e < best) {
            best = e;
            best_k = k;
        }
    }
    /* a switch that saves no significant time at any size is no switch */
    if (best_k < p->n && !(excess(p, best_k, p->n - 1, pair->to, p->cur) > 0)) {
        best_k = p->n;
        best = p->r->current_expected_seconds;
    }
    pair->found = best_k < p->n;
    pair->threshold_bytes = pair->found ? p->sizes[best_k].size_bytes : 0;
    pair->expected_seconds = best;
    pair->gain = 1.0 - best / p->r->current_expected_seconds;
    pair->gain_over_from = pair->gain;
    if (as)
        for (size_t i = 0; i < p->n; i++)
            as[i] = i >= best_k ? pair->to : p->cur;
}

/* Is some other strategy cheaper than as[i] at size i: *any by any margin,
 * *sig by more than the significance threshold. */
static void cheaper_at(const pol_t *p, size_t i, tune_strategy_t s, bool *any, bool *sig)
{
    static const tune_strategy_t all[] = {TUNE_TEMPORAL, TUNE_NONTEMPORAL, TUNE_LINEZERO,
                                          TUNE_CURRENT};
    for (size_t q = 0; q < 4; q++) {
        if (!in_curve(p->r, all[q]) || all[q] == s)
            continue;
        double ts = t_of(p, i, s), tq = t_of(p, i, all[q]);
        if (!(tq < ts))
            continue;
        *any = true;
        double thr = fmax(p->min_gain, eb_of(p, i, s) + eb_of(p, i, all[q]));
        if (1.0 - tq / ts > thr)
            *sig = true;
    }
}

int tune_policy(const tune_size_t *sizes, size_t n, double min_gain, tune_result_t *r, char *err,
                size_t errlen)
{
    free(r->bands);
    r->bands = NULL;
    r->n_bands = 0;
    if (n == 0)
        return errbuf_set(err, errlen, "no sizes to tune");
    if (!r->curve || r->n_curve != n * per_size(r))
        return errbuf_set(err, errlen, "internal: the curve has %zu points, not %zu sizes x %zu",
                          r->n_curve, n, per_size(r));
    for (size_t i = 0; i < r->n_curve; i++)
        if (!(r->curve[i].total_seconds >= 0) || !isfinite(r->curve[i].total_seconds))
            return errbuf_set(err, errlen, "internal: a point of the curve has no time");
    pol_t p = {.sizes = sizes,
               .n = n,
               .min_gain = min_gain > 0 ? min_gain : 0,
               .r = r,
               .cur = resolve(r, TUNE_CURRENT)};
    r->min_gain = p.min_gain;
    tune_strategy_t *as = calloc(n, sizeof *as), *one = calloc(n, sizeof *one);
    if (!as || !one) {
        free(as);
        free(one);
        return errbuf_set(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        as[i] = p.cur;
    r->current_expected_seconds = expected(&p, as);

    /* single thresholds from the current policy */
    r->n_pairs = 0;
    const tune_strategy_t to[] = {TUNE_NONTEMPORAL, TUNE_LINEZERO};
    for (size_t k = 0; k < 2; k++) {
        if (!r->have[to[k]] || to[k] == p.cur)
            continue;
        tune_pair_t *pr = &r->pairs[r->n_pairs++];
        memset(pr, 0, sizeof *pr);
        pr->from = r->current_as;
        pr->to = to[k];
        single(&p, pr, NULL);
    }
    r->best_pair = r->n_pairs;
    for (size_t k = 0; k < r->n_pairs; k++)
        if (r->pairs[k].found &&
            (r->best_pair == r->n_pairs ||
             r->pairs[k].expected_seconds < r->pairs[r->best_pair].expected_seconds))
            r->best_pair = k;
    const double single_expected = r->best_pair < r->n_pairs
                                       ? r->pairs[r->best_pair].expected_seconds
                                       : r->current_expected_seconds;

    /* raw bands: the cheapest strategy at each size */
    static const tune_strategy_t pref[] = {TUNE_TEMPORAL, TUNE_NONTEMPORAL, TUNE_LINEZERO,
                                           TUNE_CURRENT};
    for (size_t i = 0; i < n; i++) {
        tune_strategy_t w = p.cur;
        for (size_t k = 0; k < 4; k++)
            if (in_curve(r, pref[k]) && t_of(&p, i, pref[k]) < t_of(&p, i, w))
                w = pref[k];
        as[i] = w;
    }
    const size_t raw_bands = count_bands(as, n);
    for (;;) {
        while (merge_once(&p, as))
            ;
        if (!drop_losers(&p, as))
            break;
    }
    /* never worse than the best single threshold: its two bands obey the
     * rules above (its switch is significant, and cheaper than the current
     * policy over its band, else it would be "never") */
    if (r->best_pair < r->n_pairs && single_expected < expected(&p, as))
        single(&p, &r->pairs[r->best_pair], as);
    const size_t bands = count_bands(as, n);
    r->n_merged = raw_bands > bands ? (uint64_t)(raw_bands - bands) : 0;
    r->policy_is_current = true;
    for (size_t i = 0; i < n; i++)
        r->policy_is_current = r->policy_is_current && as[i] == p.cur;
    r->policy_expected_seconds = expected(&p, as);
    r->policy_gain = 1.0 - r->policy_expected_seconds / r->current_expected_seconds;
    r->policy_gain_over_single = 1.0 - r->policy_expected_seconds / single_expected;

    /* the bands */
    r->n_bands = bands;
    r->bands = calloc(r->n_bands, sizeof *r->bands);
    if (!r->bands) {
        free(as);
        free(one);
        r->n_bands = 0;
        return errbuf_set(err, errlen, "out of memory");
    }
    double wsum = 0;
    for (size_t i = 0; i < n; i++)
        wsum += sizes[i].weight;
    const double cur_total = r->current_expected_seconds * wsum;
    /* the best single threshold's assignment, for the bands' gain over it */
    if (r->best_pair < r->n_pairs) {
        tune_pair_t tmp = r->pairs[r->best_pair];
        single(&p, &tmp, one);
    } else {
        for (size_t i = 0; i < n; i++)
            one[i] = p.cur;
    }
    size_t k = 0;
    for (size_t a = 0; a < n; k++) {
        size_t b = band_end(as, n, a);
        tune_band_t *bd = &r->bands[k];
        bd->first = a;
        bd->last = b;
        bd->strategy = as[a];
        bd->from_bytes = a == 0 ? 0 : sizes[a].size_bytes;
        bd->after_bytes = a == 0 ? 0 : sizes[a - 1].size_bytes;
        bd->to_bytes = b + 1 < n ? sizes[b + 1].size_bytes : 0;
        double w = 0, c = 0, cc = 0, cs = 0;
        bool any = false, sig = false;
        for (size_t i = a; i <= b; i++) {
            w += sizes[i].weight;
            c += sizes[i].weight * t_of(&p, i, as[i]);
            cc += sizes[i].weight * t_of(&p, i, p.cur);
            cs += sizes[i].weight * t_of(&p, i, one[i]);
            cheaper_at(&p, i, as[i], &any, &sig);
        }
        bd->merged = any && !sig;
        bd->outweighed = sig;
        bd->weight = w / wsum;
        bd->gain = cc > 0 ? 1.0 - c / cc : 0;
        bd->gain_share = cur_total > 0 ? (cc - c) / cur_total : 0;
        bd->gain_over_single = cs > 0 ? 1.0 - c / cs : 0;
        tune_strategy_t rs = resolve(r, as[a]);
        bd->hw_switch_inside = r->hw_switch && (rs == TUNE_TEMPORAL || rs == TUNE_CURRENT) &&
                               r->hw_switch_bytes <= sizes[b].size_bytes;
        a = b + 1;
    }

    /* the hardware's switch point against software non-temporal stores: it
     * agrees when no band of the policy uses them there and they save no
     * significant time at any size there */
    r->hw_checked = false;
    r->hw_software_gain = 0;
    r->hw_agrees = true;
    if (r->hw_switch) {
        for (size_t i = 0; i < n; i++) {
            if (sizes[i].size_bytes < r->hw_switch_bytes)
                continue;
            r->hw_checked = true;
            tune_strategy_t base =
                t_of(&p, i, TUNE_TEMPORAL) < t_of(&p, i, p.cur) ? TUNE_TEMPORAL : p.cur;
            double tt = t_of(&p, i, base);
            for (size_t q = 0; q < 2; q++) {
                if (!r->have[to[q]] || !(tt > 0))
                    continue;
                double g = 1.0 - t_of(&p, i, to[q]) / tt;
                r->hw_software_gain = fmax(r->hw_software_gain, g);
                if (g > fmax(p.min_gain, eb_of(&p, i, to[q]) + eb_of(&p, i, base)))
                    r->hw_agrees = false;
            }
            tune_strategy_t s = resolve(r, as[i]);
            if (s == TUNE_NONTEMPORAL || s == TUNE_LINEZERO)
                r->hw_agrees = false;
        }
    }
    free(as);
    free(one);
    return 0;
}
