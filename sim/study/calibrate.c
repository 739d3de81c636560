/*
 * calibrate.c - prediction of measured cases, and the fit (see
 * calibrate.h).
 *
 * Notes
 *  - The data file: calibrate_data.c.
 *  - Predictions run through run_predict() (fast-forward on unless exact),
 *    cases spread over threads; each thread has its own model.
 *  - Writing the calibrated file: calibrate_write.c.
 *  - Units: parameters in their stored units (configs/README.md).
 */
#include "sim/output/pool.h"
#include "sim/study/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "sim/engine/point.h"
#include "models/base/errbuf.h"
#include "sim/engine/progress.h"
#include "sim/engine/run.h"
#include "sim/study/sweep.h"
#include "sim/machine/units.h"

double cal_rel_error(const cal_case_t *c, double pred)
{
    return c->value != 0 ? (pred - c->value) / c->value : 0;
}

/* ---- prediction -------------------------------------------------------- */

static int metric_of(const cal_case_t *c, const run_result_t *r, double *out, char *err,
                     size_t errlen)
{
    if (strcmp(c->metric, "gbps") == 0) {
        *out = r->bytes_per_sec / (1024.0 * 1024.0 * 1024.0);
        return 0;
    }
    if (strcmp(c->metric, "ns_per_load") == 0) {
        if (r->spec.kind != WL_LATENCY)
            return errbuf_set(err, errlen, "metric ns_per_load needs --workload latency");
        *out = r->ns_per_load;
        return 0;
    }
    const char *ev = c->metric + 9;
    for (uint32_t i = 0; i < r->n_counters; i++) {
        if (strcmp(r->counters[i].name, ev) != 0)
            continue;
        if (!r->counters[i].supported)
            return errbuf_set(err, errlen, "counter %s is not supported on %s", ev, r->machine);
        double lines = (double)r->bytes / 64.0;
        *out = lines > 0 ? (double)r->counters[i].value / lines : 0;
        return 0;
    }
    return errbuf_set(err, errlen, "no counter %s", ev);
}

/* ---- cases measured at a clock of their own ---------------------------- */

/* The machine each case is predicted on: the one being calibrated, or (for a
 * case with a clock of its own) its file loaded at that clock and given its
 * values of the fitted keys; one machine per distinct clock. */
typedef struct clocked {
    size_t n;
    machine_t *own[CAL_CASES_MAX];
    const machine_t *at[CAL_CASES_MAX]; /* case i's machine */
    bool per_second[CAL_KEYS_MAX];      /* fitted key k is a per-second rate in the file */
} clocked_t;

static void clocked_close(clocked_t *cm)
{
    for (size_t i = 0; i < cm->n; i++)
        cfg_machine_destroy(cm->own[i]);
    cm->n = 0;
}

/* Carry m's values of the fitted keys over to the machines of their own: in
 * stored units, except that a per-second rate stays per second (stored per
 * cycle, it scales with the clock). */
static int clocked_sync(clocked_t *cm, const machine_t *m, const cal_data_t *d, char *err,
                        size_t errlen)
{
    for (size_t i = 0; i < cm->n; i++) {
        machine_t *o = cm->own[i];
        for (size_t k = 0; k < d->n_keys; k++) {
            double v;
            cfg_key_get(m, d->keys[k].key, &v);
            if (cm->per_second[k])
                v *= m->freq_ghz / o->freq_ghz;
            char e[512] = "";
            if (cfg_key_set(o, d->keys[k].key, v, e, sizeof e))
                return errbuf_set(err, errlen, "%s at %g GHz: %s", d->keys[k].key->path,
                                  o->freq_ghz, e);
        }
    }
    return 0;
}

static int clocked_open(clocked_t *cm, const machine_t *m, const cal_data_t *d, char *err,
                        size_t errlen)
{
    cm->n = 0;
    char e[512] = "";
    for (size_t i = 0; i < d->n_cases; i++) {
        double ghz = d->cases[i].clock_ghz;
        cm->at[i] = m;
        if (!(ghz > 0) || ghz == m->freq_ghz)
            continue;
        size_t j = 0;
        while (j < cm->n && cm->own[j]->freq_ghz != ghz)
            j++;
        if (j == cm->n) {
            machine_t *o = cfg_machine_load_at_clock(m->path, ghz, e, sizeof e);
            if (!o) {
                errbuf_set(err, errlen, "case %s: %s", d->cases[i].id, e);
                goto fail;
            }
            cm->own[cm->n++] = o;
        }
        cm->at[i] = cm->own[j];
    }
    if (cm->n > 0) {
        /* The file read at m's clock and at another: a per-second rate is
         * the bandwidth whose stored bytes/cycle differ. */
        machine_t *ref = cfg_machine_load_at_clock(m->path, m->freq_ghz, e, sizeof e);
        if (!ref) {
            errbuf_set(err, errlen, "%s", e);
            goto fail;
        }
        for (size_t k = 0; k < d->n_keys; k++) {
            double a, b;
            cfg_key_get(ref, d->keys[k].key, &a);
            cfg_key_get(cm->own[0], d->keys[k].key, &b);
            cm->per_second[k] = d->keys[k].key->type == CFG_T_BW && a != b;
        }
        cfg_machine_destroy(ref);
    }
    if (clocked_sync(cm, m, d, err, errlen))
        goto fail;
    return 0;
fail:
    clocked_close(cm);
    return -1;
}

typedef struct predict_ctx {
    const clocked_t *cm;
    const cal_data_t *d;
    const bool *only; /* NULL: every case */
    run_opts_t opts;
    double *pred;
    int *rc; /* per case: 0, or -1 with why[i] */
    char (*why)[256];
} predict_ctx_t;

/* One case, on a pool_run thread: writes only slot i. */
static void predict_task(void *ctx, size_t i)
{
    predict_ctx_t *p = ctx;
    static __thread run_result_t res; /* large: one per thread, not on the stack */
    p->rc[i] = 0;
    if (p->only && !p->only[i])
        return;
    if (run_predict(p->cm->at[i], &p->d->cases[i].spec, &p->opts, &res, p->why[i],
                    sizeof(p->why[i])) ||
        metric_of(&p->d->cases[i], &res, &p->pred[i], p->why[i], sizeof(p->why[i])))
        p->rc[i] = -1;
}

/* Predict the cases `only` selects (NULL: all) on `threads` threads (the
 * sweep pool). On failure, the reason of the first failing case in file
 * order. */
static int predict_cases(const clocked_t *cm, const cal_data_t *d, const bool *only, bool exact,
                         unsigned threads, double *pred, char *err, size_t errlen)
{
    predict_ctx_t p = {.cm = cm, .d = d, .only = only, .pred = pred};
    run_opts_init(&p.opts);
    p.opts.exact = exact;
    p.rc = calloc(d->n_cases ? d->n_cases : 1, sizeof(*p.rc));
    p.why = calloc(d->n_cases ? d->n_cases : 1, sizeof(*p.why));
    int rc = 0;
    if (!p.rc || !p.why)
        rc = errbuf_set(err, errlen, "out of memory");
    else if (pool_run(d->n_cases, threads, predict_task, &p, NULL, 0, err, errlen))
        rc = -1;
    for (size_t i = 0; rc == 0 && i < d->n_cases; i++)
        if (p.rc[i])
            rc = errbuf_set(err, errlen, "case %s: %s", d->cases[i].id, p.why[i]);
    free(p.rc);
    free(p.why);
    return rc;
}

int cal_predict_all(const machine_t *m, const cal_data_t *d, bool exact, unsigned threads,
                    double *pred, char *err, size_t errlen)
{
    clocked_t *cm = malloc(sizeof(*cm));
    if (!cm)
        return errbuf_set(err, errlen, "out of memory");
    int rc = clocked_open(cm, m, d, err, errlen);
    if (rc == 0) {
        rc = predict_cases(cm, d, NULL, exact, threads, pred, err, errlen);
        clocked_close(cm);
    }
    free(cm);
    return rc;
}

/* ---- the fit ----------------------------------------------------------- */

typedef struct fitctx {
    machine_t *m;
    const cal_data_t *d;
    clocked_t cm; /* the machine of each case (m's values carried over) */
    unsigned threads;
    size_t nkeys; /* keys of the current stage */
    size_t key_index[CAL_KEYS_MAX];
    size_t nfit; /* fitting cases of the current stage */
    size_t fit_index[CAL_CASES_MAX];
    bool in_fit[CAL_CASES_MAX];
    double pred[CAL_CASES_MAX];
    size_t evaluations;
    /* The latest residuals and the point they are of: the Jacobian at the
     * point GSL has just evaluated reuses them (the model is deterministic,
     * so evaluating it again would give the same values). */
    bool last_valid;
    double last_x[CAL_KEYS_MAX];
    double last_f[CAL_CASES_MAX];
    int rc;
    char err[1024];
    progress_t *progress;
    size_t budget;
    bool log; /* one line per evaluation on stderr */
} fitctx_t;

/* Parameter x (unbounded) <-> value in [lo, hi]. */
static double to_value(const cal_key_t *k, double x)
{
    return k->lo + (k->hi - k->lo) / (1.0 + exp(-x));
}

static double to_x(const cal_key_t *k, double v)
{
    double f = (v - k->lo) / (k->hi - k->lo);
    if (f < 1e-6)
        f = 1e-6;
    if (f > 1 - 1e-6)
        f = 1 - 1e-6;
    return log(f / (1 - f));
}

static int apply(fitctx_t *c, const gsl_vector *x)
{
    for (size_t i = 0; i < c->nkeys; i++) {
        const cal_key_t *k = &c->d->keys[c->key_index[i]];
        double v = to_value(k, gsl_vector_get(x, i));
        if (k->key->type == CFG_T_U32 || k->key->type == CFG_T_U64)
            v = round(v);
        char e[512] = "";
        if (cfg_key_set(c->m, k->key, v, e, sizeof e)) {
            snprintf(c->err, sizeof(c->err), "%s: %s", k->key->path, e);
            return -1;
        }
    }
    return clocked_sync(&c->cm, c->m, c->d, c->err, sizeof(c->err));
}

static int residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
    fitctx_t *c = params;
    if (c->rc || apply(c, x)) {
        c->rc = -1;
        return GSL_EBADFUNC;
    }
    char why[512];
    if (predict_cases(&c->cm, c->d, c->in_fit, false, c->threads, c->pred, why, sizeof(why))) {
        snprintf(c->err, sizeof(c->err), "%s", why);
        c->rc = -1;
        return GSL_EBADFUNC;
    }
    c->evaluations++;
    progress_update(c->progress, c->evaluations);
    double chisq = 0;
    for (size_t i = 0; i < c->nfit; i++) {
        const cal_case_t *cs = &c->d->cases[c->fit_index[i]];
        double r = cal_rel_error(cs, c->pred[c->fit_index[i]]);
        gsl_vector_set(f, i, r);
        c->last_f[i] = r;
        chisq += r * r;
    }
    for (size_t k = 0; k < c->nkeys; k++)
        c->last_x[k] = gsl_vector_get(x, k);
    c->last_valid = true;
    if (c->log) {
        fprintf(stderr, "calibrate: evaluation %zu: chi^2 %.5g:", c->evaluations, chisq);
        for (size_t k = 0; k < c->nkeys; k++) {
            const cfg_key_t *key = c->d->keys[c->key_index[k]].key;
            double v;
            cfg_key_get(c->m, key, &v);
            fprintf(stderr, " %s=%.4g", key->path, v);
        }
        fputc('\n', stderr);
    }
    return GSL_SUCCESS;
}

/* Forward differences with a step that moves a parameter by at least 5% of
 * its value, and an integer parameter by at least one unit: the model's
 * response is a staircase at fine scale (whole lines of lookahead, whole
 * buffers, cycles rounded to events), where a step of sqrt(eps), or of a
 * few bytes, sees no change at all. */
static int jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
    fitctx_t *c = params;
    size_t p = x->size, n = c->nfit;
    gsl_vector *f0 = gsl_vector_alloc(n), *f1 = gsl_vector_alloc(n), *xs = gsl_vector_alloc(p);
    bool same = c->last_valid;
    for (size_t j = 0; j < p && same; j++)
        same = gsl_vector_get(x, j) == c->last_x[j];
    int rc = !(f0 && f1 && xs) ? GSL_ENOMEM : same ? GSL_SUCCESS : residuals(x, params, f0);
    for (size_t i = 0; same && f0 && i < n; i++)
        gsl_vector_set(f0, i, c->last_f[i]);
    for (size_t j = 0; j < p && rc == GSL_SUCCESS; j++) {
        const cal_key_t *k = &c->d->keys[c->key_index[j]];
        double xj = gsl_vector_get(x, j);
        /* d value / dx = (hi - lo) f (1 - f) */
        double fr = 1.0 / (1.0 + exp(-xj));
        double dvdx = (k->hi - k->lo) * fr * (1 - fr);
        double v = to_value(k, xj);
        double h = 0.05;
        if (dvdx > 0 && 0.05 * fabs(v) / dvdx > h)
            h = 0.05 * fabs(v) / dvdx;
        if ((k->key->type == CFG_T_U32 || k->key->type == CFG_T_U64) && dvdx > 0 && 1.0 / dvdx > h)
            h = 1.0 / dvdx;
        if (h > 2.0)
            h = 2.0; /* near a bound the logistic is flat: keep the step finite */
        gsl_vector_memcpy(xs, x);
        gsl_vector_set(xs, j, xj + h);
        rc = residuals(xs, params, f1);
        for (size_t i = 0; i < n && rc == GSL_SUCCESS; i++)
            gsl_matrix_set(J, i, j, (gsl_vector_get(f1, i) - gsl_vector_get(f0, i)) / h);
    }
    if (rc == GSL_SUCCESS)
        apply(c, x);
    gsl_vector_free(f0);
    gsl_vector_free(f1);
    gsl_vector_free(xs);
    return rc;
}

/* One stage: c's keys on c's fitting cases. Fills res->value and
 * res->sigma of the stage's keys and adds to the iteration total. */
static int fit_stage(fitctx_t *c, size_t max_iter, cal_result_t *res, char *err, size_t errlen)
{
    const cal_data_t *d = c->d;
    size_t p = c->nkeys, n = c->nfit;
    gsl_multifit_nlinear_fdf fdf = {.f = residuals, .df = jacobian, .n = n, .p = p, .params = c};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
    gsl_vector *x = gsl_vector_alloc(p);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    int rc = -1;
    if (!w || !x || !cov) {
        errbuf_set(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p; i++)
        gsl_vector_set(x, i, to_x(&d->keys[c->key_index[i]], res->start[c->key_index[i]]));
    c->last_valid = false; /* another stage's keys */
    if (gsl_multifit_nlinear_init(x, &fdf, w) != GSL_SUCCESS || c->rc) {
        errbuf_set(err, errlen, "%s", c->rc ? c->err : "GSL could not start the fit");
        goto done;
    }
    int info = 0;
    int status = gsl_multifit_nlinear_driver(max_iter, 1e-4, 1e-6, 1e-6, NULL, NULL, &info, w);
    if (c->rc) {
        errbuf_set(err, errlen, "%s", c->err);
        goto done;
    }
    (void)status; /* GSL_EMAXITER still leaves the best point found */
    res->iterations += gsl_multifit_nlinear_niter(w);
    gsl_vector *xb = gsl_multifit_nlinear_position(w);
    gsl_vector *f = gsl_multifit_nlinear_residual(w);
    double chisq;
    gsl_blas_ddot(f, f, &chisq);
    /* covariance in x, scaled by the residual variance */
    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
    double dof = n > p ? (double)(n - p) : 1.0;
    double s2 = chisq / dof;
    for (size_t i = 0; i < p; i++) {
        size_t ki = c->key_index[i];
        const cal_key_t *k = &d->keys[ki];
        double xi = gsl_vector_get(xb, i);
        double fr = 1.0 / (1.0 + exp(-xi));
        double dvdx = (k->hi - k->lo) * fr * (1 - fr);
        res->value[ki] = to_value(k, xi);
        if (k->key->type == CFG_T_U32 || k->key->type == CFG_T_U64)
            res->value[ki] = round(res->value[ki]);
        /* GSL zeroes the covariance of a key the fit's Jacobian has no rank
         * in (no case moves it, or an integer key moves them only in steps):
         * its uncertainty is unknown, not 0 */
        const double var = gsl_matrix_get(cov, i, i);
        res->sigma[ki] = var > 0 ? sqrt(s2 * var) * dvdx : NAN;
    }
    if (apply(c, xb)) {
        errbuf_set(err, errlen, "%s", c->err);
        goto done;
    }
    rc = 0;
done:
    if (cov)
        gsl_matrix_free(cov);
    if (w)
        gsl_multifit_nlinear_free(w);
    if (x)
        gsl_vector_free(x);
    return rc;
}

int cal_fit(machine_t *m, const cal_data_t *d, unsigned threads, bool progress, size_t max_iter,
            cal_result_t *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    if (d->n_keys == 0)
        return errbuf_set(err, errlen, "%s: no keys to fit (a fit: section lists them)", d->path);
    /* Every stage with keys needs at least as many fitting cases, and every
     * stage with fitting cases needs keys. */
    size_t budget = 0;
    for (unsigned st = 1; st <= CAL_STAGES; st++) {
        size_t p = 0, n = 0;
        for (size_t i = 0; i < d->n_keys; i++)
            p += d->keys[i].stage == st;
        for (size_t i = 0; i < d->n_cases; i++)
            n += d->cases[i].fit && d->cases[i].stage == st;
        if (p == 0 && n > 0)
            return errbuf_set(err, errlen, "%s: stage %u has %zu fitting cases but no keys to fit",
                              d->path, st, n);
        if (n < p)
            return errbuf_set(err, errlen,
                              "%s: stage %u: %zu fitting cases cannot determine %zu parameters",
                              d->path, st, n, p);
        budget += p ? max_iter * (p + 2) : 0;
    }
    /* GSL's default handler aborts; its errors come back as status codes */
    gsl_set_error_handler_off();
    fitctx_t *c = calloc(1, sizeof(*c));
    if (!c)
        return errbuf_set(err, errlen, "out of memory");
    c->m = m;
    c->d = d;
    c->threads = threads;
    for (size_t i = 0; i < d->n_keys; i++)
        cfg_key_get(m, d->keys[i].key, &res->start[i]);
    int rc = -1;
    bool opened = clocked_open(&c->cm, m, d, err, errlen) == 0;
    if (!opened || predict_cases(&c->cm, d, NULL, false, threads, res->pred0, err, errlen))
        goto done;
    c->log = progress && !progress_tty();
    c->budget = budget;
    c->progress = progress_create("calibrating", c->budget, progress);
    for (unsigned st = 1; st <= CAL_STAGES; st++) {
        c->nkeys = c->nfit = 0;
        for (size_t i = 0; i < d->n_keys; i++)
            if (d->keys[i].stage == st)
                c->key_index[c->nkeys++] = i;
        for (size_t i = 0; i < d->n_cases; i++) {
            c->in_fit[i] = d->cases[i].fit && d->cases[i].stage == st;
            if (c->in_fit[i])
                c->fit_index[c->nfit++] = i;
        }
        if (c->nkeys == 0)
            continue;
        if (c->log)
            fprintf(stderr, "calibrate: stage %u: %zu keys on %zu cases\n", st, c->nkeys, c->nfit);
        if (fit_stage(c, max_iter, res, err, errlen))
            goto done;
    }
    res->evaluations = c->evaluations;
    if (predict_cases(&c->cm, d, NULL, false, threads, res->pred, err, errlen))
        goto done;
    /* chi^2 before and after over every fitting case, whatever its stage */
    for (size_t i = 0; i < d->n_cases; i++) {
        if (!d->cases[i].fit)
            continue;
        double r0 = cal_rel_error(&d->cases[i], res->pred0[i]);
        double r1 = cal_rel_error(&d->cases[i], res->pred[i]);
        res->chisq0 += r0 * r0;
        res->chisq += r1 * r1;
    }
    rc = 0;
done:
    if (opened)
        clocked_close(&c->cm);
    progress_destroy(c->progress);
    free(c);
    return rc;
}
