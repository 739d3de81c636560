/*
 * validate_write.c - `clearsim validate`'s report (text, csv, json), and
 * `clearsim report --validation`'s docs/VALIDATION.md, trust file and their
 * fingerprint.
 *
 * Notes
 *  - Text and Markdown give throughputs in GB/s as perf prints them (bytes /
 *    2^30 per second), and each predicted figure also in the published unit
 *    (a time unit converts back through the case's bytes:).
 *  - Errors print as signed percentages with one decimal; a summary figure
 *    that has nothing to summarize prints "-" (null in json, empty in csv).
 *  - Nothing written depends on the clock, the host or the number of
 *    threads: the same tree gives the same bytes.
 */
#include "sim/study/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"
#include "sim/machine/trust.h"
#include "sim/output/report.h"
#include "sim/study/predictions.h"

#define GIB 1073741824.0

static bool unit_is_time(const char *unit)
{
    return strcasecmp(unit, "s") == 0 || strcasecmp(unit, "ms") == 0 ||
           strcasecmp(unit, "us") == 0 || strcasecmp(unit, "ns") == 0;
}

/* The prediction in the case's published unit. */
static double predicted_in_unit(const val_case_t *c)
{
    double r = c->predicted_bps / c->published_bps;
    return unit_is_time(c->unit) ? c->figure / r : c->figure * r;
}

/* A figure with 4 significant digits and no exponent. */
static const char *num4(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (fabs(v) >= 1e4)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
    return buf;
}

static const char *pct(double v, bool sign, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, sign ? "%+.1f%%" : "%.1f%%", v * 100.0);
    return buf;
}

static const char *gain_role(const val_gain_t *g)
{
    return g->exempt ? "exempt" : "judge";
}

/* ---- text -------------------------------------------------------------- */

static void write_text(const val_corpus_t *c, FILE *out)
{
    char a[32], b[32], d[32], e[32], f[32], g[32];
    fprintf(out,
            "# clearsim validate: %zu published figures and %zu gains from %zu sources "
            "(GB/s: bytes / 2^30 per second)\n",
            val_n_cases(c), val_n_gains(c), val_n_sources(c));
    fprintf(out, "%-40s %-16s %-11s %22s %10s %10s %8s\n", "case", "machine", "role",
            "published (as given)", "pub GB/s", "pred GB/s", "error");
    for (size_t i = 0; i < val_n_cases(c); i++) {
        const val_case_t *v = val_case(c, i);
        char as[64];
        snprintf(as, sizeof as, "%g %s", v->figure, v->unit);
        fprintf(out, "%-40s %-16s %-11s %22s %10.3f %10.3f %8s\n", v->id, v->machine,
                val_role_name(v->role), as, v->published_bps / GIB, v->predicted_bps / GIB,
                pct(v->error, true, a, sizeof a));
    }
    if (val_n_gains(c)) {
        fprintf(out, "\n%-40s %-16s %-11s %10s %10s %8s\n", "gain (numerator / denominator)",
                "machine", "role", "published", "predicted", "error");
        for (size_t i = 0; i < val_n_gains(c); i++) {
            const val_gain_t *v = val_gain(c, i);
            fprintf(out, "%-40s %-16s %-11s %9.3fx %9.3fx %8s\n", v->id,
                    val_case(c, v->num)->machine, gain_role(v), v->published_ratio,
                    v->predicted_ratio, pct(v->error, true, a, sizeof a));
        }
    }
    fprintf(out, "\n%-16s %6s %9s %9s %6s %9s %9s %7s %9s\n", "machine", "cases", "median|e|",
            "max|e|", "gains", "median|e|", "max|e|", "exempt", "median|e|");
    for (size_t i = 0; i < val_n_summaries(c); i++) {
        const val_summary_t *s = val_summary(c, i);
        fprintf(out, "%-16s %6zu %9s %9s %6zu %9s %9s %7zu %9s\n", s->machine, s->cases,
                pct(s->median_abs_err, false, a, sizeof a), pct(s->max_abs_err, false, b, sizeof b),
                s->gains, pct(s->median_gain_err, false, d, sizeof d),
                pct(s->max_gain_err, false, e, sizeof e), s->exempt,
                pct(s->exempt_median_abs_err, false, f, sizeof f));
    }
    (void)g;
    fprintf(out, "# exempt: calibration and anchor cases (and gains of them), scored apart from "
                 "the trust figures\n");
}

/* ---- csv --------------------------------------------------------------- */

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
}

static void write_csv(const val_corpus_t *c, FILE *out)
{
    fputs("record,id,source,machine,role,figure,unit,published_bps,predicted_bps,rel_error,"
          "published_ratio,predicted_ratio,cases,median_abs_err,max_abs_err,gains,"
          "median_gain_err,max_gain_err,exempt,exempt_median_abs_err\n",
          out);
    for (size_t i = 0; i < val_n_cases(c); i++) {
        const val_case_t *v = val_case(c, i);
        fputs("case,", out);
        report_csv_string(out, v->id);
        fputc(',', out);
        report_csv_string(out, v->source);
        fprintf(out, ",%s,%s,", v->machine, val_role_name(v->role));
        csv_num(out, v->figure);
        fputc(',', out);
        report_csv_string(out, v->unit);
        fputc(',', out);
        csv_num(out, v->published_bps);
        fputc(',', out);
        csv_num(out, v->predicted_bps);
        fputc(',', out);
        csv_num(out, v->error);
        fputs(",,,,,,,,,,\n", out);
    }
    for (size_t i = 0; i < val_n_gains(c); i++) {
        const val_gain_t *v = val_gain(c, i);
        fputs("gain,", out);
        report_csv_string(out, v->id);
        fputc(',', out);
        report_csv_string(out, v->source);
        fprintf(out, ",%s,%s,,,,,", val_case(c, v->num)->machine, gain_role(v));
        csv_num(out, v->error);
        fputc(',', out);
        csv_num(out, v->published_ratio);
        fputc(',', out);
        csv_num(out, v->predicted_ratio);
        fputs(",,,,,,,,\n", out);
    }
    for (size_t i = 0; i < val_n_summaries(c); i++) {
        const val_summary_t *s = val_summary(c, i);
        fprintf(out, "machine,,,%s,,,,,,,,,%zu,", s->machine, s->cases);
        csv_num(out, s->median_abs_err);
        fputc(',', out);
        csv_num(out, s->max_abs_err);
        fprintf(out, ",%zu,", s->gains);
        csv_num(out, s->median_gain_err);
        fputc(',', out);
        csv_num(out, s->max_gain_err);
        fprintf(out, ",%zu,", s->exempt);
        csv_num(out, s->exempt_median_abs_err);
        fputc('\n', out);
    }
}

/* ---- json -------------------------------------------------------------- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int set(json_t *o, const char *k, json_t *v, bool *ok)
{
    if (!v || json_object_set_new(o, k, v) != 0)
        *ok = false;
    return 0;
}

static json_t *build_json(const val_corpus_t *c)
{
    bool ok = true;
    json_t *root = json_object(), *cases = json_array(), *gains = json_array(),
           *machines = json_array(), *corpus = json_object();
    if (!root || !cases || !gains || !machines || !corpus) {
        json_decref(root), json_decref(cases), json_decref(gains), json_decref(machines);
        json_decref(corpus);
        return NULL;
    }
    set(corpus, "sources", json_integer((json_int_t)val_n_sources(c)), &ok);
    set(corpus, "cases", json_integer((json_int_t)val_n_cases(c)), &ok);
    set(corpus, "gains", json_integer((json_int_t)val_n_gains(c)), &ok);
    set(root, "corpus", corpus, &ok);
    for (size_t i = 0; ok && i < val_n_cases(c); i++) {
        const val_case_t *v = val_case(c, i);
        json_t *o = json_object();
        set(o, "id", json_string(v->id), &ok);
        set(o, "source", json_string(v->source), &ok);
        set(o, "machine", json_string(v->machine), &ok);
        set(o, "cpu", json_string(v->cpu), &ok);
        set(o, "sku_inferred", json_boolean(v->sku_inferred), &ok);
        set(o, "role", json_string(val_role_name(v->role)), &ok);
        set(o, "figure", jnum(v->figure), &ok);
        set(o, "unit", json_string(v->unit), &ok);
        set(o, "unit_inferred", json_boolean(v->unit_inferred), &ok);
        set(o, "spread", v->spread[0] ? json_string(v->spread) : json_null(), &ok);
        set(o, "command", json_string(v->command), &ok);
        set(o, "published_bps", jnum(v->published_bps), &ok);
        set(o, "predicted_bps", jnum(v->predicted_bps), &ok);
        set(o, "predicted_in_unit", jnum(predicted_in_unit(v)), &ok);
        set(o, "error", jnum(v->error), &ok);
        if (!o || json_array_append_new(cases, o) != 0)
            ok = false;
    }
    set(root, "cases", cases, &ok);
    for (size_t i = 0; ok && i < val_n_gains(c); i++) {
        const val_gain_t *v = val_gain(c, i);
        json_t *o = json_object();
        set(o, "id", json_string(v->id), &ok);
        set(o, "source", json_string(v->source), &ok);
        set(o, "machine", json_string(val_case(c, v->num)->machine), &ok);
        set(o, "numerator", json_string(val_case(c, v->num)->id), &ok);
        set(o, "denominator", json_string(val_case(c, v->den)->id), &ok);
        set(o, "exempt", json_boolean(v->exempt), &ok);
        set(o, "published_ratio", jnum(v->published_ratio), &ok);
        set(o, "predicted_ratio", jnum(v->predicted_ratio), &ok);
        set(o, "error", jnum(v->error), &ok);
        if (!o || json_array_append_new(gains, o) != 0)
            ok = false;
    }
    set(root, "gains", gains, &ok);
    for (size_t i = 0; ok && i < val_n_summaries(c); i++) {
        const val_summary_t *s = val_summary(c, i);
        json_t *o = json_object();
        set(o, "machine", json_string(s->machine), &ok);
        set(o, "cases", json_integer((json_int_t)s->cases), &ok);
        set(o, "median_abs_err", jnum(s->median_abs_err), &ok);
        set(o, "max_abs_err", jnum(s->max_abs_err), &ok);
        set(o, "gains", json_integer((json_int_t)s->gains), &ok);
        set(o, "median_gain_err", jnum(s->median_gain_err), &ok);
        set(o, "max_gain_err", jnum(s->max_gain_err), &ok);
        set(o, "exempt", json_integer((json_int_t)s->exempt), &ok);
        set(o, "exempt_median_abs_err", jnum(s->exempt_median_abs_err), &ok);
        set(o, "exempt_max_abs_err", jnum(s->exempt_max_abs_err), &ok);
        if (!o || json_array_append_new(machines, o) != 0)
            ok = false;
    }
    set(root, "machines", machines, &ok);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int val_write(const val_corpus_t *c, FILE *out, report_format_t fmt, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_JSON: {
        json_t *root = build_json(c);
        if (!root)
            return errbuf_set(err, errlen, "out of memory");
        int rc = report_json_dump(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    case REPORT_FMT_CSV:
        write_csv(c, out);
        break;
    default:
        write_text(c, out);
        break;
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "write error");
    return 0;
}

/* ---- docs/VALIDATION.md ------------------------------------------------- */

int valmd_fingerprint(const char *dir, uint64_t *out, char *err, size_t errlen)
{
    static char names[PREDMD_MACHINES_MAX][MACHINE_NAME_MAX];
    size_t n = 0;
    bool usage = false;
    uint64_t h = predmd_fnv1a_str(PREDMD_FNV_OFFSET, VALMD_VERSION), fp = 0;
    if (predmd_select("all", names, PREDMD_MACHINES_MAX, &n, &usage, err, errlen) != 0 ||
        predmd_fingerprint((const char(*)[MACHINE_NAME_MAX])names, n, &fp, err, errlen) != 0)
        return -1;
    h = predmd_fnv1a(h, &fp, sizeof fp);
    /* the corpus: the names in order, each with its contents */
    bool usage2 = false;
    val_corpus_t *c = val_load(dir, NULL, NULL, &usage2, err, errlen);
    if (!c)
        return -1;
    /* every file, in the order val_load read them (sorted by name) */
    for (size_t i = 0; i < val_n_sources(c); i++) {
        const char *file = val_source_file(c, i);
        char *text = NULL;
        size_t len = 0;
        if (infile_read(file, 4ull << 20, NULL, &text, &len, err, errlen) != 0) {
            val_destroy(c);
            return -1;
        }
        const char *base = strrchr(file, '/');
        h = predmd_fnv1a_str(h, base ? base + 1 : file);
        h = predmd_fnv1a(h, &len, sizeof len);
        h = predmd_fnv1a(h, text, len);
        free(text);
    }
    val_destroy(c);
    *out = h;
    return 0;
}

static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

int valmd_write(const val_corpus_t *c, FILE *out, uint64_t fingerprint, const char *regen,
                char *err, size_t errlen)
{
    char a[32], b[32], d[32], e[32], f[32];
    fprintf(out, "# Validation: predictions against published figures\n\n");
    fprintf(out, "<!-- generated by `%s`; do not edit -->\n\n", regen);
    fprintf(out,
            "Every clearing, fill, memset and page-fault clearing figure the project has found "
            "published for a bundled machine (`data/published/`, one file per source), next "
            "to what clearsim predicts for it with the command line given in the row. The error "
            "is predicted / published - 1, on throughput. A gain is the ratio of two figures of "
            "one source (a faster or new way over its baseline), published against predicted. "
            "Calibration cases (the Milan and Ice Lake-SP calibration set) and anchors (a "
            "machine's one DRAM-scale fill figure that may set its memory write link) are "
            "marked and scored apart: they are not in the trust figures of `clearsim machines`, "
            "`run`, `bench` and `explain`. Throughputs are in GB/s as perf prints them "
            "(bytes / 2^30 per second).\n\n");
    fprintf(out,
            "Generated by `%s` from %zu sources: %zu figures, %zu gains. Regenerate it "
            "whenever a machine file, the model or the corpus changes (CI fails when it is "
            "stale).\n\n",
            regen, val_n_sources(c), val_n_cases(c), val_n_gains(c));
    fprintf(out, "%s%016llx\n\n", PREDMD_FINGERPRINT_PREFIX, (unsigned long long)fingerprint);
    fprintf(out, "## Summary\n\n");
    fprintf(out, "| machine | figures | median \\|error\\| | largest \\|error\\| | gains | median "
                 "\\|gain error\\| | largest \\|gain error\\| | exempt figures | their median "
                 "\\|error\\| |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < val_n_summaries(c); i++) {
        const val_summary_t *s = val_summary(c, i);
        fprintf(out, "| %s | %zu | %s | %s | %zu | %s | %s | %zu | %s |\n", s->machine, s->cases,
                pct(s->median_abs_err, false, a, sizeof a), pct(s->max_abs_err, false, b, sizeof b),
                s->gains, pct(s->median_gain_err, false, d, sizeof d),
                pct(s->max_gain_err, false, e, sizeof e), s->exempt,
                pct(s->exempt_median_abs_err, false, f, sizeof f));
    }
    fprintf(out, "\n![Predicted against published, log-log, with y = x and a 15%% band]"
                 "(img/validation.png)\n\n"
                 "(drawn by `bash plots/make-examples.sh`: `clearsim validate --format csv` "
                 "through `clearsim plot --kind validation`)\n");
    for (size_t j = 0; j < val_n_summaries(c); j++) {
        const char *m = val_summary(c, j)->machine;
        fprintf(out, "\n## %s\n\n", m);
        fprintf(out, "| case | source | CPU as written | published | predicted | error | role | "
                     "clearsim command |\n|---|---|---|---:|---:|---:|---|---|\n");
        for (size_t i = 0; i < val_n_cases(c); i++) {
            const val_case_t *v = val_case(c, i);
            if (strcmp(v->machine, m) != 0)
                continue;
            fprintf(out, "| %s | [%s] | ", v->id, v->source);
            md_text(out, v->cpu);
            /* a spread as its source wrote it ("+- 0.14s", "+/- 1%", "± 2%"),
             * after one "±" */
            const char *spread = v->spread;
            if (!strncmp(spread, "+/-", 3))
                spread += 3;
            else if (!strncmp(spread, "+-", 2))
                spread += 2;
            else if (!strncmp(spread, "±", strlen("±")))
                spread += strlen("±");
            while (*spread == ' ')
                spread++;
            fprintf(out, "%s | %g %s%s%s%s | %s %s | %s | %s | `",
                    v->sku_inferred ? " (SKU inferred)" : "", v->figure, v->unit,
                    v->unit_inferred ? " (unit inferred)" : "", spread[0] ? " ± " : "", spread,
                    num4(predicted_in_unit(v), b, sizeof b), v->unit,
                    pct(v->error, true, a, sizeof a), val_role_name(v->role));
            md_text(out, v->command);
            fputs("` |\n", out);
        }
        bool any = false;
        for (size_t i = 0; i < val_n_gains(c); i++) {
            const val_gain_t *g = val_gain(c, i);
            if (strcmp(val_case(c, g->num)->machine, m) != 0)
                continue;
            if (!any)
                fprintf(out, "\n| gain | source | numerator / denominator | published | "
                             "predicted | error | role |\n|---|---|---|---:|---:|---:|---|\n");
            any = true;
            fprintf(out, "| %s | [%s] | %s / %s | %.3fx | %.3fx | %s | %s |\n", g->id, g->source,
                    val_case(c, g->num)->id, val_case(c, g->den)->id, g->published_ratio,
                    g->predicted_ratio, pct(g->error, true, a, sizeof a), gain_role(g));
        }
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "write error");
    return 0;
}

int valmd_write_trust(const val_corpus_t *c, FILE *out, uint64_t fingerprint, const char *regen,
                      char *err, size_t errlen)
{
    fprintf(out,
            "# The trust figures of clearsim machines, run, bench and explain: generated by "
            "`%s`; do not edit.\n",
            regen);
    fprintf(out, "%s%016llx\n", PREDMD_FINGERPRINT_PREFIX, (unsigned long long)fingerprint);
    fprintf(out, "%s\n", TRUST_HEADER);
    for (size_t i = 0; i < val_n_summaries(c); i++) {
        const val_summary_t *s = val_summary(c, i);
        if (s->cases == 0)
            continue;
        fprintf(out, "%s,%s,%zu,", s->machine, s->machine_file_sha256, s->cases);
        csv_num(out, s->median_abs_err);
        fputc(',', out);
        csv_num(out, s->max_abs_err);
        fprintf(out, ",%zu,", s->gains);
        csv_num(out, s->median_gain_err);
        fputc(',', out);
        csv_num(out, s->max_gain_err);
        fputc('\n', out);
    }
    if (ferror(out))
        return errbuf_set(err, errlen, "write error");
    return 0;
}
