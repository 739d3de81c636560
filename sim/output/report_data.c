/*
 * report_data.c - the csv and json printers of a result's row
 * (report_row.c).
 *
 * Notes
 *  - csv: one header line of the fields' dotted paths and one row; strings
 *    are quoted when they hold a comma, a quote or a line end (RFC 4180);
 *    null is an empty field.
 *  - json: the row's nesting as objects; doubles with 17 significant digits.
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
    if (report_collect_any(r, n, row, err, errlen) != 0) {
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

int report_json_dump(FILE *out, void *root_json, char *err, size_t errlen)
{
    json_t *root = root_json;
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (rc != 0 || fputc('\n', out) == EOF) {
        errbuf_set(err, errlen, "report: cannot write json output");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* csv                                                                       */

void report_csv_string(FILE *out, const char *s)
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
        report_csv_string(out, f->s);
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

int report_csv_print(FILE *out, const run_result_t *r, const native_result_t *n, bool header,
                     bool values, char *err, size_t errlen)
{
    report_row_t *row = malloc(sizeof *row);
    if (!row) {
        errbuf_set(err, errlen, "report: out of memory");
        return -1;
    }
    if (report_collect_any(r, n, row, err, errlen) != 0) {
        free(row);
        return -1;
    }
    if (header) {
        for (size_t i = 0; i < row->n; i++) {
            char name[3 * MACHINE_NAME_MAX + 8];
            const report_field_t *f = &row->f[i];
            snprintf(name, sizeof name, "%s%s%s%s%s", f->path[0], f->path[1] ? "." : "",
                     f->path[1] ? f->path[1] : "", f->path[2] ? "." : "",
                     f->path[2] ? f->path[2] : "");
            if (i > 0)
                fputc(',', out);
            report_csv_string(out, name);
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
    return report_csv_print(out, r, NULL, true, false, err, errlen);
}

int report_csv_row(FILE *out, const run_result_t *r, char *err, size_t errlen)
{
    return report_csv_print(out, r, NULL, false, true, err, errlen);
}

int report_native_csv_header(FILE *out, const native_result_t *n, char *err, size_t errlen)
{
    return report_csv_print(out, &n->run, n, true, false, err, errlen);
}

int report_native_csv_row(FILE *out, const native_result_t *n, char *err, size_t errlen)
{
    return report_csv_print(out, &n->run, n, false, true, err, errlen);
}
