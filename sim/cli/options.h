/*
 * options.h - the one table of command-line options, and the one parser
 * every subcommand runs its command line through.
 *
 * Notes
 *  - An option has the same long name, short name and meaning in every
 *    command that takes it (-o/--output, -j/--jobs, -q/--quiet,
 *    --format, ...). A command says which options it takes: its own, by id,
 *    and which options of a run point (sim/engine/point.h: --machine, the
 *    workload options, --exact, --seed), by name.
 *  - The parser: getopt_long, with opterr = 0 so that it never prints; a
 *    failure is one line naming the option. A run point's option is set on
 *    the command's run point (point_set); every other option goes to the
 *    command's handler. -h/--help is always taken. A later option
 *    overrides an earlier one. Operands are an error.
 *  - Parsing only: nothing here prints or exits; the commands do.
 */
#ifndef CLEARSIM_OPTIONS_H
#define CLEARSIM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/point.h"
#include "sim/output/report.h"

/* Return codes of the parser. */
enum {
    CLI_OK = 0,     /* parsed; go on */
    CLI_HELP = 1,   /* --help was given: print the subcommand's help, exit 0 */
    CLI_USAGE = -1, /* bad command line: err holds the one-line reason, exit 2 */
};

/* Every option that is not a run point's, by id. */
typedef enum cli_opt {
    CLI_O_END = 0, /* ends a command's list */
    CLI_O_QUIET,
    CLI_O_FORMAT,
    CLI_O_OUTPUT,
    CLI_O_JOBS,
    CLI_O_REPEAT,
    CLI_O_CPU,
    CLI_O_SWEEP,
    CLI_O_SHARD,
    CLI_O_RESUME,
    CLI_O_KEEP_GOING,
    CLI_O_SIZES,
    CLI_O_SIZES_FILE,
    CLI_O_REUSE,
    CLI_O_WINDOW,
    CLI_O_DIST,
    CLI_O_MIN_GAIN,
    CLI_O_DELAY,
    CLI_O_LATENCY_BUDGET,
    CLI_O_MACHINES,
    CLI_O_CHECK_FILE, /* --check FILE (report) */
    CLI_O_CHECK,      /* --check (calibrate) */
    CLI_O_DATA,
    CLI_O_MICROBENCH, /* --microbench (calibrate) */
    CLI_O_MAX_ITER,
    CLI_O_QUICK,
    CLI_O_CI,
    CLI_O_REMEASURE,
    CLI_O_GAINS,  /* --gains (crosscheck) */
    CLI_O_PASSES, /* --passes N (crosscheck --gains) */
    CLI_O_CLOCK,
    CLI_O_EMIT_DATA,
    CLI_O_BASE,
    CLI_O_NAME,
    CLI_O_INPUT,
    CLI_O_KIND,
    CLI_O_TITLE,
    CLI_O_MEASURE,
    CLI_O_TOLERANCE,
    CLI_O_FIGURES,
    CLI_O_BENCH_FUNCTION, /* bench: -f, perf's meaning */
    CLI_O_CYCLES,         /* bench: -c, cycles/byte */
    CLI_O_NR_LOOPS,       /* bench: --nr_loops, perf's -l */
    CLI_O_PROVENANCE,     /* machines --provenance NAME */
    CLI_O_WARM_UP,        /* native --warm-up MS */
    CLI_O_SOURCE,         /* validate --source ID */
    CLI_O_CORPUS,         /* validate, report --validation: --corpus DIR */
    CLI_O_VALIDATION,     /* report --validation */
    CLI_O_TRUST,          /* report --validation --trust FILE */
    CLI_O_COUNT
} cli_opt_t;

/* A command's own option: id, the option as written ("--jobs"), its value
 * (NULL for a flag). Returns 0, or -1 with a reason in err. */
typedef int (*cli_handler_fn)(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                              size_t errlen);

typedef struct cli_spec {
    const cli_opt_t *opts;         /* the command's own options, ending with CLI_O_END */
    const char *const *point_keys; /* the run point's options it takes, NULL-terminated; or
                                    * NULL for none */
    run_point_t *point;            /* where those go (with point_keys) */
    cli_handler_fn handler;        /* the command's own options */
    void *ctx;
    const char **positional; /* receives the one argument that is not an option (NULL: the
                              * command takes none; it stays NULL when none is given) */
} cli_spec_t;

/* Every run point option (point_options), as a point_keys list. */
extern const char *const cli_point_all[];

/* Parse argv[1..argc) (argv[0] is the command name) as spec says. Returns
 * CLI_OK, CLI_HELP or CLI_USAGE (err set). Not reentrant (getopt state). */
int cli_parse(int argc, char **argv, const cli_spec_t *spec, char *err, size_t errlen);

/* ---- the options several commands share the meaning of ---- */

/* --format NAME of the formats in t; *out is the format. */
int cli_take_format(const char *opt, const char *arg, const name_value_t *t, report_format_t *out,
                    char *err, size_t errlen);
/* -j/--jobs's default in every command: the online CPUs, at most
 * POOL_JOBS_MAX. */
unsigned cli_default_jobs(void);
/* -j/--jobs N in 1..POOL_JOBS_MAX. */
int cli_take_jobs(const char *opt, const char *arg, unsigned *out, char *err, size_t errlen);

/* ---- `clearsim run` ---- */

/* One parsed `clearsim run` command line. */
typedef struct cli_run {
    run_point_t point;      /* the machine, workload and run options */
    report_format_t format; /* --format (default text) */
    const char *output;     /* -o/--output FILE (sim/output/outfile.h); NULL = stdout */
    bool quiet;             /* -q: no progress on stderr */
} cli_run_t;

/* The defaults of a `run` command line, and one of its own options
 * (--format, -o, -q) set on r, for commands that take run's options. */
void cli_run_init(cli_run_t *r);
int cli_run_option(cli_run_t *r, cli_opt_t id, const char *opt, const char *arg, char *err,
                   size_t errlen);
/* argv[0] is "run". Returns CLI_OK, CLI_HELP or CLI_USAGE (err set);
 * --machine is required. */
int cli_parse_run(int argc, char **argv, cli_run_t *out, char *err, size_t errlen);

/* One parsed `clearsim native` command line: the workload options of `run`
 * and --format / -q, without --machine, --exact and --seed (which only mean
 * something to the model), plus --repeat, --cpu and --warm-up. */
typedef struct cli_native {
    cli_run_t run;    /* point.spec, format, output, quiet */
    uint32_t repeat;  /* --repeat N: timed runs (default NATIVE_REPEAT_DEFAULT) */
    int32_t cpu;      /* --cpu N (default -1: the CPU it runs on) */
    uint32_t warm_ms; /* --warm-up MS (default NATIVE_WARM_MS_DEFAULT) */
} cli_native_t;

/* argv[0] is "native". Returns CLI_OK, CLI_HELP or CLI_USAGE (err set). */
int cli_parse_native(int argc, char **argv, cli_native_t *out, char *err, size_t errlen);

/* `clearsim machines` / `clearsim functions`: only --format text|json and
 * --help. argv[0] is the subcommand name. */
int cli_parse_list(int argc, char **argv, report_format_t *fmt, char *err, size_t errlen);

#endif
