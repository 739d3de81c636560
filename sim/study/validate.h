/*
 * validate.h - `clearsim validate`: the corpus of published clearing, fill,
 * memset and fault figures (data/published/<source>.yaml), each predicted by
 * the `clearsim run` or `clearsim bench` command line it names, and scored.
 *
 * Notes
 *  - The corpus: one YAML file per source (data/published/README.md gives the
 *    schema): `source:` (id, title, where, date, author, locator), `cases:`
 *    (id, cpu, sku_inferred, machine, conditions, figure, unit, unit_inferred,
 *    spread, bytes, command, role, note) and `gains:` (id, numerator,
 *    denominator, note). Every file is read through sim/machine/infile.c;
 *    every error names file:line:col, the key, the value and the rule.
 *  - Units (case-insensitive): GB/s and GiB/s (bytes / 2^30 per second: perf
 *    bench's "GB/sec" is binary), GB/s-decimal (1e9), MB/s (1e6), MiB/s
 *    (2^20); and times for `bytes:` of work: s, ms, us, ns. Each becomes
 *    bytes per second (val_unit_bps).
 *  - A case's command is `run OPTIONS` (clearsim run's options, parsed by
 *    point_parse_args) or `bench mem memset|mmap|map OPTIONS` (perf's:
 *    -s/--size, -l/--nr_loops, -f/--function, -p/--page, -k/--chunk, and
 *    clearsim's run-point options); bench needs -f (one function: perf's
 *    default -f all would run several). --machine, when given, must be the
 *    case's machine:; when not, the case's machine is used.
 *  - Errors: error = predicted / published - 1 (a signed fraction). A gain is
 *    figure(numerator) / figure(denominator), published and predicted; its
 *    error is predicted ratio / published ratio - 1.
 *  - Scoring: per machine, the count, the median and the largest |error| of
 *    the judge cases (role: judge), and of the gains whose two cases are both
 *    judges. Calibration cases (the Milan / Ice Lake-SP calibration set) and
 *    anchors (one per SKU; DEVELOPERS.md) are scored apart ("exempt"): they
 *    never enter the trust figures.
 *  - Runs: one prediction per case on `jobs` threads (pool.h), each on its
 *    own machine and model, results in case order: the output does not
 *    depend on the number of threads. Machines are loaded in the calling
 *    thread, each from the bundled configs directory (cfg_configs_dir): a
 *    user's machine file of the same name, or `host`, is never what a
 *    published figure judges.
 *  - Library code: returns -1/NULL with a one-line reason; never prints.
 */
#ifndef CLEARSIM_VALIDATE_H
#define CLEARSIM_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/base/machine.h"
#include "sim/engine/progress.h"
#include "sim/output/report.h"

/* Most files, cases and gains of one corpus. */
#define VAL_FILES_MAX 256
#define VAL_CASES_MAX 2048
#define VAL_GAINS_MAX 1024
/* The corpus directory under the data directory (sim/machine/datadir.h). */
#define VAL_CORPUS_SUBDIR "data/published"
/* Changes whenever the layout of docs/VALIDATION.md or of the trust file changes. */
#define VALMD_VERSION "clearsim-validation 1"
/* The command that regenerates the bundled docs/VALIDATION.md and trust file. */
#define VALMD_REGEN                                                                                \
    "clearsim report --validation --output docs/VALIDATION.md --trust data/validation.csv"

/* The bundled corpus: $CLEARSIM_PUBLISHED when set, else the data
 * directory's VAL_CORPUS_SUBDIR. Into buf; returns buf. */
const char *val_corpus_dir(char *buf, size_t len);

typedef enum val_role { VAL_ROLE_JUDGE = 0, VAL_ROLE_CALIBRATION, VAL_ROLE_ANCHOR } val_role_t;

const char *val_role_name(val_role_t r);

typedef struct val_case {
    char id[64];
    char source[32];   /* the source's id */
    char file[512];    /* the corpus file, as opened */
    uint32_t line;     /* 1-based line of the case in file */
    char cpu[128];     /* as written in the source */
    bool sku_inferred; /* the SKU is inferred, not written */
    char machine[MACHINE_NAME_MAX];
    double figure;      /* as published */
    char unit[24];      /* as published */
    bool unit_inferred; /* the unit (binary or decimal) is inferred */
    double bytes;       /* bytes of work, for time units (0: none) */
    char spread[32];    /* as published, "" when none */
    char command[1024]; /* the clearsim command line, without "clearsim" */
    val_role_t role;
    double published_bps;         /* the figure in bytes per second */
    double predicted_bps;         /* after val_run */
    double error;                 /* predicted / published - 1, after val_run */
    char machine_file_sha256[65]; /* of the machine file it ran on, after val_run */
} val_case_t;

typedef struct val_gain {
    char id[64];
    char source[32];
    char file[512];
    uint32_t line;
    size_t num, den; /* indices into the corpus's cases */
    double published_ratio, predicted_ratio, error;
    bool exempt; /* a case of it is not a judge */
} val_gain_t;

/* Per machine, after val_run. */
typedef struct val_summary {
    char machine[MACHINE_NAME_MAX];
    char machine_file_sha256[65]; /* of the file the cases ran on */
    size_t cases;                 /* judge cases */
    double median_abs_err;        /* of them (NAN with none) */
    double max_abs_err;
    size_t gains;           /* judge gains */
    double median_gain_err; /* |error| of them (NAN with none) */
    double max_gain_err;
    size_t exempt; /* calibration and anchor cases */
    double exempt_median_abs_err;
    double exempt_max_abs_err;
} val_summary_t;

typedef struct val_corpus val_corpus_t;

/* Load every *.yaml file of dir (sorted by name) and keep the cases of
 * `machine` (NULL: all) from source `source` (a source id; NULL: all).
 * Returns NULL with a reason: a file that does not load (file:line:col), a
 * case id given twice, a gain naming an unknown case; *usage is set when
 * the reason is a filter that matches nothing (a usage error). */
val_corpus_t *val_load(const char *dir, const char *machine, const char *source, bool *usage,
                       char *err, size_t errlen);
void val_destroy(val_corpus_t *c);

/* Load one corpus file (for tests and the rule's check). Same as val_load
 * on a directory that holds only it. */
val_corpus_t *val_load_file(const char *path, char *err, size_t errlen);

size_t val_n_cases(const val_corpus_t *c);
size_t val_n_gains(const val_corpus_t *c);
size_t val_n_sources(const val_corpus_t *c);
const val_case_t *val_case(const val_corpus_t *c, size_t i);
const val_gain_t *val_gain(const val_corpus_t *c, size_t i);
/* Case i's command line as a run point (before the machine's defaults). */
const struct run_point *val_case_point(const val_corpus_t *c, size_t i);
/* The ids of the sources loaded (for "did you mean"), n of them. */
const char *val_source_id(const val_corpus_t *c, size_t i);
/* The corpus file source i was read from. */
const char *val_source_file(const val_corpus_t *c, size_t i);

/* Predict every case on `jobs` threads; progress_update(pr, cases done)
 * (pr may be NULL). Returns 0, or -1 with the reason of the first case (in
 * corpus order) that failed, naming its file and line. */
int val_run(val_corpus_t *c, unsigned jobs, progress_t *pr, char *err, size_t errlen);

/* The machines' summaries (after val_run), sorted by machine name. */
size_t val_n_summaries(const val_corpus_t *c);
const val_summary_t *val_summary(const val_corpus_t *c, size_t i);

/* Write the report (after val_run): text, csv or json (docs/JSON.md).
 * Returns 0, or -1 with a reason. */
int val_write(const val_corpus_t *c, FILE *out, report_format_t fmt, char *err, size_t errlen);

/* ---- pieces, exported for tests ---- */

/* `figure` in `unit` as bytes per second (bytes: the work a time covers).
 * Returns 0, or -1 with a reason (unknown unit, a time without bytes). */
int val_unit_bps(double figure, const char *unit, double bytes, double *bps, char *err,
                 size_t errlen);
/* The median of v[0..n) (sorted in place); NAN when n is 0. */
double val_median(double *v, size_t n);
/* A case's command line as a run point (see Notes). machine: the case's
 * machine. Returns 0, or -1 with a reason naming the option. */
struct run_point;
int val_command_point(const char *command, const char *machine, struct run_point *p, char *err,
                      size_t errlen);

/* ---- the rule (validate_rule.c) ---- */

/* How close a fit target must be to a published figure to be taken for it. */
#define VAL_RULE_MATCH 0.005
/* Is `gbps` (bytes / 2^30 per second) the published figure of case c? */
bool val_rule_matches(const val_case_t *c, double gbps);
/* Both are checked only between figures of the same kind: a microbench
 * figure of a clearing workload (store, ntstore, linezero, memset against a
 * memset case; fault, mmap against an mmap case, on its page size), a
 * fitting case of the same workload, page size and bytes per call. */
/* Machine file m (loaded from path): 1 when a published case of it (not a
 * calibration case) is a figure of its microbench: section, when a value
 * other than memory.write_bandwidth names an anchor or a judge case, when
 * its anchor is not named, or when it has two anchors; the first such
 * reason in why. 0 when none; -1 with err when the file cannot be read. */
int val_rule_machine(const val_corpus_t *c, const machine_t *m, const char *path, char *why,
                     size_t whylen, char *err, size_t errlen);
/* Calibration data d: 1 when a fitting case (gbps) is a published case of
 * its machine that is not a calibration case (why says which); else 0. */
struct cal_data;
int val_rule_calibration(const val_corpus_t *c, const struct cal_data *d, char *why, size_t whylen);

/* ---- docs/VALIDATION.md and the trust file ---- */

/* The fingerprint of the inputs of docs/VALIDATION.md: VALMD_VERSION, the
 * predictions' inputs (predmd_fingerprint of every bundled machine) and every
 * *.yaml file of the corpus directory dir (name, size, contents). */
int valmd_fingerprint(const char *dir, uint64_t *out, char *err, size_t errlen);
/* The Markdown, with the summary table, the plot, and the cases and gains
 * by machine. regen: the command that regenerates it. */
int valmd_write(const val_corpus_t *c, FILE *out, uint64_t fingerprint, const char *regen,
                char *err, size_t errlen);
/* The trust file (sim/machine/trust.h reads it): one line per machine with
 * judge cases. */
int valmd_write_trust(const val_corpus_t *c, FILE *out, uint64_t fingerprint, const char *regen,
                      char *err, size_t errlen);

#endif
