/*
 * predictions.h - `clearsim report`: the case list of docs/PREDICTIONS.md, the
 * predictions behind it (run in parallel), the Markdown writer and the
 * fingerprint of its inputs.
 *
 * Notes
 *  - Cases, for every selected bundled machine (cfg_machine_list):
 *     - demand faults: `--workload mmap` with 2 MiB pages on 1 GiB and
 *       1 GiB pages on 4 GiB, under each preemption model (none, voluntary,
 *       full, lazy), page-at-a-time (--caller page) and extent (--caller
 *       extent), with the machine's default clear function
 *       (point_default_function);
 *     - clearing kernels in user space, in 2 MiB calls over 1 GiB: the
 *       temporal baseline (rep_stosb on x86-64, stp on arm64) and each of
 *       movnti, clzero, dc_zva, stnp and mops that kern_check_machine allows;
 *     - the C library's memset in 4 KiB, 2 MiB and 1 GiB calls over 1 GiB.
 *    Each case is a `clearsim run` option string, parsed by cli_parse_run
 *    exactly as on the command line, so the string printed in the table
 *    reproduces the row. Runs use the model's fast-forward (no --exact) and
 *    seed 1.
 *  - mmap rows that differ only in --preempt share one prediction when the
 *    callers (kernels/callers.c) make the same calls for one folio under
 *    both models (compared by running the callers with a recording
 *    callback): sim/engine/workload.c passes the preemption model to caller_extent
 *    and nowhere else. This cuts the fault runs from 16 to 5 per machine.
 *  - Gains are relative: new / baseline - 1, in percent.
 *  - Milan (zen3-epyc-7j13) also gets its published figures next to the
 *    predictions, marked as calibration data for that machine only.
 *  - The fingerprint is 64-bit FNV-1a over PREDMD_VERSION, the case
 *    templates, the selected machine names and, in byte order of their
 *    paths, the path, size and contents of every input file that can change
 *    the file: configs/<*>.yaml (from cfg_configs_dir()) and, under the
 *    source tree (datadir_source_dir(), sim/machine/datadir.h: only a
 *    binary in its build tree has one; an installed or copied clearsim
 *    fails here with one line), every .c, .h and .inc file of the folders models/,
 *    kernels/ and sim/ at any depth (whole folders, so a new file cannot be
 *    left out). Paths are hashed
 *    relative to those directories, so the fingerprint does not depend on
 *    where the tree is.
 *  - The Markdown holds nothing that depends on the clock, the host or the
 *    number of threads: the same tree gives the same bytes.
 *  - Library code: returns -1/NULL with a one-line reason; never prints
 *    (progress on a terminal goes through progress.h).
 */
#ifndef CLEARSIM_PREDICTIONS_H
#define CLEARSIM_PREDICTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "models/base/machine.h"
#include "sim/engine/progress.h"

/* Changes whenever the case list or the layout of the file changes. */
#define PREDMD_VERSION "clearsim-predictions 1"
/* The line that carries the fingerprint, followed by 16 hex digits. */
#define PREDMD_FINGERPRINT_PREFIX "Inputs fingerprint: "
/* Most machines one report covers. */
#define PREDMD_MACHINES_MAX 256

typedef struct predmd predmd_t;

/* Expand --machines: "all" (every bundled machine, sorted) or a comma list
 * of bundled machine names (kept in the order given). Fills names[0..*n-1].
 * Returns 0, or -1 with a reason (an empty list, a name that is not bundled,
 * a name given twice, the configs directory unreadable). *usage is set when
 * the reason is the argument itself (a usage error), cleared otherwise. */
int predmd_select(const char *arg, char names[][MACHINE_NAME_MAX], size_t max, size_t *n,
                  bool *usage, char *err, size_t errlen);

/* The fingerprint of the inputs (see Notes) for these machines. Reads files
 * only; runs nothing. Returns 0, or -1 with a reason naming the file. */
int predmd_fingerprint(const char names[][MACHINE_NAME_MAX], size_t n, uint64_t *out, char *err,
                       size_t errlen);

/* The most recently modified of the source files among the inputs (not the
 * machine files, which clearsim reads when it runs): its path relative to
 * the source tree and its mtime (-1 when there is none, see Notes). `clearsim report` refuses to
 * run when it is newer than the clearsim binary, whose predictions would then not match the
 * fingerprint. Returns 0, or -1 with a reason. */
int predmd_newest_source(char *rel, size_t rellen, struct timespec *mtime, char *err,
                         size_t errlen);

/* The fingerprint recorded in a generated file (its "Inputs fingerprint:"
 * line). Returns 0, or -1 with a reason (unreadable, no such line). */
int predmd_read_fingerprint(const char *path, uint64_t *out, char *err, size_t errlen);

/* Load the machines and build their cases. `machines_arg` is the --machines
 * value as given, recorded in the file's header. Returns NULL with a reason
 * (a machine file that does not load, a case the machine rejects). */
predmd_t *predmd_create(const char names[][MACHINE_NAME_MAX], size_t n, const char *machines_arg,
                        char *err, size_t errlen);
void predmd_destroy(predmd_t *r);
/* Number of predictions the report runs: rows that differ only in a
 * preemption model under which the callers make the same calls share one. */
size_t predmd_n_runs(const predmd_t *r);
/* Number of `clearsim run` command lines the report gives figures for. */
size_t predmd_n_rows(const predmd_t *r);

/* Run every prediction on `jobs` threads; progress_update(pr, runs done)
 * after each (pr may be NULL). Returns 0, or -1 with the reason of the first
 * run (in case order) that failed. */
int predmd_run(predmd_t *r, unsigned jobs, progress_t *pr, char *err, size_t errlen);

/* Write the Markdown (after predmd_run) with this fingerprint. Returns 0, or
 * -1 with a reason (a write error). */
int predmd_write(const predmd_t *r, FILE *out, uint64_t fingerprint, char *err, size_t errlen);

/* 64-bit FNV-1a of len bytes, continuing from h (start from
 * PREDMD_FNV_OFFSET). Exported for tests. */
#define PREDMD_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t predmd_fnv1a(uint64_t h, const void *data, size_t len);
/* The same over s and its terminating NUL (so that "ab","c" and "a","bc"
 * differ). */
uint64_t predmd_fnv1a_str(uint64_t h, const char *s);
/* Continue *h over every input file (see Notes), in byte order of their
 * paths: path, size and the contents' own hash. Returns 0, or -1 with a
 * reason naming the file. */
int predmd_hash_inputs(uint64_t *h, char *err, size_t errlen);

#endif
