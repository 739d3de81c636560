/*
 * report.c - the row of a run result, its csv and json printers, and the
 * listings of kernels and machines (the text printer is report_text.c).
 *
 * Notes
 *  - report_collect() is the one place that decides which fields a result
 *    has, in which order, under which names: inputs (from wl_spec_t), results
 *    (bytes, cycles, seconds, bytes_per_sec, extrapolated, error_bound), the
 *    perf-named counters (run_std_counters first, in that order, then any
 *    other counter the machine maps) and the per-level traffic (from
 *    stats_t). The three printers only walk that row.
 *  - Native results (sim/native.h) go through the same row and printers:
 *    report_collect_native() is report_collect() of the embedded run_result_t
 *    with what a native run does not measure set to null (traffic; cycles
 *    without a cycles counter), then the `native` object. The text printer
 *    swaps the simulated model/traffic lines for the run statistics.
 *  - Traffic comes straight from the internal events: lN.hits / lN.misses /
 *    lN.writebacks are line counts (ST_Ln_HITS, ST_Ln_MISSES,
 *    ST_Ln_WRITEBACKS), dram_read_bytes / dram_write_bytes are the byte
 *    totals of ST_DRAM_READS / ST_DRAM_WRITES.
 *  - Deliberately not done: no unit scaling of counters, no rounding of
 *    values in csv or json (doubles use 17 significant digits), no locale
 *    (thousands separators are always ',').
 *  - Units: see report.h.
 */
#include "sim/report.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "sim/errbuf.h"
#include "sim/native.h"
#include "sim/workload.h"

/* ------------------------------------------------------------------------ */
/* formats and small helpers                                                 */

static const char *const format_names[] = {
    [REPORT_FMT_TEXT] = "text",
    [REPORT_FMT_CSV] = "csv",
    [REPORT_FMT_JSON] = "json",
};

int report_format_parse(const char *s, report_format_t *out)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++) {
        if (s && strcmp(s, format_names[i]) == 0) {
            *out = (report_format_t)i;
            return 0;
        }
    }
    return -1;
}

const char *report_format_name(report_format_t f)
{
    return (unsigned)f < sizeof format_names / sizeof format_names[0] ? format_names[f] : "?";
}

char *report_group_digits(uint64_t v, char *buf, size_t len)
{
    char digits[24];
    int nd = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t out_len = (size_t)nd + (size_t)(nd - 1) / 3;
    if (len == 0)
        return buf;
    if (out_len + 1 > len) {
        /* Too small a buffer: leave it empty rather than truncated. */
        buf[0] = '\0';
        return buf;
    }
    size_t o = 0;
    for (int i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static const char *str_or_unknown(const char *s)
{
    return s ? s : "?";
}

/* ------------------------------------------------------------------------ */
/* collection                                                                */

static report_field_t *add_field(report_row_t *row, const char *a, const char *b, const char *c)
{
    if (row->n >= REPORT_FIELDS_MAX)
        return NULL;
    report_field_t *f = &row->f[row->n++];
    memset(f, 0, sizeof *f);
    f->path[0] = a;
    f->path[1] = b;
    f->path[2] = c;
    f->depth = c ? 3 : b ? 2 : 1;
    return f;
}

#define ADD_OR_FAIL(f, a, b, c)                                                                    \
    do {                                                                                           \
        (f) = add_field(row, (a), (b), (c));                                                       \
        if (!(f)) {                                                                                \
            errbuf_set(err, errlen, "report: more than %d fields", REPORT_FIELDS_MAX);             \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int add_str(report_row_t *row, const char *key, const char *v, char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, key, NULL, NULL);
    f->kind = REPORT_V_STR;
    f->s = str_or_unknown(v);
    return 0;
}

static int add_u64(report_row_t *row, const char *a, const char *b, const char *c, uint64_t v,
                   char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, a, b, c);
    f->kind = REPORT_V_U64;
    f->u = v;
    return 0;
}

static int add_double(report_row_t *row, const char *key, double v, char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, key, NULL, NULL);
    f->kind = isfinite(v) ? REPORT_V_DOUBLE : REPORT_V_NULL;
    f->d = v;
    return 0;
}

static int add_bool(report_row_t *row, const char *key, bool v, char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, key, NULL, NULL);
    f->kind = REPORT_V_BOOL;
    f->b = v;
    return 0;
}

static bool is_std_counter(const char *name)
{
    for (const char *const *p = run_std_counters; *p; p++)
        if (strcmp(*p, name) == 0)
            return true;
    return false;
}

static int add_counter(report_row_t *row, const run_counter_t *c, const char *name, char *err,
                       size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, "counters", name, NULL);
    if (c && c->supported) {
        f->kind = REPORT_V_U64;
        f->u = c->value;
    } else {
        f->kind = REPORT_V_NULL;
    }
    return 0;
}

static const run_counter_t *find_counter(const run_result_t *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_counters; i++)
        if (strcmp(r->counters[i].name, name) == 0)
            return &r->counters[i];
    return NULL;
}

int report_collect(const run_result_t *r, report_row_t *row, char *err, size_t errlen)
{
    const wl_spec_t *s = &r->spec;
    row->n = 0;

    if (r->n_counters > RUN_COUNTERS_MAX) {
        errbuf_set(err, errlen, "report: result has %" PRIu32 " counters (at most %d)",
                   r->n_counters, RUN_COUNTERS_MAX);
        return -1;
    }
    if (memchr(r->machine, '\0', sizeof r->machine) == NULL ||
        memchr(s->function, '\0', sizeof s->function) == NULL) {
        errbuf_set(err, errlen, "report: machine or function name is not terminated");
        return -1;
    }

    /* inputs */
    if (add_str(row, "machine", r->machine, err, errlen) ||
        add_str(row, "workload", wl_kind_name(s->kind), err, errlen) ||
        add_str(row, "function", s->function, err, errlen) ||
        add_str(row, "caller", wl_caller_name(s->caller), err, errlen) ||
        add_str(row, "fault", wl_fault_name(s->fault), err, errlen) ||
        add_str(row, "preempt", caller_preempt_name(s->preempt), err, errlen) ||
        add_u64(row, "page_bytes", NULL, NULL, s->page_bytes, err, errlen) ||
        add_u64(row, "size_bytes", NULL, NULL, s->size_bytes, err, errlen) ||
        add_u64(row, "chunk_bytes", NULL, NULL, s->chunk_bytes, err, errlen) ||
        add_u64(row, "extent_cap_bytes", NULL, NULL, s->extent_cap_bytes, err, errlen) ||
        add_u64(row, "loops", NULL, NULL, s->loops, err, errlen) ||
        add_u64(row, "fill", NULL, NULL, s->fill, err, errlen))
        return -1;

    /* results */
    if (add_u64(row, "bytes", NULL, NULL, r->bytes, err, errlen) ||
        add_u64(row, "cycles", NULL, NULL, r->cycles, err, errlen) ||
        add_double(row, "seconds", r->seconds, err, errlen) ||
        add_double(row, "bytes_per_sec", r->bytes_per_sec, err, errlen) ||
        add_bool(row, "extrapolated", r->extrapolated, err, errlen) ||
        add_double(row, "error_bound", r->error_bound, err, errlen))
        return -1;

    /* counters: the standard set in order, then any other mapped event */
    for (const char *const *p = run_std_counters; *p; p++)
        if (add_counter(row, find_counter(r, *p), *p, err, errlen))
            return -1;
    for (uint32_t i = 0; i < r->n_counters; i++) {
        const run_counter_t *c = &r->counters[i];
        if (memchr(c->name, '\0', sizeof c->name) == NULL || c->name[0] == '\0') {
            errbuf_set(err, errlen, "report: counter %" PRIu32 " has no name", i);
            return -1;
        }
        if (is_std_counter(c->name) || find_counter(r, c->name) != c)
            continue; /* printed already (standard, or a duplicate name) */
        if (add_counter(row, c, c->name, err, errlen))
            return -1;
    }

    /* traffic */
    static const struct {
        const char *level;
        stats_event_t hits, misses, writebacks;
    } levels[] = {
        {"l1", ST_L1_HITS, ST_L1_MISSES, ST_L1_WRITEBACKS},
        {"l2", ST_L2_HITS, ST_L2_MISSES, ST_L2_WRITEBACKS},
        {"l3", ST_L3_HITS, ST_L3_MISSES, ST_L3_WRITEBACKS},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (add_u64(row, "traffic", levels[i].level, "hits", r->stats.count[levels[i].hits], err,
                    errlen) ||
            add_u64(row, "traffic", levels[i].level, "misses", r->stats.count[levels[i].misses],
                    err, errlen) ||
            add_u64(row, "traffic", levels[i].level, "writebacks",
                    r->stats.count[levels[i].writebacks], err, errlen))
            return -1;
    }
    if (add_u64(row, "traffic", "dram_read_bytes", NULL, r->stats.bytes[ST_DRAM_READS], err,
                errlen) ||
        add_u64(row, "traffic", "dram_write_bytes", NULL, r->stats.bytes[ST_DRAM_WRITES], err,
                errlen))
        return -1;
    return 0;
}

static bool path_eq(const char *x, const char *y)
{
    if (!x || !y)
        return x == y;
    return strcmp(x, y) == 0;
}

const report_field_t *report_row_find(const report_row_t *row, const char *a, const char *b,
                                      const char *c)
{
    for (size_t i = 0; i < row->n; i++) {
        const report_field_t *f = &row->f[i];
        if (path_eq(f->path[0], a) && path_eq(f->path[1], b) && path_eq(f->path[2], c))
            return f;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* native results                                                            */

static int add_str_at(report_row_t *row, const char *a, const char *b, const char *c, const char *v,
                      char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, a, b, c);
    f->kind = v && v[0] ? REPORT_V_STR : REPORT_V_NULL;
    f->s = v;
    return 0;
}

static int add_double_at(report_row_t *row, const char *a, const char *b, const char *c, double v,
                         char *err, size_t errlen)
{
    report_field_t *f;
    ADD_OR_FAIL(f, a, b, c);
    f->kind = isfinite(v) ? REPORT_V_DOUBLE : REPORT_V_NULL;
    f->d = v;
    return 0;
}

static int add_native_stat(report_row_t *row, const char *key, const native_stat_t *st, char *err,
                           size_t errlen)
{
    return add_double_at(row, "native", key, "mean", st->mean, err, errlen) ||
                   add_double_at(row, "native", key, "stddev", st->stddev, err, errlen) ||
                   add_double_at(row, "native", key, "ci95", st->ci95, err, errlen)
               ? -1
               : 0;
}

int report_collect_native(const native_result_t *n, report_row_t *row, char *err, size_t errlen)
{
    if (report_collect(&n->run, row, err, errlen) != 0)
        return -1;
    /* what a native run does not measure is null, never a made-up zero */
    for (size_t i = 0; i < row->n; i++) {
        report_field_t *f = &row->f[i];
        if (strcmp(f->path[0], "traffic") == 0 ||
            (f->depth == 1 && strcmp(f->path[0], "cycles") == 0 && !n->cycles_measured))
            f->kind = REPORT_V_NULL;
    }
#define TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)
    if (!TERMINATED(n->counters_via) || !TERMINATED(n->counters_reason) ||
        !TERMINATED(n->host_model) || !TERMINATED(n->kernel_release) ||
        !TERMINATED(n->kernel_version) || !TERMINATED(n->kernel_preempt) ||
        !TERMINATED(n->preempt_source) || !TERMINATED(n->page_how)) {
        errbuf_set(err, errlen, "report: a native string is not terminated");
        return -1;
    }
#undef TERMINATED
    if (add_u64(row, "native", "repeat", NULL, n->repeat, err, errlen) ||
        add_u64(row, "native", "cpu", NULL, n->cpu, err, errlen) ||
        add_native_stat(row, "seconds", &n->seconds, err, errlen) ||
        add_native_stat(row, "bytes_per_sec", &n->bytes_per_sec, err, errlen) ||
        add_str_at(row, "native", "page_mode", NULL, native_page_mode_name(n->page_mode), err,
                   errlen) ||
        add_str_at(row, "native", "page_how", NULL, n->page_how, err, errlen) ||
        add_u64(row, "native", "huge_bytes", NULL, n->huge_bytes, err, errlen) ||
        add_str_at(row, "native", "counters_via", NULL, n->counters_via, err, errlen) ||
        add_str_at(row, "native", "counters_reason", NULL, n->counters_reason, err, errlen) ||
        add_str_at(row, "native", "host_model", NULL, n->host_model, err, errlen) ||
        add_str_at(row, "native", "kernel_release", NULL, n->kernel_release, err, errlen) ||
        add_str_at(row, "native", "kernel_version", NULL, n->kernel_version, err, errlen) ||
        add_str_at(row, "native", "kernel_preempt", NULL, n->kernel_preempt, err, errlen) ||
        add_str_at(row, "native", "preempt_source", NULL, n->preempt_source, err, errlen))
        return -1;
    return 0;
}

/* The row of a simulated result (n NULL) or of a native one. */
static int collect_any(const run_result_t *r, const native_result_t *n, report_row_t *row,
                       char *err, size_t errlen)
{
    return n ? report_collect_native(n, row, err, errlen) : report_collect(r, row, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* json                                                                      */

/* A json value for a field, or NULL with a reason. */
static json_t *field_json(const report_field_t *f, char *err, size_t errlen)
{
    switch (f->kind) {
    case REPORT_V_NULL:
        return json_null();
    case REPORT_V_STR:
        return json_string(f->s);
    case REPORT_V_BOOL:
        return json_boolean(f->b);
    case REPORT_V_DOUBLE:
        return json_real(f->d);
    case REPORT_V_U64:
        if (f->u > (uint64_t)INT64_MAX) {
            errbuf_set(err, errlen, "report: %s%s%s%s%s = %" PRIu64 " does not fit a JSON integer",
                       f->path[0], f->path[1] ? "." : "", f->path[1] ? f->path[1] : "",
                       f->path[2] ? "." : "", f->path[2] ? f->path[2] : "", f->u);
            return NULL;
        }
        return json_integer((json_int_t)f->u);
    }
    errbuf_set(err, errlen, "report: field of unknown kind");
    return NULL;
}

static json_t *row_json(const run_result_t *r, const native_result_t *n, char *err, size_t errlen)
{
    report_row_t *row = malloc(sizeof *row);
    if (!row) {
        errbuf_set(err, errlen, "report: out of memory");
        return NULL;
    }
    if (collect_any(r, n, row, err, errlen) != 0) {
        free(row);
        return NULL;
    }
    json_t *root = json_object();
    if (!root)
        goto oom;
    for (size_t i = 0; i < row->n; i++) {
        const report_field_t *f = &row->f[i];
        json_t *parent = root;
        for (unsigned d = 0; d + 1 < f->depth; d++) {
            json_t *child = json_object_get(parent, f->path[d]);
            if (!child) {
                child = json_object();
                if (!child || json_object_set_new(parent, f->path[d], child) != 0)
                    goto oom;
            } else if (!json_is_object(child)) {
                errbuf_set(err, errlen, "report: json key '%s' is both a value and an object",
                           f->path[d]);
                goto fail;
            }
            parent = child;
        }
        json_t *v = field_json(f, err, errlen);
        if (!v)
            goto fail;
        if (json_object_set_new(parent, f->path[f->depth - 1], v) != 0)
            goto oom;
    }
    free(row);
    return root;
oom:
    errbuf_set(err, errlen, "report: out of memory building json");
fail:
    json_decref(root);
    free(row);
    return NULL;
}

void *report_run_json(const run_result_t *r, char *err, size_t errlen)
{
    return row_json(r, NULL, err, errlen);
}

void *report_native_json(const native_result_t *n, char *err, size_t errlen)
{
    return row_json(&n->run, n, err, errlen);
}

static int dump_json(FILE *out, json_t *root, char *err, size_t errlen)
{
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (rc != 0 || fputc('\n', out) == EOF) {
        errbuf_set(err, errlen, "report: cannot write json output");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* csv                                                                       */

static void csv_string(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_value(FILE *out, const report_field_t *f)
{
    switch (f->kind) {
    case REPORT_V_NULL:
        break;
    case REPORT_V_STR:
        csv_string(out, f->s);
        break;
    case REPORT_V_BOOL:
        fputs(f->b ? "true" : "false", out);
        break;
    case REPORT_V_DOUBLE:
        fprintf(out, "%.17g", f->d);
        break;
    case REPORT_V_U64:
        fprintf(out, "%" PRIu64, f->u);
        break;
    }
}

static int csv_print(FILE *out, const run_result_t *r, const native_result_t *n, bool header,
                     bool values, char *err, size_t errlen)
{
    report_row_t *row = malloc(sizeof *row);
    if (!row) {
        errbuf_set(err, errlen, "report: out of memory");
        return -1;
    }
    if (collect_any(r, n, row, err, errlen) != 0) {
        free(row);
        return -1;
    }
    if (header) {
        for (size_t i = 0; i < row->n; i++) {
            char name[3 * CFG_NAME_MAX + 8];
            const report_field_t *f = &row->f[i];
            snprintf(name, sizeof name, "%s%s%s%s%s", f->path[0], f->path[1] ? "." : "",
                     f->path[1] ? f->path[1] : "", f->path[2] ? "." : "",
                     f->path[2] ? f->path[2] : "");
            if (i > 0)
                fputc(',', out);
            csv_string(out, name);
        }
        fputc('\n', out);
    }
    if (values) {
        for (size_t i = 0; i < row->n; i++) {
            if (i > 0)
                fputc(',', out);
            csv_value(out, &row->f[i]);
        }
        fputc('\n', out);
    }
    free(row);
    if (ferror(out)) {
        errbuf_set(err, errlen, "report: cannot write csv output");
        return -1;
    }
    return 0;
}

int report_csv_header(FILE *out, const run_result_t *r, char *err, size_t errlen)
{
    return csv_print(out, r, NULL, true, false, err, errlen);
}

int report_csv_row(FILE *out, const run_result_t *r, char *err, size_t errlen)
{
    return csv_print(out, r, NULL, false, true, err, errlen);
}

int report_native_csv_header(FILE *out, const native_result_t *n, char *err, size_t errlen)
{
    return csv_print(out, &n->run, n, true, false, err, errlen);
}

int report_native_csv_row(FILE *out, const native_result_t *n, char *err, size_t errlen)
{
    return csv_print(out, &n->run, n, false, true, err, errlen);
}

int report_run(FILE *out, report_format_t fmt, const run_result_t *r, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_TEXT:
        return report_text(out, r, NULL, err, errlen);
    case REPORT_FMT_CSV:
        return csv_print(out, r, NULL, true, true, err, errlen);
    case REPORT_FMT_JSON: {
        json_t *root = report_run_json(r, err, errlen);
        if (!root)
            return -1;
        int rc = dump_json(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    }
    errbuf_set(err, errlen, "report: unknown format %d", (int)fmt);
    return -1;
}

int report_native(FILE *out, report_format_t fmt, const native_result_t *n, char *err,
                  size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_TEXT:
        return report_text(out, &n->run, n, err, errlen);
    case REPORT_FMT_CSV:
        return csv_print(out, &n->run, n, true, true, err, errlen);
    case REPORT_FMT_JSON: {
        json_t *root = report_native_json(n, err, errlen);
        if (!root)
            return -1;
        int rc = dump_json(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    }
    errbuf_set(err, errlen, "report: unknown format %d", (int)fmt);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* functions                                                                 */

#define NEEDS_MAX 16

int report_functions(FILE *out, report_format_t fmt, char *err, size_t errlen)
{
    const kern_info_t *table = kern_table();
    if (fmt == REPORT_FMT_JSON) {
        json_t *root = json_object();
        json_t *list = json_array();
        if (!root || !list || json_object_set_new(root, "functions", list) != 0) {
            json_decref(root);
            errbuf_set(err, errlen, "report: out of memory building json");
            return -1;
        }
        for (const kern_info_t *k = table; k && k->name; k++) {
            const char *names[NEEDS_MAX];
            size_t n = kern_needs_names(k, names, NEEDS_MAX);
            json_t *o = json_object();
            json_t *needs = json_array();
            int bad = !o || !needs;
            for (size_t i = 0; !bad && i < n && i < NEEDS_MAX; i++)
                bad |= json_array_append_new(needs, json_string(names[i]));
            if (!bad) {
                bad |= json_object_set_new(o, "name", json_string(k->name));
                bad |= json_object_set_new(o, "isa", json_string(kern_isa_name(k->isa)));
                bad |= json_object_set_new(o, "needs", needs);
                needs = NULL;
                bad |= json_object_set_new(o, "granule_bytes", json_integer(k->granule_bytes));
                bad |= json_object_set_new(o, "description",
                                           json_string(str_or_unknown(k->description)));
                bad |= json_array_append_new(list, o);
                o = NULL;
            }
            if (bad) {
                json_decref(o);
                json_decref(needs);
                json_decref(root);
                errbuf_set(err, errlen, "report: cannot build json for kernel '%s'", k->name);
                return -1;
            }
        }
        int rc = dump_json(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    if (fmt != REPORT_FMT_TEXT) {
        errbuf_set(err, errlen, "functions: format '%s' is not supported; use text or json",
                   report_format_name(fmt));
        return -1;
    }
    fprintf(out, "%-14s %-7s %-18s %s\n", "NAME", "ISA", "NEEDS", "DESCRIPTION");
    for (const kern_info_t *k = table; k && k->name; k++) {
        const char *names[NEEDS_MAX];
        size_t n = kern_needs_names(k, names, NEEDS_MAX);
        char needs[128] = "-";
        size_t o = 0;
        for (size_t i = 0; i < n && i < NEEDS_MAX; i++) {
            int w = snprintf(needs + o, sizeof needs - o, "%s%s", i ? "," : "", names[i]);
            if (w < 0 || (size_t)w >= sizeof needs - o)
                break;
            o += (size_t)w;
        }
        fprintf(out, "%-14s %-7s %-18s %s\n", k->name, kern_isa_name(k->isa), needs,
                str_or_unknown(k->description));
    }
    if (ferror(out)) {
        errbuf_set(err, errlen, "report: cannot write output");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* machines                                                                  */

int report_machines(FILE *out, report_format_t fmt, const cfg_machine_t *const *ms, size_t n,
                    char *err, size_t errlen)
{
    if (fmt == REPORT_FMT_JSON) {
        json_t *root = json_object();
        json_t *list = json_array();
        if (!root || !list || json_object_set_new(root, "machines", list) != 0) {
            json_decref(root);
            errbuf_set(err, errlen, "report: out of memory building json");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            const cfg_machine_t *m = ms[i];
            json_t *o = json_object();
            int bad = !o;
            if (!bad) {
                bad |= json_object_set_new(o, "name", json_string(m->name));
                bad |= json_object_set_new(o, "isa", json_string(cfg_isa_name(m->isa)));
                bad |= json_object_set_new(o, "vendor", json_string(m->vendor));
                bad |= json_object_set_new(o, "model_name", json_string(m->model_name));
                bad |= json_object_set_new(o, "description", json_string(m->description));
                bad |= json_object_set_new(o, "freq_ghz", json_real(m->freq_ghz));
                bad |= json_object_set_new(o, "path", json_string(m->path));
                bad |= json_array_append_new(list, o);
            }
            if (bad) {
                json_decref(root);
                errbuf_set(err, errlen, "report: cannot build json for machine '%s'", m->name);
                return -1;
            }
        }
        int rc = dump_json(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    if (fmt != REPORT_FMT_TEXT) {
        errbuf_set(err, errlen, "machines: format '%s' is not supported; use text or json",
                   report_format_name(fmt));
        return -1;
    }
    fprintf(out, "%-24s %-7s %-40s %s\n", "NAME", "ISA", "MODEL", "DESCRIPTION");
    for (size_t i = 0; i < n; i++) {
        const cfg_machine_t *m = ms[i];
        fprintf(out, "%-24s %-7s %-40s %s\n", m->name, cfg_isa_name(m->isa),
                m->model_name[0] ? m->model_name : "-", m->description[0] ? m->description : "-");
    }
    if (ferror(out)) {
        errbuf_set(err, errlen, "report: cannot write output");
        return -1;
    }
    return 0;
}
