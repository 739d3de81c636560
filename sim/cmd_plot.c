/*
 * cmd_plot.c - `clearsim plot`: read a csv that clearsim wrote (sweep,
 * tune, or a crosscheck csv), write gnuplot's data file, and run gnuplot
 * with a template from plots/ to make a PNG or SVG image.
 *
 * Notes
 *  - Kinds and the csv columns they read (docs: plots/README.md):
 *      throughput           sweep csv: function, bytes_per_sec, size_bytes and
 *                           chunk_bytes (x is chunk_bytes when only the chunk
 *                           varies), machine (series per machine when several);
 *      predicted-vs-native  predicted_bytes_per_sec, measured_bytes_per_sec,
 *                           and optionally function (one colour per function);
 *      tuning               tune csv: size_bytes, strategy, function,
 *                           total_seconds, clear_seconds;
 *      machines             sweep csv: machine, bytes_per_sec (and function,
 *                           size_bytes to label bars when they vary).
 *    Rows with a non-empty `error` column are left out.
 *  - The templates are $CLEARSIM_PLOTS/<kind>.gp, else the source tree's
 *    plots/. gnuplot is $CLEARSIM_GNUPLOT, else `gnuplot` on PATH. It runs
 *    with its variables given by -e (no shell), writes into a private
 *    temporary directory, and the image is then copied to --output through
 *    sim/outfile.c (atomic). gnuplot's own messages are kept and the first
 *    one is shown in the one-line error.
 *  - The csv reader: RFC 4180 quoting, no line breaks inside fields, a line
 *    end on the last line optional, empty lines skipped; an error names
 *    file:line.
 *  - Exit status: 0 success, 1 runtime error (no gnuplot, an unreadable or
 *    bad csv, gnuplot failed, output), 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cmd_common.h"
#include "sim/cli.h"
#include "sim/cmd_tools.h"
#include "sim/errbuf.h"
#include "sim/outfile.h"
#include "sim/units.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define ERR_LEN 1024

#ifndef CLEARSIM_SOURCE_DIR
#define CLEARSIM_SOURCE_DIR "."
#endif

#define errorf(...) cmd_errorf("plot", __VA_ARGS__)

typedef enum plot_kind { K_THROUGHPUT = 0, K_PVN, K_TUNING, K_MACHINES } plot_kind_t;
static const char *const kind_names[] = {"throughput", "predicted-vs-native", "tuning", "machines",
                                         NULL};

void cmd_plot_usage(FILE *out)
{
    fputs("usage: clearsim plot --input CSV --output FILE.png|FILE.svg [options]\n"
          "\n"
          "Draw a csv written by clearsim with gnuplot (templates in plots/).\n"
          "\n"
          "  -i, --input CSV     the csv to draw\n"
          "  -o, --output FILE   the image: .png or .svg (written atomically)\n"
          "      --kind K        throughput (default): GB/sec against size per function,\n"
          "                        from 'clearsim sweep'\n"
          "                      predicted-vs-native: predicted against measured, with\n"
          "                        y = x (columns predicted_bytes_per_sec,\n"
          "                        measured_bytes_per_sec, optional function)\n"
          "                      tuning: GB/sec per strategy, with and without the\n"
          "                        re-fetch, from 'clearsim tune --format csv'\n"
          "                      machines: one bar per machine, from 'clearsim sweep\n"
          "                        --sweep machine=A,B,...'\n"
          "      --title TEXT    the plot's title\n"
          "  -h, --help          show this help\n"
          "\n"
          "Needs gnuplot (Debian: gnuplot-nox); $CLEARSIM_GNUPLOT overrides the program and\n"
          "$CLEARSIM_PLOTS the template folder. Rows with an 'error' are left out.\n",
          out);
}

/* ------------------------------------------------------------------------ */
/* csv                                                                       */

typedef struct csv {
    char **header;
    size_t ncol;
    char ***rows; /* rows[r][c] */
    size_t *lineno;
    size_t nrow;
} csv_t;

static void csv_free(csv_t *c)
{
    for (size_t i = 0; i < c->ncol; i++)
        free(c->header[i]);
    free(c->header);
    for (size_t r = 0; r < c->nrow; r++) {
        for (size_t i = 0; i < c->ncol; i++)
            free(c->rows[r][i]);
        free(c->rows[r]);
    }
    free(c->rows);
    free(c->lineno);
    memset(c, 0, sizeof *c);
}

/* Split one line into malloc'd fields. Returns the count, or -1 (why set). */
static long split_line(const char *line, char ***out, const char **why)
{
    size_t n = 0, cap = 8;
    char **f = malloc(cap * sizeof *f);
    const char *p = line;
    *why = "out of memory";
    if (!f)
        return -1;
    for (;;) {
        size_t len = 0, fcap = 32;
        char *v = malloc(fcap);
        if (!v)
            goto bad;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    free(v);
                    *why = "unterminated quoted field";
                    goto bad;
                }
                if (*p == '"' && p[1] == '"')
                    p++;
                else if (*p == '"')
                    break;
                if (len + 2 > fcap) {
                    char *nv = realloc(v, fcap *= 2);
                    if (!nv) {
                        free(v);
                        goto bad;
                    }
                    v = nv;
                }
                v[len++] = *p++;
            }
            p++;
            if (*p != ',' && *p != '\0') {
                free(v);
                *why = "text after a closing quote";
                goto bad;
            }
        } else {
            while (*p != ',' && *p != '\0') {
                if (*p == '"') {
                    free(v);
                    *why = "a quote inside an unquoted field";
                    goto bad;
                }
                if (len + 2 > fcap) {
                    char *nv = realloc(v, fcap *= 2);
                    if (!nv) {
                        free(v);
                        goto bad;
                    }
                    v = nv;
                }
                v[len++] = *p++;
            }
        }
        v[len] = '\0';
        if (n == cap) {
            char **nf = realloc(f, (cap *= 2) * sizeof *nf);
            if (!nf) {
                free(v);
                goto bad;
            }
            f = nf;
        }
        f[n++] = v;
        if (*p == '\0')
            break;
        p++; /* the comma */
    }
    *out = f;
    return (long)n;
bad:
    for (size_t i = 0; i < n; i++)
        free(f[i]);
    free(f);
    return -1;
}

static int csv_read(const char *path, csv_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f)
        return errbuf_set(err, errlen, "--input %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, lineno = 0, rcap = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (got == 0)
            continue;
        if (strlen(line) != (size_t)got) {
            rc = errbuf_set(err, errlen, "%s:%zu: a NUL byte (not a csv file)", path, lineno);
            break;
        }
        char **fields = NULL;
        const char *why;
        long nf = split_line(line, &fields, &why);
        if (nf < 0) {
            rc = errbuf_set(err, errlen, "%s:%zu: %s", path, lineno, why);
            break;
        }
        if (!c->header) {
            c->header = fields;
            c->ncol = (size_t)nf;
            continue;
        }
        if ((size_t)nf != c->ncol) {
            for (long i = 0; i < nf; i++)
                free(fields[i]);
            free(fields);
            rc = errbuf_set(err, errlen, "%s:%zu: %ld fields, the header has %zu", path, lineno, nf,
                            c->ncol);
            break;
        }
        if (c->nrow == rcap) {
            rcap = rcap ? rcap * 2 : 64;
            char ***nr = realloc(c->rows, rcap * sizeof *nr);
            size_t *nl = realloc(c->lineno, rcap * sizeof *nl);
            if (nr)
                c->rows = nr;
            if (nl)
                c->lineno = nl;
            if (!nr || !nl) {
                for (long i = 0; i < nf; i++)
                    free(fields[i]);
                free(fields);
                rc = errbuf_set(err, errlen, "out of memory");
                break;
            }
        }
        c->lineno[c->nrow] = lineno;
        c->rows[c->nrow++] = fields;
    }
    if (rc == 0 && ferror(f))
        rc = errbuf_set(err, errlen, "--input %s: read error", path);
    if (rc == 0 && !c->header)
        rc = errbuf_set(err, errlen, "%s: empty file (no header)", path);
    free(line);
    fclose(f);
    if (rc != 0)
        csv_free(c);
    return rc;
}

static ssize_t csv_col(const csv_t *c, const char *name)
{
    for (size_t i = 0; i < c->ncol; i++)
        if (strcmp(c->header[i], name) == 0)
            return (ssize_t)i;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* data                                                                      */

typedef struct plot_in {
    const char *path;
    const csv_t *c;
    ssize_t err_col;
} plot_in_t;

static bool row_ok(const plot_in_t *in, size_t r)
{
    return in->err_col < 0 || in->c->rows[r][in->err_col][0] == '\0';
}

static int need_col(const plot_in_t *in, const char *name, const char *kind, ssize_t *col,
                    char *err, size_t errlen)
{
    *col = csv_col(in->c, name);
    if (*col < 0)
        return errbuf_set(err, errlen, "%s:1: no '%s' column (needed by --kind %s)", in->path, name,
                          kind);
    return 0;
}

static int num(const plot_in_t *in, size_t r, ssize_t col, double *v, char *err, size_t errlen)
{
    const char *s = in->c->rows[r][col];
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno || !isfinite(*v))
        return errbuf_set(err, errlen, "%s:%zu: column %s: '%.40s' is not a number", in->path,
                          in->c->lineno[r], in->c->header[col], s);
    return 0;
}

/* A string for gnuplot inside double quotes: no quotes or backslashes. */
static void put_label(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' || *s == '\\' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, f);
    fputc('"', f);
}

/* Distinct values of a column over the usable rows. */
static size_t distinct(const plot_in_t *in, ssize_t col, const char **vals, size_t max)
{
    size_t n = 0;
    if (col < 0)
        return 0;
    for (size_t r = 0; r < in->c->nrow; r++) {
        if (!row_ok(in, r))
            continue;
        const char *v = in->c->rows[r][col];
        size_t i = 0;
        while (i < n && strcmp(vals[i], v) != 0)
            i++;
        if (i == n && n < max)
            vals[n++] = v;
    }
    return n;
}

#define SERIES_MAX 64

/* Rows grouped into series by the key columns (a, b), in first-seen order;
 * each series written as a block sorted by x. */
typedef struct pt {
    double x, y, z;
} pt_t;

static int cmp_pt(const void *a, const void *b)
{
    const pt_t *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x;
}

typedef int (*row_fn)(const plot_in_t *in, size_t r, pt_t *p, char *err, size_t errlen);

/* title of a series: show_b 0 "A", 1 "A on B", 2 "A (B)" */
static int write_series(FILE *f, const plot_in_t *in, ssize_t ka, ssize_t kb, int show_b,
                        const char *fallback, row_fn fn, bool sort, size_t *nseries, char *err,
                        size_t errlen)
{
    const char *va[SERIES_MAX], *vb[SERIES_MAX];
    size_t ns = 0;
    pt_t *pts = malloc((in->c->nrow ? in->c->nrow : 1) * sizeof *pts);
    if (!pts)
        return errbuf_set(err, errlen, "out of memory");
    /* series keys in first-seen order */
    for (size_t r = 0; r < in->c->nrow; r++) {
        if (!row_ok(in, r))
            continue;
        const char *a = ka >= 0 ? in->c->rows[r][ka] : "";
        const char *b = kb >= 0 ? in->c->rows[r][kb] : "";
        size_t i = 0;
        while (i < ns && !(strcmp(va[i], a) == 0 && strcmp(vb[i], b) == 0))
            i++;
        if (i == ns) {
            if (ns == SERIES_MAX) {
                free(pts);
                return errbuf_set(err, errlen, "%s: more than %d series", in->path, SERIES_MAX);
            }
            va[ns] = a;
            vb[ns++] = b;
        }
    }
    for (size_t s = 0; s < ns; s++) {
        size_t n = 0;
        for (size_t r = 0; r < in->c->nrow; r++) {
            if (!row_ok(in, r))
                continue;
            if ((ka >= 0 && strcmp(in->c->rows[r][ka], va[s]) != 0) ||
                (kb >= 0 && strcmp(in->c->rows[r][kb], vb[s]) != 0))
                continue;
            if (fn(in, r, &pts[n], err, errlen) != 0) {
                free(pts);
                return -1;
            }
            n++;
        }
        if (sort)
            qsort(pts, n, sizeof *pts, cmp_pt);
        char title[256];
        if (ka < 0)
            snprintf(title, sizeof title, "%s", fallback);
        else if (show_b && kb >= 0)
            snprintf(title, sizeof title, show_b == 1 ? "%s on %s" : "%s (%s)", va[s], vb[s]);
        else
            snprintf(title, sizeof title, "%s", va[s]);
        if (s > 0)
            fputs("\n\n", f);
        put_label(f, title);
        fputs(" y z\n", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%.17g %.17g %.17g\n", pts[i].x, pts[i].y, pts[i].z);
    }
    free(pts);
    *nseries = ns;
    if (ns == 0)
        return errbuf_set(err, errlen, "%s: no rows to plot (every row is empty or has an error)",
                          in->path);
    return 0;
}

/* per-kind row readers; the column numbers travel in a static per call */
static ssize_t g_x, g_y, g_z;

static int row_xy(const plot_in_t *in, size_t r, pt_t *p, char *err, size_t errlen)
{
    p->z = 0;
    if (num(in, r, g_x, &p->x, err, errlen) || num(in, r, g_y, &p->y, err, errlen))
        return -1;
    return 0;
}

static int row_xyz(const plot_in_t *in, size_t r, pt_t *p, char *err, size_t errlen)
{
    if (num(in, r, g_x, &p->x, err, errlen) || num(in, r, g_y, &p->y, err, errlen) ||
        num(in, r, g_z, &p->z, err, errlen))
        return -1;
    if (!(p->y > 0) || !(p->z > 0))
        return errbuf_set(err, errlen, "%s:%zu: times must be greater than 0", in->path,
                          in->c->lineno[r]);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* xt="('4KiB' 4096, ...)": tic labels in binary units at the distinct x
 * values (every k-th when there are many). */
static void size_tics(const plot_in_t *in, ssize_t col, char *extra, size_t len)
{
    size_t n = 0, o = strlen(extra);
    const size_t o0 = o;
    double *v = malloc((in->c->nrow ? in->c->nrow : 1) * sizeof *v);
    if (!v)
        return;
    for (size_t r = 0; r < in->c->nrow; r++) {
        char *end;
        if (!row_ok(in, r))
            continue;
        double x = strtod(in->c->rows[r][col], &end);
        if (*end == '\0' && x >= 1 && x < 1e19)
            v[n++] = x;
    }
    qsort(v, n, sizeof *v, cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    size_t every = m > 12 ? (m + 11) / 12 : 1;
    int w = snprintf(extra + o, len - o, "xt=\"(");
    for (size_t i = 0; w > 0 && (size_t)w < len - o && i < m; i += every) {
        char lab[32];
        o += (size_t)w;
        unit_format_size((uint64_t)v[i], lab, sizeof lab);
        w = snprintf(extra + o, len - o, "%s'%s' %.17g", i ? ", " : "", lab, v[i]);
    }
    if (w > 0 && (size_t)w < len - o) {
        o += (size_t)w;
        snprintf(extra + o, len - o, ")\"; ");
    } else {
        extra[o0] = '\0'; /* too many labels: leave gnuplot's own tics */
    }
    free(v);
}

/* Write the data file for the kind; *extra gets the kind's gnuplot
 * variables ("xname='size'; "). */
static int write_data(FILE *f, plot_kind_t kind, const plot_in_t *in, size_t *nseries, char *extra,
                      size_t extralen, char *err, size_t errlen)
{
    const char *kn = kind_names[kind];
    ssize_t fn_col = csv_col(in->c, "function"), m_col = csv_col(in->c, "machine");
    const char *vals[SERIES_MAX];
    extra[0] = '\0';
    switch (kind) {
    case K_THROUGHPUT: {
        ssize_t size, chunk;
        if (need_col(in, "bytes_per_sec", kn, &g_y, err, errlen) ||
            need_col(in, "size_bytes", kn, &size, err, errlen) ||
            need_col(in, "function", kn, &fn_col, err, errlen))
            return -1;
        chunk = csv_col(in->c, "chunk_bytes");
        bool by_chunk = chunk >= 0 && distinct(in, chunk, vals, SERIES_MAX) > 1 &&
                        distinct(in, size, vals, SERIES_MAX) == 1;
        g_x = by_chunk ? chunk : size;
        snprintf(extra, extralen, "xname='%s'; ", by_chunk ? "chunk" : "size");
        size_tics(in, g_x, extra, extralen);
        bool machines = distinct(in, m_col, vals, SERIES_MAX) > 1;
        return write_series(f, in, fn_col, machines ? m_col : -1, machines ? 1 : 0, "", row_xy,
                            true, nseries, err, errlen);
    }
    case K_PVN: {
        if (need_col(in, "measured_bytes_per_sec", kn, &g_x, err, errlen) ||
            need_col(in, "predicted_bytes_per_sec", kn, &g_y, err, errlen))
            return -1;
        double maxv = 0;
        for (size_t r = 0; r < in->c->nrow; r++) {
            double a, b;
            if (!row_ok(in, r))
                continue;
            if (num(in, r, g_x, &a, err, errlen) || num(in, r, g_y, &b, err, errlen))
                return -1;
            maxv = fmax(maxv, fmax(a, b));
        }
        snprintf(extra, extralen, "maxgb=%.17g; ", maxv > 0 ? maxv / 1073741824.0 : 1.0);
        return write_series(f, in, fn_col, -1, 0, "runs", row_xy, false, nseries, err, errlen);
    }
    case K_TUNING: {
        ssize_t strat;
        if (need_col(in, "size_bytes", kn, &g_x, err, errlen) ||
            need_col(in, "total_seconds", kn, &g_y, err, errlen) ||
            need_col(in, "clear_seconds", kn, &g_z, err, errlen) ||
            need_col(in, "strategy", kn, &strat, err, errlen))
            return -1;
        size_tics(in, g_x, extra, extralen);
        return write_series(f, in, strat, fn_col, 2, "", row_xyz, true, nseries, err, errlen);
    }
    case K_MACHINES: {
        ssize_t size = csv_col(in->c, "size_bytes");
        if (need_col(in, "machine", kn, &m_col, err, errlen) ||
            need_col(in, "bytes_per_sec", kn, &g_y, err, errlen))
            return -1;
        bool show_fn = distinct(in, fn_col, vals, SERIES_MAX) > 1;
        bool show_size = distinct(in, size, vals, SERIES_MAX) > 1;
        size_t n = 0;
        for (size_t r = 0; r < in->c->nrow; r++) {
            double y;
            char label[256];
            if (!row_ok(in, r))
                continue;
            if (num(in, r, g_y, &y, err, errlen))
                return -1;
            char sz[32] = "";
            if (show_size) {
                double b;
                if (num(in, r, size, &b, err, errlen))
                    return -1;
                unit_format_size((uint64_t)b, sz, sizeof sz);
            }
            snprintf(label, sizeof label, "%s%s%s%s%s", in->c->rows[r][m_col], show_fn ? " " : "",
                     show_fn ? in->c->rows[r][fn_col] : "", show_size ? " " : "", sz);
            put_label(f, label);
            fprintf(f, " %.17g\n", y);
            n++;
        }
        *nseries = 1;
        if (n == 0)
            return errbuf_set(err, errlen, "%s: no rows to plot (every row has an error)",
                              in->path);
        return 0;
    }
    }
    return errbuf_set(err, errlen, "internal: unknown kind");
}

/* ------------------------------------------------------------------------ */
/* gnuplot                                                                   */

/* The gnuplot program, or NULL. */
static const char *find_gnuplot(char *buf, size_t len)
{
    const char *env = getenv("CLEARSIM_GNUPLOT");
    if (env && env[0])
        return access(env, X_OK) == 0 ? env : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l > 0 && l + 9 < len) {
            snprintf(buf, len, "%.*s/gnuplot", (int)l, p);
            if (access(buf, X_OK) == 0)
                return buf;
        }
        if (!c)
            return NULL;
        p = c + 1;
    }
}

/* s as a gnuplot single-quoted string body ('' for '). */
static void gp_quote(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 3 < len; s++) {
        if ((unsigned char)*s < 0x20)
            continue;
        if (*s == '\'')
            buf[o++] = '\'';
        buf[o++] = *s;
    }
    buf[o] = '\0';
}

/* Run gnuplot; 0, or -1 with its first message. */
static int run_gnuplot(const char *prog, const char *script, const char *vars, const char *logf,
                       char *err, size_t errlen)
{
    pid_t pid = fork();
    if (pid < 0)
        return errbuf_set(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        FILE *lf = freopen(logf, "w", stderr);
        (void)lf;
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin))
            _exit(126);
        execl(prog, prog, "-e", vars, script, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return errbuf_set(err, errlen, "waiting for gnuplot: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char msg[300] = "";
    FILE *lf = fopen(logf, "r");
    if (lf) {
        char line[300];
        while (fgets(line, sizeof line, lf)) {
            char *s = line + strspn(line, " \t^");
            s[strcspn(s, "\r\n")] = '\0';
            if (*s) {
                snprintf(msg, sizeof msg, "%s", s);
                if (strstr(s, "rror") || strstr(s, "annot"))
                    break;
            }
        }
        fclose(lf);
    }
    if (WIFEXITED(st))
        return errbuf_set(err, errlen, "gnuplot failed (exit %d)%s%s", WEXITSTATUS(st),
                          msg[0] ? ": " : "", msg);
    return errbuf_set(err, errlen, "gnuplot was killed by signal %d", WTERMSIG(st));
}

static int copy_out(const char *from, const char *to, char *err, size_t errlen)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return errbuf_set(err, errlen, "gnuplot wrote no image");
    outfile_t *of = outfile_open(to, err, errlen);
    if (!of) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n, total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        total += n;
        if (fwrite(buf, 1, n, outfile_fp(of)) != n)
            break;
    }
    bool bad = ferror(in) || ferror(outfile_fp(of));
    fclose(in);
    if (bad || total == 0) {
        outfile_abort(of);
        return errbuf_set(err, errlen,
                          total == 0 ? "gnuplot wrote an empty image"
                                     : "cannot copy the image to --output");
    }
    return outfile_commit(of, err, errlen);
}

/* ------------------------------------------------------------------------ */

static const struct option plot_options[] = {
    {"input", required_argument, NULL, 'i'}, {"output", required_argument, NULL, 'o'},
    {"kind", required_argument, NULL, 'K'},  {"title", required_argument, NULL, 'T'},
    {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
};

int cmd_plot_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    const char *input = NULL, *output = NULL, *title = "";
    int kind = K_THROUGHPUT;
    bool help = false;
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hi:o:", plot_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            help = true;
            break;
        case 'i':
            input = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'T':
            title = optarg;
            break;
        case 'K':
            if (cli_parse_choice("--kind", optarg, kind_names, &kind, err, sizeof err) != CLI_OK) {
                errorf("%s", err);
                return EXIT_USAGE;
            }
            break;
        default: {
            char why[256];
            cli_getopt_failure(c, plot_options, argc, argv, why, sizeof(why));
            errorf("%s", why);
            return EXIT_USAGE;
        }
        }
    }
    char why_args[256];
    if (cli_leftover_args(argc, argv, why_args, sizeof(why_args)) != CLI_OK) {
        errorf("%s", why_args);
        return EXIT_USAGE;
    }
    if (help) {
        cmd_plot_usage(stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_RUNTIME;
    }
    if (!input || !output) {
        errorf("%s is required", !input ? "--input CSV" : "--output FILE.png|FILE.svg");
        return EXIT_USAGE;
    }
    const char *dot = strrchr(output, '.');
    const char *fmt = dot && strcmp(dot, ".png") == 0   ? "png"
                      : dot && strcmp(dot, ".svg") == 0 ? "svg"
                                                        : NULL;
    if (!fmt) {
        errorf("--output '%.64s': the file name must end in .png or .svg", output);
        return EXIT_USAGE;
    }
    char gpbuf[4096];
    const char *gnuplot = find_gnuplot(gpbuf, sizeof gpbuf);
    if (!gnuplot) {
        errorf("gnuplot not found%s; install it (Debian: apt-get install gnuplot-nox)",
               getenv("CLEARSIM_GNUPLOT") ? " at $CLEARSIM_GNUPLOT" : " on PATH");
        return EXIT_RUNTIME;
    }
    const char *plots = getenv("CLEARSIM_PLOTS");
    char plotsdir[4096], script[4200];
    snprintf(plotsdir, sizeof plotsdir, "%s",
             plots && plots[0] ? plots : CLEARSIM_SOURCE_DIR "/plots");
    snprintf(script, sizeof script, "%s/%s.gp", plotsdir, kind_names[kind]);
    if (access(script, R_OK) != 0) {
        errorf("template %s: %s", script, strerror(errno));
        return EXIT_RUNTIME;
    }

    csv_t csv;
    if (csv_read(input, &csv, err, sizeof err) != 0) {
        errorf("%s", err);
        return EXIT_RUNTIME;
    }
    plot_in_t in = {.path = input, .c = &csv, .err_col = csv_col(&csv, "error")};
    int rc = EXIT_RUNTIME;
    const char *tmp = getenv("TMPDIR");
    char dir[4096], datafile[4200], img[4200], logf[4200];
    snprintf(dir, sizeof dir, "%s/clearsim-plot.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        errorf("cannot create a temporary directory in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
               strerror(errno));
        csv_free(&csv);
        return EXIT_RUNTIME;
    }
    snprintf(datafile, sizeof datafile, "%s/data.dat", dir);
    snprintf(img, sizeof img, "%s/image.%s", dir, fmt);
    snprintf(logf, sizeof logf, "%s/gnuplot.log", dir);
    FILE *df = fopen(datafile, "w");
    size_t nseries = 0;
    char extra[4096];
    if (!df) {
        errorf("cannot write %s: %s", datafile, strerror(errno));
        goto cleanup;
    }
    int wr = write_data(df, (plot_kind_t)kind, &in, &nseries, extra, sizeof extra, err, sizeof err);
    if (fclose(df) != 0 && wr == 0)
        wr = errbuf_set(err, sizeof err, "cannot write %s", datafile);
    if (wr != 0) {
        errorf("%s", err);
        goto cleanup;
    }
    char q_data[8400], q_img[8400], q_title[1024], q_dir[8400];
    gp_quote(datafile, q_data, sizeof q_data);
    gp_quote(img, q_img, sizeof q_img);
    gp_quote(title, q_title, sizeof q_title);
    gp_quote(plotsdir, q_dir, sizeof q_dir);
    size_t vlen = strlen(q_data) + strlen(q_img) + strlen(q_title) + strlen(q_dir) + 512;
    char *vars = malloc(vlen);
    if (!vars) {
        errorf("out of memory");
        goto cleanup;
    }
    snprintf(vars, vlen,
             "datafile='%s'; outfile='%s'; fmt='%s'; plottitle='%s'; nseries=%zu; "
             "plotsdir='%s'; %s",
             q_data, q_img, fmt, q_title, nseries, q_dir, extra);
    int g = run_gnuplot(gnuplot, script, vars, logf, err, sizeof err);
    free(vars);
    if (g != 0 || copy_out(img, output, err, sizeof err) != 0) {
        errorf("%s", err);
        goto cleanup;
    }
    rc = EXIT_OK;
cleanup:
    unlink(datafile);
    unlink(img);
    unlink(logf);
    rmdir(dir);
    csv_free(&csv);
    return rc;
}
