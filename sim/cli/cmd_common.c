/*
 * cmd_common.c - the subcommands' one-line error printer and the end of
 * their output (see cmd_common.h).
 */
#include "sim/cli/cmd_common.h"
#include "sim/machine/trust.h"

#include <jansson.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/base/errbuf.h"
#include "sim/cli/options.h"
#include "sim/engine/run.h"
#include "sim/machine/cfg.h"
#include "sim/output/report.h"

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

struct cmd_runs {
    const char *command;
    cli_run_t *r;
    outfile_t *of;
    FILE *out;
    json_t *arr; /* json with many runs */
    bool print_text;
    size_t n;
    bool have_trust;
    trust_t trust;
    char trust_line[512];
};

cmd_runs_t *cmd_runs_open(const char *command, cli_run_t *r, bool print_text, bool many, int *rc)
{
    char err[1024];
    cmd_runs_t *c = calloc(1, sizeof *c);
    *rc = CMD_EXIT_RUNTIME;
    if (!c || (many && r->format == REPORT_FMT_JSON && !(c->arr = json_array()))) {
        cmd_errorf(command, "out of memory");
        free(c);
        return NULL;
    }
    c->command = command;
    c->r = r;
    c->out = stdout;
    c->print_text = print_text;
    if (r->output) {
        c->of = outfile_open(r->output, err, sizeof err);
        if (!c->of) {
            cmd_errorf(command, "--output %s", err);
            json_decref(c->arr);
            free(c);
            return NULL;
        }
        c->out = outfile_fp(c->of);
    }
    return c;
}

FILE *cmd_runs_fp(const cmd_runs_t *c)
{
    return c->out;
}

int cmd_trust_line(const machine_t *m, trust_t *t, char *line, size_t len, char *err, size_t errlen)
{
    char text[400];
    if (trust_lookup(m->name, m->file_sha256, t, err, errlen) != 0)
        return -1;
    snprintf(line, len, "validation: %s%s", trust_text(t, text, sizeof text),
             t->validated && m->n_set ? " (of the file without --set)" : "");
    return 0;
}

const char *cmd_runs_trust_line(const cmd_runs_t *c)
{
    return c->have_trust ? c->trust_line : "";
}

/* The csv header or row of res (report_csv_header / report_csv_row) with the
 * three validation columns appended: validation.cases,
 * validation.median_abs_err, validation.median_gain_err (empty: null). */
static int csv_with_trust(cmd_runs_t *c, const run_result_t *res, bool header, char *err,
                          size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return errbuf_set(err, errlen, "out of memory");
    int rc =
        header ? report_csv_header(mem, res, err, errlen) : report_csv_row(mem, res, err, errlen);
    if (fclose(mem) != 0 && rc == 0)
        rc = errbuf_set(err, errlen, "out of memory");
    if (rc == 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        fputs(buf, c->out);
        if (header) {
            fputs(",validation.cases,validation.median_abs_err,validation.median_gain_err\n",
                  c->out);
        } else {
            const trust_t *t = &c->trust;
            fprintf(c->out, ",%llu,", t->validated ? (unsigned long long)t->cases : 0ull);
            if (t->validated && isfinite(t->median_abs_err))
                fprintf(c->out, "%.17g", t->median_abs_err);
            fputc(',', c->out);
            if (t->validated && isfinite(t->median_gain_err))
                fprintf(c->out, "%.17g", t->median_gain_err);
            fputc('\n', c->out);
        }
    }
    free(buf);
    return rc;
}

int cmd_runs_one(cmd_runs_t *c, const machine_t *m, run_result_t *res, char *err, size_t errlen)
{
    run_point_t *p = &c->r->point;
    p->opts.progress = !c->r->quiet && isatty(STDERR_FILENO);
    memset(res, 0, sizeof *res);
    if (!c->have_trust) {
        if (cmd_trust_line(m, &c->trust, c->trust_line, sizeof c->trust_line, err, errlen) != 0)
            return -1;
        c->have_trust = true;
    }
    if (run_predict(m, &p->spec, &p->opts, res, err, errlen) != 0)
        return -1;
    bool first = c->n++ == 0;
    switch (c->r->format) {
    case REPORT_FMT_JSON: {
        json_t *o = report_run_json(res, err, errlen);
        if (!o)
            return -1;
        if (!c->arr) {
            json_t *b = report_bound_by_json(&res->stats, err, errlen);
            if (!b || json_object_set_new(o, "bound_by", b) != 0) {
                json_decref(o);
                return errbuf_set(err, errlen, "out of memory");
            }
        }
        json_t *v = report_trust_json(&c->trust);
        if (!v || json_object_set_new(o, "validation", v) != 0) {
            json_decref(o);
            return errbuf_set(err, errlen, "out of memory");
        }
        if (c->arr)
            return json_array_append_new(c->arr, o) == 0 ? 0
                                                         : errbuf_set(err, errlen, "out of memory");
        int rc = report_json_dump(c->out, o, err, errlen);
        json_decref(o);
        return rc;
    }
    case REPORT_FMT_CSV:
        if (first && csv_with_trust(c, res, true, err, errlen) != 0)
            return -1;
        return csv_with_trust(c, res, false, err, errlen);
    default:
        if (!c->print_text)
            return 0;
        if (!first)
            fputc('\n', c->out);
        if (report_run(c->out, c->r->format, res, err, errlen) != 0)
            return -1;
        fprintf(c->out, "%s\n", c->trust_line);
        return 0;
    }
}

int cmd_runs_close(cmd_runs_t *c)
{
    char err[1024];
    int rc = CMD_EXIT_OK;
    if (c->arr && report_json_dump(c->out, c->arr, err, sizeof err) != 0) {
        cmd_errorf(c->command, "%s", err);
        rc = CMD_EXIT_RUNTIME;
    }
    if (rc == CMD_EXIT_OK)
        rc = c->of ? cmd_finish_output(c->command, &c->of) : cmd_finish_stdout(c->command);
    cmd_runs_abort(c);
    return rc;
}

void cmd_runs_abort(cmd_runs_t *c)
{
    if (!c)
        return;
    outfile_abort(c->of);
    json_decref(c->arr);
    free(c);
}
