/*
 * point.h - one run point: the machine, the workload and the run options of
 * one prediction, set by option name exactly as `clearsim run` takes them.
 * The one table of those options (point_options) serves run, native and
 * sweep's command lines, sweep's axes, and the option strings of
 * calibration cases and of the predictions report.
 *
 * Notes
 *  - Setting an option parses its value with its unit and bounds
 *    (sim/machine/optval.h); an error is one line naming the option
 *    ("--fill '256': out of range 0..255").
 *  - What needs the machine (the kernel's ISA and features, length granules)
 *    is wl_validate()'s, once the machine is loaded; point_apply_defaults()
 *    then fills in what the options left to the machine (the function, the
 *    caller).
 *  - Units: sizes in bytes.
 */
#ifndef CLEARSIM_POINT_H
#define CLEARSIM_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"

#define POINT_MACHINE_ARG_MAX 4096

typedef struct run_point {
    char machine[POINT_MACHINE_ARG_MAX]; /* --machine NAME|PATH|host; "" when not given */
    wl_spec_t spec;                      /* wl_spec_init() defaults + options */
    run_opts_t opts;                     /* run_opts_init() defaults + --exact, --seed */
    bool function_given;                 /* -f given (else chosen from the machine) */
    bool caller_given;                   /* --caller given (else chosen from the workload) */
    bool chunk_given;                    /* -k given */
    bool page_given;                     /* -p given */
    bool function_all;                   /* -f all: every function the machine supports */
    bool function_help;                  /* -f help: list them */
    uint32_t given;                      /* bit i: point_options[i] was given */
    /* --set KEY=VALUE, in the order given (a key given again replaces its
     * value in place): applied to the machine when it is loaded */
    uint32_t n_set;
    char set[MACHINE_SET_MAX][MACHINE_SET_ARG_MAX];
    char libc[32]; /* --libc NAME-VERSION: memset's keys from its table ("" the file's) */
} run_point_t;

/* One option of a run point. */
typedef struct point_option {
    const char *name; /* long name without "--" */
    char short_name;  /* 's', or 0 */
    bool has_arg;     /* takes a value (every one but --exact) */
} point_option_t;

/* The options, in help order, ending with {NULL}. */
extern const point_option_t point_options[];

/* The overrides of p as the loaders take them (pointers into p). */
size_t point_set_list(const run_point_t *p, const char *set[MACHINE_SET_MAX]);
/* Every override of p for machine m: --libc's first (libc.name and the five
 * libc.memset keys from sim/machine/libc.c's table for m, at its l3.size),
 * then the --set ones, which win over them. *n is their count. Returns 0,
 * or -1 with a reason (too many, a version the table does not know). */
#define POINT_OVERRIDES_MAX (MACHINE_SET_MAX + 6)
/* Apply p's --set and --libc to *m (loaded from its file): the --set
 * overrides first, then --libc's values computed on that machine (so a
 * --set l3.size moves memset's thresholds too), then all of them together
 * (point_overrides). *m is replaced; on an error it is left as it was.
 * Returns 0; -2 when an override is what is refused (a usage error: err
 * names the option); -1 otherwise (the file cannot be read again). */
int point_apply_overrides(const run_point_t *p, machine_t **m, char *err, size_t errlen);
int point_overrides(const run_point_t *p, const machine_t *m,
                    char out[POINT_OVERRIDES_MAX][MACHINE_SET_ARG_MAX], size_t *n, char *err,
                    size_t errlen);

/* The defaults: wl_spec_init() and run_opts_init(), no machine. */
void point_init(run_point_t *p);
/* Set option `key` (its long name: "size", "chunk", "machine", "exact", ...)
 * from `value` (NULL for an option without one). Cross-option checks are
 * point_check()'s. Returns 0, or -1 with a one-line reason naming --key. */
int point_set(run_point_t *p, const char *key, const char *value, char *err, size_t errlen);
/* The option called `key`, or NULL. */
const point_option_t *point_option_find(const char *key);
/* What the options alone can check: --chunk <= --size (when -k was given).
 * Returns 0, or -1 with a reason. */
int point_check(const run_point_t *p, char *err, size_t errlen);
/* Every option given applies to the workload (--preempt, --fault,
 * --extent-cap, --thp and --base-page only to mmap and fault; --chunk and
 * --fill only to memset and the microbenchmarks that clear; --caller not to
 * load, copy and latency). Returns 0, or -1 with a reason naming the
 * option and the workloads it applies to. */
int point_check_applies(const run_point_t *p, char *err, size_t errlen);
/* Does p run with function on machine m: a kernel of p's workload that m
 * runs (wl_function_of), and p with it (and the caller the workload takes
 * by default, unless --caller was given) valid on m? With m NULL: only that
 * it is a kernel of p's workload. */
bool point_function_runs(const run_point_t *p, const char *function, const machine_t *m);
/* The functions -f all runs (and -f help lists) for p's workload: those for
 * which point_function_runs(p, name, m) holds, in the kernel tables' order.
 * Returns their count; names[] points into the kernel tables. */
size_t point_all_functions(const run_point_t *p, const machine_t *m, const char **names,
                           size_t max);
/* An option string ("-s 64MB -k 4KB --fill 0x5a"), words separated by
 * blanks, --key VALUE, --key=VALUE, -k VALUE or -kVALUE, each set as
 * point_set does, then point_check. Returns 0, or -1 with a reason. */
int point_parse_args(run_point_t *p, const char *args, char *err, size_t errlen);

/* The function used when -f is not given: on x86_64 rep_stosb when the
 * machine has ERMS, else rep_stosq when it has REP_GOOD, else unrolled (the
 * order in which Linux picks clear_page); on arm64 memset (what arm64
 * clear_page(s) becomes). */
const char *point_default_function(const machine_t *m);
/* What the microbenchmarks take when the options do not say: the latency
 * workload's pages (huge, so that the TLB does not measure itself), the fence
 * workload's chunk (the lines one fence drains) and the startup workload's. */
#define POINT_LATENCY_PAGE_BYTES  (2ull << 20)
#define POINT_FENCE_CHUNK_BYTES   (4ull << 10)
#define POINT_STARTUP_CHUNK_BYTES 256ull

/* The function a workload kind uses when -f is not given: memset and mmap
 * as point_default_function; each microbenchmark the widest kernel of its
 * class the machine has ("" when it has none). */
const char *point_kind_function(wl_kind_t kind, const machine_t *m);
/* The caller used when --caller is not given: memset -> chunked, mmap ->
 * page (page-at-a-time, as Linux before clear_pages); store, ntstore and
 * linezero repeat, fence and startup are chunked, fault pages. */
wl_caller_t point_default_caller(wl_kind_t kind);
/* Fill in the machine-dependent defaults of p (function, caller). */
void point_apply_defaults(run_point_t *p, const machine_t *m);

#endif
