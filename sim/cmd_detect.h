/*
 * cmd_detect.h - the `clearsim detect` subcommand (sim/cmd_detect.c).
 *
 * Notes
 *  - Command code, like sim/main.c: it prints the machine YAML or a one-line
 *    error ("clearsim: detect: ...") and returns the exit status (0 success,
 *    1 runtime error, 2 usage error); it never calls exit().
 */
#ifndef CLEARSIM_CMD_DETECT_H
#define CLEARSIM_CMD_DETECT_H

#include <stdio.h>

/* argv[0] is "detect". Returns the exit status. */
int cmd_detect(int argc, char **argv);
void cmd_detect_usage(FILE *out);

#endif
