/*
 * plot_data.c - a clearsim csv to gnuplot's data file (see plot_data.h).
 */
#include "sim/output/plot_data.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/units.h"
#include "sim/output/csv.h"

const name_value_t plot_kind_names[] = {
    {"throughput", K_THROUGHPUT}, {"predicted-vs-native", K_PVN}, {"tuning", K_TUNING},
    {"machines", K_MACHINES},     {"validation", K_VALIDATION},   {NULL, 0}};

void plot_csv_free(plot_csv_t *c)
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

typedef struct collect {
    plot_csv_t *c;
    size_t rcap;
} collect_t;

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int collect_row(void *ctx, const csv_row_t *row, char *err, size_t errlen)
{
    collect_t *k = ctx;
    plot_csv_t *c = k->c;
    char **fields = calloc(row->n ? row->n : 1, sizeof *fields);
    if (!fields)
        return errbuf_set(err, errlen, "out of memory");
    for (size_t i = 0; i < row->n; i++)
        if (!(fields[i] = dup_text(row->fields[i]))) {
            for (size_t j = 0; j < i; j++)
                free(fields[j]);
            free(fields);
            return errbuf_set(err, errlen, "out of memory");
        }
    if (row->is_header) {
        c->header = fields;
        c->ncol = row->n;
        return 0;
    }
    if (c->nrow == k->rcap) {
        k->rcap = k->rcap ? k->rcap * 2 : 64;
        char ***nr = realloc(c->rows, k->rcap * sizeof *nr);
        size_t *nl = realloc(c->lineno, k->rcap * sizeof *nl);
        if (nr)
            c->rows = nr;
        if (nl)
            c->lineno = nl;
        if (!nr || !nl) {
            for (size_t i = 0; i < row->n; i++)
                free(fields[i]);
            free(fields);
            return errbuf_set(err, errlen, "out of memory");
        }
    }
    c->lineno[c->nrow] = row->lineno;
    c->rows[c->nrow++] = fields;
    return 0;
}

int plot_csv_read(const char *path, plot_csv_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    collect_t k = {.c = c};
    if (csv_read(path, CSV_NEED_HEADER | CSV_IN_MEMORY, collect_row, &k, err, errlen) < 0) {
        plot_csv_free(c);
        return -1;
    }
    return 0;
}

ssize_t plot_csv_col(const plot_csv_t *c, const char *name)
{
    for (size_t i = 0; i < c->ncol; i++)
        if (strcmp(c->header[i], name) == 0)
            return (ssize_t)i;
    return -1;
}

static bool row_ok(const plot_in_t *in, size_t r)
{
    return in->err_col < 0 || in->c->rows[r][in->err_col][0] == '\0';
}

static int need_col(const plot_in_t *in, const char *name, const char *kind, ssize_t *col,
                    char *err, size_t errlen)
{
    *col = plot_csv_col(in->c, name);
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

/* A size on x (a log axis): greater than 0, and a throughput not below 0. */
static int row_size_xy(const plot_in_t *in, size_t r, pt_t *p, char *err, size_t errlen)
{
    if (row_xy(in, r, p, err, errlen) != 0)
        return -1;
    if (!(p->x > 0))
        return errbuf_set(err, errlen,
                          "%s:%zu: column %s: '%s' is not a size (sizes are greater "
                          "than 0)",
                          in->path, in->c->lineno[r], in->c->header[g_x], in->c->rows[r][g_x]);
    if (p->y < 0)
        return errbuf_set(err, errlen, "%s:%zu: column %s: '%s' is below 0", in->path,
                          in->c->lineno[r], in->c->header[g_y], in->c->rows[r][g_y]);
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

/* The policy bands of a tune csv with a `policy` column: for each size
 * (ascending), the strategy of its row marked true; runs of one strategy are
 * bands. Adds "nbands=K; bandlo='x ...'; bandhi='x ...'; bandname='s ...'; "
 * to extra, each band spanning from its first size to the next band's (the
 * last to the largest size). Nothing when the column is absent, no row is
 * marked, or the csv holds more than one machine (each has its own policy). */
static int policy_bands(const plot_in_t *in, ssize_t xcol, ssize_t scol, char *extra, size_t len,
                        char *err, size_t errlen)
{
    ssize_t pcol = plot_csv_col(in->c, "policy");
    if (pcol < 0)
        return 0;
    ssize_t mcol = plot_csv_col(in->c, "machine");
    for (size_t r = 1; mcol >= 0 && r < in->c->nrow; r++)
        if (strcmp(in->c->rows[r][mcol], in->c->rows[0][mcol]) != 0)
            return 0;
    enum { BANDS_MAX = 64 };
    double lo[BANDS_MAX], last_x = -1;
    const char *name[BANDS_MAX];
    size_t nb = 0;
    for (size_t r = 0; r < in->c->nrow; r++) {
        double x;
        if (!row_ok(in, r))
            continue;
        if (num(in, r, xcol, &x, err, errlen))
            return -1;
        if (x > last_x)
            last_x = x;
        const char *p = in->c->rows[r][pcol];
        if (strcmp(p, "true") != 0) {
            if (strcmp(p, "false") != 0)
                return errbuf_set(err, errlen,
                                  "%s:%zu: column policy: '%.40s' is not true or false", in->path,
                                  in->c->lineno[r], p);
            continue;
        }
        const char *st = in->c->rows[r][scol];
        if (nb > 0 && strcmp(name[nb - 1], st) == 0)
            continue;
        if (nb > 0 && x <= lo[nb - 1])
            return errbuf_set(err, errlen, "%s:%zu: policy rows are not in ascending size",
                              in->path, in->c->lineno[r]);
        if (nb == BANDS_MAX)
            return errbuf_set(err, errlen, "%s: more than %d policy bands", in->path, BANDS_MAX);
        for (const char *q = st; *q; q++)
            if (!(*q >= 'a' && *q <= 'z'))
                return errbuf_set(err, errlen, "%s:%zu: strategy '%.40s' is not a strategy name",
                                  in->path, in->c->lineno[r], st);
        lo[nb] = x;
        name[nb++] = st;
    }
    if (nb == 0)
        return 0;
    size_t o = strlen(extra);
    int w = snprintf(extra + o, len - o, "nbands=%zu; bandlo='", nb);
    for (size_t i = 0; w >= 0 && i < nb; i++)
        w = snprintf(extra + strlen(extra), len - strlen(extra), "%s%.17g", i ? " " : "", lo[i]);
    snprintf(extra + strlen(extra), len - strlen(extra), "'; bandhi='");
    for (size_t i = 0; i < nb; i++)
        snprintf(extra + strlen(extra), len - strlen(extra), "%s%.17g", i ? " " : "",
                 i + 1 < nb ? lo[i + 1] : last_x);
    snprintf(extra + strlen(extra), len - strlen(extra), "'; bandname='");
    for (size_t i = 0; i < nb; i++)
        snprintf(extra + strlen(extra), len - strlen(extra), "%s%s", i ? " " : "", name[i]);
    size_t used = strlen(extra);
    if (snprintf(extra + used, len - used, "'; ") >= (int)(len - used)) {
        extra[o] = '\0';
        return errbuf_set(err, errlen, "%s: too many policy bands to draw", in->path);
    }
    return 0;
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

/* validation: the `case` records of a `clearsim validate --format csv`, one
 * block per machine (in the order they first appear): published_bps,
 * predicted_bps. Both must be greater than 0 (the axes are logarithmic).
 * extra: lo and hi, the range of both in GB/sec. */
static int write_validation(FILE *f, const plot_in_t *in, size_t *nseries, char *extra,
                            size_t extralen, char *err, size_t errlen)
{
    ssize_t rec, mach, pub, pred;
    const char *kn = "validation";
    if (need_col(in, "record", kn, &rec, err, errlen) ||
        need_col(in, "machine", kn, &mach, err, errlen) ||
        need_col(in, "published_bps", kn, &pub, err, errlen) ||
        need_col(in, "predicted_bps", kn, &pred, err, errlen))
        return -1;
    const char *names[SERIES_MAX];
    size_t ns = 0;
    double lo = INFINITY, hi = 0;
    for (size_t r = 0; r < in->c->nrow; r++) {
        if (strcmp(in->c->rows[r][rec], "case") != 0)
            continue;
        double a, b;
        if (num(in, r, pub, &a, err, errlen) || num(in, r, pred, &b, err, errlen))
            return -1;
        if (!(a > 0) || !(b > 0))
            return errbuf_set(err, errlen,
                              "%s:%zu: throughputs must be greater than 0 (the "
                              "axes are logarithmic)",
                              in->path, in->c->lineno[r]);
        lo = fmin(lo, fmin(a, b));
        hi = fmax(hi, fmax(a, b));
        const char *m = in->c->rows[r][mach];
        bool seen = false;
        for (size_t i = 0; i < ns && !seen; i++)
            seen = strcmp(names[i], m) == 0;
        if (seen)
            continue;
        if (ns == SERIES_MAX)
            return errbuf_set(err, errlen, "%s: more than %d machines", in->path, SERIES_MAX);
        names[ns++] = m;
    }
    if (ns == 0)
        return errbuf_set(err, errlen, "%s: no case records to plot", in->path);
    for (size_t s = 0; s < ns; s++) {
        if (s > 0)
            fputs("\n\n", f);
        put_label(f, names[s]);
        fputs(" y\n", f);
        for (size_t r = 0; r < in->c->nrow; r++)
            if (strcmp(in->c->rows[r][rec], "case") == 0 &&
                strcmp(in->c->rows[r][mach], names[s]) == 0)
                fprintf(f, "%s %s\n", in->c->rows[r][pub], in->c->rows[r][pred]);
    }
    *nseries = ns;
    snprintf(extra, extralen, "lo=%.17g; hi=%.17g; ", lo / 1073741824.0, hi / 1073741824.0);
    return 0;
}

/* Write the data file for the kind; *extra gets the kind's gnuplot
 * variables ("xname='size'; "). */
int plot_write_data(FILE *f, plot_kind_t kind, const plot_in_t *in, size_t *nseries, char *extra,
                    size_t extralen, char *err, size_t errlen)
{
    const char *kn = name_of(plot_kind_names, kind);
    ssize_t fn_col = plot_csv_col(in->c, "function"), m_col = plot_csv_col(in->c, "machine");
    const char *vals[SERIES_MAX];
    extra[0] = '\0';
    switch (kind) {
    case K_THROUGHPUT: {
        ssize_t size, chunk;
        if (need_col(in, "bytes_per_sec", kn, &g_y, err, errlen) ||
            need_col(in, "size_bytes", kn, &size, err, errlen) ||
            need_col(in, "function", kn, &fn_col, err, errlen))
            return -1;
        chunk = plot_csv_col(in->c, "chunk_bytes");
        bool by_chunk = chunk >= 0 && distinct(in, chunk, vals, SERIES_MAX) > 1 &&
                        distinct(in, size, vals, SERIES_MAX) == 1;
        g_x = by_chunk ? chunk : size;
        snprintf(extra, extralen, "xname='%s'; ", by_chunk ? "chunk" : "size");
        size_tics(in, g_x, extra, extralen);
        bool machines = distinct(in, m_col, vals, SERIES_MAX) > 1;
        return write_series(f, in, fn_col, machines ? m_col : -1, machines ? 1 : 0, "", row_size_xy,
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
    case K_VALIDATION:
        return write_validation(f, in, nseries, extra, extralen, err, errlen);
    case K_TUNING: {
        ssize_t strat;
        if (need_col(in, "size_bytes", kn, &g_x, err, errlen) ||
            need_col(in, "total_seconds", kn, &g_y, err, errlen) ||
            need_col(in, "clear_seconds", kn, &g_z, err, errlen) ||
            need_col(in, "strategy", kn, &strat, err, errlen))
            return -1;
        size_tics(in, g_x, extra, extralen);
        if (policy_bands(in, g_x, strat, extra, extralen, err, errlen))
            return -1;
        return write_series(f, in, strat, fn_col, 2, "", row_xyz, true, nseries, err, errlen);
    }
    case K_MACHINES: {
        ssize_t size = plot_csv_col(in->c, "size_bytes");
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
