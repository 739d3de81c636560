/*
 * calibrate_write.c - writing the calibrated machine file (calibrate.h):
 * the original text with only the fitted keys' values replaced.
 *
 * Notes
 *  - The values are located by their libyaml marks (an event parse with a
 *    stack of mapping keys for the dotted path), so every source comment
 *    stays where it was; a value that no longer fits its column pushes the
 *    comment right.
 *  - Values are written in their stored units (cycles, ns, B/cycle), which do
 *    not depend on the clock; a bandwidth the file gave per second (a bus
 *    rate) is written back per second, at the clock the fit ran at.
 *  - The header (command, data, fit, each key before -> after) replaces the
 *    header an earlier calibration left at the top of the file: the file
 *    says how its current values came about; git keeps the history.
 */
#include "sim/study/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"
#include "sim/output/outfile.h"
#include "sim/machine/units.h"

typedef struct span {
    size_t line, col_start, col_end; /* 0-based line; [start, end) columns */
    bool found;
} span_t;

/* Find the value mark of each dotted key path in the YAML text with the
 * event parser: a stack of mapping keys gives the current path. */
static int find_spans(const char *text, size_t len, const cal_data_t *d, span_t *spans, char *err,
                      size_t errlen)
{
    yaml_parser_t pr;
    yaml_parser_initialize(&pr);
    yaml_parser_set_input_string(&pr, (const unsigned char *)text, len);
    char stack[16][64];
    bool expect_key[16];
    int depth = -1;
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&pr, &ev)) {
            rc = errbuf_set(err, errlen, "YAML error at %zu:%zu", pr.problem_mark.line + 1,
                            pr.problem_mark.column + 1);
            break;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        bool is_value = depth >= 0 && !expect_key[depth];
        if (t == YAML_MAPPING_START_EVENT) {
            if (depth < 15) {
                depth++;
                expect_key[depth] = true;
                stack[depth][0] = 0;
            }
        } else if (t == YAML_MAPPING_END_EVENT) {
            depth--;
            if (depth >= 0)
                expect_key[depth] = true;
        } else if (t == YAML_SEQUENCE_START_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            /* sequences (startup tables, features) are never fitted values;
             * a sequence as a value completes its key */
            if (t == YAML_SEQUENCE_END_EVENT && depth >= 0)
                expect_key[depth] = true;
        } else if (t == YAML_SCALAR_EVENT && depth >= 0) {
            if (!is_value) {
                snprintf(stack[depth], sizeof(stack[depth]), "%s",
                         (const char *)ev.data.scalar.value);
                expect_key[depth] = false;
            } else {
                char path[256] = "";
                for (int i = 0; i <= depth; i++) {
                    if (i)
                        strncat(path, ".", sizeof(path) - strlen(path) - 1);
                    strncat(path, stack[i], sizeof(path) - strlen(path) - 1);
                }
                for (size_t k = 0; k < d->n_keys; k++) {
                    if (strcmp(path, d->keys[k].key->path) == 0 &&
                        ev.start_mark.line == ev.end_mark.line) {
                        spans[k].found = true;
                        spans[k].line = ev.start_mark.line;
                        spans[k].col_start = ev.start_mark.column;
                        spans[k].col_end = ev.end_mark.column;
                    }
                }
                expect_key[depth] = true;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&pr);
    return rc;
}

/* Whether the line at p is one this writer puts in its header: the first
 * three lines' openings, or "#   <key> ..." for a key of the table. */
static bool header_line(const char *p)
{
    static const char *const opening[] = {"# Calibrated by `", "# Data: ", "# Fit: "};
    for (size_t i = 0; i < sizeof opening / sizeof opening[0]; i++)
        if (strncmp(p, opening[i], strlen(opening[i])) == 0)
            return true;
    if (strncmp(p, "#   ", 4) != 0)
        return false;
    char key[MACHINE_TEXT_MAX];
    size_t n = strcspn(p + 4, " \n");
    if (n == 0 || n >= sizeof(key))
        return false;
    memcpy(key, p + 4, n);
    key[n] = 0;
    return cfg_key_find(key) != NULL;
}

/* An earlier calibration's header at the top of the text gives way to the
 * new one: returns where the text goes on after it, and counts its lines. */
static const char *past_old_header(const char *p, size_t *lines)
{
    if (strncmp(p, "# Calibrated by `", 17) != 0)
        return p;
    while (*p && header_line(p)) {
        const char *eol = strchr(p, '\n');
        (*lines)++;
        p = eol ? eol + 1 : p + strlen(p);
    }
    return p;
}

int cal_write_yaml(const char *in, const char *out, const machine_t *m, const cal_data_t *d,
                   const cal_result_t *res, const char *command, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    if (infile_read(in, INFILE_MAX_MACHINE_BYTES, NULL, &text, &len, err, errlen) != 0)
        return -1;
    span_t spans[CAL_KEYS_MAX] = {{0}};
    if (find_spans(text, len, d, spans, err, errlen)) {
        free(text);
        return -1;
    }
    for (size_t k = 0; k < d->n_keys; k++)
        if (!spans[k].found) {
            free(text);
            return errbuf_set(err, errlen,
                              "%s: key %s is not written in the file (add it, then fit)", in,
                              d->keys[k].key->path);
        }
    outfile_t *of = outfile_open(out, err, errlen);
    if (!of) {
        free(text);
        return -1;
    }
    FILE *o = outfile_fp(of);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    fprintf(o, "# Calibrated by `%s` on %s.\n", command, date);
    fprintf(o, "# Data: %s (%zu cases: fitting and validation sets are marked there).\n", d->path,
            d->n_cases);
    fprintf(o,
            "# Fit: GSL multifit_nlinear, %zu iterations, %zu evaluations, "
            "chi^2 %.4g -> %.4g (relative residuals).\n",
            res->iterations, res->evaluations, res->chisq0, res->chisq);
    for (size_t k = 0; k < d->n_keys; k++) {
        char a[64], b[64], s[64];
        cfg_key_format(d->keys[k].key, res->start[k], CFG_FMT_YAML, a, sizeof(a));
        cfg_key_format(d->keys[k].key, res->value[k], CFG_FMT_YAML, b, sizeof(b));
        if (isfinite(res->sigma[k]))
            cfg_key_format(d->keys[k].key, res->sigma[k], CFG_FMT_YAML, s, sizeof(s));
        else
            snprintf(s, sizeof s, "%s", CAL_SIGMA_UNKNOWN);
        fprintf(o, "#   %-28s %s -> %s (+/- %s)\n", d->keys[k].key->path, a, b, s);
    }
    /* copy the text, line by line, replacing fitted values (and an earlier
     * header of this kind, which this one replaces) */
    size_t line = 0;
    const char *p = past_old_header(text, &line);
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        bool done = false;
        for (size_t k = 0; k < d->n_keys && !done; k++) {
            if (spans[k].line != line)
                continue;
            double v;
            cfg_key_get(m, d->keys[k].key, &v);
            char val[64], was[64], why[128];
            cfg_key_format(d->keys[k].key, v, CFG_FMT_YAML, val, sizeof(val));
            /* A bandwidth the file gives per second (a bus rate, which does
             * not follow the core clock) stays per second: the fitted
             * bytes/cycle at the clock the fit ran at (m's). */
            size_t wl = spans[k].col_end - spans[k].col_start;
            unit_bw_t bw;
            if (d->keys[k].key->type == CFG_T_BW && wl < sizeof(was)) {
                memcpy(was, p + spans[k].col_start, wl);
                was[wl] = 0;
                if (unit_parse_bw(was, &bw, why, sizeof(why)) == 0 && !bw.per_cycle)
                    snprintf(val, sizeof(val), "%.4gGB/s",
                             v * m->freq_ghz * 1e9 / (1024.0 * 1024.0 * 1024.0));
            }
            fwrite(p, 1, spans[k].col_start, o);
            fputs(val, o);
            /* keep the comment column where it was when the new value fits */
            size_t oldw = spans[k].col_end - spans[k].col_start, neww = strlen(val);
            const char *rest = p + spans[k].col_end;
            size_t restlen = ll - spans[k].col_end;
            while (neww > oldw && restlen > 1 && rest[0] == ' ' && rest[1] == ' ') {
                rest++;
                restlen--;
                oldw++;
            }
            for (; neww < oldw; neww++)
                fputc(' ', o);
            fwrite(rest, 1, restlen, o);
            fprintf(o, "%s", eol ? "\n" : "");
            done = true;
        }
        if (!done) {
            fwrite(p, 1, ll, o);
            if (eol)
                fputc('\n', o);
        }
        line++;
        p = eol ? eol + 1 : p + ll;
    }
    free(text);
    if (outfile_commit(of, err, errlen))
        return -1;
    return 0;
}
