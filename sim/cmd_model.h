/*
 * cmd_model.h - subcommands that compare the model with measurements:
 * `clearsim calibrate` (sim/cmd_calibrate.c) and `clearsim crosscheck`
 * (sim/cmd_crosscheck.c), as rows of sim/main.c's command table.
 *
 * Notes
 *  - Each takes argv with argv[0] = the subcommand name and returns the exit
 *    status: 0 success, 1 runtime error, 2 usage error.
 */
#ifndef CLEARSIM_CMD_MODEL_H
#define CLEARSIM_CMD_MODEL_H

#include <stdio.h>

int cmd_calibrate_main(int argc, char **argv);
void cmd_calibrate_usage(FILE *out);

int cmd_crosscheck_main(int argc, char **argv);
void cmd_crosscheck_usage(FILE *out);

#endif
