/*
 * explain.h - `clearsim explain`: a prediction's bottleneck breakdown and
 * the single change that would help it most.
 *
 * Notes
 *  - The breakdown is the prediction's own attribution (sim/engine/bounds.h,
 *    docs/MODEL.md "Bottleneck attribution"): each resource's share of the
 *    measured time and its occupancy.
 *  - "Which change helps most" is measured, not inferred: for each resource
 *    with at least EXPLAIN_RELAX_MIN_SHARE of the time the same point is run
 *    again on a copy of the machine with that resource's one key relaxed
 *    (bounds_resource_t.key and .factor: a count or bandwidth doubled, a
 *    latency or cost halved); the gain is the relaxed run's throughput over
 *    the prediction's, minus 1. Two resources with the same key share one
 *    relaxed run.
 *  - Library code: explain_print() writes to the FILE it is given and
 *    returns 0, or -1 with a reason.
 */
#ifndef CLEARSIM_EXPLAIN_H
#define CLEARSIM_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/base/machine.h"
#include "sim/engine/bounds.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/trust.h"
#include "sim/output/report.h"

#define EXPLAIN_RELAX_MIN_SHARE 0.01

typedef struct explain_entry {
    bounds_entry_t b;
    bool relaxed;            /* a relaxed run was made (gain, relaxed_cycles valid) */
    bool at_limit;           /* the key is at its bound already: nothing to relax */
    char key[64];            /* the machine key relaxed ("" when none) */
    char from[48], to[48];   /* its value and the relaxed one, with units */
    uint64_t relaxed_cycles; /* the relaxed run's measured cycles */
    double gain;             /* throughput gain: cycles / relaxed_cycles - 1 */
} explain_entry_t;

typedef struct explain_result {
    run_result_t run; /* the prediction */
    size_t n;
    explain_entry_t e[ST_BOUND_COUNT]; /* by share, largest first */
    int best;                          /* the entry with the largest gain > 0; -1 none */
    /* the machine's trust figures (sim/machine/trust.h), set by the caller
     * before explain_print (has_trust false: none printed); trust_line: its
     * text line */
    bool has_trust;
    trust_t trust;
    char trust_line[512];
} explain_result_t;

/* Predict spec on m, then relax each resource that bounded enough of it.
 * progress (of opts) covers the prediction only. Returns 0, or -1 with a
 * reason. */
int explain_predict(const machine_t *m, const wl_spec_t *spec, const run_opts_t *opts,
                    explain_result_t *out, char *err, size_t errlen);

/* Print r as text (a table), json (the run's fields, bound_by, bottlenecks,
 * recommendation; docs/JSON.md) or csv (one row per resource). */
int explain_print(FILE *out, report_format_t fmt, const explain_result_t *r, char *err,
                  size_t errlen);

#endif
