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
#include "sim/engine/workload.h"
#include "sim/host/native_run.h"

int report_run(FILE *out, report_format_t fmt, const run_result_t *r, char *err, size_t errlen)
{
    switch (fmt) {
    case REPORT_FMT_TEXT:
        return report_text(out, r, NULL, err, errlen);
    case REPORT_FMT_CSV:
        return report_csv_print(out, r, NULL, true, true, err, errlen);
    case REPORT_FMT_JSON: {
        json_t *root = report_run_json(r, err, errlen);
        if (!root)
            return -1;
        int rc = report_json_dump(out, root, err, errlen);
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
        return report_csv_print(out, &n->run, n, true, true, err, errlen);
    case REPORT_FMT_JSON: {
        json_t *root = report_native_json(n, err, errlen);
        if (!root)
            return -1;
        int rc = report_json_dump(out, root, err, errlen);
        json_decref(root);
        return rc;
    }
    }
    errbuf_set(err, errlen, "report: unknown format %d", (int)fmt);
    return -1;
}
