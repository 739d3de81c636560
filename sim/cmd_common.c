/*
 * cmd_common.c - the subcommands' one-line error printer (see cmd_common.h).
 */
#include "sim/cmd_common.h"

#include <stdarg.h>
#include <stdio.h>

void cmd_errorf(const char *command, const char *fmt, ...)
{
    char msg[1152];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    fflush(stdout);
    if (command)
        fprintf(stderr, "clearsim: %s: %s\n", command, msg);
    else
        fprintf(stderr, "clearsim: %s\n", msg);
}
