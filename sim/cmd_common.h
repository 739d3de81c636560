/*
 * cmd_common.h - what every subcommand's entry point shares: the exit codes
 * the one-line error printer and the end of the output.
 *
 * Notes
 *  - Only the command layer (sim/main.c, sim/cmd_*.c) prints; library code
 *    returns its reasons.
 *  - cmd_errorf prints "clearsim: <command>: <message>" (or "clearsim:
 *    <message>" when command is NULL) on stderr, as one line whatever the
 *    message holds (control characters become spaces), after flushing stdout.
 */
#ifndef CLEARSIM_CMD_COMMON_H
#define CLEARSIM_CMD_COMMON_H

#include "sim/outfile.h"

enum { CMD_EXIT_OK = 0, CMD_EXIT_RUNTIME = 1, CMD_EXIT_USAGE = 2 };

void cmd_errorf(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The end of a command's output: commit *of when it is not NULL (setting it
 * to NULL first, so that the caller's outfile_abort() does nothing), then
 * flush stdout. A failure is printed ("--output <reason>", or "cannot write
 * to standard output") and gives CMD_EXIT_RUNTIME; else CMD_EXIT_OK. */
int cmd_finish_output(const char *command, outfile_t **of);

#endif
