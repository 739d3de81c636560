/*
 * calibrate.c - calibration data, prediction of measured cases, and the fit.
 *
 * Notes
 *  - What it does: see calibrate.h. The data file is YAML (libyaml); its
 *    cases are `clearsim run` command lines parsed by sim/cli.c, so a case
 *    means exactly what the same command means.
 *  - Predictions run through run_predict() (fast-forward on unless exact),
 *    cases spread over threads; each thread has its own model.
 *  - Writing the calibrated file: calibrate_write.c.
 *  - Units: parameters in their stored units (configs/README.md).
 */
#include "sim/calibrate.h"

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
#include <yaml.h>

#include "sim/cli.h"
#include "sim/errbuf.h"
#include "sim/progress.h"
#include "sim/run.h"
#include "sim/sweep.h"
#include "sim/units.h"

double cal_rel_error(const cal_case_t *c, double pred)
{
    return c->value != 0 ? (pred - c->value) / c->value : 0;
}

/* ---- loading ----------------------------------------------------------- */

typedef struct loader {
    yaml_document_t doc;
    const char *path;
    char *err;
    size_t errlen;
} loader_t;

static int at(loader_t *l, const yaml_node_t *n, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int at(loader_t *l, const yaml_node_t *n, const char *what, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(l->err, l->errlen, "%s:%zu:%zu: %s: %s", l->path, n ? n->start_mark.line + 1 : 0,
             n ? n->start_mark.column + 1 : 0, what, msg);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int get_double(loader_t *l, const yaml_node_t *n, const char *what, double *out)
{
    const char *s = scalar(n);
    char *end;
    if (!s)
        return at(l, n, what, "expected a number");
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return at(l, n, what, "'%s' is not a number", s);
    *out = v;
    return 0;
}

static int get_string(loader_t *l, const yaml_node_t *n, const char *what, char *dst, size_t len)
{
    const char *s = scalar(n);
    if (!s)
        return at(l, n, what, "expected a string");
    if (strlen(s) >= len)
        return at(l, n, what, "longer than %zu characters", len - 1);
    memcpy(dst, s, strlen(s) + 1);
    return 0;
}

/* A core clock ("3.2GHz"), 0.1 to 10 GHz. */
static int get_clock(loader_t *l, const yaml_node_t *n, const char *what, double *ghz)
{
    char text[64], why[256];
    if (get_string(l, n, what, text, sizeof(text)))
        return -1;
    if (unit_parse_freq(text, ghz, why, sizeof(why)) < 0)
        return at(l, n, what, "'%s': %s", text, why);
    if (*ghz < 0.1 || *ghz > 10)
        return at(l, n, what, "'%s': must be between 0.1GHz and 10GHz", text);
    return 0;
}

/* Split args on blanks into argv (after "run"); parse as `clearsim run`. */
static int parse_args(loader_t *l, const yaml_node_t *n, const cfg_machine_t *m, cal_case_t *c)
{
    char buf[sizeof(c->args)];
    memcpy(buf, c->args, sizeof(buf));
    char *argv[64];
    int argc = 0;
    char mach[CFG_NAME_MAX];
    snprintf(mach, sizeof(mach), "%s", m->name); /* cases run on the machine being fitted */
    argv[argc++] = "run";
    argv[argc++] = "--machine";
    argv[argc++] = mach;
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (argc >= 62)
            return at(l, n, "args", "too many words");
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    static cli_run_t r; /* large; parsing is single-threaded */
    char why[256];
    int rc = cli_parse_run(argc, argv, &r, why, sizeof(why));
    if (rc != CLI_OK)
        return at(l, n, "args", "%s", rc == CLI_HELP ? "--help is not a case" : why);
    cli_apply_defaults(&r, m);
    if (wl_validate(&r.spec, m, why, sizeof(why)))
        return at(l, n, "args", "%s", why);
    c->spec = r.spec;
    return 0;
}

static int load_case(loader_t *l, yaml_node_t *map, const cfg_machine_t *m, cal_case_t *c)
{
    if (map->type != YAML_MAPPING_NODE)
        return at(l, map, "cases", "each case is a mapping");
    bool have_args = false, have_value = false, have_metric = false;
    snprintf(c->metric, sizeof(c->metric), "gbps");
    c->fit = true;
    c->stage = 1;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
        const char *ks = scalar(k);
        if (!ks)
            return at(l, k, "cases", "keys must be names");
        char what[96];
        snprintf(what, sizeof(what), "cases.%s", ks);
        if (strcmp(ks, "id") == 0) {
            if (get_string(l, v, what, c->id, sizeof(c->id)))
                return -1;
        } else if (strcmp(ks, "set") == 0) {
            const char *s = scalar(v);
            if (!s || (strcmp(s, "fit") && strcmp(s, "validate")))
                return at(l, v, what, "must be fit or validate");
            c->fit = strcmp(s, "fit") == 0;
        } else if (strcmp(ks, "source") == 0) {
            if (get_string(l, v, what, c->source, sizeof(c->source)))
                return -1;
        } else if (strcmp(ks, "args") == 0) {
            if (get_string(l, v, what, c->args, sizeof(c->args)))
                return -1;
            have_args = true;
        } else if (strcmp(ks, "metric") == 0) {
            if (get_string(l, v, what, c->metric, sizeof(c->metric)))
                return -1;
            if (strcmp(c->metric, "gbps") && strncmp(c->metric, "per_line:", 9))
                return at(l, v, what, "must be gbps or per_line:<perf event>");
            have_metric = true;
        } else if (strcmp(ks, "value") == 0) {
            if (get_double(l, v, what, &c->value))
                return -1;
            if (c->value <= 0)
                return at(l, v, what, "must be positive");
            have_value = true;
        } else if (strcmp(ks, "tolerance") == 0) {
            if (get_double(l, v, what, &c->tolerance))
                return -1;
            if (c->tolerance < 0 || c->tolerance > 10)
                return at(l, v, what, "must be between 0 and 10 (a relative error)");
        } else if (strcmp(ks, "stage") == 0) {
            double st;
            if (get_double(l, v, what, &st))
                return -1;
            if (st != floor(st) || st < 1 || st > CAL_STAGES)
                return at(l, v, what, "must be an integer 1..%d", CAL_STAGES);
            c->stage = (unsigned)st;
        } else if (strcmp(ks, "clock") == 0) {
            if (get_clock(l, v, what, &c->clock_ghz))
                return -1;
        } else {
            return at(l, k, what,
                      "unknown key (id, set, source, args, metric, value, tolerance, stage, "
                      "clock)");
        }
    }
    (void)have_metric;
    if (!c->id[0])
        return at(l, map, "cases.id", "required");
    if (!have_args)
        return at(l, map, "cases.args", "required");
    if (!have_value)
        return at(l, map, "cases.value", "required");
    return parse_args(l, map, m, c);
}

cal_data_t *cal_load(const char *path, const cfg_machine_t *m, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errbuf_set(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    cal_data_t *d = calloc(1, sizeof(*d));
    loader_t l = {.path = path, .err = err, .errlen = errlen};
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    bool have_doc = false;
    if (!d) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    snprintf(d->path, sizeof(d->path), "%s", path);
    if (!yaml_parser_load(&parser, &l.doc)) {
        errbuf_set(err, errlen, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
                   parser.problem_mark.column + 1, parser.problem ? parser.problem : "YAML error");
        goto fail;
    }
    have_doc = true;
    yaml_node_t *root = yaml_document_get_root_node(&l.doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        at(&l, root, "(top level)", "expected a mapping with machine, fit and cases");
        goto fail;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l.doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l.doc, p->value);
        const char *ks = scalar(k);
        if (ks && strcmp(ks, "machine") == 0) {
            if (get_string(&l, v, "machine", d->machine, sizeof(d->machine)))
                goto fail;
            if (strcmp(d->machine, m->name) != 0) {
                at(&l, v, "machine", "'%s' does not match the machine being calibrated ('%s')",
                   d->machine, m->name);
                goto fail;
            }
        } else if (ks && strcmp(ks, "clock") == 0) {
            if (get_clock(&l, v, "clock", &d->clock_ghz))
                goto fail;
        } else if (ks && strcmp(ks, "fit") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                at(&l, v, "fit", "expected a mapping of key: [min, max]");
                goto fail;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                yaml_node_t *fk = yaml_document_get_node(&l.doc, q->key);
                yaml_node_t *fv = yaml_document_get_node(&l.doc, q->value);
                const char *name = scalar(fk);
                const cfg_key_t *key = name ? cfg_key_find(name) : NULL;
                if (!key) {
                    at(&l, fk, "fit", "unknown key '%s' (configs/README.md)", name ? name : "?");
                    goto fail;
                }
                if (!key->fittable) {
                    at(&l, fk, "fit", "'%s' is not fittable (configs/README.md)", name);
                    goto fail;
                }
                if (d->n_keys >= CAL_KEYS_MAX) {
                    at(&l, fk, "fit", "more than %d keys", CAL_KEYS_MAX);
                    goto fail;
                }
                long items = fv->type == YAML_SEQUENCE_NODE
                                 ? fv->data.sequence.items.top - fv->data.sequence.items.start
                                 : 0;
                if (items != 2 && items != 3) {
                    at(&l, fv, name,
                       "expected [min, max] in the key's stored unit, or [min, max, stage]");
                    goto fail;
                }
                cal_key_t *ck = &d->keys[d->n_keys];
                ck->key = key;
                ck->stage = 1;
                yaml_node_t *lo = yaml_document_get_node(&l.doc, fv->data.sequence.items.start[0]);
                yaml_node_t *hi = yaml_document_get_node(&l.doc, fv->data.sequence.items.start[1]);
                if (get_double(&l, lo, name, &ck->lo) || get_double(&l, hi, name, &ck->hi))
                    goto fail;
                if (items == 3) {
                    double st;
                    yaml_node_t *sn =
                        yaml_document_get_node(&l.doc, fv->data.sequence.items.start[2]);
                    if (get_double(&l, sn, name, &st))
                        goto fail;
                    if (st != floor(st) || st < 1 || st > CAL_STAGES) {
                        at(&l, sn, name, "the stage must be an integer 1..%d", CAL_STAGES);
                        goto fail;
                    }
                    ck->stage = (unsigned)st;
                }
                if (!(ck->lo < ck->hi) || ck->lo < key->min || ck->hi > key->max) {
                    at(&l, fv, name, "bounds must satisfy %g <= min < max <= %g", key->min,
                       key->max);
                    goto fail;
                }
                double cur;
                if (cfg_key_get(m, key, &cur)) {
                    at(&l, fk, "fit", "'%s' is not a single number", name);
                    goto fail;
                }
                if (cur < ck->lo || cur > ck->hi) {
                    at(&l, fv, name, "the machine's value %g is outside [%g, %g]", cur, ck->lo,
                       ck->hi);
                    goto fail;
                }
                d->n_keys++;
            }
        } else if (ks && strcmp(ks, "cases") == 0) {
            if (v->type != YAML_SEQUENCE_NODE) {
                at(&l, v, "cases", "expected a list of cases");
                goto fail;
            }
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                if (d->n_cases >= CAL_CASES_MAX) {
                    at(&l, v, "cases", "more than %d cases", CAL_CASES_MAX);
                    goto fail;
                }
                if (load_case(&l, yaml_document_get_node(&l.doc, *it), m, &d->cases[d->n_cases]))
                    goto fail;
                d->n_cases++;
            }
        } else {
            at(&l, k, ks ? ks : "?", "unknown key (machine, clock, fit, cases)");
            goto fail;
        }
    }
    if (!d->machine[0]) {
        at(&l, root, "machine", "required");
        goto fail;
    }
    if (d->n_cases == 0) {
        at(&l, root, "cases", "no cases");
        goto fail;
    }
    goto out;
fail:
    free(d);
    d = NULL;
out:
    if (have_doc)
        yaml_document_delete(&l.doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return d;
}

void cal_destroy(cal_data_t *d)
{
    free(d);
}

/* ---- prediction -------------------------------------------------------- */

static int metric_of(const cal_case_t *c, const run_result_t *r, double *out, char *err,
                     size_t errlen)
{
    if (strcmp(c->metric, "gbps") == 0) {
        *out = r->bytes_per_sec / (1024.0 * 1024.0 * 1024.0);
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
    cfg_machine_t *own[CAL_CASES_MAX];
    const cfg_machine_t *at[CAL_CASES_MAX]; /* case i's machine */
    bool per_second[CAL_KEYS_MAX];          /* fitted key k is a per-second rate in the file */
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
static int clocked_sync(clocked_t *cm, const cfg_machine_t *m, const cal_data_t *d, char *err,
                        size_t errlen)
{
    for (size_t i = 0; i < cm->n; i++) {
        cfg_machine_t *o = cm->own[i];
        for (size_t k = 0; k < d->n_keys; k++) {
            double v;
            cfg_key_get(m, d->keys[k].key, &v);
            if (cm->per_second[k])
                v *= m->freq_ghz / o->freq_ghz;
            cfg_error_t e;
            if (cfg_key_set(o, d->keys[k].key, v, &e))
                return errbuf_set(err, errlen, "%s at %g GHz: %s", d->keys[k].key->path,
                                  o->freq_ghz, e.msg);
        }
    }
    return 0;
}

static int clocked_open(clocked_t *cm, const cfg_machine_t *m, const cal_data_t *d, char *err,
                        size_t errlen)
{
    cm->n = 0;
    cfg_error_t e;
    for (size_t i = 0; i < d->n_cases; i++) {
        double ghz = d->cases[i].clock_ghz;
        cm->at[i] = m;
        if (!(ghz > 0) || ghz == m->freq_ghz)
            continue;
        size_t j = 0;
        while (j < cm->n && cm->own[j]->freq_ghz != ghz)
            j++;
        if (j == cm->n) {
            cfg_machine_t *o = cfg_machine_load_at_clock(m->path, ghz, &e);
            if (!o) {
                errbuf_set(err, errlen, "case %s: %s", d->cases[i].id, e.msg);
                goto fail;
            }
            cm->own[cm->n++] = o;
        }
        cm->at[i] = cm->own[j];
    }
    if (cm->n > 0) {
        /* The file read at m's clock and at another: a per-second rate is
         * the bandwidth whose stored bytes/cycle differ. */
        cfg_machine_t *ref = cfg_machine_load_at_clock(m->path, m->freq_ghz, &e);
        if (!ref) {
            errbuf_set(err, errlen, "%s", e.msg);
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

/* One case, on a sweep_parallel thread: writes only slot i. */
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
    else if (sweep_parallel(d->n_cases, threads, predict_task, &p, NULL, 0, err, errlen))
        rc = -1;
    for (size_t i = 0; rc == 0 && i < d->n_cases; i++)
        if (p.rc[i])
            rc = errbuf_set(err, errlen, "case %s: %s", d->cases[i].id, p.why[i]);
    free(p.rc);
    free(p.why);
    return rc;
}

int cal_predict_all(const cfg_machine_t *m, const cal_data_t *d, bool exact, unsigned threads,
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
    cfg_machine_t *m;
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
        cfg_error_t e;
        if (cfg_key_set(c->m, k->key, v, &e)) {
            snprintf(c->err, sizeof(c->err), "%s: %s", k->key->path, e.msg);
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
        chisq += r * r;
    }
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
    int rc = f0 && f1 && xs ? residuals(x, params, f0) : GSL_ENOMEM;
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
        res->sigma[ki] = sqrt(s2 * gsl_matrix_get(cov, i, i)) * dvdx;
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

int cal_fit(cfg_machine_t *m, const cal_data_t *d, unsigned threads, bool progress, size_t max_iter,
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
