/*
 * report_list.c - the listings of `clearsim functions` (the kernel table)
 * and `clearsim machines` (the catalogued machine files), as text or json.
 */
#include "sim/output/report.h"
#include "sim/machine/trust.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/workload.h"
#include "sim/host/native_run.h"

#define NEEDS_MAX 16

/* One entry of a listing as a json object, or NULL (what names it for the
 * message). */
typedef json_t *(*list_item_fn)(const void *ctx, size_t i, const char **what);

/* {"<key>": [item(0), ..., item(n-1)]} to out. */
static int list_json(FILE *out, const char *key, size_t n, list_item_fn item, const void *ctx,
                     char *err, size_t errlen)
{
    json_t *root = json_object();
    json_t *list = json_array();
    if (!root || !list || json_object_set_new(root, key, list) != 0) {
        json_decref(root);
        errbuf_set(err, errlen, "report: out of memory building json");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *what = "?";
        json_t *o = item(ctx, i, &what);
        if (!o || json_array_append_new(list, o) != 0) {
            json_decref(root);
            errbuf_set(err, errlen, "report: cannot build json for %s", what);
            return -1;
        }
    }
    int rc = report_json_dump(out, root, err, errlen);
    json_decref(root);
    return rc;
}

static int list_written(FILE *out, char *err, size_t errlen)
{
    if (ferror(out)) {
        errbuf_set(err, errlen, "report: cannot write output");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* functions                                                                 */

static json_t *kernel_json(const void *ctx, size_t i, const char **what)
{
    const kern_info_t *k = (const kern_info_t *)ctx + i;
    const char *names[NEEDS_MAX];
    size_t n = kern_needs_names(k, names, NEEDS_MAX);
    *what = k->name;
    json_t *o = json_object();
    json_t *needs = json_array();
    int bad = !o || !needs;
    for (size_t j = 0; !bad && j < n && j < NEEDS_MAX; j++)
        bad |= json_array_append_new(needs, json_string(names[j]));
    if (!bad) {
        bad |= json_object_set_new(o, "name", json_string(k->name));
        bad |= json_object_set_new(o, "isa", json_string(kern_isa_name(k->isa)));
        bad |= json_object_set_new(o, "needs", needs);
        needs = NULL;
        bad |= json_object_set_new(o, "granule_bytes", json_integer(k->granule_bytes));
        bad |=
            json_object_set_new(o, "description", json_string(report_or_unknown(k->description)));
    }
    json_decref(needs);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A microbenchmark kernel's needs, as names: "-" for none. */
static void bench_needs(const kern_bench_t *b, char *needs, size_t len)
{
    snprintf(needs, len, "-");
    size_t o = 0;
    for (uint32_t bit = 1; bit; bit <<= 1) {
        const char *f = (b->needs & bit) ? kern_feature_name(bit) : NULL;
        if (!f)
            continue;
        int w = snprintf(needs + o, len - o, "%s%s", o ? "," : "", f);
        if (w < 0 || (size_t)w >= len - o)
            break;
        o += (size_t)w;
    }
}

static const char *bench_kind_name(kern_bench_kind_t k)
{
    switch (k) {
    case KERN_BENCH_LOAD:
        return "load";
    case KERN_BENCH_COPY:
        return "copy";
    case KERN_BENCH_COPY_NT:
        return "copy";
    case KERN_BENCH_CHASE:
        return "latency";
    }
    return "?";
}

/* {"microbenchmarks": [...]} added to root. Returns 0 or -1. */
static int bench_json(json_t *root)
{
    json_t *list = json_array();
    if (!list || json_object_set_new(root, "microbenchmarks", list) != 0)
        return -1;
    for (const kern_bench_t *b = kern_bench_table(); b && b->name; b++) {
        json_t *o = json_object(), *needs = json_array();
        int bad = !o || !needs || json_array_append_new(list, o) != 0;
        if (!bad) {
            for (uint32_t bit = 1; bit; bit <<= 1) {
                const char *f = (b->needs & bit) ? kern_feature_name(bit) : NULL;
                if (f)
                    bad |= json_array_append_new(needs, json_string(f));
            }
            bad |= json_object_set_new(o, "name", json_string(b->name));
            bad |= json_object_set_new(o, "workload", json_string(bench_kind_name(b->kind)));
            bad |= json_object_set_new(o, "isa", json_string(kern_isa_name(b->isa)));
            bad |= json_object_set_new(o, "needs", needs);
            needs = NULL;
            bad |= json_object_set_new(o, "width_bytes", json_integer(b->width_bytes));
            bad |= json_object_set_new(o, "description",
                                       json_string(report_or_unknown(b->description)));
        }
        json_decref(needs);
        if (bad)
            return -1;
    }
    return 0;
}

int report_functions(FILE *out, report_format_t fmt, char *err, size_t errlen)
{
    const kern_info_t *table = kern_table();
    size_t n = 0;
    while (table && table[n].name)
        n++;
    if (fmt == REPORT_FMT_JSON) {
        json_t *root = json_object(), *list = json_array();
        int bad = !root || !list || json_object_set_new(root, "functions", list) != 0;
        for (size_t i = 0; i < n && !bad; i++) {
            const char *what = "?";
            json_t *o = kernel_json(table, i, &what);
            bad = !o || json_array_append_new(list, o) != 0;
        }
        if (bad || bench_json(root)) {
            json_decref(root);
            return errbuf_set(err, errlen, "report: out of memory building json");
        }
        int rc = report_json_dump(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    if (fmt != REPORT_FMT_TEXT) {
        errbuf_set(err, errlen, "functions: format '%s' is not supported; use text or json",
                   report_format_name(fmt));
        return -1;
    }
    fprintf(out, "%-14s %-7s %-18s %s\n", "NAME", "ISA", "NEEDS", "DESCRIPTION");
    for (size_t k = 0; k < n; k++) {
        const char *names[NEEDS_MAX];
        size_t nn = kern_needs_names(&table[k], names, NEEDS_MAX);
        char needs[128] = "-";
        size_t o = 0;
        for (size_t i = 0; i < nn && i < NEEDS_MAX; i++) {
            int w = snprintf(needs + o, sizeof needs - o, "%s%s", i ? "," : "", names[i]);
            if (w < 0 || (size_t)w >= sizeof needs - o)
                break;
            o += (size_t)w;
        }
        fprintf(out, "%-14s %-7s %-18s %s\n", table[k].name, kern_isa_name(table[k].isa), needs,
                report_or_unknown(table[k].description));
    }
    fprintf(out,
            "\nmicrobenchmark kernels (--workload load, copy or latency; docs/MICROBENCH.md):\n");
    for (const kern_bench_t *b = kern_bench_table(); b && b->name; b++) {
        char needs[128];
        bench_needs(b, needs, sizeof needs);
        fprintf(out, "%-14s %-7s %-18s %s\n", b->name, kern_isa_name(b->isa), needs,
                report_or_unknown(b->description));
    }
    return list_written(out, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* machines                                                                  */

typedef struct machines_ctx {
    const machine_t *const *ms;
    const trust_t *trusts;
} machines_ctx_t;

void *report_trust_json(const trust_t *t)
{
    json_t *o = json_object();
    if (o &&
        (json_object_set_new(o, "cases", json_integer(t->validated ? (json_int_t)t->cases : 0)) ||
         json_object_set_new(o, "median_abs_err",
                             t->validated && isfinite(t->median_abs_err)
                                 ? json_real(t->median_abs_err)
                                 : json_null()) ||
         json_object_set_new(o, "median_gain_err",
                             t->validated && isfinite(t->median_gain_err)
                                 ? json_real(t->median_gain_err)
                                 : json_null()))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *machine_json(const void *ctx, size_t i, const char **what)
{
    const machines_ctx_t *mc = ctx;
    const machine_t *m = mc->ms[i];
    *what = m->name;
    json_t *o = json_object();
    int bad = !o;
    if (!bad) {
        bad |= json_object_set_new(o, "name", json_string(m->name));
        bad |= json_object_set_new(o, "isa", json_string(machine_isa_name(m->isa)));
        bad |= json_object_set_new(o, "vendor", json_string(m->vendor));
        bad |= json_object_set_new(o, "model_name", json_string(m->model_name));
        bad |= json_object_set_new(o, "description", json_string(m->description));
        bad |= json_object_set_new(o, "freq_ghz", json_real(m->freq_ghz));
        bad |= json_object_set_new(o, "path", json_string(m->path));
        bad |= json_object_set_new(o, "validation", report_trust_json(&mc->trusts[i]));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int report_machines(FILE *out, report_format_t fmt, const machine_t *const *ms, size_t n, char *err,
                    size_t errlen)
{
    if (fmt != REPORT_FMT_JSON && fmt != REPORT_FMT_TEXT) {
        errbuf_set(err, errlen, "machines: format '%s' is not supported; use text or json",
                   report_format_name(fmt));
        return -1;
    }
    trust_t *trusts = calloc(n ? n : 1, sizeof *trusts);
    if (!trusts)
        return errbuf_set(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (trust_lookup(ms[i]->name, ms[i]->file_sha256, &trusts[i], err, errlen) != 0) {
            free(trusts);
            return -1;
        }
    if (fmt == REPORT_FMT_JSON) {
        machines_ctx_t mc = {ms, trusts};
        int rc = list_json(out, "machines", n, machine_json, &mc, err, errlen);
        free(trusts);
        return rc;
    }
    fprintf(out, "%-24s %-7s %-40s %-34s %s\n", "NAME", "ISA", "MODEL", "VALIDATION",
            "DESCRIPTION");
    for (size_t i = 0; i < n; i++) {
        const machine_t *m = ms[i];
        char v[64];
        const trust_t *t = &trusts[i];
        if (!t->validated)
            snprintf(v, sizeof v, "not validated");
        else if (t->gains && isfinite(t->median_gain_err))
            snprintf(v, sizeof v, "%llu figures %.1f%%, gains %.1f%%", (unsigned long long)t->cases,
                     t->median_abs_err * 100.0, t->median_gain_err * 100.0);
        else
            snprintf(v, sizeof v, "%llu figures %.1f%%, no gains", (unsigned long long)t->cases,
                     t->median_abs_err * 100.0);
        fprintf(out, "%-24s %-7s %-40s %-34s %s\n", m->name, machine_isa_name(m->isa),
                m->model_name[0] ? m->model_name : "-", v,
                m->description[0] ? m->description : "-");
    }
    free(trusts);
    return list_written(out, err, errlen);
}
