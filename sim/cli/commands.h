/*
 * commands.h - the entry point and the help of every subcommand, for the
 * dispatch table in sim/cli/main.c.
 *
 * Notes
 *  - cmd_X_main(argc, argv) takes argv[0] = "X" and returns the exit code
 *    (sim/cli/cmd_common.h: 0 success, 1 runtime error, 2 usage error).
 *  - cmd_X_usage(out) prints the command's --help text.
 */
#ifndef CLEARSIM_COMMANDS_H
#define CLEARSIM_COMMANDS_H

#include <stdio.h>

#define CMD_DECLARE(name)                                                                          \
    int cmd_##name##_main(int argc, char **argv);                                                  \
    void cmd_##name##_usage(FILE *out);

CMD_DECLARE(run)
CMD_DECLARE(explain)
CMD_DECLARE(machines)
CMD_DECLARE(functions)
CMD_DECLARE(native)
CMD_DECLARE(detect)
CMD_DECLARE(sweep)
CMD_DECLARE(tune)
CMD_DECLARE(plot)
CMD_DECLARE(calibrate)
CMD_DECLARE(crosscheck)
CMD_DECLARE(report)
CMD_DECLARE(check)
CMD_DECLARE(bench)
CMD_DECLARE(validate)

#undef CMD_DECLARE

#endif
