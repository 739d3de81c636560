/*
 * clearsim.c - the public API (clearsim.h) over the run path that
 * `clearsim run` takes: catalogue lookup, run point, overrides, defaults,
 * validation, run_predict.
 */
#include "sim/api/clearsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

struct clearsim_machine {
    machine_t *m;
    char path[POINT_MACHINE_ARG_MAX];
};

struct clearsim_result {
    run_result_t r;
};

const char *clearsim_version(void)
{
    return CLEARSIM_VERSION;
}

clearsim_machine_t *clearsim_machine_open(const char *name_or_path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    clearsim_machine_t *h = calloc(1, sizeof *h);
    if (!h) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    h->m = cfg_machine_open(name_or_path, h->path, sizeof h->path, err, errlen);
    if (!h->m) {
        free(h);
        return NULL;
    }
    return h;
}

void clearsim_machine_close(clearsim_machine_t *m)
{
    if (!m)
        return;
    cfg_machine_destroy(m->m);
    free(m);
}

const char *clearsim_machine_name(const clearsim_machine_t *m)
{
    return m->m->name;
}

const char *clearsim_machine_path(const clearsim_machine_t *m)
{
    return m->path;
}

clearsim_result_t *clearsim_run(const clearsim_machine_t *h, const char *options, char *err,
                                size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!h) {
        errbuf_set(err, errlen, "no machine");
        return NULL;
    }
    run_point_t *p = malloc(sizeof *p);
    clearsim_result_t *res = calloc(1, sizeof *res);
    machine_t *own = NULL;
    if (!p || !res) {
        errbuf_set(err, errlen, "out of memory");
        goto fail;
    }
    point_init(p);
    if (options && options[0] && point_parse_args(p, options, err, errlen) != 0)
        goto fail;
    if (p->machine[0]) {
        errbuf_set(err, errlen, "--machine: not an option here (the machine is the handle)");
        goto fail;
    }
    const machine_t *m = h->m;
    if (p->n_set || p->libc[0]) {
        /* the overrides replace a machine of their own, loaded again */
        own = cfg_machine_load(h->path, err, errlen);
        if (!own || point_apply_overrides(p, &own, err, errlen) != 0)
            goto fail;
        m = own;
    }
    point_apply_defaults(p, m);
    if (wl_validate(&p->spec, m, err, errlen) != 0)
        goto fail;
    p->opts.progress = false;
    if (run_predict(m, &p->spec, &p->opts, &res->r, err, errlen) != 0)
        goto fail;
    if (own)
        cfg_machine_destroy(own);
    free(p);
    return res;
fail:
    if (own)
        cfg_machine_destroy(own);
    free(p);
    free(res);
    return NULL;
}

void clearsim_result_free(clearsim_result_t *r)
{
    free(r);
}

double clearsim_result_bytes_per_sec(const clearsim_result_t *r)
{
    return r->r.bytes_per_sec;
}

uint64_t clearsim_result_bytes(const clearsim_result_t *r)
{
    return r->r.bytes;
}

uint64_t clearsim_result_cycles(const clearsim_result_t *r)
{
    return r->r.cycles;
}

double clearsim_result_seconds(const clearsim_result_t *r)
{
    return r->r.seconds;
}

size_t clearsim_result_counter_count(const clearsim_result_t *r)
{
    return r->r.n_counters;
}

const char *clearsim_result_counter_name(const clearsim_result_t *r, size_t i)
{
    return i < r->r.n_counters ? r->r.counters[i].name : NULL;
}

int clearsim_result_counter(const clearsim_result_t *r, size_t i, uint64_t *value)
{
    if (i >= r->r.n_counters || !r->r.counters[i].supported)
        return -1;
    *value = r->r.counters[i].value;
    return 0;
}
