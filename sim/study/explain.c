/*
 * explain.c - `clearsim explain`: the bottleneck breakdown of one
 * prediction and the relaxed re-runs that rank the changes (see explain.h).
 *
 * Notes
 *  - A relaxed machine is a copy of the machine (plain data) with one key
 *    set through cfg_key_set(), so that it passes the key's own bounds; a
 *    value the bound clips to the current one is "at its limit". The
 *    string-startup table has no single value: every point's cost is
 *    halved; nor has the host page's miss, whose cost is one per kind of
 *    write (tlb.host_miss.*): every kind's is halved.
 */
#include "sim/study/explain.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"

/* Relax resource e's key on a copy of m; NULL with e->at_limit when there
 * is nothing to relax, or on error (err set, returns NULL and *failed). */
static machine_t *relaxed_machine(const machine_t *m, const wl_spec_t *spec, explain_entry_t *e,
                                  bool *failed, char *err, size_t errlen)
{
    const bounds_resource_t *res = e->b.res;
    const char *key = bounds_relax_key(res, spec->page_bytes);
    snprintf(e->key, sizeof e->key, "%s", key);
    machine_t *c = malloc(sizeof *c);
    if (!c) {
        *failed = true;
        errbuf_set(err, errlen, "explain: out of memory");
        return NULL;
    }
    *c = *m;
    if (strcmp(key, "string.startup") == 0) {
        if (c->n_startup == 0) {
            e->at_limit = true;
            free(c);
            return NULL;
        }
        for (uint32_t i = 0; i < c->n_startup; i++)
            c->startup[i].cycles *= res->factor;
        snprintf(e->from, sizeof e->from, "table");
        snprintf(e->to, sizeof e->to, "table x %g", res->factor);
        return c;
    }
    if (strcmp(key, "tlb.host_miss") == 0) {
        double *kinds[] = {&c->tlb_host_nt_line_ns, &c->tlb_host_nt_narrow_ns,
                           &c->tlb_host_string_ns, &c->tlb_host_line_zero_ns};
        bool any = false;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            any |= *kinds[i] > 0;
            *kinds[i] *= res->factor;
        }
        if (!any || c->tlb_host_page_bytes == 0) {
            e->at_limit = true;
            free(c);
            return NULL;
        }
        snprintf(e->from, sizeof e->from, "each kind");
        snprintf(e->to, sizeof e->to, "each kind x %g", res->factor);
        return c;
    }
    const cfg_key_t *k = cfg_key_find(key);
    double v;
    if (!k || cfg_key_get(m, k, &v) != 0) {
        free(c);
        *failed = true;
        errbuf_set(err, errlen, "explain: no numeric machine key %s", key);
        return NULL;
    }
    double nv = v * res->factor;
    if (k->type == CFG_T_U32 || k->type == CFG_T_U64)
        nv = res->factor >= 1 ? ceil(nv) : floor(nv);
    if (nv > k->max)
        nv = k->max;
    if (nv < k->min)
        nv = k->min;
    cfg_key_format(k, v, CFG_FMT_TEXT, e->from, sizeof e->from);
    cfg_key_format(k, nv, CFG_FMT_TEXT, e->to, sizeof e->to);
    if (nv == v) {
        e->at_limit = true;
        free(c);
        return NULL;
    }
    if (cfg_key_set(c, k, nv, err, errlen) != 0) {
        free(c);
        *failed = true;
        return NULL;
    }
    return c;
}

int explain_predict(const machine_t *m, const wl_spec_t *spec, const run_opts_t *opts,
                    explain_result_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    if (run_predict(m, spec, opts, &out->run, err, errlen) != 0)
        return -1;
    bounds_entry_t b[ST_BOUND_COUNT];
    out->n = bounds_breakdown(&out->run.stats, m, b);
    for (size_t i = 0; i < out->n; i++)
        out->e[i].b = b[i];

    run_opts_t ro = opts ? *opts : (run_opts_t){0};
    if (!opts)
        run_opts_init(&ro);
    ro.progress = false;
    run_result_t *rr = malloc(sizeof *rr);
    if (!rr)
        return errbuf_set(err, errlen, "explain: out of memory");
    int rc = 0;
    char why[512];
    for (size_t i = 0; i < out->n && rc == 0; i++) {
        explain_entry_t *e = &out->e[i];
        if (e->b.share < EXPLAIN_RELAX_MIN_SHARE)
            continue;
        bool failed = false;
        machine_t *c = relaxed_machine(m, spec, e, &failed, err, errlen);
        if (!c) {
            rc = failed ? -1 : 0;
            continue;
        }
        /* the same key as an earlier entry: its run */
        const explain_entry_t *same = NULL;
        for (size_t j = 0; j < i && !same; j++)
            if (out->e[j].relaxed && strcmp(out->e[j].key, e->key) == 0)
                same = &out->e[j];
        if (same) {
            e->relaxed_cycles = same->relaxed_cycles;
        } else if (run_predict(c, spec, &ro, rr, why, sizeof why) != 0) {
            rc = errbuf_set(err, errlen, "explain: relaxed run (%s %s): %s", e->key, e->to, why);
        } else {
            e->relaxed_cycles = rr->cycles;
        }
        free(c);
        if (rc)
            break;
        e->relaxed = true;
        e->gain =
            e->relaxed_cycles > 0 ? (double)out->run.cycles / (double)e->relaxed_cycles - 1.0 : 0;
        if (e->gain > 0 && (out->best < 0 || e->gain > out->e[out->best].gain))
            out->best = (int)i;
    }
    free(rr);
    return rc;
}

/* ---- printing ------------------------------------------------------------ */

/* Columns a UTF-8 string takes (its characters; every one is one column). */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void pad(FILE *out, const char *s, size_t width)
{
    fputs(s, out);
    for (size_t w = text_width(s); w < width; w++)
        fputc(' ', out);
}

static int print_text(FILE *out, const explain_result_t *r, char *err, size_t errlen)
{
    const run_result_t *run = &r->run;
    char a[64], b[64], line[160];
    report_group_digits(run->cycles, a, sizeof a);
    fprintf(out,
            "# explain: what bounds the prediction (docs/MODEL.md \"Bottleneck attribution\")\n");
    if (run->set[0])
        fprintf(out, "# machine '%s' (simulated; --set %s), function '%s', %" PRIu64 " bytes\n",
                run->machine, run->set, run->spec.function, run->bytes);
    else
        fprintf(out, "# machine '%s' (simulated), function '%s', %" PRIu64 " bytes\n", run->machine,
                run->spec.function, run->bytes);
    fprintf(out, "# %s cycles, %.6f GB/sec (GB = 2^30 bytes)%s\n", a,
            run->bytes_per_sec / 1073741824.0,
            run->extrapolated ? ", extrapolated from a steady state" : "");
    fprintf(out, "# relaxed: the same run with that one key changed (a count or bandwidth\n"
                 "# doubled, a latency or cost halved); gain: its throughput over this one's\n\n");
    fputs("  ", out);
    pad(out, "resource", 30);
    fprintf(out, "  %6s  %9s  ", "share", "occupancy");
    pad(out, "relaxed", 44);
    fprintf(out, "  %8s\n", "gain");
    for (size_t i = 0; i < r->n; i++) {
        const explain_entry_t *e = &r->e[i];
        fputs("  ", out);
        pad(out, e->b.res->label, 30);
        snprintf(a, sizeof a, "%.1f%%", e->b.share * 100.0);
        if (e->b.has_occupancy)
            snprintf(b, sizeof b, "%.1f%%", e->b.occupancy * 100.0);
        else
            snprintf(b, sizeof b, "-");
        fprintf(out, "  %6s  %9s  ", a, b);
        if (e->relaxed || e->at_limit)
            snprintf(line, sizeof line, "%s %s -> %s%s", e->key, e->from, e->to,
                     e->at_limit ? " (at its limit)" : "");
        else
            snprintf(line, sizeof line, "-");
        pad(out, line, 44);
        if (e->relaxed)
            snprintf(a, sizeof a, "%+.1f%%", e->gain * 100.0);
        else
            snprintf(a, sizeof a, "-");
        fprintf(out, "  %8s\n", a);
    }
    char bound[128];
    fprintf(out, "\nbound by: %s\n", report_bound_by_text(&run->stats, bound, sizeof bound));
    if (r->best >= 0) {
        const explain_entry_t *e = &r->e[r->best];
        report_group_digits(run->cycles, a, sizeof a);
        report_group_digits(e->relaxed_cycles, b, sizeof b);
        fprintf(out, "most help: %s %s -> %s: %+.1f%% throughput (%s -> %s cycles)\n", e->key,
                e->from, e->to, e->gain * 100.0, a, b);
    } else {
        fprintf(out, "most help: none of the relaxed keys makes it faster\n");
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "explain: cannot write output");
    return 0;
}

static json_t *entry_json(const explain_entry_t *e)
{
    json_t *o = json_pack("{s:s, s:s, s:f, s:I}", "resource", e->b.res->name, "label",
                          e->b.res->label, "share", e->b.share, "cycles", (json_int_t)e->b.cycles);
    if (!o)
        return NULL;
    json_t *relaxed = e->relaxed || e->at_limit ? json_pack("{s:s, s:s, s:s}", "key", e->key,
                                                            "from", e->from, "to", e->to)
                                                : json_null();
    if (json_object_set_new(o, "occupancy",
                            e->b.has_occupancy ? json_real(e->b.occupancy) : json_null()) ||
        json_object_set_new(o, "relaxed", relaxed) ||
        json_object_set_new(o, "at_limit", json_boolean(e->at_limit)) ||
        json_object_set_new(o, "relaxed_cycles",
                            e->relaxed ? json_integer((json_int_t)e->relaxed_cycles)
                                       : json_null()) ||
        json_object_set_new(o, "gain", e->relaxed ? json_real(e->gain) : json_null())) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int print_json(FILE *out, const explain_result_t *r, char *err, size_t errlen)
{
    json_t *root = report_run_json(&r->run, err, errlen);
    if (!root)
        return -1;
    json_t *list = json_array();
    json_t *bound = report_bound_by_json(&r->run.stats, err, errlen);
    if (!list || !bound || json_object_set_new(root, "bound_by", bound) ||
        json_object_set_new(root, "bottlenecks", list))
        goto oom;
    for (size_t i = 0; i < r->n; i++)
        if (json_array_append_new(list, entry_json(&r->e[i])))
            goto oom;
    if (r->has_trust) {
        json_t *v = report_trust_json(&r->trust);
        if (!v || json_object_set_new(root, "validation", v))
            goto oom;
    }
    json_t *rec = json_null();
    if (r->best >= 0) {
        const explain_entry_t *e = &r->e[r->best];
        rec = json_pack("{s:s, s:s, s:s, s:s, s:I, s:f}", "resource", e->b.res->name, "key", e->key,
                        "from", e->from, "to", e->to, "relaxed_cycles",
                        (json_int_t)e->relaxed_cycles, "gain", e->gain);
    }
    if (!rec || json_object_set_new(root, "recommendation", rec))
        goto oom;
    int rc = report_json_dump(out, root, err, errlen);
    json_decref(root);
    return rc;
oom:
    json_decref(root);
    return errbuf_set(err, errlen, "explain: out of memory building json");
}

static int print_csv(FILE *out, const explain_result_t *r, char *err, size_t errlen)
{
    fprintf(out,
            "machine,function,size_bytes,cycles,resource,label,share,bound_cycles,occupancy,"
            "key,from,to,relaxed_cycles,gain%s\n",
            r->has_trust ? ",validation.cases,validation.median_abs_err,validation.median_gain_err"
                         : "");
    for (size_t i = 0; i < r->n; i++) {
        const explain_entry_t *e = &r->e[i];
        report_csv_string(out, r->run.machine);
        fputc(',', out);
        report_csv_string(out, r->run.spec.function);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%s,", r->run.spec.size_bytes, r->run.cycles,
                e->b.res->name);
        report_csv_string(out, e->b.res->label);
        fprintf(out, ",%.17g,%" PRIu64 ",", e->b.share, e->b.cycles);
        if (e->b.has_occupancy)
            fprintf(out, "%.17g", e->b.occupancy);
        fputc(',', out);
        if (e->relaxed || e->at_limit) {
            report_csv_string(out, e->key);
            fputc(',', out);
            report_csv_string(out, e->from);
            fputc(',', out);
            report_csv_string(out, e->to);
        } else {
            fputs(",,", out);
        }
        if (e->relaxed)
            fprintf(out, ",%" PRIu64 ",%.17g", e->relaxed_cycles, e->gain);
        else
            fputs(",,", out);
        if (r->has_trust) {
            const trust_t *t = &r->trust;
            fprintf(out, ",%llu,", t->validated ? (unsigned long long)t->cases : 0ull);
            if (t->validated && isfinite(t->median_abs_err))
                fprintf(out, "%.17g", t->median_abs_err);
            fputc(',', out);
            if (t->validated && isfinite(t->median_gain_err))
                fprintf(out, "%.17g", t->median_gain_err);
        }
        fputc('\n', out);
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "explain: cannot write output");
    return 0;
}

int explain_print(FILE *out, report_format_t fmt, const explain_result_t *r, char *err,
                  size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_TEXT:
        if (print_text(out, r, err, errlen) != 0)
            return -1;
        if (r->has_trust && fprintf(out, "%s\n", r->trust_line) < 0)
            return errbuf_set(err, errlen, "explain: cannot write output");
        return 0;
    case REPORT_FMT_JSON:
        return print_json(out, r, err, errlen);
    case REPORT_FMT_CSV:
        return print_csv(out, r, err, errlen);
    }
    return errbuf_set(err, errlen, "explain: unknown format %d", (int)fmt);
}
