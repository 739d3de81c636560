/*
 * cmd_report.h - the `clearsim report` subcommand (sim/cmd_report.c), as a
 * row of sim/main.c's command table.
 *
 * Notes
 *  - argv[0] is "report"; returns the exit status: 0 success (or the file
 *    is current), 1 runtime error (or the file is out of date), 2 usage
 *    error. Prints its own one-line errors ("clearsim: report: ...").
 */
#ifndef CLEARSIM_CMD_REPORT_H
#define CLEARSIM_CMD_REPORT_H

#include <stdio.h>

int cmd_report_main(int argc, char **argv);
void cmd_report_usage(FILE *out);

#endif
