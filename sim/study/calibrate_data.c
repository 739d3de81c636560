/*
 * calibrate_data.c - calibration data files: YAML (libyaml) -> cal_data_t
 * (see calibrate.h).
 *
 * Notes
 *  - A case's args are the options of a run point (sim/engine/point.h), so a
 *    case means exactly what `clearsim run --machine M ARGS` means.
 *  - Every error names file:line:col, the key and the rule.
 */
#include "sim/study/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/machine/suggest.h"
#include "sim/machine/units.h"
#include "sim/machine/yamlnode.h"

/* ---- loading ----------------------------------------------------------- */

typedef struct loader {
    yaml_document_t doc;
    yamlnode_src_t src; /* the file and where its errors go */
} loader_t;

/* A core clock ("3.2GHz"), 0.1 to 10 GHz. */
static int get_clock(loader_t *l, const yaml_node_t *n, const char *what, double *ghz)
{
    char text[64], why[256];
    if (yamlnode_string(&l->src, n, what, text, sizeof(text)))
        return -1;
    if (unit_parse_freq(text, ghz, why, sizeof(why)) < 0)
        return yamlnode_fail(&l->src, n, what, "'%s': %s", text, why);
    if (*ghz < 0.1 || *ghz > 10)
        return yamlnode_fail(&l->src, n, what, "'%s': must be between 0.1GHz and 10GHz", text);
    return 0;
}

/* A case's args: the options of a run point (point_parse_args), on the
 * machine being fitted; not empty, and no --machine (the case runs on the
 * machine being fitted). */
static int parse_args(loader_t *l, const yaml_node_t *n, const machine_t *m, cal_case_t *c)
{
    static run_point_t r; /* large; loading is single-threaded */
    char why[512];
    point_init(&r);
    const char *p = c->args;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return yamlnode_fail(&l->src, n, "args",
                             "empty: give the options of the case's run (-s SIZE ...)");
    if (point_parse_args(&r, c->args, why, sizeof(why)))
        return yamlnode_fail(&l->src, n, "args", "%s", why);
    if (r.machine[0])
        return yamlnode_fail(&l->src, n, "args",
                             "--machine: a case runs on the machine being fitted");
    point_apply_defaults(&r, m);
    if (wl_validate(&r.spec, m, why, sizeof(why)))
        return yamlnode_fail(&l->src, n, "args", "%s", why);
    c->spec = r.spec;
    return 0;
}

/* per_line:<event>: a counter every run has (run_std_counters) or that the
 * machine's pmu: section maps; else file:line:col with the nearest name. */
static int check_counter(loader_t *l, const yaml_node_t *v, const char *what, const char *ev,
                         const machine_t *m)
{
    suggest_t sg;
    suggest_init(&sg, ev);
    for (size_t i = 0; run_std_counters[i]; i++) {
        if (strcmp(run_std_counters[i], ev) == 0)
            return 0;
        suggest_offer(&sg, run_std_counters[i]);
    }
    for (uint32_t i = 0; i < m->n_pmu; i++) {
        if (strcmp(m->pmu[i].name, ev) == 0)
            return 0;
        suggest_offer(&sg, m->pmu[i].name);
    }
    char hint[128];
    return yamlnode_fail(&l->src, v, what,
                         "'%s': no counter of that name (the standard perf events, or the pmu: "
                         "section of %s)%s",
                         ev, m->name, suggest_hint(suggest_best(&sg), hint, sizeof hint));
}

static int load_case(loader_t *l, yaml_node_t *map, const machine_t *m, cal_case_t *c)
{
    if (map->type != YAML_MAPPING_NODE)
        return yamlnode_fail(&l->src, map, "cases", "each case is a mapping");
    bool have_args = false, have_value = false, have_metric = false;
    snprintf(c->metric, sizeof(c->metric), "gbps");
    c->fit = true;
    c->stage = 1;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
        const char *ks = yamlnode_scalar(k);
        if (!ks)
            return yamlnode_fail(&l->src, k, "cases", "keys must be names");
        char what[96];
        snprintf(what, sizeof(what), "cases.%s", ks);
        if (yamlnode_key_repeated(&l->doc, map, p))
            return yamlnode_fail(&l->src, k, what, "given twice in one case");
        if (strcmp(ks, "id") == 0) {
            if (yamlnode_string(&l->src, v, what, c->id, sizeof(c->id)))
                return -1;
        } else if (strcmp(ks, "set") == 0) {
            const char *s = yamlnode_scalar(v);
            if (!s || (strcmp(s, "fit") && strcmp(s, "validate")))
                return yamlnode_fail(&l->src, v, what, "must be fit or validate");
            c->fit = strcmp(s, "fit") == 0;
        } else if (strcmp(ks, "source") == 0) {
            if (yamlnode_string(&l->src, v, what, c->source, sizeof(c->source)))
                return -1;
        } else if (strcmp(ks, "args") == 0) {
            if (yamlnode_string(&l->src, v, what, c->args, sizeof(c->args)))
                return -1;
            have_args = true;
        } else if (strcmp(ks, "metric") == 0) {
            if (yamlnode_string(&l->src, v, what, c->metric, sizeof(c->metric)))
                return -1;
            if (strcmp(c->metric, "gbps") && strcmp(c->metric, "ns_per_load") &&
                strncmp(c->metric, "per_line:", 9))
                return yamlnode_fail(&l->src, v, what,
                                     "must be gbps, ns_per_load or per_line:<perf event>");
            if (strncmp(c->metric, "per_line:", 9) == 0 &&
                check_counter(l, v, what, c->metric + 9, m) != 0)
                return -1;
            have_metric = true;
        } else if (strcmp(ks, "value") == 0) {
            if (yamlnode_double(&l->src, v, what, &c->value))
                return -1;
            if (c->value <= 0)
                return yamlnode_fail(&l->src, v, what, "must be positive");
            have_value = true;
        } else if (strcmp(ks, "tolerance") == 0) {
            if (yamlnode_double(&l->src, v, what, &c->tolerance))
                return -1;
            if (c->tolerance < 0 || c->tolerance > 10)
                return yamlnode_fail(&l->src, v, what,
                                     "must be between 0 and 10 (a relative error)");
        } else if (strcmp(ks, "stage") == 0) {
            double st;
            if (yamlnode_double(&l->src, v, what, &st))
                return -1;
            if (st != floor(st) || st < 1 || st > CAL_STAGES)
                return yamlnode_fail(&l->src, v, what, "must be an integer 1..%d", CAL_STAGES);
            c->stage = (unsigned)st;
        } else if (strcmp(ks, "clock") == 0) {
            if (get_clock(l, v, what, &c->clock_ghz))
                return -1;
        } else {
            return yamlnode_fail(
                &l->src, k, what,
                "unknown key (id, set, source, args, metric, value, tolerance, stage, "
                "clock)");
        }
    }
    (void)have_metric;
    if (!c->id[0])
        return yamlnode_fail(&l->src, map, "cases.id", "required");
    if (!have_args)
        return yamlnode_fail(&l->src, map, "cases.args", "required");
    if (!have_value)
        return yamlnode_fail(&l->src, map, "cases.value", "required");
    return parse_args(l, map, m, c);
}

cal_data_t *cal_load(const char *path, const machine_t *m, char *err, size_t errlen)
{
    loader_t l = {.src = {.path = path, .err = err, .errlen = errlen}};
    if (yamlnode_load(path, INFILE_MAX_CALIBRATION_BYTES, &l.doc, err, errlen) != 0)
        return NULL;
    cal_data_t *d = calloc(1, sizeof(*d));
    if (!d) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    snprintf(d->path, sizeof(d->path), "%s", path);
    yaml_node_t *root = yaml_document_get_root_node(&l.doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        yamlnode_fail(&l.src, root, "(top level)",
                      "expected a mapping with machine, fit and cases");
        goto fail;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l.doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l.doc, p->value);
        const char *ks = yamlnode_scalar(k);
        if (ks && yamlnode_key_repeated(&l.doc, root, p)) {
            yamlnode_fail(&l.src, k, ks, "given twice");
            goto fail;
        }
        if (ks && strcmp(ks, "machine") == 0) {
            if (yamlnode_string(&l.src, v, "machine", d->machine, sizeof(d->machine)))
                goto fail;
            if (strcmp(d->machine, m->name) != 0) {
                yamlnode_fail(&l.src, v, "machine",
                              "'%s' does not match the machine being calibrated ('%s')", d->machine,
                              m->name);
                goto fail;
            }
        } else if (ks && strcmp(ks, "clock") == 0) {
            if (get_clock(&l, v, "clock", &d->clock_ghz))
                goto fail;
        } else if (ks && strcmp(ks, "fit") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                yamlnode_fail(&l.src, v, "fit", "expected a mapping of key: [min, max]");
                goto fail;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++)
                if (yamlnode_key_repeated(&l.doc, v, q)) {
                    yaml_node_t *qk = yaml_document_get_node(&l.doc, q->key);
                    yamlnode_fail(&l.src, qk, "fit", "'%s' is given twice",
                                  yamlnode_scalar(qk) ? yamlnode_scalar(qk) : "?");
                    goto fail;
                }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                yaml_node_t *fk = yaml_document_get_node(&l.doc, q->key);
                yaml_node_t *fv = yaml_document_get_node(&l.doc, q->value);
                const char *name = yamlnode_scalar(fk);
                const cfg_key_t *key = name ? cfg_key_find(name) : NULL;
                if (!key) {
                    yamlnode_fail(&l.src, fk, "fit", "unknown key '%s' (configs/README.md)",
                                  name ? name : "?");
                    goto fail;
                }
                if (!key->fittable) {
                    yamlnode_fail(&l.src, fk, "fit", "'%s' is not fittable (configs/README.md)",
                                  name);
                    goto fail;
                }
                if (d->n_keys >= CAL_KEYS_MAX) {
                    yamlnode_fail(&l.src, fk, "fit", "more than %d keys", CAL_KEYS_MAX);
                    goto fail;
                }
                long items = fv->type == YAML_SEQUENCE_NODE
                                 ? fv->data.sequence.items.top - fv->data.sequence.items.start
                                 : 0;
                if (items != 2 && items != 3) {
                    yamlnode_fail(
                        &l.src, fv, name,
                        "expected [min, max] in the key's stored unit, or [min, max, stage]");
                    goto fail;
                }
                cal_key_t *ck = &d->keys[d->n_keys];
                ck->key = key;
                ck->stage = 1;
                yaml_node_t *lo = yaml_document_get_node(&l.doc, fv->data.sequence.items.start[0]);
                yaml_node_t *hi = yaml_document_get_node(&l.doc, fv->data.sequence.items.start[1]);
                if (yamlnode_double(&l.src, lo, name, &ck->lo) ||
                    yamlnode_double(&l.src, hi, name, &ck->hi))
                    goto fail;
                if (items == 3) {
                    double st;
                    yaml_node_t *sn =
                        yaml_document_get_node(&l.doc, fv->data.sequence.items.start[2]);
                    if (yamlnode_double(&l.src, sn, name, &st))
                        goto fail;
                    if (st != floor(st) || st < 1 || st > CAL_STAGES) {
                        yamlnode_fail(&l.src, sn, name, "the stage must be an integer 1..%d",
                                      CAL_STAGES);
                        goto fail;
                    }
                    ck->stage = (unsigned)st;
                }
                if (!(ck->lo < ck->hi) || ck->lo < key->min || ck->hi > key->max) {
                    yamlnode_fail(&l.src, fv, name, "bounds must satisfy %g <= min < max <= %g",
                                  key->min, key->max);
                    goto fail;
                }
                double cur;
                if (cfg_key_get(m, key, &cur)) {
                    yamlnode_fail(&l.src, fk, "fit", "'%s' is not a single number", name);
                    goto fail;
                }
                if (cur < ck->lo || cur > ck->hi) {
                    yamlnode_fail(&l.src, fv, name, "the machine's value %g is outside [%g, %g]",
                                  cur, ck->lo, ck->hi);
                    goto fail;
                }
                d->n_keys++;
            }
        } else if (ks && strcmp(ks, "cases") == 0) {
            if (v->type != YAML_SEQUENCE_NODE) {
                yamlnode_fail(&l.src, v, "cases", "expected a list of cases");
                goto fail;
            }
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                if (d->n_cases >= CAL_CASES_MAX) {
                    yamlnode_fail(&l.src, v, "cases", "more than %d cases", CAL_CASES_MAX);
                    goto fail;
                }
                yaml_node_t *cn = yaml_document_get_node(&l.doc, *it);
                if (load_case(&l, cn, m, &d->cases[d->n_cases]))
                    goto fail;
                /* an id given twice would count its case twice in the fit */
                for (size_t j = 0; j < d->n_cases; j++)
                    if (strcmp(d->cases[j].id, d->cases[d->n_cases].id) == 0) {
                        yamlnode_fail(&l.src, cn, "cases.id",
                                      "'%s' is given twice (case %zu and case %zu)", d->cases[j].id,
                                      j + 1, d->n_cases + 1);
                        goto fail;
                    }
                d->n_cases++;
            }
        } else {
            yamlnode_fail(&l.src, k, ks ? ks : "?", "unknown key (machine, clock, fit, cases)");
            goto fail;
        }
    }
    if (!d->machine[0]) {
        yamlnode_fail(&l.src, root, "machine", "required");
        goto fail;
    }
    if (d->n_cases == 0) {
        yamlnode_fail(&l.src, root, "cases", "no cases");
        goto fail;
    }
    goto out;
fail:
    free(d);
    d = NULL;
out:
    yaml_document_delete(&l.doc);
    return d;
}

void cal_destroy(cal_data_t *d)
{
    free(d);
}
