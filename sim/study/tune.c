/*
 * tune.c - non-temporal / line-zeroing thresholds and the extent cap from
 * the model's predictions (see tune.h for the method).
 *
 * Notes
 *  - Every cost is one run_predict of the memset workload (sim/engine/run.c), run
 *    on the sweep thread pool (sim/study/sweep.c): each run has its own model, the
 *    machine is only read. Results are stored by index, so --jobs never
 *    changes the output.
 *  - Size distributions are read by tune_sizes.c.
 *  - What it ignores: the cost of faults and of the kernel's direct map
 *    (tune.h); the consumer's own work between its loads (one 8-byte load
 *    per line, wl_spec_t.reuse_bytes).
 *  - Units: bytes, seconds; weights are relative.
 */
#include "sim/output/pool.h"
#include "sim/study/tune.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "sim/engine/point.h"
#include "models/base/errbuf.h"
#include "sim/study/sweep.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/engine/workload.h"

#define TUNE_SUBPAGE_BYTES 4096ull

/* ------------------------------------------------------------------------ */
/* strategies                                                                */

static const char *const strategy_names[TUNE_STRATEGIES] = {
    [TUNE_TEMPORAL] = "temporal",
    [TUNE_NONTEMPORAL] = "nontemporal",
    [TUNE_LINEZERO] = "linezero",
    [TUNE_CURRENT] = "current",
};

const char *tune_strategy_name(tune_strategy_t s)
{
    return (unsigned)s < TUNE_STRATEGIES ? strategy_names[s] : "?";
}

static bool usable(const char *fn, const machine_t *m)
{
    char why[256];
    const kern_info_t *k = kern_find(fn);
    return k && kern_check_machine(k, m, why, sizeof why) == 0;
}

void tune_strategy_functions(const machine_t *m, char fn[TUNE_STRATEGIES][32],
                             bool have[TUNE_STRATEGIES])
{
    const bool arm = m->isa == MACHINE_ISA_ARM64;
    const char *want[TUNE_STRATEGIES] = {
        [TUNE_TEMPORAL] = arm ? "stp" : point_default_function(m),
        [TUNE_NONTEMPORAL] = arm ? "stnp" : "movnti",
        [TUNE_LINEZERO] = arm ? "dc_zva" : "clzero",
        [TUNE_CURRENT] = point_default_function(m),
    };
    for (int s = 0; s < TUNE_STRATEGIES; s++) {
        have[s] = usable(want[s], m);
        snprintf(fn[s], 32, "%s", have[s] ? want[s] : "");
    }
}

/* ------------------------------------------------------------------------ */
/* one cost                                                                  */

typedef enum eval_role { EV_CLEAR = 0, EV_BASE, EV_TOUCH } eval_role_t;

typedef struct eval {
    const char *function;
    uint64_t size_bytes;
    eval_role_t role;     /* the clear alone; with the delay's traffic; with the touch too */
    uint64_t reuse_bytes; /* touched at once */
    uint64_t delay_bytes, later_bytes;
    /* out */
    int rc;
    char err[256];
    uint64_t calls;
    double seconds; /* per clear */
    bool extrapolated;
    double error_bound;
} eval_t;

typedef struct eval_ctx {
    const machine_t *m;
    const run_opts_t *run;
    eval_t *ev;
} eval_ctx_t;

static uint64_t cached_bytes(const machine_t *m)
{
    return m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0);
}

static uint64_t calls_for(const machine_t *m, uint64_t size)
{
    uint64_t want = cached_bytes(m) + cached_bytes(m) / 4;
    uint64_t n = (want + size - 1) / size;
    return n ? n : 1;
}

static void eval_one(const machine_t *m, const run_opts_t *ro, eval_t *e)
{
    wl_spec_t s;
    wl_spec_init(&s);
    s.kind = WL_MEMSET;
    snprintf(s.function, sizeof s.function, "%s", e->function);
    /* with the delay's traffic, each call's footprint is the clear and the
     * traffic: fewer calls cover the caches */
    e->calls = calls_for(m, e->size_bytes + e->delay_bytes);
    s.size_bytes = e->calls * e->size_bytes;
    s.chunk_bytes = e->size_bytes;
    s.caller = WL_CALLER_CHUNKED;
    s.loops = 1;
    s.fill = 0;
    s.reuse_bytes = e->reuse_bytes;
    s.delay_bytes = e->delay_bytes;
    s.later_bytes = e->later_bytes;
    run_opts_t o = *ro;
    o.progress = false;
    run_result_t *r = malloc(sizeof *r);
    if (!r) {
        e->rc = errbuf_set(e->err, sizeof e->err, "out of memory");
        return;
    }
    e->rc = run_predict(m, &s, &o, r, e->err, sizeof e->err);
    if (e->rc == 0) {
        e->seconds = r->seconds / (double)e->calls;
        e->extrapolated = r->extrapolated;
        e->error_bound = r->error_bound;
    }
    free(r);
}

static void eval_task(void *vctx, size_t i)
{
    eval_ctx_t *c = vctx;
    eval_one(c->m, c->run, &c->ev[i]);
}

static uint64_t reuse_for(const tune_opts_t *o, uint64_t size)
{
    uint64_t r;
    if (o->reuse_subpage && o->delay_bytes) {
        r = size; /* the subpage at once, the rest after the delay */
    } else if (o->reuse_subpage) {
        r = TUNE_SUBPAGE_BYTES;
    } else {
        double want = o->reuse_fraction * (double)size;
        r = (uint64_t)ceil(want);
        r = (r + TUNE_LINE_BYTES - 1) / TUNE_LINE_BYTES * TUNE_LINE_BYTES;
    }
    if (o->window_bytes && r > o->window_bytes)
        r = o->window_bytes;
    return r < size ? r : size;
}

/* ------------------------------------------------------------------------ */
/* extent cap                                                                */

#define CAP_EVALS_MAX 48
#define CAP_STEPS     5 /* secant steps inside the power-of-two bracket */

typedef struct cap_cache {
    size_t n;
    eval_t ev[CAP_EVALS_MAX];
} cap_cache_t;

/* Predicted time of one clear of `size` bytes with fn, no reuse (cached). */
static int cap_time(const machine_t *m, const tune_opts_t *o, const char *fn, cap_cache_t *cc,
                    uint64_t size, double *t, char *err, size_t errlen)
{
    for (size_t i = 0; i < cc->n; i++)
        if (cc->ev[i].size_bytes == size) {
            *t = cc->ev[i].seconds;
            return 0;
        }
    if (cc->n == CAP_EVALS_MAX)
        return errbuf_set(err, errlen, "internal: extent cap search did not converge");
    eval_t *ev = &cc->ev[cc->n];
    memset(ev, 0, sizeof *ev);
    ev->function = fn;
    ev->size_bytes = size;
    eval_one(m, &o->run, ev);
    if (ev->rc != 0) {
        char a[32];
        unit_format_size(size, a, sizeof a);
        return errbuf_set(err, errlen, "%s, size %s: %s", fn, a, ev->err);
    }
    cc->n++;
    *t = ev->seconds;
    return 0;
}

static int extent_cap(const machine_t *m, const tune_opts_t *o, const char *fn, tune_result_t *r,
                      char *err, size_t errlen)
{
    r->preempt = o->preempt;
    r->budget_seconds = o->latency_budget_ns * 1e-9;
    r->cap_needed = o->preempt == CALLER_PREEMPT_NONE || o->preempt == CALLER_PREEMPT_VOLUNTARY;
    if (!r->cap_needed)
        return 0;
    cap_cache_t *cc = calloc(1, sizeof *cc);
    if (!cc)
        return errbuf_set(err, errlen, "out of memory");
    const double budget = r->budget_seconds;
    int rc = -1;
    double t, tn;
    /* 1. the power-of-two bracket: a first guess from the bandwidth of a
     *    2 MiB clear, then step up or down */
    int e = 21;
    if (cap_time(m, o, fn, cc, 1ull << e, &t, err, errlen))
        goto out;
    if (t > 0) {
        double est = budget * (double)(1ull << e) / t;
        int ee = est >= 1 ? (int)floor(log2(est)) : TUNE_MIN_EXP;
        e = ee < TUNE_MIN_EXP ? TUNE_MIN_EXP : ee > TUNE_MAX_EXP ? TUNE_MAX_EXP : ee;
    }
    if (cap_time(m, o, fn, cc, 1ull << e, &t, err, errlen))
        goto out;
    if (t <= budget) {
        for (; e < TUNE_MAX_EXP; e++) {
            if (cap_time(m, o, fn, cc, 1ull << (e + 1), &tn, err, errlen))
                goto out;
            if (tn > budget)
                break;
            t = tn;
        }
    } else {
        while (e > TUNE_MIN_EXP && t > budget) {
            e--;
            if (cap_time(m, o, fn, cc, 1ull << e, &t, err, errlen))
                goto out;
        }
    }
    r->cap_found = t <= budget;
    if (!r->cap_found) {
        rc = 0;
        goto out;
    }
    r->cap_pow2_bytes = 1ull << e;
    /* 2. inside [2^e, 2^(e+1)): secant steps on whole 4 KiB pages; the time
     *    of a clear is close to affine in its size there */
    uint64_t lo = 1ull << e, hi = 0;
    double t_lo = t, t_hi = 0;
    if (e < TUNE_MAX_EXP) {
        hi = 1ull << (e + 1);
        if (cap_time(m, o, fn, cc, hi, &t_hi, err, errlen))
            goto out;
    }
    for (int step = 0; hi && step < CAP_STEPS && hi - lo > TUNE_SUBPAGE_BYTES; step++) {
        double frac = t_hi > t_lo ? (budget - t_lo) / (t_hi - t_lo) : 0.5;
        uint64_t x = lo + (uint64_t)(frac * (double)(hi - lo));
        x = x / TUNE_SUBPAGE_BYTES * TUNE_SUBPAGE_BYTES;
        if (x <= lo)
            x = lo + TUNE_SUBPAGE_BYTES;
        if (x >= hi)
            x = hi - TUNE_SUBPAGE_BYTES;
        double tx;
        if (cap_time(m, o, fn, cc, x, &tx, err, errlen))
            goto out;
        if (tx <= budget) {
            lo = x;
            t_lo = tx;
        } else {
            hi = x;
            t_hi = tx;
        }
    }
    r->cap_bytes = lo;
    r->cap_clear_seconds = t_lo;
    r->cap_bytes_per_sec = (double)lo / (t_lo + m->resched_ns * 1e-9);
    /* 3. the uncapped reference: a 1 GiB folio cleared in one extent */
    double tr;
    r->ref_bytes = 1ull << TUNE_MAX_EXP;
    if (cap_time(m, o, fn, cc, r->ref_bytes, &tr, err, errlen))
        goto out;
    r->ref_bytes_per_sec = tr > 0 ? (double)r->ref_bytes / tr : NAN;
    r->throughput_loss = 1.0 - r->cap_bytes_per_sec / r->ref_bytes_per_sec;
    rc = 0;
out:
    free(cc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* the whole tune                                                            */

int tune_run(const machine_t *m, const tune_opts_t *o, tune_result_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->sizes || o->n_sizes == 0)
        return errbuf_set(err, errlen, "no sizes to tune");
    if (o->delay_bytes && !o->reuse_subpage)
        return errbuf_set(err, errlen, "a delay needs the subpage reuse (the faulting thread)");
    if (!o->reuse_subpage && !(o->reuse_fraction >= 0 && o->reuse_fraction <= 1))
        return errbuf_set(err, errlen, "--reuse must be between 0 and 1, or 'subpage'");
    snprintf(r->machine, sizeof r->machine, "%s", m->name);
    cfg_machine_set_text(m, r->set, sizeof r->set);
    tune_strategy_functions(m, r->function, r->have);
    if (!r->have[TUNE_TEMPORAL] || !r->have[TUNE_NONTEMPORAL] || !r->have[TUNE_CURRENT])
        return errbuf_set(err, errlen,
                          "machine %s lacks a temporal or non-temporal clearing kernel", m->name);
    r->current_as = TUNE_CURRENT;
    for (int s = 0; s < TUNE_CURRENT; s++)
        if (r->have[s] && strcmp(r->function[s], r->function[TUNE_CURRENT]) == 0) {
            r->current_as = (tune_strategy_t)s;
            break;
        }
    r->reuse_subpage = o->reuse_subpage;
    r->reuse_fraction = o->reuse_fraction;
    r->window_bytes = o->window_bytes;
    r->delay_bytes = o->reuse_subpage ? o->delay_bytes : 0;
    snprintf(r->dist_name, sizeof r->dist_name, "%s", o->dist_name);
    snprintf(r->dist_source, sizeof r->dist_source, "%s", o->dist_source);

    size_t per = 0;
    tune_strategy_t strat[TUNE_STRATEGIES];
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT))
            strat[per++] = (tune_strategy_t)s;
    r->n_curve = o->n_sizes * per;
    r->curve = calloc(r->n_curve, sizeof *r->curve);
    /* up to three evaluations per point: the clear alone, with the delay's
     * traffic, and with the touch */
    eval_t *ev = calloc(3 * r->n_curve, sizeof *ev);
    size_t *evi = calloc(3 * r->n_curve, sizeof *evi);
    double *base = calloc(r->n_curve, sizeof *base);
    if (!r->curve || !ev || !evi || !base) {
        free(ev);
        free(evi);
        free(base);
        tune_result_free(r);
        return errbuf_set(err, errlen, "out of memory");
    }
    size_t nev = 0;
    for (size_t i = 0; i < o->n_sizes; i++) {
        for (size_t k = 0; k < per; k++) {
            tune_point_t *pt = &r->curve[i * per + k];
            pt->size_bytes = o->sizes[i].size_bytes;
            pt->weight = o->sizes[i].weight;
            pt->strategy = strat[k];
            snprintf(pt->function, sizeof pt->function, "%s", r->function[strat[k]]);
            pt->reuse_bytes = reuse_for(o, pt->size_bytes);
            pt->calls = calls_for(m, pt->size_bytes);
            pt->buffer_bytes = pt->calls * pt->size_bytes;
            ev[nev] = (eval_t){.function = r->function[strat[k]], .size_bytes = pt->size_bytes};
            evi[nev++] = i * per + k;
            if (o->delay_bytes) {
                /* the faulting thread: subpage, other traffic, the rest; the
                 * traffic's own cost is the base run's */
                uint64_t now =
                    pt->reuse_bytes < TUNE_SUBPAGE_BYTES ? pt->reuse_bytes : TUNE_SUBPAGE_BYTES;
                ev[nev] = ev[nev - 1];
                ev[nev].role = EV_BASE;
                ev[nev].delay_bytes = o->delay_bytes;
                evi[nev++] = i * per + k;
                ev[nev] = ev[nev - 1];
                ev[nev].role = EV_TOUCH;
                ev[nev].reuse_bytes = now;
                ev[nev].later_bytes = pt->reuse_bytes - now;
                evi[nev++] = i * per + k;
            } else if (pt->reuse_bytes) {
                ev[nev] = ev[nev - 1];
                ev[nev].role = EV_TOUCH;
                ev[nev].reuse_bytes = pt->reuse_bytes;
                evi[nev++] = i * per + k;
            }
        }
    }
    eval_ctx_t ctx = {.m = m, .run = &o->run, .ev = ev};
    progress_t *pr = progress_create("tune", nev, o->progress);
    int rc = pool_run(nev, o->jobs, eval_task, &ctx, pr, 0, err, errlen);
    progress_destroy(pr);
    for (size_t j = 0; rc == 0 && j < nev; j++) {
        tune_point_t *pt = &r->curve[evi[j]];
        if (ev[j].rc != 0) {
            char a[32];
            unit_format_size(ev[j].size_bytes, a, sizeof a);
            rc = errbuf_set(err, errlen, "%s, size %s: %s", ev[j].function, a, ev[j].err);
            break;
        }
        if (ev[j].role == EV_CLEAR)
            pt->clear_seconds = ev[j].seconds;
        else if (ev[j].role == EV_BASE)
            base[evi[j]] = ev[j].seconds;
        else
            pt->refetch_seconds = ev[j].seconds; /* the whole run, for now */
        pt->extrapolated = pt->extrapolated || ev[j].extrapolated;
        pt->error_bound = fmax(pt->error_bound, ev[j].error_bound);
    }
    for (size_t k = 0; rc == 0 && k < r->n_curve; k++) {
        tune_point_t *pt = &r->curve[k];
        if (pt->reuse_bytes)
            pt->refetch_seconds -= o->delay_bytes ? base[k] : pt->clear_seconds;
        pt->total_seconds = pt->clear_seconds + pt->refetch_seconds;
    }
    free(ev);
    free(evi);
    free(base);
    if (rc == 0) {
        tune_hw_switch(m, r);
        rc = tune_policy(o->sizes, o->n_sizes, o->min_gain, r, err, errlen);
    }
    if (rc == 0) {
        rc = extent_cap(m, o, r->function[TUNE_CURRENT], r, err, errlen);
    }
    if (rc != 0)
        tune_result_free(r);
    return rc;
}

void tune_result_free(tune_result_t *r)
{
    free(r->curve);
    r->curve = NULL;
    r->n_curve = 0;
    free(r->bands);
    r->bands = NULL;
    r->n_bands = 0;
}

/* ------------------------------------------------------------------------ */
/* printing                                                                  */

/* The policy's first switch to non-temporal or line zeroing: its band, or
 * NULL. */
static const tune_band_t *nt_band(const tune_result_t *r)
{
    for (size_t i = 0; i < r->n_bands; i++) {
        tune_strategy_t s = r->bands[i].strategy;
        if (s == TUNE_CURRENT)
            s = r->current_as;
        if (s == TUNE_NONTEMPORAL || s == TUNE_LINEZERO)
            return &r->bands[i];
    }
    return NULL;
}

/* The policy's strategy at sizes[i]. */
static tune_strategy_t policy_at(const tune_result_t *r, size_t i)
{
    for (size_t k = 0; k < r->n_bands; k++)
        if (i >= r->bands[k].first && i <= r->bands[k].last)
            return r->bands[k].strategy;
    return TUNE_CURRENT;
}

static const char *fn_of(const tune_result_t *r, tune_strategy_t s)
{
    return r->function[s];
}

static const char *preempt_name(caller_preempt_t p)
{
    return caller_preempt_name(p);
}

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jbytes(bool present, uint64_t v, int *overflow)
{
    if (!present)
        return json_null();
    if (v > (uint64_t)INT64_MAX) {
        *overflow = 1;
        return json_null();
    }
    return json_integer((json_int_t)v);
}

static int print_json(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    int ovf = 0;
    json_t *root = json_object();
    const tune_band_t *nt = nt_band(r);
    json_object_set_new(root, "machine", json_string(r->machine));
    json_object_set_new(root, "set", json_string(r->set));
    json_t *dist = json_object();
    json_object_set_new(dist, "name", r->dist_name[0] ? json_string(r->dist_name) : json_null());
    json_object_set_new(dist, "source",
                        r->dist_source[0] ? json_string(r->dist_source) : json_null());
    json_object_set_new(root, "distribution", dist);
    json_object_set_new(root, "nt_threshold_bytes",
                        jbytes(nt != NULL, nt ? nt->from_bytes : 0, &ovf));
    json_object_set_new(root, "extent_cap_bytes",
                        jbytes(r->cap_needed && r->cap_found, r->cap_bytes, &ovf));
    json_object_set_new(root, "current_function", json_string(r->function[TUNE_CURRENT]));
    json_t *st = json_array();
    for (int s = 0; s < TUNE_STRATEGIES; s++) {
        if (!r->have[s] || (s == TUNE_CURRENT && r->current_as != TUNE_CURRENT))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "strategy", json_string(tune_strategy_name((tune_strategy_t)s)));
        json_object_set_new(o, "function", json_string(r->function[s]));
        json_array_append_new(st, o);
    }
    json_object_set_new(root, "strategies", st);
    json_t *reuse = json_object();
    json_object_set_new(reuse, "subpage", json_boolean(r->reuse_subpage));
    json_object_set_new(reuse, "fraction",
                        r->reuse_subpage ? json_null() : jreal(r->reuse_fraction));
    json_object_set_new(reuse, "window_bytes", jbytes(r->window_bytes != 0, r->window_bytes, &ovf));
    json_object_set_new(reuse, "delay_bytes", jbytes(r->delay_bytes != 0, r->delay_bytes, &ovf));
    json_object_set_new(root, "reuse", reuse);
    json_object_set_new(root, "current_expected_seconds", jreal(r->current_expected_seconds));
    json_t *pol = json_array();
    for (size_t i = 0; i < r->n_bands; i++) {
        const tune_band_t *b = &r->bands[i];
        json_t *o = json_object();
        json_object_set_new(o, "from_bytes", jbytes(true, b->from_bytes, &ovf));
        json_object_set_new(o, "after_bytes", jbytes(true, b->after_bytes, &ovf));
        json_object_set_new(o, "to_bytes", jbytes(b->to_bytes != 0, b->to_bytes, &ovf));
        json_object_set_new(o, "strategy", json_string(tune_strategy_name(b->strategy)));
        json_object_set_new(o, "function", json_string(fn_of(r, b->strategy)));
        json_object_set_new(o, "merged", json_boolean(b->merged));
        json_object_set_new(o, "outweighed", json_boolean(b->outweighed));
        json_object_set_new(o, "hardware_switch_inside", json_boolean(b->hw_switch_inside));
        json_object_set_new(o, "weight", jreal(b->weight));
        json_object_set_new(o, "gain", jreal(b->gain));
        json_object_set_new(o, "gain_share", jreal(b->gain_share));
        json_object_set_new(o, "gain_over_single_threshold", jreal(b->gain_over_single));
        json_array_append_new(pol, o);
    }
    json_object_set_new(root, "policy", pol);
    json_t *ps = json_object();
    json_object_set_new(ps, "is_current", json_boolean(r->policy_is_current));
    json_object_set_new(ps, "expected_seconds", jreal(r->policy_expected_seconds));
    json_object_set_new(ps, "gain", jreal(r->policy_gain));
    json_object_set_new(ps, "gain_over_single_threshold", jreal(r->policy_gain_over_single));
    json_object_set_new(ps, "min_gain", jreal(r->min_gain));
    json_object_set_new(ps, "merged_bands", json_integer((json_int_t)r->n_merged));
    json_object_set_new(root, "policy_summary", ps);
    json_t *th = json_array();
    for (size_t i = 0; i < r->n_pairs; i++) {
        const tune_pair_t *p = &r->pairs[i];
        json_t *o = json_object();
        json_object_set_new(o, "from", json_string(tune_strategy_name(p->from)));
        json_object_set_new(o, "to", json_string(tune_strategy_name(p->to)));
        json_object_set_new(o, "from_function", json_string(r->function[p->from]));
        json_object_set_new(o, "to_function", json_string(r->function[p->to]));
        json_object_set_new(o, "threshold_bytes", jbytes(p->found, p->threshold_bytes, &ovf));
        json_object_set_new(o, "expected_seconds", jreal(p->expected_seconds));
        json_object_set_new(o, "gain", jreal(p->gain));
        json_object_set_new(o, "gain_over_from", jreal(p->gain_over_from));
        json_object_set_new(o, "best", json_boolean(i == r->best_pair));
        json_array_append_new(th, o);
    }
    json_object_set_new(root, "thresholds", th);
    json_t *hw = json_null();
    if (r->hw_switch) {
        hw = json_object();
        json_object_set_new(hw, "bytes", jbytes(true, r->hw_switch_bytes, &ovf));
        json_object_set_new(hw, "key", json_string(r->hw_switch_key));
        json_object_set_new(hw, "checked", json_boolean(r->hw_checked));
        json_object_set_new(hw, "software_gain",
                            r->hw_checked ? jreal(r->hw_software_gain) : json_null());
        json_object_set_new(hw, "agrees", json_boolean(r->hw_agrees));
    }
    json_object_set_new(root, "hardware_switch", hw);
    json_t *cap = json_object();
    json_object_set_new(cap, "preempt", json_string(preempt_name(r->preempt)));
    json_object_set_new(cap, "latency_budget_seconds", jreal(r->budget_seconds));
    json_object_set_new(cap, "needed", json_boolean(r->cap_needed));
    json_object_set_new(cap, "function", json_string(r->function[TUNE_CURRENT]));
    bool c = r->cap_needed && r->cap_found;
    json_object_set_new(cap, "cap_bytes", jbytes(c, r->cap_bytes, &ovf));
    json_object_set_new(cap, "cap_pow2_bytes", jbytes(c, r->cap_pow2_bytes, &ovf));
    json_object_set_new(cap, "clear_seconds", c ? jreal(r->cap_clear_seconds) : json_null());
    json_object_set_new(cap, "bytes_per_sec", c ? jreal(r->cap_bytes_per_sec) : json_null());
    json_object_set_new(cap, "uncapped_reference_bytes", jbytes(c, r->ref_bytes, &ovf));
    json_object_set_new(cap, "uncapped_bytes_per_sec",
                        c ? jreal(r->ref_bytes_per_sec) : json_null());
    json_object_set_new(cap, "throughput_loss", c ? jreal(r->throughput_loss) : json_null());
    json_object_set_new(root, "extent_cap", cap);
    json_t *curve = json_array();
    for (size_t i = 0; i < r->n_curve; i++) {
        const tune_point_t *p = &r->curve[i];
        json_t *o = json_object();
        json_object_set_new(o, "size_bytes", jbytes(true, p->size_bytes, &ovf));
        json_object_set_new(o, "weight", jreal(p->weight));
        json_object_set_new(o, "strategy", json_string(tune_strategy_name(p->strategy)));
        json_object_set_new(o, "function", json_string(p->function));
        json_object_set_new(o, "reuse_bytes", jbytes(true, p->reuse_bytes, &ovf));
        json_object_set_new(o, "buffer_bytes", jbytes(true, p->buffer_bytes, &ovf));
        json_object_set_new(o, "clear_seconds", jreal(p->clear_seconds));
        json_object_set_new(o, "refetch_seconds", jreal(p->refetch_seconds));
        json_object_set_new(o, "total_seconds", jreal(p->total_seconds));
        json_object_set_new(o, "extrapolated", json_boolean(p->extrapolated));
        json_object_set_new(o, "error_bound", jreal(p->error_bound));
        json_array_append_new(curve, o);
    }
    json_object_set_new(root, "curve", curve);
    int rc = 0;
    if (ovf)
        rc = errbuf_set(err, errlen, "a byte count does not fit a JSON integer");
    else if (json_dumpf(root, out,
                        JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0 ||
             fputc('\n', out) == EOF)
        rc = errbuf_set(err, errlen, "cannot write the json output");
    json_decref(root);
    return rc;
}

static void csv_real(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
}

static int print_csv(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    fputs("machine,set,size_bytes,weight,strategy,function,reuse_bytes,buffer_bytes,clear_seconds,"
          "refetch_seconds,total_seconds,bytes_per_sec,extrapolated,error_bound,policy\n",
          out);
    for (size_t i = 0; i < r->n_curve; i++) {
        const tune_point_t *p = &r->curve[i];
        report_csv_string(out, r->machine);
        fputc(',', out);
        report_csv_string(out, r->set);
        fprintf(out, ",%" PRIu64 ",", p->size_bytes);
        csv_real(out, p->weight);
        fprintf(out, ",%s,%s,%" PRIu64 ",%" PRIu64 ",", tune_strategy_name(p->strategy),
                p->function, p->reuse_bytes, p->buffer_bytes);
        csv_real(out, p->clear_seconds);
        fputc(',', out);
        csv_real(out, p->refetch_seconds);
        fputc(',', out);
        csv_real(out, p->total_seconds);
        fputc(',', out);
        csv_real(out, p->total_seconds > 0 ? (double)p->size_bytes / p->total_seconds : NAN);
        fprintf(out, ",%s,", p->extrapolated ? "true" : "false");
        csv_real(out, p->error_bound);
        size_t per =
            r->n_bands && r->n_curve ? r->n_curve / (r->bands[r->n_bands - 1].last + 1) : 1;
        fprintf(out, ",%s\n", policy_at(r, i / per) == p->strategy ? "true" : "false");
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "cannot write the csv output");
    return 0;
}

static void fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (fabs(s) < 1e-3)
        snprintf(buf, len, "%.3f us", s * 1e6);
    else if (fabs(s) < 1)
        snprintf(buf, len, "%.3f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
}

/* "12.3% less time than" / "4.0% more time than" / "the same time as", for
 * a gain (a fraction of time saved). */
static const char *compare(double gain, char *buf, size_t len)
{
    if (!isfinite(gain))
        snprintf(buf, len, "an unknown time against");
    else if (fabs(gain) < 0.0005)
        snprintf(buf, len, "the same time (within 0.05%%) as");
    else
        snprintf(buf, len, "%.1f%% %s time than", 100 * fabs(gain), gain > 0 ? "less" : "more");
    return buf;
}

/* A size for a sentence: exact when it is a whole unit ("16MiB"), else
 * "15.44MiB (16187900B)". */
static void fmt_size(uint64_t b, char *buf, size_t len)
{
    unit_format_size(b, buf, len);
    size_t n = strlen(buf);
    if (b < 1024 || n < 2 || buf[n - 2] == 'i')
        return;
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = -1;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%.2f%s (%" PRIu64 "B)", v, units[u], b);
}

static void strat_label(const tune_result_t *r, tune_strategy_t s, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s)", tune_strategy_name(s), r->function[s]);
}

/* Does a band of the policy use non-temporal or line zeroing at or above
 * the hardware switch point? */
static bool policy_uses_sw_above_hw(const tune_result_t *r)
{
    for (size_t i = 0; i < r->n_bands; i++) {
        tune_strategy_t s = r->bands[i].strategy;
        if (s == TUNE_CURRENT)
            s = r->current_as;
        if ((s == TUNE_NONTEMPORAL || s == TUNE_LINEZERO) &&
            (r->bands[i].to_bytes == 0 || r->bands[i].to_bytes > r->hw_switch_bytes))
            return true;
    }
    return false;
}

static void print_policy(FILE *out, const tune_result_t *r)
{
    char a[64], b[32], c[64], l[96], x[96], y[64];
    const char *cur = r->function[TUNE_CURRENT];
    const bool have_single = r->best_pair < r->n_pairs;
    bool outweighed = false;
    fprintf(out,
            "policy (a band that is not the current policy must be %.3g%% cheaper than it, and "
            "than a neighbour it would merge into, at one size at least, and by more than the "
            "points' error bounds):\n",
            100 * r->min_gain);
    for (size_t i = 0; i < r->n_bands; i++) {
        const tune_band_t *bd = &r->bands[i];
        outweighed = outweighed || bd->outweighed;
        unit_format_size(bd->from_bytes, a, sizeof a);
        if (bd->to_bytes)
            unit_format_size(bd->to_bytes, b, sizeof b);
        else
            snprintf(b, sizeof b, "inf");
        char edge[160] = "";
        if (bd->first > 0) {
            unit_format_size(bd->after_bytes, c, sizeof c);
            snprintf(edge, sizeof edge, "; edge in (%s, %s]", c, a);
        }
        strat_label(r, bd->strategy, l, sizeof l);
        char hw[200] = "";
        if (bd->hw_switch_inside) {
            fmt_size(r->hw_switch_bytes, c, sizeof c);
            snprintf(hw, sizeof hw, ", hardware %s from %s (%s)",
                     r->hw_switch_key[0] == 's' ? "elision" : "write streaming", c,
                     r->hw_switch_key);
        }
        const char *note = bd->merged       ? "; other strategies: no significant difference"
                           : bd->outweighed ? "; another strategy is significantly cheaper at "
                                              "some size, but not over the band's clears"
                                            : "";
        const bool is_cur = strcmp(r->function[bd->strategy], cur) == 0;
        fprintf(out, "  [%s, %s) %s%s: %.1f%% of clears%s", a, b, l, hw, 100 * bd->weight, edge);
        if (is_cur) {
            fprintf(out, "; the current policy%s\n", note);
        } else {
            fprintf(out, "; %s %s in the band (%.1f%% of the total time)",
                    compare(bd->gain, x, sizeof x), cur, 100 * bd->gain_share);
            if (have_single)
                fprintf(out, ", %s the best single threshold in the band",
                        compare(bd->gain_over_single, y, sizeof y));
            fprintf(out, "%s\n", note);
        }
    }
    if (r->n_merged)
        fprintf(out, "  %" PRIu64 " band%s merged: no significant difference\n", r->n_merged,
                r->n_merged == 1 ? "" : "s");
    if (r->policy_is_current && !outweighed)
        fprintf(out,
                "policy: keep the current policy (%s); no other strategy is significantly "
                "cheaper at any size\n",
                cur);
    else if (r->policy_is_current)
        fprintf(out,
                "policy: keep the current policy (%s); where another strategy is significantly "
                "cheaper at a size, it saves too little over the distribution's clears\n",
                cur);
    else if (have_single)
        fprintf(out, "policy: %s the current policy (%s), %s the best single threshold\n",
                compare(r->policy_gain, x, sizeof x), cur,
                compare(r->policy_gain_over_single, y, sizeof y));
    else
        fprintf(out,
                "policy: %s the current policy (%s); no single threshold saves "
                "significant time\n",
                compare(r->policy_gain, x, sizeof x), cur);
    for (size_t i = 0; i < r->n_pairs; i++) {
        const tune_pair_t *p = &r->pairs[i];
        strat_label(r, p->from, l, sizeof l);
        strat_label(r, p->to, c, sizeof c);
        if (!p->found) {
            fprintf(out,
                    "single threshold %s -> %s: never switch; no threshold saves "
                    "significant time\n",
                    l, c);
            continue;
        }
        unit_format_size(p->threshold_bytes, a, sizeof a);
        fprintf(out, "single threshold %s -> %s%s: switch at %s; %s the current policy\n", l, c,
                i == r->best_pair ? " (the best)" : "", a, compare(p->gain, y, sizeof y));
    }
    if (r->hw_switch) {
        fmt_size(r->hw_switch_bytes, a, sizeof a);
        snprintf(x, sizeof x, "%s%s%s", r->function[TUNE_TEMPORAL],
                 r->current_as == TUNE_CURRENT ? " or " : "",
                 r->current_as == TUNE_CURRENT ? cur : "");
        fprintf(out, "hardware switch point: %s stops allocating from %s (%s)",
                r->function[TUNE_TEMPORAL], a, r->hw_switch_key);
        if (!r->hw_checked)
            fprintf(out, "; no size of the distribution reaches it\n");
        else if (r->hw_agrees)
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain at most "
                    "%.1f%% over %s: no software threshold beats it\n",
                    100 * fmax(0, r->hw_software_gain), x);
        else if (policy_uses_sw_above_hw(r))
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain up to "
                    "%.1f%% over %s, and the policy uses them there\n",
                    100 * r->hw_software_gain, x);
        else
            fprintf(out,
                    "; above it software non-temporal or line-zeroing stores gain up to "
                    "%.1f%% over %s at some size, too little over the distribution's clears "
                    "for the policy to use them\n",
                    100 * r->hw_software_gain, x);
    }
}

static int print_text(FILE *out, const tune_result_t *r, char *err, size_t errlen)
{
    char a[96], b[32], c[32];
    fprintf(out, "# clearsim tune: %s%s%s\n", r->machine, r->set[0] ? " --set " : "", r->set);
    if (r->dist_name[0])
        fprintf(out, "# sizes: %s%s%s%s\n", r->dist_name, r->dist_source[0] ? " (source: " : "",
                r->dist_source, r->dist_source[0] ? ")" : "");
    else
        fprintf(out, "# sizes: %s\n", r->dist_source[0] ? r->dist_source : "given");
    if (r->reuse_subpage && r->delay_bytes) {
        unit_format_size(r->delay_bytes, c, sizeof c);
        snprintf(a, sizeof a, "4KiB at once, the rest after %s of other reads", c);
    } else if (r->reuse_subpage)
        snprintf(a, sizeof a, "the first 4KiB");
    else
        snprintf(a, sizeof a, "%.3g%% of each clear", 100 * r->reuse_fraction);
    if (r->window_bytes)
        unit_format_size(r->window_bytes, b, sizeof b);
    fprintf(out, "# reuse: the consumer touches %s%s%s\n", a, r->window_bytes ? ", at most " : "",
            r->window_bytes ? b : "");
    fprintf(out, "# strategies:");
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT))
            fprintf(out, " %s=%s", tune_strategy_name((tune_strategy_t)s), r->function[s]);
    fprintf(out, "; current policy: %s\n\n", r->function[TUNE_CURRENT]);

    /* table: one row per size, total time per clear for each strategy */
    size_t per = 0;
    tune_strategy_t strat[TUNE_STRATEGIES];
    for (int s = 0; s < TUNE_STRATEGIES; s++)
        if (r->have[s] && (s != TUNE_CURRENT || r->current_as == TUNE_CURRENT))
            strat[per++] = (tune_strategy_t)s;
    fprintf(out, "%10s", "size");
    for (size_t k = 0; k < per; k++)
        fprintf(out, "  %22s", tune_strategy_name(strat[k]));
    fprintf(out, "\n%10s", "");
    for (size_t k = 0; k < per; k++)
        fprintf(out, "  %22s", "clear + re-fetch");
    fputc('\n', out);
    for (size_t i = 0; per && i < r->n_curve / per; i++) {
        unit_format_size(r->curve[i * per].size_bytes, a, sizeof a);
        fprintf(out, "%10s", a);
        for (size_t k = 0; k < per; k++) {
            const tune_point_t *p = &r->curve[i * per + k];
            char cell[80];
            fmt_time(p->clear_seconds, b, sizeof b);
            fmt_time(p->refetch_seconds, c, sizeof c);
            snprintf(cell, sizeof cell, "%s + %s", b, c);
            fprintf(out, "  %22s", cell);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    print_policy(out, r);
    fmt_time(r->budget_seconds, b, sizeof b);
    if (!r->cap_needed) {
        fprintf(out,
                "extent cap (preempt %s, budget %s): none needed; %s preemption can "
                "reschedule inside an extent\n",
                preempt_name(r->preempt), b, preempt_name(r->preempt));
    } else if (!r->cap_found) {
        fprintf(out,
                "extent cap (preempt %s, budget %s): none fits; even a 4KiB clear takes "
                "longer\n",
                preempt_name(r->preempt), b);
    } else {
        char d[32];
        unit_format_size(r->cap_bytes, a, sizeof a);
        unit_format_size(r->cap_pow2_bytes, d, sizeof d);
        fmt_time(r->cap_clear_seconds, c, sizeof c);
        fprintf(out,
                "extent cap (preempt %s, budget %s, %s): %s, power of two %s (%s per extent, "
                "%.2f GB/sec); throughput %s %.2f%% %s one 1GiB extent\n",
                preempt_name(r->preempt), b, r->function[TUNE_CURRENT], a, d, c,
                r->cap_bytes_per_sec / (double)(1ull << 30),
                r->throughput_loss >= 0 ? "lost:" : "gained:", 100 * fabs(r->throughput_loss),
                r->throughput_loss >= 0 ? "against" : "over");
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "cannot write the output");
    return 0;
}

int tune_print(FILE *out, report_format_t fmt, const tune_result_t *r, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_JSON:
        return print_json(out, r, err, errlen);
    case REPORT_FMT_CSV:
        return print_csv(out, r, err, errlen);
    default:
        return print_text(out, r, err, errlen);
    }
}
