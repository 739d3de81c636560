/*
 * cmd_common.h - what every subcommand's entry point shares: the exit codes
 * and the one-line error printer.
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

enum { CMD_EXIT_OK = 0, CMD_EXIT_RUNTIME = 1, CMD_EXIT_USAGE = 2 };

void cmd_errorf(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
