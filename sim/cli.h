/*
 * cli.h - command-line parsing for the clearsim subcommands.
 *
 * Notes
 *  - Parsing only: these functions never print and never exit. sim/main.c
 *    prints help, errors and results and chooses the exit code.
 *  - getopt_long based; option names follow `perf bench mem` (-s size,
 *    -k chunk, -l loops, -f function, -p page). A later option overrides an
 *    earlier one. Every error is one line that names the option and the value
 *    ("--fill '256': out of range 0..255").
 *  - What the command line alone can check is checked here (syntax, ranges,
 *    --chunk <= --size, known function name). What needs the machine (kernel
 *    available on its ISA and features, length granules) is wl_validate()'s.
 *  - Units: sizes are bytes, parsed by unit_parse_size (KB/MB/GB binary).
 */
#ifndef CLEARSIM_CLI_H
#define CLEARSIM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/machine.h"
#include "sim/native.h"
#include "sim/report.h"
#include "sim/run.h"
#include "sim/workload.h"

/* Return codes of the parsers. */
enum {
    CLI_OK = 0,     /* parsed; go on */
    CLI_HELP = 1,   /* --help was given: print the subcommand's help, exit 0 */
    CLI_USAGE = -1, /* bad command line: err holds the one-line reason, exit 2 */
};

#define CLI_MACHINE_ARG_MAX 4096
/* Largest --size, --chunk and --extent-cap: 1 TiB. Larger buffers are not a
 * meaningful clearing benchmark and would push simulated addresses past 48
 * bits once the workload places and aligns them. */
#define CLI_SIZE_MAX_BYTES (1ull << 40)

/* One parsed `clearsim run` command line. */
typedef struct cli_run {
    char machine[CLI_MACHINE_ARG_MAX]; /* --machine NAME|PATH|host; "" when not given */
    wl_spec_t spec;                    /* wl_spec_init() defaults + options */
    run_opts_t opts;                   /* run_opts_init() defaults + --exact, --seed */
    report_format_t format;            /* --format (default text) */
    char output[CLI_MACHINE_ARG_MAX];  /* --output FILE (sim/outfile.h); "" = stdout */
    bool function_given;               /* -f given (else chosen from the machine) */
    bool caller_given;                 /* --caller given (else chosen from the workload) */
    bool quiet;                        /* -q: no progress on stderr */
} cli_run_t;

/* argv[0] is the subcommand name ("run"). Returns CLI_OK, CLI_HELP or
 * CLI_USAGE (err set). Not reentrant (getopt state). */
int cli_parse_run(int argc, char **argv, cli_run_t *out, char *err, size_t errlen);

/* One parsed `clearsim native` command line: the workload options of `run`
 * and --format / -q, without --machine, --exact and --seed (which only mean
 * something to the model), plus --repeat and --cpu. */
typedef struct cli_native {
    cli_run_t run;   /* spec, format, quiet; machine stays "" */
    uint32_t repeat; /* --repeat N: timed runs (default NATIVE_REPEAT_DEFAULT) */
    int32_t cpu;     /* --cpu N (default -1: the CPU it runs on) */
} cli_native_t;

/* argv[0] is "native". Returns CLI_OK, CLI_HELP or CLI_USAGE (err set). */
int cli_parse_native(int argc, char **argv, cli_native_t *out, char *err, size_t errlen);

/* `clearsim machines` / `clearsim functions`: only --format text|json and
 * --help. argv[0] is the subcommand name. */
int cli_parse_list(int argc, char **argv, report_format_t *fmt, char *err, size_t errlen);

/* The function `run` uses when -f is not given: on x86_64 rep_stosb when the
 * machine has ERMS, else rep_stosq when it has REP_GOOD, else unrolled (the
 * order in which Linux picks clear_page); on arm64 memset (what arm64
 * clear_page(s) becomes). */
const char *cli_default_function(const cfg_machine_t *m);
/* The caller `run` uses when --caller is not given: memset -> chunked,
 * mmap -> page (page-at-a-time, as Linux before clear_pages). */
wl_caller_t cli_default_caller(wl_kind_t kind);
/* Fill in the machine-dependent defaults of r (function, caller). */
void cli_apply_defaults(cli_run_t *r, const cfg_machine_t *m);

/* ---- one run option by name (clearsim sweep) ---- */

/* Set the `run` option `key` (its long name without "--": "size", "chunk",
 * "machine", "function", ...) to `value`, parsed exactly as on the command
 * line, into r (which cli_run_init() or cli_parse_run() prepared). Only
 * options that take a value are accepted. Cross-option checks (--chunk <=
 * --size) are left to wl_validate(). Returns CLI_OK, or CLI_USAGE with a
 * one-line reason naming --key. */
int cli_run_set(cli_run_t *r, const char *key, const char *value, char *err, size_t errlen);
/* True when key is a `run` option that takes a value (see cli_run_set);
 * --output is not one: it is not part of a run point. */
bool cli_run_key_known(const char *key);
/* The defaults cli_parse_run() starts from (no machine, text format). */
void cli_run_init(cli_run_t *r);

/* ---- getopt helpers shared by every subcommand ---- */

/* A getopt_long failure (c is '?' or ':') as a one-line reason in err, naming
 * the option; returns CLI_USAGE. */
int cli_getopt_failure(int c, const struct option *opts, int argc, char **argv, char *err,
                       size_t errlen);
/* CLI_OK, or CLI_USAGE with "unexpected argument 'x'" when argv has operands left. */
int cli_leftover_args(int argc, char **argv, char *err, size_t errlen);

/* ---- value parsers (exported for tests); errors name `opt` ---- */

/* A size in 1..CLI_SIZE_MAX_BYTES (unit_parse_size). */
int cli_parse_size(const char *opt, const char *arg, uint64_t *out, char *err, size_t errlen);
/* A whole number in [min, max] (decimal or 0x hex). */
int cli_parse_uint(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out,
                   char *err, size_t errlen);
/* One of the NULL-terminated names; *out is its index. */
int cli_parse_choice(const char *opt, const char *arg, const char *const *names, int *out,
                     char *err, size_t errlen);

/* ---- bundled machines ---- */

/* Most machine files `clearsim machines` lists. */
#define CLI_MACHINES_MAX 256

#endif
