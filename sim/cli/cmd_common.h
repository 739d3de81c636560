/*
 * cmd_common.h - what every subcommand's entry point shares: the exit codes,
 * the one-line error printer, the end of the output and the --machine
 * resolver with its note and warning.
 *
 * Notes
 *  - Only the command layer (sim/cli/) prints errors and chooses exit codes;
 *    every stage below returns its reasons (models/base/errbuf.h).
 *  - Exit codes, the one set every command returns: 0 success, 1 runtime
 *    error (machine file, run, output), 2 usage error (command line).
 *  - cmd_errorf prints "clearsim: <command>: <message>" (or "clearsim:
 *    <message>" when command is NULL) on stderr, as one line whatever the
 *    message holds (control characters become spaces), after flushing stdout.
 */
#ifndef CLEARSIM_CMD_COMMON_H
#define CLEARSIM_CMD_COMMON_H

#include <stdbool.h>

#include "sim/engine/point.h"
#include "sim/host/pick.h"
#include "sim/host/host.h"
#include "sim/output/outfile.h"

enum { CMD_EXIT_OK = 0, CMD_EXIT_RUNTIME = 1, CMD_EXIT_USAGE = 2 };

void cmd_errorf(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The end of a command's output: commit *of when it is not NULL (setting it
 * to NULL first, so that the caller's outfile_abort() does nothing), then
 * flush stdout. A failure is printed ("--output <reason>", or "cannot write
 * to standard output") and gives CMD_EXIT_RUNTIME; else CMD_EXIT_OK. */
int cmd_finish_output(const char *command, outfile_t **of);
/* The same for a command that writes only to stdout. */
int cmd_finish_stdout(const char *command);

/* --machine NAME|PATH|host for a command (host_machine_open). For host, a
 * note on stderr says which file was chosen and how it matched (not when
 * quiet), and a warning says when that file describes another system
 * (always). A failure is printed; then NULL. pick may be NULL. */
machine_t *cmd_machine_open(const char *command, const char *arg, bool quiet, host_pick_t *pick);
/* The same, then the --set overrides of p applied (cfg_machine_apply_set);
 * arg is p->machine. A bad override is a usage error: *usage is set. */
machine_t *cmd_machine_open_point(const char *command, const run_point_t *p, bool quiet,
                                  host_pick_t *pick, bool *usage);

/* ---- predictions of one or more functions (run -f all, bench) ---- */

struct cli_run;
typedef struct cmd_runs cmd_runs_t;
/* Open r's output (-o FILE, else stdout; a failure is printed and *rc set).
 * With text, each cmd_runs_one prints the report when print_text is set
 * (run), or nothing (bench prints perf's layout on cmd_runs_fp); csv gets one
 * header and a row per run, json an array of run objects when r->point
 * runs every function (-f all), else the object. */
cmd_runs_t *cmd_runs_open(const char *command, struct cli_run *r, bool print_text, bool many,
                          int *rc);
FILE *cmd_runs_fp(const cmd_runs_t *c);
/* Predict r->point (as it is now) on m into res and record it. Returns 0, or
 * -1 with a reason. */
int cmd_runs_one(cmd_runs_t *c, const machine_t *m, run_result_t *res, char *err, size_t errlen);
/* The trust line of the machine of the runs ("validation: ..."; "" before
 * the first cmd_runs_one). */
const char *cmd_runs_trust_line(const cmd_runs_t *c);
/* m's trust figures (sim/machine/trust.h) into *t and its line
 * ("validation: validated on ..."). Returns 0, or -1 with a reason (a
 * malformed trust file). */
struct trust;
int cmd_trust_line(const machine_t *m, struct trust *t, char *line, size_t len, char *err,
                   size_t errlen);
/* Write what is left (json) and commit the output: the exit code (a failure
 * printed). Frees c. */
int cmd_runs_close(cmd_runs_t *c);
/* Drop the output (FILE left as it was); NULL does nothing. */
void cmd_runs_abort(cmd_runs_t *c);

#endif
