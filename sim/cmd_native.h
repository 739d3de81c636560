/*
 * cmd_native.h - the `clearsim native` subcommand (sim/cmd_native.c).
 *
 * Notes
 *  - Command code, like sim/main.c: it prints its help, its results and its
 *    one-line errors ("clearsim: native: ..."), and returns the exit status
 *    (0 success, 1 runtime error or a host that cannot run the workload,
 *    2 usage error); it never calls exit().
 */
#ifndef CLEARSIM_CMD_NATIVE_H
#define CLEARSIM_CMD_NATIVE_H

#include <stdio.h>

/* argv[0] is "native". Returns the exit status. */
int cmd_native(int argc, char **argv);
void cmd_native_usage(FILE *out);

#endif
