/*
 * validate.c - `clearsim validate`: the units and command lines of the
 * corpus of published figures, their predictions and their scores. The
 * loader and the accessors are validate_load.c, the writers validate_write.c.
 *
 * Notes
 *  - See validate.h for the corpus, the units and the scores.
 *  - Every command line is parsed when its file is loaded (no machine is
 *    needed for that), so a bad command is a file:line:col error before
 *    anything runs; what needs the machine (the kernel's ISA, the page sizes
 *    it has) is checked by wl_validate before the runs start.
 */
#include "sim/study/validate_impl.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/datadir.h"
#include "sim/machine/infile.h"
#include "sim/machine/suggest.h"
#include "sim/output/pool.h"

const char *val_corpus_dir(char *buf, size_t len)
{
    const char *env = getenv("CLEARSIM_PUBLISHED");
    if (env && env[0])
        snprintf(buf, len, "%s", env);
    else
        snprintf(buf, len, "%s/%s", datadir_path(), VAL_CORPUS_SUBDIR);
    return buf;
}

const char *val_role_name(val_role_t r)
{
    switch (r) {
    case VAL_ROLE_CALIBRATION:
        return "calibration";
    case VAL_ROLE_ANCHOR:
        return "anchor";
    default:
        return "judge";
    }
}

/* ---- units ------------------------------------------------------------- */

int val_unit_bps(double figure, const char *unit, double bytes, double *bps, char *err,
                 size_t errlen)
{
    static const struct {
        const char *name;
        double bytes_per_unit; /* rates: bytes per second per unit */
        double seconds;        /* times: seconds per unit (rates: 0) */
    } units[] = {
        {"GB/s", 1073741824.0, 0}, {"GiB/s", 1073741824.0, 0},
        {"GB/s-decimal", 1e9, 0},  {"MB/s", 1e6, 0},
        {"MiB/s", 1048576.0, 0},   {"s", 0, 1.0},
        {"ms", 0, 1e-3},           {"us", 0, 1e-6},
        {"ns", 0, 1e-9},
    };
    if (!(figure > 0) || !isfinite(figure))
        return errbuf_set(err, errlen, "the figure must be a positive number");
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(unit, units[i].name) != 0)
            continue;
        if (units[i].seconds == 0) {
            *bps = figure * units[i].bytes_per_unit;
            return 0;
        }
        if (!(bytes > 0))
            return errbuf_set(err, errlen, "a time in %s needs bytes: (the bytes of work it took)",
                              units[i].name);
        *bps = bytes / (figure * units[i].seconds);
        return 0;
    }
    return errbuf_set(err, errlen,
                      "unknown unit '%s' (GB/s, GiB/s, GB/s-decimal, MB/s, MiB/s; or s, ms, us, "
                      "ns with bytes:)",
                      unit);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double val_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- command lines ----------------------------------------------------- */

/* The next blank-separated word of *s into w (false at the end). */
static bool next_word(const char **s, char *w, size_t len, bool *too_long)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return false;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t') {
        if (n + 1 < len)
            w[n++] = *p;
        else
            *too_long = true;
        p++;
    }
    w[n] = '\0';
    *s = p;
    return true;
}

static int append(char *buf, size_t len, const char *a, const char *b)
{
    size_t used = strlen(buf);
    int k = snprintf(buf + used, len - used, "%s%s%s", used ? " " : "", a, b ? b : "");
    return k < 0 || (size_t)k >= len - used ? -1 : 0;
}

/* perf's options of `bench mem memset|mmap` rewritten as run options. */
static int bench_to_run(const char *rest, bool mmap, char *out, size_t len, bool *have_f, char *err,
                        size_t errlen)
{
    char w[1024];
    bool too_long = false;
    const char *s = rest;
    out[0] = '\0';
    *have_f = false;
    while (next_word(&s, w, sizeof w, &too_long)) {
        if (too_long)
            return errbuf_set(err, errlen, "an argument longer than %zu characters", sizeof w - 1);
        const char *f = mmap ? "--fault=" : "--function=";
        int rc;
        if (strcmp(w, "-c") == 0 || strcmp(w, "--cycles") == 0)
            return errbuf_set(err, errlen, "bench -c (cycles/byte) is not a throughput");
        if (strcmp(w, "-f") == 0 || strcmp(w, "--function") == 0) {
            if (!next_word(&s, w, sizeof w, &too_long))
                return errbuf_set(err, errlen, "option '-f' needs a value");
            rc = append(out, len, f, w);
        } else if (strncmp(w, "--function=", 11) == 0) {
            rc = append(out, len, f, w + 11);
        } else if (strncmp(w, "-f", 2) == 0 && w[2]) {
            rc = append(out, len, f, w + 2);
        } else if (strcmp(w, "--nr_loops") == 0) {
            rc = append(out, len, "--loops", NULL);
        } else if (strncmp(w, "--nr_loops=", 11) == 0) {
            rc = append(out, len, "--loops=", w + 11);
        } else if (strcmp(w, "--workload") == 0 || strncmp(w, "--workload=", 11) == 0) {
            return errbuf_set(err, errlen, "bench takes no --workload: 'bench mem %s' is one",
                              mmap ? "mmap" : "memset");
        } else {
            rc = append(out, len, w, NULL);
            if (rc == 0)
                continue;
        }
        if (rc != 0)
            return errbuf_set(err, errlen, "the command is too long");
        *have_f = true;
    }
    return 0;
}

int val_command_point(const char *command, const char *machine, struct run_point *p, char *err,
                      size_t errlen)
{
    char w[64], args[2048];
    bool too_long = false;
    const char *s = command;
    point_init(p);
    if (!next_word(&s, w, sizeof w, &too_long) || too_long ||
        (strcmp(w, "run") != 0 && strcmp(w, "bench") != 0))
        return errbuf_set(err, errlen, "must start with 'run' or 'bench' (clearsim's command)");
    if (strcmp(w, "bench") == 0) {
        char suite[16] = "", bench[16] = "";
        if (!next_word(&s, suite, sizeof suite, &too_long) ||
            !next_word(&s, bench, sizeof bench, &too_long) || too_long ||
            strcmp(suite, "mem") != 0 ||
            (strcmp(bench, "memset") && strcmp(bench, "mmap") && strcmp(bench, "map")))
            return errbuf_set(err, errlen, "give 'bench mem memset' or 'bench mem mmap'");
        bool mmap = strcmp(bench, "memset") != 0, have_f = false;
        if (point_set(p, "workload", mmap ? "mmap" : "memset", err, errlen) != 0 ||
            bench_to_run(s, mmap, args, sizeof args, &have_f, err, errlen) != 0)
            return -1;
        if (!have_f)
            return errbuf_set(err, errlen,
                              "bench needs -f with the one function the figure is of (perf's "
                              "default runs them all)");
    } else {
        snprintf(args, sizeof args, "%s", s);
    }
    if (point_parse_args(p, args, err, errlen) != 0)
        return -1;
    if (!p->machine[0]) {
        if (strlen(machine) >= sizeof p->machine)
            return errbuf_set(err, errlen, "machine name too long");
        snprintf(p->machine, sizeof p->machine, "%s", machine);
    } else if (strcmp(p->machine, machine) != 0) {
        return errbuf_set(err, errlen, "--machine %s is not the case's machine (%s)", p->machine,
                          machine);
    }
    return 0;
}

/* ---- running ----------------------------------------------------------- */

typedef struct run_ctx {
    val_corpus_t *c;
    machine_t **machines; /* one per case */
    char (*errs)[512];
    int *rcs;
} run_ctx_t;

static void run_task(void *ctx, size_t i)
{
    run_ctx_t *r = ctx;
    run_result_t *res = malloc(sizeof *res);
    if (!res) {
        r->rcs[i] = errbuf_set(r->errs[i], sizeof r->errs[i], "out of memory");
        return;
    }
    const run_point_t *p = &r->c->points[i];
    r->rcs[i] = run_predict(r->machines[i], &p->spec, &p->opts, res, r->errs[i], sizeof r->errs[i]);
    if (r->rcs[i] == 0) {
        val_case_t *vc = &r->c->cases[i];
        vc->predicted_bps = res->bytes_per_sec;
        vc->error = vc->predicted_bps / vc->published_bps - 1.0;
    }
    free(res);
}

static int cmp_summary(const void *a, const void *b)
{
    return strcmp(((const val_summary_t *)a)->machine, ((const val_summary_t *)b)->machine);
}

static void summarize_stats(double *v, size_t n, double *median, double *max)
{
    *max = NAN;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] > *max)
            *max = v[i];
    *median = val_median(v, n);
}

static int summarize(val_corpus_t *c, char *err, size_t errlen)
{
    free(c->summaries);
    c->summaries = NULL;
    c->n_summaries = 0;
    val_summary_t *s = calloc(c->n_cases ? c->n_cases : 1, sizeof *s);
    double *v = malloc((c->n_cases + c->n_gains + 1) * sizeof *v);
    double *w = malloc((c->n_cases + c->n_gains + 1) * sizeof *w);
    double *x = malloc((c->n_cases + c->n_gains + 1) * sizeof *x);
    if (!s || !v || !w || !x) {
        free(s), free(v), free(w), free(x);
        return errbuf_set(err, errlen, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < c->n_cases; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = strcmp(s[j].machine, c->cases[i].machine) == 0;
        if (!seen) {
            snprintf(s[n].machine, sizeof s[0].machine, "%s", c->cases[i].machine);
            snprintf(s[n++].machine_file_sha256, sizeof s[0].machine_file_sha256, "%s",
                     c->cases[i].machine_file_sha256);
        }
    }
    qsort(s, n, sizeof *s, cmp_summary);
    for (size_t j = 0; j < n; j++) {
        size_t nv = 0, nw = 0, nx = 0;
        for (size_t i = 0; i < c->n_cases; i++) {
            const val_case_t *vc = &c->cases[i];
            if (strcmp(vc->machine, s[j].machine) != 0)
                continue;
            if (vc->role == VAL_ROLE_JUDGE)
                v[nv++] = fabs(vc->error);
            else
                x[nx++] = fabs(vc->error);
        }
        for (size_t i = 0; i < c->n_gains; i++) {
            const val_gain_t *g = &c->gains[i];
            if (!g->exempt && strcmp(c->cases[g->num].machine, s[j].machine) == 0)
                w[nw++] = fabs(g->error);
        }
        s[j].cases = nv;
        summarize_stats(v, nv, &s[j].median_abs_err, &s[j].max_abs_err);
        s[j].gains = nw;
        summarize_stats(w, nw, &s[j].median_gain_err, &s[j].max_gain_err);
        s[j].exempt = nx;
        summarize_stats(x, nx, &s[j].exempt_median_abs_err, &s[j].exempt_max_abs_err);
    }
    free(v), free(w), free(x);
    c->summaries = s;
    c->n_summaries = n;
    return 0;
}

int val_run(val_corpus_t *c, unsigned jobs, progress_t *pr, char *err, size_t errlen)
{
    size_t n = c->n_cases;
    run_ctx_t r = {.c = c};
    int rc = -1;
    r.machines = calloc(n ? n : 1, sizeof *r.machines);
    r.errs = calloc(n ? n : 1, sizeof *r.errs);
    r.rcs = calloc(n ? n : 1, sizeof *r.rcs);
    if (!r.machines || !r.errs || !r.rcs) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        val_case_t *vc = &c->cases[i];
        run_point_t *p = &c->points[i];
        char why[512], path[4096];
        /* the bundled file itself: never a user's file of the same name, never host */
        int w = snprintf(path, sizeof path, "%s/%s.yaml", cfg_configs_dir(), p->machine);
        if (w < 0 || (size_t)w >= sizeof path) {
            errbuf_set(err, errlen, "%s:%u: case %s: machine path too long", vc->file,
                       (unsigned)vc->line, vc->id);
            goto out;
        }
        if (access(path, R_OK) != 0) {
            errbuf_set(err, errlen,
                       "%s:%u: case %s: machine %s: not a bundled machine (no %s); see "
                       "'clearsim machines'",
                       vc->file, (unsigned)vc->line, vc->id, p->machine, path);
            goto out;
        }
        machine_t *m = cfg_machine_load(path, why, sizeof why);
        if (!m) {
            errbuf_set(err, errlen, "%s:%u: case %s: %s", vc->file, (unsigned)vc->line, vc->id,
                       why);
            goto out;
        }
        r.machines[i] = m;
        snprintf(vc->machine_file_sha256, sizeof vc->machine_file_sha256, "%s", m->file_sha256);
        if (point_apply_overrides(p, &r.machines[i], why, sizeof why) != 0) {
            errbuf_set(err, errlen, "%s:%u: case %s: %s", vc->file, (unsigned)vc->line, vc->id,
                       why);
            goto out;
        }
        point_apply_defaults(p, r.machines[i]);
        p->opts.progress = false;
        if (wl_validate(&p->spec, r.machines[i], why, sizeof why) != 0) {
            errbuf_set(err, errlen, "%s:%u: case %s: '%s': %s", vc->file, (unsigned)vc->line,
                       vc->id, vc->command, why);
            goto out;
        }
    }
    if (pool_run(n, jobs, run_task, &r, pr, 0, err, errlen) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (r.rcs[i] != 0) {
            errbuf_set(err, errlen, "%s:%u: case %s: %s", c->cases[i].file,
                       (unsigned)c->cases[i].line, c->cases[i].id, r.errs[i]);
            goto out;
        }
    for (size_t i = 0; i < c->n_gains; i++) {
        val_gain_t *g = &c->gains[i];
        g->predicted_ratio = c->cases[g->num].predicted_bps / c->cases[g->den].predicted_bps;
        g->error = g->predicted_ratio / g->published_ratio - 1.0;
    }
    rc = summarize(c, err, errlen);
out:
    for (size_t i = 0; r.machines && i < n; i++)
        if (r.machines[i])
            cfg_machine_destroy(r.machines[i]);
    free(r.machines);
    free(r.errs);
    free(r.rcs);
    return rc;
}
