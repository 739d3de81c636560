/*
 * report.h - printers for results (run), kernels (functions) and machine
 * files (machines): text, csv and json.
 *
 * Notes
 *  - Collection is separate from printing. report_collect() flattens one
 *    run_result_t into a row of typed fields (path + value); the text, csv
 *    and json printers all read that row, so the three formats cannot
 *    disagree. The field list and its meaning are documented in docs/JSON.md.
 *  - Numbers are printed as they are: nothing is rounded up, clamped or
 *    replaced. A counter the machine does not map is "not supported": null in
 *    json, empty in csv, "<not supported>" in text. A ratio the text printer
 *    derives with a zero denominator prints "-". A non-finite double is null
 *    (json), empty (csv) or "-" (text).
 *  - Units: *_bytes are bytes, cycles are core cycles, seconds are seconds,
 *    bytes_per_sec is bytes per second. The text printer's "GB/sec" is binary
 *    (bytes / 2^30 per second), as perf bench prints it.
 *  - JSON integers are int64 in jansson. A uint64 value above INT64_MAX is an
 *    error (-1 with a reason), never a wrapped number.
 *  - Library code: printers write to the FILE they are given and return 0, or
 *    -1 with a one-line reason; they never print errors or exit.
 */
#ifndef CLEARSIM_REPORT_H
#define CLEARSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/base/machine.h"
#include "models/base/names.h"
#include "sim/engine/run.h"

typedef enum report_format { REPORT_FMT_TEXT = 0, REPORT_FMT_CSV, REPORT_FMT_JSON } report_format_t;

/* "text" | "csv" | "json". Returns 0, or -1 if s is none of them. */
/* Every format, and the two a listing (functions, machines) has. */
extern const name_value_t report_format_names[];
extern const name_value_t report_list_format_names[];
int report_format_parse(const char *s, report_format_t *out);
const char *report_format_name(report_format_t f);

/* ---- the row: one source of truth for every format ---- */

typedef enum report_vkind {
    REPORT_V_NULL = 0, /* not supported / undefined */
    REPORT_V_STR,
    REPORT_V_U64,
    REPORT_V_DOUBLE,
    REPORT_V_BOOL,
} report_vkind_t;

#define REPORT_PATH_MAX 3

typedef struct report_field {
    /* JSON path: path[0] is a top-level key; path[1], path[2] nest inside
     * objects ("counters", "L1-dcache-loads"). csv joins them with '.'. */
    const char *path[REPORT_PATH_MAX];
    unsigned depth; /* 1..REPORT_PATH_MAX */
    report_vkind_t kind;
    const char *s; /* REPORT_V_STR */
    uint64_t u;    /* REPORT_V_U64 */
    double d;      /* REPORT_V_DOUBLE */
    bool b;        /* REPORT_V_BOOL */
} report_field_t;

/* Inputs, results, the standard counters plus any extra mapped ones, the
 * traffic fields and (native runs) the native object. */
#define REPORT_FIELDS_MAX (64 + RUN_COUNTERS_MAX)

typedef struct report_row {
    size_t n;
    report_field_t f[REPORT_FIELDS_MAX];
} report_row_t;

/* Flatten r into row. Strings in the row point into r (and into static
 * tables), so r must outlive row. Returns 0, or -1 with a reason. */
int report_collect(const run_result_t *r, report_row_t *row, char *err, size_t errlen);
/* The field at path (a, b, c; trailing components NULL), or NULL. */
const report_field_t *report_row_find(const report_row_t *row, const char *a, const char *b,
                                      const char *c);
/* The row of a simulated result r (n NULL) or of the native result n (r is
 * then &n->run), for the printers. */
struct native_result;
int report_collect_any(const run_result_t *r, const struct native_result *n, report_row_t *row,
                       char *err, size_t errlen);
/* s, or "unknown" when it is NULL or empty. */
const char *report_or_unknown(const char *s);
/* The csv of r's row (n as for report_collect_any): the header line when
 * header, the row when row. */
int report_csv_print(FILE *out, const run_result_t *r, const struct native_result *n, bool header,
                     bool row, char *err, size_t errlen);
/* Write the json value root_json (a json_t *) to out, indented, with a line
 * end. */
int report_json_dump(FILE *out, void *root_json, char *err, size_t errlen);

/* ---- run results ---- */

/* Print one result in the given format (csv: header row + one row). */
int report_run(FILE *out, report_format_t fmt, const run_result_t *r, char *err, size_t errlen);
/* The text form of a simulated result (n NULL) or of the native result n
 * (r is then &n->run): report_run's and report_native's text format. */
struct native_result;
int report_text(FILE *out, const run_result_t *r, const struct native_result *n, char *err,
                size_t errlen);
/* csv building blocks, for printing several results under one header (the
 * columns come from `r`'s row; rows of other results must have the same). */
int report_csv_header(FILE *out, const run_result_t *r, char *err, size_t errlen);
/* One text field of a csv row, quoted (RFC 4180) when it holds a comma, a
 * quote or a line break. */
void report_csv_string(FILE *out, const char *s);
int report_csv_row(FILE *out, const run_result_t *r, char *err, size_t errlen);
/* The json object of one result (caller json_decref()s it), or NULL with a
 * reason. Declared as void * so that this header does not need jansson.h. */
void *report_run_json(const run_result_t *r, char *err, size_t errlen);

/* The resource that bounded most of a result's measured time (its stats),
 * as run's text prints it: "L2 miss slots × DRAM latency, 71%" ("-" when
 * nothing was counted); returns buf. And as run's json bound_by: an object
 * {"resource", "label", "share"}, or json null (docs/JSON.md; a json_t *,
 * NULL with a reason on out of memory). */
const char *report_bound_by_text(const stats_t *st, char *buf, size_t len);
void *report_bound_by_json(const stats_t *st, char *err, size_t errlen);

/* ---- native results (clearsim native; sim/host/native_run.h) ---- */

/* The run fields of n->run, with what a native run does not measure set to
 * null (cycles when the cycles counter was not counted, traffic), followed
 * by the `native` object: repeat, cpu, the seconds and bytes_per_sec
 * statistics, page mode, counters, host kernel (docs/JSON.md). Strings point
 * into n. Returns 0, or -1 with a reason. */
struct native_result;
int report_collect_native(const struct native_result *n, report_row_t *row, char *err,
                          size_t errlen);
/* Print one native result in the given format; the same printers as
 * report_run(). */
int report_native(FILE *out, report_format_t fmt, const struct native_result *n, char *err,
                  size_t errlen);
int report_native_csv_header(FILE *out, const struct native_result *n, char *err, size_t errlen);
int report_native_csv_row(FILE *out, const struct native_result *n, char *err, size_t errlen);
/* The json object of one native result (caller json_decref()s it). */
void *report_native_json(const struct native_result *n, char *err, size_t errlen);

/* ---- listings ---- */

/* Every kernel of kern_table(): text (one line each) or json (docs/JSON.md). */
int report_functions(FILE *out, report_format_t fmt, char *err, size_t errlen);

/* The machines of `clearsim machines`, in the given order: text (one line
 * each) or json (docs/JSON.md). */
int report_machines(FILE *out, report_format_t fmt, const machine_t *const *ms, size_t n, char *err,
                    size_t errlen);

/* A machine's trust figures (sim/machine/trust.h) as json: {"cases",
 * "median_abs_err", "median_gain_err"} (cases 0 and nulls when not
 * validated); a json_t *, NULL on out of memory. */
struct trust;
void *report_trust_json(const struct trust *t);

/* ---- formatting helpers (exported for tests) ---- */

/* 44513459667 -> "44,513,459,667" (no locale). Returns buf. */
char *report_group_digits(uint64_t v, char *buf, size_t len);

#endif
