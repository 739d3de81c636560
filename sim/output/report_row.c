/*
 * report_row.c - the row of a run result: the one source of truth every
 * printer walks (text: report_text.c; csv and json: report_data.c), and the
 * output formats' names.
 *
 * Notes
 *  - report_collect() is the one place that decides which fields a result
 *    has, in which order, under which names: inputs (from wl_spec_t), results
 *    (bytes, cycles, seconds, bytes_per_sec, extrapolated, error_bound), the
 *    perf-named counters (run_std_counters first, in that order, then any
 *    other counter the machine maps) and the per-level traffic (from
 *    stats_t). The three printers only walk that row.
 *  - Native results (sim/host/native_run.h) go through the same row and printers:
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
#include "sim/output/report.h"

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

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------ */
/* formats and small helpers                                                 */

const name_value_t report_format_names[] = {
    {"text", REPORT_FMT_TEXT}, {"csv", REPORT_FMT_CSV}, {"json", REPORT_FMT_JSON}, {NULL, 0}};
const name_value_t report_list_format_names[] = {
    {"text", REPORT_FMT_TEXT}, {"json", REPORT_FMT_JSON}, {NULL, 0}};

int report_format_parse(const char *s, report_format_t *out)
{
    int v;
    if (name_parse(report_format_names, s, &v) != 0)
        return -1;
    *out = (report_format_t)v;
    return 0;
}

const char *report_format_name(report_format_t f)
{
    return name_of(report_format_names, (int)f);
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

const char *report_or_unknown(const char *s)
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
    f->s = report_or_unknown(v);
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
        memchr(r->set, '\0', sizeof r->set) == NULL ||
        memchr(r->machine_file_sha256, '\0', sizeof r->machine_file_sha256) == NULL ||
        memchr(s->function, '\0', sizeof s->function) == NULL) {
        errbuf_set(err, errlen, "report: machine or function name is not terminated");
        return -1;
    }

    /* inputs */
    if (add_str(row, "machine", r->machine, err, errlen) ||
        add_str(row, "set", r->set, err, errlen) ||
        add_str(row, "machine_file_sha256", r->machine_file_sha256, err, errlen) ||
        add_str(row, "clearsim_version", CLEARSIM_VERSION, err, errlen) ||
        add_str(row, "workload", wl_kind_name(s->kind), err, errlen) ||
        add_str(row, "function", s->function, err, errlen) ||
        add_str(row, "caller", wl_caller_name(s->caller), err, errlen) ||
        add_str(row, "fault", wl_fault_name(s->fault), err, errlen) ||
        add_str(row, "preempt", caller_preempt_name(s->preempt), err, errlen) ||
        add_u64(row, "page_bytes", NULL, NULL, s->page_bytes, err, errlen) ||
        add_u64(row, "base_page_bytes", NULL, NULL, s->base_page_bytes, err, errlen) ||
        add_str(row, "thp", wl_thp_name(s->thp), err, errlen) ||
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
        (s->kind == WL_LATENCY && add_double(row, "ns_per_load", r->ns_per_load, err, errlen)) ||
        add_bool(row, "extrapolated", r->extrapolated, err, errlen) ||
        add_double(row, "error_bound", r->error_bound, err, errlen) ||
        add_u64(row, "bulk_lines", NULL, NULL, r->bulk_lines, err, errlen))
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
        !TERMINATED(n->preempt_source) || !TERMINATED(n->page_how) || !TERMINATED(n->date_utc)) {
        errbuf_set(err, errlen, "report: a native string is not terminated");
        return -1;
    }
#undef TERMINATED
    if (add_u64(row, "native", "repeat", NULL, n->repeat, err, errlen) ||
        add_u64(row, "native", "cpu", NULL, n->cpu, err, errlen) ||
        add_u64(row, "native", "warm_up_runs", NULL, n->warm_runs, err, errlen) ||
        add_double_at(row, "native", "warm_up_seconds", NULL, n->warm_seconds, err, errlen) ||
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
        add_str_at(row, "native", "preempt_source", NULL, n->preempt_source, err, errlen) ||
        add_str_at(row, "native", "thp_enabled", NULL, n->thp_enabled, err, errlen) ||
        add_u64(row, "native", "base_page_bytes", NULL, n->base_page_bytes, err, errlen) ||
        add_str_at(row, "native", "date_utc", NULL, n->date_utc, err, errlen) ||
        add_double_at(row, "native", "clock_ghz", "before",
                      n->clock_ghz_before > 0 ? n->clock_ghz_before : NAN, err, errlen) ||
        add_double_at(row, "native", "clock_ghz", "after",
                      n->clock_ghz_after > 0 ? n->clock_ghz_after : NAN, err, errlen))
        return -1;
    return 0;
}

/* The row of a simulated result (n NULL) or of a native one. */
int report_collect_any(const run_result_t *r, const native_result_t *n, report_row_t *row,
                       char *err, size_t errlen)
{
    return n ? report_collect_native(n, row, err, errlen) : report_collect(r, row, err, errlen);
}
