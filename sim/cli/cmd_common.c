/*
 * cmd_common.c - the subcommands' one-line error printer and the end of
 * their output (see cmd_common.h).
 */
#include "sim/cli/cmd_common.h"

#include <stdarg.h>
#include <stdio.h>

#include "sim/machine/cfg.h"

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

int cmd_finish_output(const char *command, outfile_t **of)
{
    if (*of) {
        outfile_t *done = *of;
        *of = NULL;
        char err[512];
        if (outfile_commit(done, err, sizeof err) != 0) {
            cmd_errorf(command, "--output %s", err);
            return CMD_EXIT_RUNTIME;
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cmd_errorf(command, "cannot write to standard output");
        return CMD_EXIT_RUNTIME;
    }
    return CMD_EXIT_OK;
}

int cmd_finish_stdout(const char *command)
{
    outfile_t *none = NULL;
    return cmd_finish_output(command, &none);
}

machine_t *cmd_machine_open(const char *command, const char *arg, bool quiet, host_pick_t *pick)
{
    host_pick_t local;
    if (!pick)
        pick = &local;
    char err[1024];
    machine_t *m = host_machine_open(arg, pick, err, sizeof err);
    if (!m) {
        cmd_errorf(command, "%s", err);
        return NULL;
    }
    if (pick->how[0] && !quiet)
        cmd_errorf(command, "note: --machine host: %s", pick->how);
    if (pick->warning[0])
        cmd_errorf(command, "warning: --machine host: %s", pick->warning);
    return m;
}

machine_t *cmd_machine_open_point(const char *command, const run_point_t *p, bool quiet,
                                  host_pick_t *pick, bool *usage)
{
    *usage = false;
    machine_t *m = cmd_machine_open(command, p->machine, quiet, pick);
    if (!m)
        return NULL;
    char err[1024];
    int rc = point_apply_overrides(p, &m, err, sizeof err);
    if (rc) {
        cmd_errorf(command, "%s", err);
        cfg_machine_destroy(m);
        *usage = rc == -2;
        return NULL;
    }
    return m;
}
