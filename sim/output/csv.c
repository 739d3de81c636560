/*
 * csv.c - the one CSV reader (see csv.h).
 */
#include "sim/output/csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"

typedef struct csv_fields {
    char **v;
    size_t n, cap;
    char *buf; /* unquoted text, fields NUL-separated */
} csv_fields_t;

static void fields_free(csv_fields_t *f)
{
    free(f->v);
    free(f->buf);
    memset(f, 0, sizeof *f);
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Split one line (no line end) into unquoted fields (trim: without the
 * blanks around unquoted ones). Returns 0, or -1 with why. */
static int csv_split(const char *line, bool trim, csv_fields_t *f, const char **why)
{
    size_t len = strlen(line);
    char *buf = malloc(len + 1);
    if (!buf) {
        *why = "out of memory";
        return -1;
    }
    free(f->buf);
    f->buf = buf;
    f->n = 0;
    const char *p = line;
    char *o = buf;
    for (;;) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 64;
            char **v = realloc(f->v, cap * sizeof *v);
            if (!v) {
                *why = "out of memory";
                return -1;
            }
            f->v = v;
            f->cap = cap;
        }
        f->v[f->n++] = o;
        while (trim && blank(*p))
            p++;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    *why = "a quoted field is not closed";
                    return -1;
                }
                if (*p == '"' && p[1] == '"') {
                    *o++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *o++ = *p++;
                }
            }
            if (*p != ',' && *p != '\0') {
                *why = "text after a closing quote";
                return -1;
            }
        } else {
            char *start = o;
            while (*p != ',' && *p != '\0') {
                if (*p == '"') {
                    *why = "a quote inside an unquoted field";
                    return -1;
                }
                *o++ = *p++;
            }
            while (trim && o > start && blank(o[-1]))
                o--;
        }
        *o++ = '\0';
        if (*p == '\0')
            return 0;
        p++; /* the comma */
    }
}

/* The first character of line that is not blank. */
static char first_text(const char *line)
{
    while (blank(*line))
        line++;
    return *line;
}

long csv_read(const char *path, unsigned flags, csv_row_fn fn, void *ctx, char *err, size_t errlen)
{
    struct stat st;
    if ((flags & CSV_MISSING_EMPTY) && stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    const uint64_t cap = (flags & CSV_SMALL)       ? INFILE_MAX_SIZES_BYTES
                         : (flags & CSV_IN_MEMORY) ? INFILE_MAX_PLOT_BYTES
                                                   : INFILE_MAX_CSV_BYTES;
    FILE *f = infile_open(path, cap, NULL, err, errlen);
    if (!f)
        return -1;
    uint64_t total = 0;
    csv_fields_t head = {0}, row = {0};
    char *line = malloc(CSV_LINE_MAX + 2);
    size_t lineno = 0;
    long rows = 0;
    bool have_head = false, trim = (flags & CSV_COMMENTS) != 0;
    if (!line) {
        fclose(f);
        return errbuf_set(err, errlen, "out of memory");
    }
    errno = 0;
    for (;;) {
        /* one line, at most CSV_LINE_MAX bytes and its line end */
        size_t n = 0;
        int c = EOF;
        while (n <= CSV_LINE_MAX && (c = getc(f)) != EOF && c != '\n')
            line[n++] = (char)c;
        if (n == 0 && c == EOF)
            break;
        lineno++;
        total += n + (c == '\n');
        if (total > cap) {
            rows = errbuf_set(err, errlen,
                              "%s:%zu: the file is larger than the limit of %llu "
                              "bytes for this input",
                              path, lineno, (unsigned long long)cap);
            break;
        }
        if (n > CSV_LINE_MAX) {
            rows = errbuf_set(err, errlen, "%s:%zu: a line longer than %u bytes", path, lineno,
                              CSV_LINE_MAX);
            break;
        }
        if (c == EOF && (flags & CSV_CUT_LAST))
            break; /* a last line cut by an interrupt */
        line[n] = '\0';
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        if (memchr(line, '\0', n)) {
            rows = errbuf_set(err, errlen, "%s:%zu: a NUL byte; not a CSV file", path, lineno);
            break;
        }
        if (n == 0 || (trim && (first_text(line) == '\0' || first_text(line) == '#')))
            continue;
        const char *why = NULL;
        if (csv_split(line, trim, have_head ? &row : &head, &why) != 0) {
            rows = errbuf_set(err, errlen, "%s:%zu: %s", path, lineno, why);
            break;
        }
        if (have_head && row.n != head.n) {
            rows = errbuf_set(err, errlen, "%s:%zu: %zu fields, but the header has %zu", path,
                              lineno, row.n, head.n);
            break;
        }
        const csv_fields_t *fl = have_head ? &row : &head;
        if (fn) {
            csv_row_t r = {
                .lineno = lineno,
                .is_header = !have_head,
                .line = line,
                .n = fl->n,
                .fields = (const char *const *)fl->v,
                .n_header = head.n,
                .header = (const char *const *)head.v,
            };
            if (err && errlen)
                err[0] = '\0';
            if (fn(ctx, &r, err, errlen) != 0) {
                if (!err || !errlen || err[0] == '\0')
                    errbuf_set(err, errlen, "%s:%zu: row rejected", path, lineno);
                rows = -1;
                break;
            }
        }
        if (have_head)
            rows++;
        have_head = true;
        errno = 0;
    }
    if (rows >= 0 && ferror(f))
        rows = errbuf_set(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
    if (rows >= 0 && !have_head && (flags & CSV_NEED_HEADER))
        rows = errbuf_set(err, errlen, "%s: empty file (no header)", path);
    free(line);
    fields_free(&head);
    fields_free(&row);
    fclose(f);
    return rows;
}
