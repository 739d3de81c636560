/*
 * tune.c - the cost curve of each clearing strategy by size and the extent
 * cap, from the model's predictions (see tune.h for the method).
 *
 * Notes
 *  - Every cost is one run_predict of the memset workload (sim/engine/run.c), run
 *    on the sweep thread pool (sim/study/sweep.c): each run has its own model, the
 *    machine is only read. Results are stored by index, so --jobs never
 *    changes the output.
 *  - Size distributions are read by tune_sizes.c, the policy comes from
 *    tune_policy.c, and tune_print.c prints the result.
 *  - What it ignores: the cost of faults and of the kernel's direct map
 *    (tune.h); the consumer's own work between its loads (one 8-byte load
 *    per line, wl_spec_t.reuse_bytes).
 *  - Units: bytes, seconds; weights are relative.
 */
#include "sim/output/pool.h"
#include "sim/study/tune.h"

#include <inttypes.h>
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
    snprintf(r->machine_file_sha256, sizeof r->machine_file_sha256, "%s", m->file_sha256);
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
