/*
 * cmd_sweep.c - `clearsim sweep`: run options, --sweep axes, --jobs,
 * --shard, --output (atomic), --resume; help text and errors.
 *
 * Notes
 *  - The work is in sim/study/sweep.c; this file parses the command line, reads
 *    back an earlier output for --resume, and writes the output through
 *    sim/output/outfile.c (a temporary renamed over FILE at the end, so FILE is
 *    either the old file or the complete new one).
 *  - csv output is written in point order as batches of points finish and
 *    flushed after each batch. With --output FILE, each batch's rows are also
 *    appended to FILE.partial at once (open_partial: flushed and fsync'ed), a
 *    plain file outside the atomic output, so no completed row is lost to an
 *    interrupt, a crash or a full disk; --resume reads it too and appends to
 *    it. The completed FILE makes it redundant, and it is removed.
 *  - --resume keeps every row of FILE (and FILE.partial) whose point belongs
 *    to this sweep and shard, byte for byte, and runs the others. A row whose
 *    header, point or sweep.* values do not match this sweep is an error:
 *    FILE was written by another command line; so is a row whose fields are
 *    not what a sweep writes (check_fields).
 *  - Exit status: 0 when the output was written (points with an error are
 *    rows with an `error`, counted in a note on stderr), 1 runtime error, 2
 *    usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cli/cmd_common.h"
#include "sim/cli/options.h"
#include "sim/cli/commands.h"
#include "sim/output/csv.h"
#include "sim/output/report.h"
#include "sim/output/outfile.h"
#include "sim/engine/progress.h"
#include "sim/study/sweep.h"
#include "sim/machine/infile.h"
#include "sim/machine/optval.h"
#include "sim/machine/units.h"
#include "models/base/errbuf.h"

#define ERR_LEN 1024

#define errorf(...) cmd_errorf("sweep", __VA_ARGS__)

void cmd_sweep_usage(FILE *out)
{
    fputs(
        "usage: clearsim sweep [run options] --sweep KEY=VALUES [--sweep ...] [options]\n"
        "\n"
        "Run 'clearsim run' over every combination of the swept values and print one\n"
        "row (csv) or object (json) per point.\n"
        "\n"
        "  --sweep KEY=VALUES  KEY is a run option that takes a value: size, chunk, loops,\n"
        "                      function, fill, caller, page, fault, preempt, extent-cap,\n"
        "                      thp, base-page, libc, workload, machine or seed; or a\n"
        "                      machine-file key (l2.mshrs, memory.latency, ...), whose\n"
        "                      values are --set overrides. VALUES is a list a,b,c, a\n"
        "                      geometric range LO..HI:xF (4KB..1GB:x2; l2.mshrs=16..128:x2)\n"
        "                      or an arithmetic range LO..HI:+S (0..255:+51;\n"
        "                      memory.latency=80ns..140ns:+20ns). Each value is parsed as\n"
        "                      'run' parses the option. Points are numbered from 0; the\n"
        "                      first --sweep varies slowest.\n"
        "  -j, --jobs N        threads (default: online CPUs); the output does not depend\n"
        "                      on N\n"
        "      --shard i/N     run only the points whose number % N is i-1 (1 <= i <= N);\n"
        "                      the csv of all shards, merged by point, is the csv of the\n"
        "                      whole sweep\n"
        "  -o, --output FILE   write to FILE (atomically: a temporary renamed over FILE)\n"
        "                      instead of standard output\n"
        "      --keep-going    run every point even when some fail (the status is still 1)\n"
        "      --resume        keep the points already in FILE (and FILE.partial, left\n"
        "                      by an interrupted sweep) and run only the others\n"
        "      --format csv|json  output format (default csv; see docs/JSON.md)\n"
        "  -q, --quiet         no progress report on stderr\n"
        "  -h, --help          show this help\n"
        "\n"
        "Run options (as for 'clearsim run'; a swept key overrides its option):\n"
        "  --machine NAME|PATH|host, --workload, -s/--size, -k/--chunk, -l/--loops,\n"
        "  -f/--function, --fill, --caller, -p/--page, --fault, --preempt, --extent-cap,\n"
        "  --thp, --base-page, --exact, --seed, --set KEY=VALUE, --libc NAME-VERSION\n"
        "\n"
        "machine=all sweeps every machine 'clearsim machines' lists; function=all every\n"
        "function of the workload, where a machine that does not run one (another ISA, a\n"
        "missing feature) gives its points a row whose 'error' says \"skipped: ...\".\n"
        "A point that 'run' would reject (for example --chunk larger than --size) fails:\n"
        "its row holds the reason in the 'error' column, the failed points are listed on\n"
        "stderr and the exit status is 1. The sweep stops after the batch in which a\n"
        "point failed, leaving FILE as it was (the completed rows stay in FILE.partial);\n"
        "with --keep-going every point runs and FILE is written, and the status is still 1.\n"
        "Example: clearsim sweep --machine zen3-epyc-7j13 -f rep_stosb --sweep size=4KB..64MB:x4\n",
        out);
}

typedef struct sweep_args {
    run_point_t *base;
    const char **axes;
    size_t n_axes;
    unsigned jobs;
    uint32_t shard_index, shard_count;
    const char *output;
    bool resume;
    bool keep_going;
    bool quiet;
    report_format_t format;
} sweep_args_t;

static const name_value_t sweep_formats[] = {
    {"csv", REPORT_FMT_CSV}, {"json", REPORT_FMT_JSON}, {NULL, 0}};

static int on_option(void *ctx, cli_opt_t id, const char *opt, const char *arg, char *err,
                     size_t errlen)
{
    sweep_args_t *a = ctx;
    switch (id) {
    case CLI_O_QUIET:
        a->quiet = true;
        return 0;
    case CLI_O_SWEEP:
        a->axes[a->n_axes++] = arg;
        return 0;
    case CLI_O_JOBS:
        return cli_take_jobs(opt, arg, &a->jobs, err, errlen);
    case CLI_O_SHARD:
        return sweep_parse_shard(arg, &a->shard_index, &a->shard_count, err, errlen);
    case CLI_O_OUTPUT:
        return optval_text(opt, arg, "a file name", &a->output, err, errlen);
    case CLI_O_RESUME:
        a->resume = true;
        return 0;
    case CLI_O_KEEP_GOING:
        a->keep_going = true;
        return 0;
    case CLI_O_FORMAT:
        return cli_take_format(opt, arg, sweep_formats, &a->format, err, errlen);
    default:
        return errbuf_set(err, errlen, "internal: unhandled option %s", opt);
    }
}

/* Returns CLI_OK, CLI_HELP or CLI_USAGE (err set). */
static int parse_args(int argc, char **argv, sweep_args_t *a, char *err, size_t errlen)
{
    static const cli_opt_t opts[] = {CLI_O_SWEEP,  CLI_O_JOBS,   CLI_O_SHARD,
                                     CLI_O_OUTPUT, CLI_O_RESUME, CLI_O_KEEP_GOING,
                                     CLI_O_FORMAT, CLI_O_QUIET,  CLI_O_END};
    cli_spec_t spec = {opts, cli_point_all, a->base, on_option, a, NULL};
    int rc = cli_parse(argc, argv, &spec, err, errlen);
    if (rc != CLI_OK)
        return rc;
    if (a->n_axes == 0)
        return errbuf_set_rc(CLI_USAGE, err, errlen,
                             "nothing to sweep: give at least one --sweep KEY=VALUES");
    if (a->resume && !a->output)
        return errbuf_set_rc(CLI_USAGE, err, errlen, "--resume needs --output FILE");
    return CLI_OK;
}

/* ------------------------------------------------------------------------ */
/* resume                                                                    */

/* The failed points, for stderr: the first FAILURES_SHOWN lines, and a count. */
#define FAILURES_SHOWN 20
typedef struct failures {
    char line[FAILURES_SHOWN][SWEEP_WHY_MAX + 256];
    size_t n;
} failures_t;

static void note_failure(failures_t *f, const sweep_t *sw, uint64_t p, const char *why)
{
    if (f->n < FAILURES_SHOWN) {
        char label[256];
        snprintf(f->line[f->n], sizeof f->line[0], "point %" PRIu64 " (%s): %s", p,
                 sweep_point_label(sw, p, label, sizeof label), why);
    }
    f->n++;
}

typedef struct have {
    const sweep_t *sw;
    const sweep_args_t *a;
    const char *path;
    char **rows;         /* csv: per shard slot, the row as written */
    json_t **objs;       /* json: per shard slot */
    size_t n_slots;      /* points in this shard */
    report_row_t *kinds; /* the report's row of an empty result: each column's kind */
    failures_t *fails;   /* a kept row of a failed point is still a failure */
} have_t;

/* The longest row a sweep writes: its fields are names, numbers and one error line. */
#define KEPT_ROW_MAX (64u << 10)

static bool slot_of(const have_t *h, uint64_t p, size_t *slot)
{
    if (p >= sweep_n_points(h->sw) || !sweep_in_shard(p, h->a->shard_index, h->a->shard_count))
        return false;
    *slot = (size_t)(h->a->shard_count > 1 ? p / h->a->shard_count : p);
    return *slot < h->n_slots;
}

/* The kind of a column of a sweep's csv, from the report's own row (the one
 * table of columns); columns it does not have (a machine's extra counters)
 * hold numbers. */
static report_vkind_t column_kind(const have_t *h, const char *name)
{
    if (strcmp(name, "error") == 0)
        return REPORT_V_STR;
    for (size_t i = 0; h->kinds && i < h->kinds->n; i++) {
        const report_field_t *f = &h->kinds->f[i];
        char joined[256] = "";
        for (unsigned d = 0; d < f->depth; d++) {
            size_t l = strlen(joined);
            snprintf(joined + l, sizeof joined - l, "%s%s", d ? "." : "", f->path[d]);
        }
        if (strcmp(joined, name) == 0)
            return f->kind == REPORT_V_NULL ? REPORT_V_DOUBLE : f->kind;
    }
    return REPORT_V_DOUBLE;
}

/* A kept row's fields: numbers where numbers belong, and a measured figure
 * unless the row says why it has none. An edited row is an error naming its
 * line, not a result. */
static int check_fields(const have_t *h, const csv_row_t *row, char *err, size_t errlen)
{
    const size_t first = 1 + sweep_n_axes(h->sw);
    if (strlen(row->line) > KEPT_ROW_MAX)
        return errbuf_set(err, errlen, "%s:%zu: a row longer than %u bytes is not a sweep's",
                          h->path, row->lineno, KEPT_ROW_MAX);
    const char *error = "";
    for (size_t i = first; i < row->n; i++)
        if (strcmp(row->header[i], "error") == 0)
            error = row->fields[i];
    for (size_t i = first; i < row->n; i++) {
        const char *name = row->header[i], *v = row->fields[i];
        const report_vkind_t kind = column_kind(h, name);
        if (kind == REPORT_V_STR)
            continue;
        if (kind == REPORT_V_BOOL) {
            if (v[0] && strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
                return errbuf_set(err, errlen, "%s:%zu: %s '%.32s' is not true or false", h->path,
                                  row->lineno, name, v);
            continue;
        }
        if (!v[0]) {
            if (!error[0] && strcmp(name, "bytes_per_sec") == 0)
                return errbuf_set(err, errlen,
                                  "%s:%zu: bytes_per_sec is empty, and the row gives no error",
                                  h->path, row->lineno);
            continue;
        }
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (*end != '\0' || errno != 0 || !isfinite(d))
            return errbuf_set(err, errlen,
                              "%s:%zu: %s '%.32s' is not a number (an edited or damaged row)",
                              h->path, row->lineno, name, v);
    }
    return 0;
}

/* A kept row's error: a failure unless empty or a skip (function=all). */
static bool kept_failed(const char *error)
{
    return error[0] && strncmp(error, "skipped: ", 9) != 0;
}

static int on_csv_row(void *ctx, const csv_row_t *row, char *err, size_t errlen)
{
    have_t *h = ctx;
    if (row->is_header) {
        if (strcmp(row->line, sweep_csv_header(h->sw)) != 0)
            return errbuf_set(err, errlen,
                              "%s:%zu: the header is not this sweep's (another command line wrote "
                              "it)",
                              h->path, row->lineno);
        return 0;
    }
    char why[128];
    uint64_t p;
    size_t slot;
    if (unit_parse_u64(row->fields[0], &p, why, sizeof why) != 0 || !slot_of(h, p, &slot)) {
        errbuf_set(err, errlen, "%s:%zu: point '%.32s' is not a point of this sweep%s", h->path,
                   row->lineno, row->fields[0], h->a->shard_count > 1 ? " and shard" : "");
        return -1;
    }
    for (size_t a = 0; a < sweep_n_axes(h->sw); a++) {
        if (strcmp(row->fields[1 + a], sweep_value(h->sw, p, a)) != 0) {
            errbuf_set(err, errlen, "%s:%zu: point %" PRIu64 " has %s=%.64s, this sweep has %.64s",
                       h->path, row->lineno, p, sweep_axis_key(h->sw, a), row->fields[1 + a],
                       sweep_value(h->sw, p, a));
            return -1;
        }
    }
    if (check_fields(h, row, err, errlen) != 0)
        return -1;
    if (!h->rows[slot] && kept_failed(row->fields[row->n - 1]))
        note_failure(h->fails, h->sw, p, row->fields[row->n - 1]);
    if (!h->rows[slot]) {
        h->rows[slot] = strdup(row->line);
        if (!h->rows[slot]) {
            errbuf_set(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int read_json(have_t *h, char *err, size_t errlen)
{
    if (access(h->path, F_OK) != 0)
        return 0;
    char *text;
    size_t len;
    if (infile_read(h->path, INFILE_MAX_JSON_BYTES, NULL, &text, &len, err, errlen) != 0)
        return -1;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    free(text);
    if (!root) {
        errbuf_set(err, errlen, "%s:%d: %s", h->path, je.line, je.text);
        return -1;
    }
    json_t *pts = json_object_get(root, "points");
    if (!json_is_array(pts)) {
        json_decref(root);
        errbuf_set(err, errlen, "%s: no \"points\" array (not a sweep's json output)", h->path);
        return -1;
    }
    size_t i;
    json_t *o;
    json_array_foreach(pts, i, o)
    {
        json_t *jp = json_object_get(o, "point");
        json_t *sw = json_object_get(o, "sweep");
        size_t slot;
        if (!json_is_integer(jp) || json_integer_value(jp) < 0 ||
            !slot_of(h, (uint64_t)json_integer_value(jp), &slot) || !json_is_object(sw)) {
            json_decref(root);
            errbuf_set(err, errlen, "%s: points[%zu] is not a point of this sweep%s", h->path, i,
                       h->a->shard_count > 1 ? " and shard" : "");
            return -1;
        }
        uint64_t p = (uint64_t)json_integer_value(jp);
        for (size_t a = 0; a < sweep_n_axes(h->sw); a++) {
            const char *v = json_string_value(json_object_get(sw, sweep_axis_key(h->sw, a)));
            if (!v || strcmp(v, sweep_value(h->sw, p, a)) != 0) {
                json_decref(root);
                errbuf_set(err, errlen, "%s: point %" PRIu64 " does not have %s=%.64s", h->path, p,
                           sweep_axis_key(h->sw, a), sweep_value(h->sw, p, a));
                return -1;
            }
        }
        const char *error = json_string_value(json_object_get(o, "error"));
        if (!h->objs[slot] && error && kept_failed(error))
            note_failure(h->fails, h->sw, p, error);
        if (!h->objs[slot])
            h->objs[slot] = json_incref(o);
    }
    json_decref(root);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* output                                                                    */

typedef struct out_state {
    FILE *fp;
    report_format_t fmt;
    json_t *points; /* json: the array being built */
} out_state_t;

static int put_csv(out_state_t *o, const char *line)
{
    return fputs(line, o->fp) == EOF || fputc('\n', o->fp) == EOF ? -1 : 0;
}

static int put_json(out_state_t *o, const char *rec, json_t *obj, char *err, size_t errlen)
{
    if (!obj) {
        json_error_t je;
        obj = json_loads(rec, 0, &je);
        if (!obj) {
            errbuf_set(err, errlen, "internal: bad json record: %s", je.text);
            return -1;
        }
    } else {
        json_incref(obj);
    }
    return json_array_append_new(o->points, obj) == 0 ? 0 : -1;
}

/* Write one shard slot: the row kept from an earlier output, or the fresh
 * record. */
static int put_slot(out_state_t *o, const have_t *h, size_t slot, const char *fresh, char *err,
                    size_t errlen)
{
    const char *line = h->rows ? h->rows[slot] : NULL;
    json_t *obj = h->objs ? h->objs[slot] : NULL;
    if (o->fmt == REPORT_FMT_CSV)
        return put_csv(o, line ? line : fresh);
    return put_json(o, obj ? NULL : fresh, obj, err, errlen);
}

static uint64_t slot_point(const sweep_args_t *a, size_t k)
{
    return a->shard_count > 1 ? (uint64_t)k * a->shard_count + a->shard_index : (uint64_t)k;
}

static bool slot_kept(const have_t *h, size_t k)
{
    return (h->rows && h->rows[k]) || (h->objs && h->objs[k]);
}

/* FILE.partial, the csv every completed row is appended to as soon as its
 * batch ends: a regular file, opened for appending. A fresh sweep starts it
 * with the header; a resume keeps what it holds, cutting only a last line
 * that was cut (an interrupt in the middle of a write), so that no completed
 * row is ever lost, whatever happens to this run. */
static FILE *open_partial(const char *path, const char *header, bool resume, char *err,
                          size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        errbuf_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        errbuf_set(err, errlen, "%s: cannot write: not a regular file", path);
        close(fd);
        return NULL;
    }
    if (!resume) {
        /* a fresh sweep does not throw away the rows of an interrupted one */
        char probe;
        size_t lines = 0;
        for (off_t at = 0; lines < 2 && pread(fd, &probe, 1, at) == 1; at++)
            lines += probe == '\n';
        if (lines >= 2) {
            errbuf_set(err, errlen,
                       "%s holds the rows of an interrupted sweep: give --resume to keep them, or "
                       "remove it",
                       path);
            close(fd);
            return NULL;
        }
        if (ftruncate(fd, 0) != 0) {
            errbuf_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
        st.st_size = 0;
    }
    /* the end of the last complete line */
    off_t keep = st.st_size;
    char buf[4096];
    while (keep > 0) {
        off_t from = keep > (off_t)sizeof buf ? keep - (off_t)sizeof buf : 0;
        ssize_t got = pread(fd, buf, (size_t)(keep - from), from);
        if (got != keep - from) {
            errbuf_set(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
        ssize_t i = got;
        while (i > 0 && buf[i - 1] != '\n')
            i--;
        if (i > 0) {
            keep = from + i;
            break;
        }
        keep = from;
    }
    if (keep != st.st_size && ftruncate(fd, keep) != 0) {
        errbuf_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = NULL;
    if (fl >= 0 && fcntl(fd, F_SETFL, (fl & ~O_NONBLOCK) | O_APPEND) == 0)
        f = fdopen(fd, "a");
    if (!f) {
        errbuf_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (keep == 0 && (fputs(header, f) == EOF || fputc('\n', f) == EOF || fflush(f) != 0)) {
        errbuf_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    return f;
}

/* Run the points of the shard that h does not hold, in batches, writing
 * every slot in point order after each batch, and appending the batch's
 * rows to pfp (FILE.partial; NULL: none) at once. */
static int run_sweep(sweep_t *sw, const sweep_args_t *a, FILE *fp, FILE *pfp, const char *ppath,
                     have_t *h, failures_t *fails, bool *stopped, char *err, size_t errlen)
{
    out_state_t o = {.fp = fp, .fmt = a->format};
    /* with FILE.partial, a batch is two points per thread: a completed row
     * reaches it soon */
    const size_t batch =
        pfp ? (a->jobs > 1 ? a->jobs * 2 : 2) : (a->jobs * 16 > 64 ? a->jobs * 16 : 64);
    uint64_t *todo = malloc((h->n_slots ? h->n_slots : 1) * sizeof *todo);
    char **rec = calloc(batch, sizeof *rec);
    bool *failed = calloc(batch, sizeof *failed);
    char(*why)[SWEEP_WHY_MAX] = calloc(batch, sizeof *why);
    progress_t *pr = NULL;
    size_t n_todo = 0, next_slot = 0;
    int rc = -1;
    err[0] = '\0';

    *stopped = false;
    if (!todo || !rec || !failed || !why ||
        (a->format == REPORT_FMT_JSON && !(o.points = json_array()))) {
        errbuf_set(err, errlen, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < h->n_slots; k++)
        if (!slot_kept(h, k))
            todo[n_todo++] = slot_point(a, k);
    pr = progress_create("sweep", n_todo, !a->quiet);
    if (a->format == REPORT_FMT_CSV && put_csv(&o, sweep_csv_header(sw)) != 0)
        goto write_error;

    for (size_t t0 = 0;; t0 += batch) {
        size_t nb = n_todo - t0 < batch ? n_todo - t0 : batch;
        if (nb > 0 &&
            sweep_run(sw, todo + t0, nb, a->jobs, a->format, pr, t0, rec, failed, why, err, errlen))
            goto done;
        size_t batch_failed = 0;
        for (size_t k = 0; k < nb; k++)
            if (failed[k]) {
                note_failure(fails, sw, todo[t0 + k], why[k]);
                batch_failed++;
            }
        /* the batch's rows reach FILE.partial first: whatever happens to the
         * output below, they are kept */
        if (pfp) {
            for (size_t k = 0; k < nb; k++)
                if (fputs(rec[k], pfp) == EOF || fputc('\n', pfp) == EOF)
                    break;
            if (fflush(pfp) != 0 || ferror(pfp) || fsync(fileno(pfp)) != 0) {
                errbuf_set(err, errlen, "%s: cannot write: %s", ppath, strerror(errno));
                goto done;
            }
        }
        /* every slot up to this batch's last point (all of them after the last batch) */
        size_t upto = h->n_slots;
        if (t0 + nb < n_todo)
            upto = (size_t)(a->shard_count > 1 ? todo[t0 + nb - 1] / a->shard_count
                                               : todo[t0 + nb - 1]) +
                   1;
        for (size_t r = 0; next_slot < upto; next_slot++) {
            const char *fresh = NULL;
            if (!slot_kept(h, next_slot))
                fresh = rec[r++];
            if (put_slot(&o, h, next_slot, fresh, err, errlen) != 0)
                goto write_error;
        }
        for (size_t k = 0; k < nb; k++) {
            free(rec[k]);
            rec[k] = NULL;
        }
        if (fflush(fp) != 0)
            goto write_error;
        if (batch_failed && !a->keep_going && t0 + nb < n_todo) {
            *stopped = true;
            rc = 0;
            goto done;
        }
        if (t0 + nb >= n_todo)
            break;
    }
    if (a->format == REPORT_FMT_JSON) {
        json_t *root = json_object();
        json_object_set_new(root, "points", o.points);
        o.points = NULL;
        int jr =
            json_dumpf(root, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        json_decref(root);
        if (jr != 0 || fputc('\n', fp) == EOF)
            goto write_error;
    }
    rc = 0;
    goto done;
write_error:
    if (!err[0])
        errbuf_set(err, errlen, "%s: cannot write: %s", a->output ? a->output : "standard output",
                   strerror(errno));
done:
    for (size_t k = 0; rec && k < batch; k++)
        free(rec[k]);
    free(rec);
    free(failed);
    free(why);
    progress_destroy(pr);
    json_decref(o.points);
    free(todo);
    return rc;
}

int cmd_sweep_main(int argc, char **argv)
{
    char err[ERR_LEN] = "";
    int rc = CMD_EXIT_RUNTIME;
    sweep_args_t a = {.jobs = cli_default_jobs(), .shard_count = 1, .format = REPORT_FMT_CSV};
    sweep_t *sw = NULL;
    have_t h = {0};
    failures_t *failures = NULL;
    outfile_t *of = NULL;
    FILE *pfp = NULL;
    char partial[4096] = "";

    a.base = malloc(sizeof *a.base);
    a.axes = calloc((size_t)argc + 1, sizeof *a.axes);
    if (!a.base || !a.axes) {
        errorf("out of memory");
        goto out;
    }
    point_init(a.base);
    switch (parse_args(argc, argv, &a, err, sizeof err)) {
    case CLI_HELP:
        cmd_sweep_usage(stdout);
        rc = cmd_finish_stdout("sweep");
        goto out;
    case CLI_OK:
        break;
    default:
        errorf("%s", err);
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    sw = sweep_create(a.base);
    if (!sw) {
        errorf("out of memory");
        goto out;
    }
    bool machine_axis = false;
    for (size_t i = 0; i < a.n_axes; i++) {
        if (sweep_add_axis(sw, a.axes[i], err, sizeof err) != 0) {
            errorf("%s", err);
            rc = CMD_EXIT_USAGE;
            goto out;
        }
        machine_axis = machine_axis || strcmp(sweep_axis_key(sw, i), "machine") == 0;
    }
    if (!machine_axis && a.base->machine[0] == '\0') {
        errorf("--machine is required (or --sweep machine=A,B,...); see 'clearsim machines'");
        rc = CMD_EXIT_USAGE;
        goto out;
    }
    int prc = sweep_prepare(sw, err, sizeof err);
    if (prc != 0) {
        errorf("%s", err);
        if (prc == -2)
            rc = CMD_EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < sweep_n_machines(sw); i++)
        if (sweep_machine_warning(sw, i))
            errorf("warning: --machine host: %s", sweep_machine_warning(sw, i));

    uint64_t n_points = sweep_n_points(sw);
    h.sw = sw;
    h.a = &a;
    h.path = a.output;
    h.n_slots =
        (size_t)(a.shard_count > 1 ? (n_points + a.shard_count - 1 - a.shard_index) / a.shard_count
                                   : n_points);
    failures = calloc(1, sizeof *failures);
    if (!failures) {
        errorf("out of memory");
        goto out;
    }
    h.fails = failures;
    if (a.resume) {
        if (a.format == REPORT_FMT_CSV) {
            h.rows = calloc(h.n_slots ? h.n_slots : 1, sizeof *h.rows);
            h.kinds = calloc(1, sizeof *h.kinds);
            run_result_t *empty = calloc(1, sizeof *empty);
            if (h.kinds && empty && report_collect(empty, h.kinds, err, sizeof err) != 0)
                h.kinds->n = 0; /* no kinds: every column is checked as a number */
            free(empty);
            if (!h.rows || !h.kinds) {
                errorf("out of memory");
                goto out;
            }
            snprintf(partial, sizeof partial, "%s.partial", a.output);
            const char *files[2] = {a.output, partial};
            for (int f = 0; f < 2; f++) {
                h.path = files[f];
                if (csv_read(files[f], CSV_MISSING_EMPTY | CSV_CUT_LAST, on_csv_row, &h, err,
                             sizeof err) < 0) {
                    errorf("--resume: %s", err);
                    goto out;
                }
            }
        } else {
            h.objs = calloc(h.n_slots ? h.n_slots : 1, sizeof *h.objs);
            if (!h.objs) {
                errorf("out of memory");
                goto out;
            }
            if (read_json(&h, err, sizeof err) != 0) {
                errorf("--resume: %s", err);
                goto out;
            }
        }
    }

    of = outfile_open(a.output ? a.output : "-", err, sizeof err);
    if (!of) {
        errorf("%s", err);
        goto out;
    }
    if (a.output && a.format == REPORT_FMT_CSV && outfile_is_atomic(of)) {
        snprintf(partial, sizeof partial, "%s.partial", a.output);
        pfp = open_partial(partial, sweep_csv_header(sw), a.resume, err, sizeof err);
        if (!pfp) {
            errorf("%s", err);
            goto out;
        }
    }
    bool stopped = false;
    if (run_sweep(sw, &a, outfile_fp(of), pfp, partial, &h, failures, &stopped, err, sizeof err) !=
        0) {
        errorf("%s", err);
        goto out;
    }
    for (size_t i = 0; i < failures->n && i < FAILURES_SHOWN; i++)
        errorf("%s", failures->line[i]);
    if (failures->n > FAILURES_SHOWN)
        errorf("... and %zu more failed points", failures->n - FAILURES_SHOWN);
    if (stopped) {
        errorf("stopped after the batch with the first failed point%s; --keep-going runs "
               "every point",
               pfp ? " (the completed rows are in FILE.partial; FILE is as it was)" : "");
        goto out; /* rc stays 1 */
    }
    outfile_t *done = of;
    of = NULL;
    if (outfile_commit(done, err, sizeof err) != 0) {
        errorf("%s", err);
        goto out;
    }
    if (pfp) {
        fclose(pfp);
        pfp = NULL;
        unlink(partial); /* superseded by the complete file */
    }
    if (failures->n > 0)
        errorf("%zu of %zu points failed; see the 'error' %s", failures->n, h.n_slots,
               a.format == REPORT_FMT_CSV ? "column" : "keys");
    rc = failures->n > 0 ? CMD_EXIT_RUNTIME : CMD_EXIT_OK;
out:
    outfile_abort(of);
    if (pfp)
        fclose(pfp); /* every completed row stays in FILE.partial */
    if (h.rows)
        for (size_t k = 0; k < h.n_slots; k++)
            free(h.rows[k]);
    free(h.rows);
    free(h.kinds);
    if (h.objs)
        for (size_t k = 0; k < h.n_slots; k++)
            json_decref(h.objs[k]);
    free(h.objs);
    free(failures);
    sweep_destroy(sw);
    free(a.axes);
    free(a.base);
    return rc;
}
