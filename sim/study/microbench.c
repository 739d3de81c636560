/*
 * microbench.c - microbenchmark figures as run points, and the check of a
 * machine file against them (see microbench.h).
 */
#include "sim/study/microbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/progress.h"
#include "sim/engine/run.h"
#include "sim/machine/units.h"
#include "sim/output/pool.h"

#define MB_PASS_BYTES (8ull << 20) /* a figure's default passes cover about this much */
#define MB_LOOPS_MAX  4096u

uint32_t mb_default_loops(const machine_mb_t *f)
{
    if (f->loops)
        return f->loops;
    if (!strcmp(f->workload, "fault") || !f->size_bytes)
        return 4;
    uint64_t l = MB_PASS_BYTES / f->size_bytes;
    return l < 1 ? 1 : l > MB_LOOPS_MAX ? MB_LOOPS_MAX : (uint32_t)l;
}

int mb_args(const machine_mb_t *f, char *buf, size_t len)
{
    char s[32], a[48];
    size_t o = 0;
    int w = snprintf(buf, len, "--workload %s", f->workload);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        o = w < 0 ? len : (size_t)w;                                                               \
        if (o >= len)                                                                              \
            return -1;                                                                             \
        w += snprintf(buf + o, len - o, __VA_ARGS__);                                              \
    } while (0)
    if (f->function[0])
        ADD(" -f %s", f->function);
    unit_format_size(f->size_bytes, s, sizeof s);
    ADD(" -s %s", s);
    if (f->chunk_bytes) {
        unit_format_size(f->chunk_bytes, s, sizeof s);
        ADD(" -k %s", s);
    }
    if (f->page_bytes) {
        unit_format_size(f->page_bytes, s, sizeof s);
        ADD(" -p %s", s);
    }
    if (f->fault[0])
        ADD(" --fault %s", f->fault);
    if (f->fill) {
        snprintf(a, sizeof a, " --fill 0x%02x", f->fill);
        ADD("%s", a);
    }
    ADD(" -l %u", mb_default_loops(f));
#undef ADD
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

int mb_spec(const machine_mb_t *f, const machine_t *m, wl_spec_t *out, char *err, size_t errlen)
{
    char args[512], why[400];
    if (mb_args(f, args, sizeof args))
        return errbuf_set(err, errlen, "figure '%s': options too long", f->id);
    run_point_t *p = malloc(sizeof *p);
    if (!p)
        return errbuf_set(err, errlen, "out of memory");
    point_init(p);
    int rc = point_parse_args(p, args, why, sizeof why);
    if (rc == 0) {
        point_apply_defaults(p, m);
        rc = wl_validate(&p->spec, m, why, sizeof why);
    }
    if (rc == 0)
        *out = p->spec;
    else
        errbuf_set(err, errlen, "figure '%s' (%s): %s", f->id, args, why);
    free(p);
    return rc ? -1 : 0;
}

double mb_metric(const machine_mb_t *f, double seconds, double bytes_per_sec, double ns_per_load)
{
    (void)seconds;
    return f->metric == MACHINE_MB_NS_PER_LOAD ? ns_per_load : bytes_per_sec / 1073741824.0;
}

double mb_tolerance(const machine_t *m, const machine_mb_t *f)
{
    return f->tolerance > 0 ? f->tolerance : m->mb_tolerance > 0 ? m->mb_tolerance : 0.10;
}

int mb_model(const machine_mb_t *f, const machine_t *m, run_result_t *r, double *value, char *err,
             size_t errlen)
{
    wl_spec_t s;
    run_opts_t o;
    run_opts_init(&o);
    if (mb_spec(f, m, &s, err, errlen) || run_predict(m, &s, &o, r, err, errlen))
        return -1;
    *value = mb_metric(f, r->seconds, r->bytes_per_sec, r->ns_per_load);
    return 0;
}

typedef struct check_ctx {
    const machine_t *m;
    mb_check_row_t *rows;
} check_ctx_t;

static void check_task(void *ctx, size_t i)
{
    check_ctx_t *c = ctx;
    mb_check_row_t *r = &c->rows[i];
    static __thread run_result_t res; /* large: one per thread */
    if (mb_model(r->fig, c->m, &res, &r->model, r->why, sizeof r->why)) {
        r->model = NAN;
        return;
    }
    r->error = r->fig->value > 0 ? (r->model - r->fig->value) / r->fig->value : NAN;
    r->within = fabs(r->error) <= mb_tolerance(c->m, r->fig);
}

int mb_check(const machine_t *m, unsigned threads, bool progress, mb_check_row_t *rows, char *err,
             size_t errlen)
{
    for (uint32_t i = 0; i < m->n_mb; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].fig = &m->mb[i];
    }
    check_ctx_t c = {m, rows};
    progress_t *pr = progress_create("check", m->n_mb, progress);
    int rc = pool_run(m->n_mb, threads, check_task, &c, pr, 0, err, errlen);
    progress_destroy(pr);
    if (rc)
        return -1;
    for (uint32_t i = 0; i < m->n_mb; i++)
        if (rows[i].why[0])
            return errbuf_set(err, errlen, "%s", rows[i].why);
    return 0;
}

_Static_assert(MACHINE_MB_STAGES <= CAL_STAGES, "every microbench stage is a calibrate stage");
_Static_assert(MACHINE_MB_MAX <= CAL_CASES_MAX && MACHINE_MB_FIT_MAX <= CAL_KEYS_MAX,
               "a file's figures and fit keys fit in one data set");

int mb_cal_case(const machine_mb_t *f, const machine_t *m, cal_case_t *c, char *err, size_t errlen)
{
    snprintf(c->id, sizeof c->id, "%s", f->id);
    snprintf(c->source, sizeof c->source, "%s", f->source);
    if (mb_args(f, c->args, sizeof c->args))
        return errbuf_set(err, errlen, "figure '%s': options too long", f->id);
    if (mb_spec(f, m, &c->spec, err, errlen))
        return -1;
    snprintf(c->metric, sizeof c->metric, "%s",
             f->metric == MACHINE_MB_NS_PER_LOAD ? "ns_per_load" : "gbps");
    c->value = f->value;
    return 0;
}

int mb_cal_data(const machine_t *m, cal_data_t *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    int w = snprintf(d->path, sizeof d->path, "%s", m->path);
    if (w < 0 || (size_t)w >= sizeof d->path)
        return errbuf_set(err, errlen, "machine file path too long");
    snprintf(d->machine, sizeof d->machine, "%s", m->name);
    d->clock_ghz = m->mb_clock_ghz;
    if (m->n_mb_fit == 0)
        return errbuf_set(err, errlen, "%s: microbench.fit names no key to fit", m->name);
    for (uint32_t i = 0; i < m->n_mb; i++) {
        const machine_mb_t *f = &m->mb[i];
        cal_case_t *c = &d->cases[d->n_cases++];
        if (mb_cal_case(f, m, c, err, errlen))
            return -1;
        c->fit = f->stage > 0;
        c->stage = f->stage;
        c->tolerance = mb_tolerance(m, f);
    }
    for (uint32_t i = 0; i < m->n_mb_fit; i++) {
        const machine_mb_fit_t *f = &m->mb_fit[i];
        cal_key_t *k = &d->keys[d->n_keys++];
        k->key = cfg_key_find(f->key);
        double v0 = 0;
        if (!k->key || cfg_key_get(m, k->key, &v0))
            return errbuf_set(err, errlen, "microbench.fit: '%s' is not a numeric key", f->key);
        k->stage = f->stage;
        if (!(v0 > 0))
            return errbuf_set(err, errlen,
                              "microbench.fit: '%s' is 0 (its default: off) in %s; write a start "
                              "value from the figure it is fitted to",
                              f->key, m->path);
        k->lo = v0 / f->range;
        k->hi = v0 * f->range;
        if (k->lo < k->key->min)
            k->lo = k->key->min;
        if (k->hi > k->key->max)
            k->hi = k->key->max;
        if (!(k->lo < k->hi))
            return errbuf_set(err, errlen, "microbench.fit: '%s' has no room to move (%g)", f->key,
                              v0);
    }
    return 0;
}
