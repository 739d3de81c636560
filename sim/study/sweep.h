/*
 * sweep.h - `clearsim sweep`: run_predict over the cartesian product of
 * parameter ranges, in parallel, with stable point numbering for sharding
 * and resuming; also the thread pool that `clearsim tune` shares.
 *
 * Notes
 *  - An axis is KEY=SPEC. KEY is a `run` option that takes a value (size,
 *    chunk, loops, function, fill, caller, page, fault, preempt, extent-cap,
 *    workload, machine, seed), or a machine-file key (it has a dot:
 *    l2.mshrs), whose each value becomes a --set override; its ranges are
 *    numbers that share one unit (80ns..140ns:+20ns). SPEC is a list `a,b,c`, a geometric range
 *    `LO..HI:xF` (LO, LO*F, ... up to HI) or an arithmetic range `LO..HI:+S`
 *    (LO, LO+S, ... up to HI). Range bounds take size units (4KB, 1GB) or
 *    plain numbers; range values of the size keys (size, chunk, extent-cap,
 *    page) are written with a binary unit ("4KiB"), others in decimal. The
 *    keys whose values are names (machine, function, workload, caller, fault,
 *    preempt) take lists only, so a machine path may contain "..".
 *  - Each value is parsed exactly as `run` parses it (point_set), on top
 *    of the options given outside --sweep; a swept key overrides the plain
 *    option of the same name.
 *  - Points are numbered 0..N-1 in a stable order: the first --sweep is the
 *    outermost loop (it varies slowest), the last the innermost.
 *  - A point that cannot be run (a value `run` would reject, a machine file
 *    that does not load, --chunk larger than --size, a kernel the machine
 *    lacks) becomes a record with its error, never an abort.
 *  - Records are formatted by the worker threads into strings and printed by
 *    the caller in point order, so the output does not depend on the number
 *    of threads. Each thread runs its own model; machines are loaded once,
 *    before the threads start, and only read.
 *  - csv columns: `point`, one `sweep.KEY` column per axis (the value as
 *    given), the columns of `run --format csv` (the union over the machines
 *    of the sweep, in a stable order: a machine's pmu map may add counters),
 *    then `error` (empty when the point ran). The header depends only on the
 *    command line, never on which points (shard) are run.
 *  - json: one object per point: {"point", "sweep": {KEY: value}, "error",
 *    "result"} (docs/JSON.md).
 *  - Library code: returns -1/NULL with a one-line reason; never prints
 *    errors (the progress line on a terminal is the exception, progress.h).
 */
#ifndef CLEARSIM_SWEEP_H
#define CLEARSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/point.h"
#include "sim/engine/progress.h"
#include "sim/output/report.h"

/* Limits: values per axis, axes, points of one sweep. */
#define SWEEP_VALUES_MAX 100000u
#define SWEEP_AXES_MAX   16u
#define SWEEP_POINTS_MAX 10000000ull

/* ---- axes ---- */

/* Expand SPEC for KEY into *n malloc'd strings (*values, freed with
 * sweep_values_free). Returns 0, or -1 with a reason naming KEY=SPEC. */
int sweep_spec_expand(const char *key, const char *spec, char ***values, size_t *n, char *err,
                      size_t errlen);
void sweep_values_free(char **values, size_t n);

typedef struct sweep sweep_t;

/* An empty sweep over the options in base (copied). */
sweep_t *sweep_create(const run_point_t *base);
void sweep_destroy(sweep_t *s);
/* Add one axis from "KEY=SPEC". Returns 0, or -1 with a reason (unknown or
 * repeated key, bad SPEC, too many points). */
int sweep_add_axis(sweep_t *s, const char *arg, char *err, size_t errlen);
size_t sweep_n_axes(const sweep_t *s);
const char *sweep_axis_key(const sweep_t *s, size_t axis);
uint64_t sweep_n_points(const sweep_t *s);
/* The value of `axis` at point p. */
const char *sweep_value(const sweep_t *s, uint64_t p, size_t axis);

/* Load the machines (the --machine option and every machine=... value, each
 * with the --set overrides and the values of the machine-key axes) and fix
 * the csv columns. A --machine that does not load, or no machine at all, is
 * an error; a machine=... or machine-key value that does not load only makes
 * its points error records. Returns 0, or -1 with a reason, or -2 when the
 * file loads and a --set value is what it refuses (a usage error). */
int sweep_prepare(sweep_t *s, char *err, size_t errlen);
/* The machines loaded (after sweep_prepare), and the warning of machine i
 * when --machine host chose a file of another system (host_pick_t), or NULL. */
size_t sweep_n_machines(const sweep_t *s);
const char *sweep_machine_warning(const sweep_t *s, size_t i);
/* The csv header line, without its line end (after sweep_prepare). */
const char *sweep_csv_header(const sweep_t *s);

/* Run the points points[0..n-1] on `jobs` threads and format one record per
 * point: a csv row (REPORT_FMT_CSV, no line end) or a compact json object
 * (REPORT_FMT_JSON). records[k] (malloc'd) is point points[k]'s record;
 * failed[k] is set when that point has an error; why[k] (when why is not
 * NULL) is its error, "skipped: ..." for a point of function=all that its
 * machine does not run (not failed), or "". Progress as in pool_run.
 * Returns 0, or -1 with a reason for a failure of the sweep itself (out of
 * memory, threads). */
#define SWEEP_WHY_MAX 512
int sweep_run(sweep_t *s, const uint64_t *points, size_t n, unsigned jobs, report_format_t fmt,
              progress_t *pr, uint64_t pr_base, char **records, bool *failed,
              char (*why)[SWEEP_WHY_MAX], char *err, size_t errlen);
/* "function=rep_stosbb size=4KB": point p's axis values, for a message. */
const char *sweep_point_label(const sweep_t *s, uint64_t p, char *buf, size_t len);

/* ---- shards ---- */

/* "i/N" with 1 <= i <= N: *index = i - 1, *count = N. Returns 0 or -1. */
int sweep_parse_shard(const char *arg, uint32_t *index, uint32_t *count, char *err, size_t errlen);
/* Does point p belong to shard index (0-based) of count? */
bool sweep_in_shard(uint64_t p, uint32_t index, uint32_t count);

#endif
