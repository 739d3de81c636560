/*
 * cmd_tools.h - the `clearsim sweep`, `clearsim plot` and `clearsim tune`
 * subcommands (sim/cmd_sweep.c, sim/cmd_plot.c, sim/cmd_tune.c), as rows of
 * sim/main.c's command table.
 *
 * Notes
 *  - Each takes argv with argv[0] = the subcommand name and returns the
 *    process exit status: 0 success, 1 runtime error, 2 usage error. Each
 *    prints its own one-line errors ("clearsim: <command>: ...").
 */
#ifndef CLEARSIM_CMD_TOOLS_H
#define CLEARSIM_CMD_TOOLS_H

#include <stdio.h>

int cmd_sweep_main(int argc, char **argv);
void cmd_sweep_usage(FILE *out);

int cmd_plot_main(int argc, char **argv);
void cmd_plot_usage(FILE *out);

int cmd_tune_main(int argc, char **argv);
void cmd_tune_usage(FILE *out);

#endif
