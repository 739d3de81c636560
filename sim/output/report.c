/*
 * report.c - a result in the format asked for: text (report_text.c), csv
 * or json (report_data.c).
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
#include "sim/engine/bounds.h"
#include "sim/engine/workload.h"
#include "sim/host/native_run.h"

/* A simulated result r (n NULL) or the native result n (r = &n->run). */
static int print_any(FILE *out, report_format_t fmt, const run_result_t *r,
                     const native_result_t *n, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_TEXT:
        return report_text(out, r, n, err, errlen);
    case REPORT_FMT_CSV:
        return report_csv_print(out, r, n, true, true, err, errlen);
    case REPORT_FMT_JSON: {
        json_t *root = n ? report_native_json(n, err, errlen) : report_run_json(r, err, errlen);
        if (!root)
            return -1;
        if (!n) {
            json_t *b = report_bound_by_json(&r->stats, err, errlen);
            if (!b || json_object_set_new(root, "bound_by", b) != 0) {
                json_decref(root);
                return errbuf_set(err, errlen, "report: out of memory building json");
            }
        }
        int rc = report_json_dump(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    }
    return errbuf_set(err, errlen, "report: unknown format %d", (int)fmt);
}

const char *report_bound_by_text(const stats_t *st, char *buf, size_t len)
{
    const bounds_resource_t *res;
    double share;
    if (!bounds_top(st, &res, &share))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s, %.0f%%", res->label, share * 100.0);
    return buf;
}

void *report_bound_by_json(const stats_t *st, char *err, size_t errlen)
{
    const bounds_resource_t *res;
    double share;
    if (!bounds_top(st, &res, &share))
        return json_null();
    json_t *o =
        json_pack("{s:s, s:s, s:f}", "resource", res->name, "label", res->label, "share", share);
    if (!o)
        errbuf_set(err, errlen, "report: out of memory building json");
    return o;
}

int report_run(FILE *out, report_format_t fmt, const run_result_t *r, char *err, size_t errlen)
{
    return print_any(out, fmt, r, NULL, err, errlen);
}

int report_native(FILE *out, report_format_t fmt, const native_result_t *n, char *err,
                  size_t errlen)
{
    return print_any(out, fmt, &n->run, n, err, errlen);
}
