/*
 * sweep.c - axes, point numbering and record formatting of `clearsim sweep`
 * (see sweep.h); the points run on the thread pool (sim/output/pool.h).
 *
 * Notes
 *  - Point p's value on axis a is values[(p / stride[a]) % n[a]], where the
 *    last axis has stride 1: the first axis varies slowest.
 *  - Each point writes only its own record slot, so the order of
 *    completion never shows in the output.
 *  - csv cells are written as `run --format csv` writes them (report.c):
 *    RFC 4180 quoting, doubles with 17 significant digits, null empty.
 *  - Deliberately not done: retrying failed points, streaming records out
 *    before the whole set is done (the caller writes the file atomically at
 *    the end anyway).
 *  - Units: sizes in bytes (values keep the text they were given).
 */
#include "sim/host/pick.h"
#include "sim/study/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "models/base/machine.h"
#include "kernels/kernels.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "models/base/errbuf.h"
#include "sim/host/host.h"
#include "sim/output/pool.h"
#include "sim/engine/progress.h"
#include "sim/engine/run.h"
#include "sim/machine/units.h"
#include "sim/engine/workload.h"

/* ------------------------------------------------------------------------ */
/* the sweep                                                                 */

typedef struct axis {
    char key[64];
    char **values;
    size_t n;
    uint64_t stride;
    bool all; /* function=all: a point whose machine does not run it is skipped */
} axis_t;

typedef struct machine_slot {
    char *arg; /* as given: name, path or host; then each --set, a line each */
    machine_t *m;
    char err[512];
    bool set_failed;                                   /* the file loads; an override does not */
    char warning[sizeof(((host_pick_t *)0)->warning)]; /* host: the file is of another system */
} machine_slot_t;

struct sweep {
    run_point_t base;
    axis_t axes[SWEEP_AXES_MAX];
    size_t n_axes;
    uint64_t n_points;
    machine_slot_t *machines;
    size_t n_machines;
    bool function_all; /* an axis function=all */
    bool workload_axis;
    char **cols; /* report columns, csv names */
    size_t n_cols;
    char *header;
};

sweep_t *sweep_create(const run_point_t *base)
{
    sweep_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->base = *base;
    s->n_points = 1;
    return s;
}

void sweep_destroy(sweep_t *s)
{
    if (!s)
        return;
    for (size_t a = 0; a < s->n_axes; a++)
        sweep_values_free(s->axes[a].values, s->axes[a].n);
    for (size_t i = 0; i < s->n_machines; i++) {
        free(s->machines[i].arg);
        if (s->machines[i].m)
            cfg_machine_destroy(s->machines[i].m);
    }
    free(s->machines);
    for (size_t i = 0; i < s->n_cols; i++)
        free(s->cols[i]);
    free(s->cols);
    free(s->header);
    free(s);
}

#define SWEEP_FUNCTIONS_MAX 64

static int add_value(axis_t *ax, const char *v)
{
    char **nv = realloc(ax->values, (ax->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    ax->values = nv;
    if (!(nv[ax->n] = strdup(v)))
        return -1;
    ax->n++;
    return 0;
}

/* machine=all: every catalogued machine; function=all: every function of the
 * workload's table (a machine that does not run one skips its points).
 * Returns 0, -1 with a reason, or 1 when the key takes no "all". */
static int expand_all(const sweep_t *s, axis_t *ax, char *err, size_t errlen)
{
    int rc = 0;
    if (strcmp(ax->key, "machine") == 0) {
        catalog_t *cat = catalog_load(err, errlen);
        if (!cat)
            return -1;
        for (size_t i = 0; rc == 0 && i < catalog_count(cat); i++)
            if (add_value(ax, catalog_name(cat, i)))
                rc = errbuf_set(err, errlen, "out of memory");
        catalog_destroy(cat);
    } else if (strcmp(ax->key, "function") == 0) {
        ax->all = true;
        const char *names[SWEEP_FUNCTIONS_MAX];
        size_t n = point_all_functions(&s->base, NULL, names, SWEEP_FUNCTIONS_MAX);
        for (size_t i = 0; rc == 0 && i < n; i++)
            if (add_value(ax, names[i]))
                rc = errbuf_set(err, errlen, "out of memory");
    } else {
        return 1;
    }
    if (rc == 0 && ax->n == 0)
        rc = errbuf_set(err, errlen, "--sweep %s=all: there is none", ax->key);
    return rc;
}

int sweep_add_axis(sweep_t *s, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return errbuf_set(err, errlen,
                          "--sweep '%.64s': expected KEY=VALUES, e.g. size=4KB..1GB:x2", arg);
    size_t klen = (size_t)(eq - arg);
    if (klen >= sizeof s->axes[0].key)
        return errbuf_set(err, errlen, "--sweep '%.64s': unknown key", arg);
    if (s->n_axes >= SWEEP_AXES_MAX)
        return errbuf_set(err, errlen, "--sweep: at most %u axes", SWEEP_AXES_MAX);
    axis_t *ax = &s->axes[s->n_axes];
    memcpy(ax->key, arg, klen);
    ax->key[klen] = '\0';
    for (size_t a = 0; a < s->n_axes; a++)
        if (strcmp(s->axes[a].key, ax->key) == 0)
            return errbuf_set(err, errlen, "--sweep %s: given twice; put all values in one --sweep",
                              ax->key);
    ax->values = NULL;
    ax->n = 0;
    ax->all = false;
    int xr = strcmp(eq + 1, "all") == 0 ? expand_all(s, ax, err, errlen) : 1;
    int rc = xr;
    if (xr > 0)
        rc = sweep_spec_expand(ax->key, eq + 1, &ax->values, &ax->n, err, errlen);
    bool workload = strcmp(ax->key, "workload") == 0;
    if (rc == 0 && (s->function_all || ax->all) && (s->workload_axis || workload))
        rc = errbuf_set(err, errlen,
                        "--sweep function=all lists the functions of one workload: give "
                        "--workload, not a workload axis, or list the functions");
    if (rc == 0 && s->n_points > SWEEP_POINTS_MAX / ax->n)
        rc = errbuf_set(err, errlen, "--sweep: more than %llu points",
                        (unsigned long long)SWEEP_POINTS_MAX);
    if (rc != 0) {
        sweep_values_free(ax->values, ax->n);
        ax->values = NULL;
        ax->n = 0;
        return -1;
    }
    s->function_all = s->function_all || ax->all;
    s->workload_axis = s->workload_axis || workload;
    s->n_points *= ax->n;
    s->n_axes++;
    uint64_t stride = 1;
    for (size_t a = s->n_axes; a-- > 0;) {
        s->axes[a].stride = stride;
        stride *= s->axes[a].n;
    }
    return 0;
}

size_t sweep_n_axes(const sweep_t *s)
{
    return s->n_axes;
}

const char *sweep_axis_key(const sweep_t *s, size_t axis)
{
    return axis < s->n_axes ? s->axes[axis].key : NULL;
}

uint64_t sweep_n_points(const sweep_t *s)
{
    return s->n_points;
}

const char *sweep_value(const sweep_t *s, uint64_t p, size_t axis)
{
    if (axis >= s->n_axes || p >= s->n_points)
        return NULL;
    const axis_t *ax = &s->axes[axis];
    return ax->values[(p / ax->stride) % ax->n];
}

const char *sweep_point_label(const sweep_t *s, uint64_t p, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (size_t a = 0; a < s->n_axes && at < len; a++) {
        int w = snprintf(buf + at, len - at, "%s%s=%s", a ? " " : "", s->axes[a].key,
                         sweep_value(s, p, a));
        at = w < 0 ? len : at + (size_t)w;
    }
    return buf;
}

/* ---- machines ---- */

/* A machine-key axis (l2.mshrs=16..128:x2): its values are --set overrides.
 * Run options have no dots; machine keys always do. */
static bool axis_is_machine_key(const char *key)
{
    return strchr(key, '.') != NULL;
}

/* Set axis a's value v on r. */
static int set_axis(run_point_t *r, const char *key, const char *v, char *err, size_t errlen)
{
    if (!axis_is_machine_key(key))
        return point_set(r, key, v, err, errlen);
    char o[MACHINE_SET_ARG_MAX];
    if ((size_t)snprintf(o, sizeof o, "%s=%s", key, v) >= sizeof o)
        return errbuf_set(err, errlen, "--sweep %s=%s: longer than %d characters", key, v,
                          MACHINE_SET_ARG_MAX - 1);
    return point_set(r, "set", o, err, errlen);
}

/* The machine a point runs on: its --machine and its overrides (malloc'd). */
static char *machine_id(const run_point_t *r)
{
    size_t len = strlen(r->machine) + strlen(r->libc) + 2;
    for (uint32_t j = 0; j < r->n_set; j++)
        len += strlen(r->set[j]) + 1;
    char *id = malloc(len);
    if (!id)
        return NULL;
    size_t at = (size_t)snprintf(id, len, "%s\n%s", r->machine, r->libc);
    for (uint32_t j = 0; j < r->n_set; j++)
        at += (size_t)snprintf(id + at, len - at, "\n%s", r->set[j]);
    return id;
}

static int load_machine(machine_slot_t *slot, const run_point_t *r)
{
    host_pick_t pick;
    slot->m = host_machine_open(r->machine, &pick, slot->err, sizeof slot->err);
    snprintf(slot->warning, sizeof slot->warning, "%s", pick.warning);
    if (slot->m) {
        int rc = point_apply_overrides(r, &slot->m, slot->err, sizeof slot->err);
        if (rc) {
            cfg_machine_destroy(slot->m);
            slot->m = NULL;
            slot->set_failed = rc == -2;
        }
    }
    return slot->m ? 0 : -1;
}

const char *sweep_machine_warning(const sweep_t *s, size_t i)
{
    return i < s->n_machines && s->machines[i].warning[0] ? s->machines[i].warning : NULL;
}

size_t sweep_n_machines(const sweep_t *s)
{
    return s->n_machines;
}

static machine_slot_t *find_machine(const sweep_t *s, const run_point_t *r)
{
    char *id = machine_id(r);
    machine_slot_t *hit = NULL;
    for (size_t i = 0; id && !hit && i < s->n_machines; i++)
        if (strcmp(s->machines[i].arg, id) == 0)
            hit = &s->machines[i];
    free(id);
    return hit;
}

static int add_machine(sweep_t *s, const run_point_t *r, machine_slot_t **out)
{
    machine_slot_t *slot = find_machine(s, r);
    if (!slot) {
        machine_slot_t *nm = realloc(s->machines, (s->n_machines + 1) * sizeof *nm);
        if (!nm)
            return -1;
        s->machines = nm;
        slot = &s->machines[s->n_machines];
        memset(slot, 0, sizeof *slot);
        slot->arg = machine_id(r);
        if (!slot->arg)
            return -1;
        s->n_machines++;
        load_machine(slot, r);
    }
    *out = slot;
    return 0;
}

/* ---- columns ---- */

static void join_path(const report_field_t *f, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", f->path[0], f->path[1] ? "." : "",
             f->path[1] ? f->path[1] : "", f->path[2] ? "." : "", f->path[2] ? f->path[2] : "");
}

/* The counters run_predict reports for m (as run.c's map_counters orders
 * them: the standard set, then the other mapped events in file order). */
static void fake_counters(const machine_t *m, run_result_t *r)
{
    r->n_counters = 0;
    for (int i = 0; run_std_counters[i] && r->n_counters < RUN_COUNTERS_MAX; i++)
        snprintf(r->counters[r->n_counters++].name, MACHINE_NAME_MAX, "%s", run_std_counters[i]);
    for (uint32_t j = 0; j < m->n_pmu && r->n_counters < RUN_COUNTERS_MAX; j++) {
        bool seen = false;
        for (uint32_t k = 0; k < r->n_counters; k++)
            seen = seen || strcmp(r->counters[k].name, m->pmu[j].name) == 0;
        if (!seen)
            snprintf(r->counters[r->n_counters++].name, MACHINE_NAME_MAX, "%s", m->pmu[j].name);
    }
}

static ssize_t col_index(const sweep_t *s, const char *name)
{
    for (size_t i = 0; i < s->n_cols; i++)
        if (strcmp(s->cols[i], name) == 0)
            return (ssize_t)i;
    return -1;
}

/* Merge one machine's columns: a new name goes right after the previous
 * name of the same row. */
static int merge_columns(sweep_t *s, const report_row_t *row)
{
    ssize_t after = -1;
    for (size_t i = 0; i < row->n; i++) {
        char name[3 * MACHINE_NAME_MAX + 8];
        join_path(&row->f[i], name, sizeof name);
        ssize_t at = col_index(s, name);
        if (at < 0) {
            char **nc = realloc(s->cols, (s->n_cols + 1) * sizeof *nc);
            if (!nc)
                return -1;
            s->cols = nc;
            at = after + 1;
            memmove(&s->cols[at + 1], &s->cols[at], (s->n_cols - (size_t)at) * sizeof *nc);
            s->cols[at] = strdup(name);
            s->n_cols++;
            if (!s->cols[at])
                return -1;
        }
        after = at;
    }
    return 0;
}

/* csv text of a cell into a growing buffer */
typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool oom;
} sbuf_t;

static void sb_put(sbuf_t *b, const char *s, size_t len)
{
    if (b->oom)
        return;
    if (b->n + len + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + len + 1)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = '\0';
}

static void sb_str(sbuf_t *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_csv(sbuf_t *b, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        sb_str(b, s);
        return;
    }
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            sb_put(b, "\"", 1);
        sb_put(b, s, 1);
    }
    sb_put(b, "\"", 1);
}

static void sb_field(sbuf_t *b, const report_field_t *f)
{
    char num[64];
    switch (f->kind) {
    case REPORT_V_NULL:
        break;
    case REPORT_V_STR:
        sb_csv(b, f->s);
        break;
    case REPORT_V_BOOL:
        sb_str(b, f->b ? "true" : "false");
        break;
    case REPORT_V_DOUBLE:
        if (isfinite(f->d)) {
            snprintf(num, sizeof num, "%.17g", f->d);
            sb_str(b, num);
        }
        break;
    case REPORT_V_U64:
        snprintf(num, sizeof num, "%" PRIu64, f->u);
        sb_str(b, num);
        break;
    }
}

/* The machines of the sweep: one per combination of the axes that change the
 * machine (machine=..., machine keys), on top of --machine and --set. */
#define SWEEP_MACHINES_MAX 4096u

/* Every option given, on the command line or as an axis, applies to the
 * workload (point_check_applies): else a usage error (-2). With a workload
 * axis, each point is checked as it runs instead. */
static int check_applies(const sweep_t *s, char *err, size_t errlen)
{
    if (s->workload_axis)
        return 0;
    run_point_t *r = malloc(sizeof *r);
    if (!r)
        return errbuf_set(err, errlen, "out of memory");
    *r = s->base;
    int rc = 0;
    for (size_t a = 0; rc == 0 && a < s->n_axes; a++)
        if (!axis_is_machine_key(s->axes[a].key) && s->axes[a].n > 0 &&
            point_set(r, s->axes[a].key, s->axes[a].values[0], err, errlen) != 0)
            rc = 1; /* a value that does not take is its points' error */
    if (rc == 0 && point_check_applies(r, err, errlen) != 0)
        rc = -2;
    free(r);
    if (rc == 1) {
        err[0] = '\0';
        rc = 0;
    }
    return rc;
}

int sweep_prepare(sweep_t *s, char *err, size_t errlen)
{
    int arc = check_applies(s, err, errlen);
    if (arc != 0)
        return arc;
    machine_slot_t *slot = NULL;
    ssize_t maxis = -1;
    size_t mx[SWEEP_AXES_MAX], nmx = 0;
    uint64_t combos = 1;
    for (size_t a = 0; a < s->n_axes; a++) {
        if (strcmp(s->axes[a].key, "machine") == 0)
            maxis = (ssize_t)a;
        if (strcmp(s->axes[a].key, "machine") == 0 || strcmp(s->axes[a].key, "libc") == 0 ||
            axis_is_machine_key(s->axes[a].key)) {
            mx[nmx++] = a;
            combos *= s->axes[a].n;
            if (combos > SWEEP_MACHINES_MAX)
                return errbuf_set_rc(
                    -2, err, errlen,
                    "--sweep: more than %u machines (the product of the machine and "
                    "machine-key axes)",
                    SWEEP_MACHINES_MAX);
        }
    }
    if (maxis < 0 && s->base.machine[0] == '\0')
        return errbuf_set(err, errlen,
                          "--machine is required (or --sweep machine=A,B,...); see 'clearsim "
                          "machines'");
    if (maxis < 0) {
        if (add_machine(s, &s->base, &slot) != 0)
            return errbuf_set(err, errlen, "out of memory");
        if (!slot->m)
            return errbuf_set_rc(slot->set_failed ? -2 : -1, err, errlen, "%s", slot->err);
    }
    for (uint64_t q = 0; q < combos && nmx > 0; q++) {
        run_point_t *r = malloc(sizeof *r);
        if (!r)
            return errbuf_set(err, errlen, "out of memory");
        *r = s->base;
        uint64_t rest = q;
        bool ok = true;
        for (size_t i = 0; i < nmx; i++) {
            const axis_t *ax = &s->axes[mx[i]];
            /* a value that does not take makes its points error records */
            char why[256];
            if (set_axis(r, ax->key, ax->values[rest % ax->n], why, sizeof why))
                ok = false;
            rest /= ax->n;
        }
        int rc = ok ? add_machine(s, r, &slot) : 0;
        free(r);
        if (rc != 0)
            return errbuf_set(err, errlen, "out of memory");
    }

    run_result_t *fake = calloc(1, sizeof *fake);
    report_row_t *row = malloc(sizeof *row);
    int rc = 0;
    if (!fake || !row)
        rc = errbuf_set(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < s->n_machines; i++) {
        const machine_t *m = s->machines[i].m;
        if (!m && (i + 1 < s->n_machines || s->n_cols > 0))
            continue;
        memset(fake, 0, sizeof *fake);
        fake->spec = s->base.spec;
        if (m) {
            snprintf(fake->machine, sizeof fake->machine, "%s", m->name);
            fake_counters(m, fake);
        } else {
            /* no machine loaded at all: the columns of a machine without a
             * pmu map */
            for (int k = 0; run_std_counters[k] && fake->n_counters < RUN_COUNTERS_MAX; k++)
                snprintf(fake->counters[fake->n_counters++].name, MACHINE_NAME_MAX, "%s",
                         run_std_counters[k]);
        }
        if (report_collect(fake, row, err, errlen) != 0)
            rc = -1;
        else if (merge_columns(s, row) != 0)
            rc = errbuf_set(err, errlen, "out of memory");
    }
    free(fake);
    free(row);
    if (rc != 0)
        return rc;

    sbuf_t b = {0};
    sb_str(&b, "point");
    for (size_t a = 0; a < s->n_axes; a++) {
        char name[64];
        snprintf(name, sizeof name, "sweep.%s", s->axes[a].key);
        sb_str(&b, ",");
        sb_csv(&b, name);
    }
    for (size_t i = 0; i < s->n_cols; i++) {
        sb_str(&b, ",");
        sb_csv(&b, s->cols[i]);
    }
    sb_str(&b, ",error");
    if (b.oom) {
        free(b.p);
        return errbuf_set(err, errlen, "out of memory");
    }
    free(s->header);
    s->header = b.p;
    return 0;
}

const char *sweep_csv_header(const sweep_t *s)
{
    return s->header ? s->header : "";
}

/* ---- running points ---- */

/* Build point p's options and machine. Returns 0, or -1 with the reason the
 * point cannot run. */
static int build_point(const sweep_t *s, uint64_t p, run_point_t *r, const machine_t **m, char *err,
                       size_t errlen)
{
    *r = s->base;
    for (size_t a = 0; a < s->n_axes; a++)
        if (set_axis(r, s->axes[a].key, sweep_value(s, p, a), err, errlen) != 0)
            return -1;
    const machine_slot_t *slot = find_machine(s, r);
    if (!slot)
        return errbuf_set(err, errlen, "internal: machine '%.64s' was not loaded", r->machine);
    if (!slot->m)
        return errbuf_set(err, errlen, "%s", slot->err);
    *m = slot->m;
    if (point_check_applies(r, err, errlen) != 0)
        return -1;
    point_apply_defaults(r, *m);
    if (s->function_all && !wl_function_of(r->spec.kind, r->spec.function, *m)) {
        /* function=all: a kernel this machine does not run is not a failure */
        const kern_info_t *k = kern_find(r->spec.function);
        const kern_bench_t *b = k ? NULL : kern_bench_find(r->spec.function);
        char why[256] = "";
        if (k)
            kern_check_machine(k, *m, why, sizeof why);
        else if (b)
            kern_bench_check_machine(b, *m, why, sizeof why);
        return errbuf_set_rc(1, err, errlen, "skipped: --function %s: %s", r->spec.function, why);
    }
    return wl_validate(&r->spec, *m, err, errlen) != 0 ? -1 : 0;
}

static char *csv_record(const sweep_t *s, uint64_t p, const run_result_t *res, const char *error,
                        char *err, size_t errlen)
{
    sbuf_t b = {0};
    char num[32];
    report_row_t *row = NULL;
    snprintf(num, sizeof num, "%" PRIu64, p);
    sb_str(&b, num);
    for (size_t a = 0; a < s->n_axes; a++) {
        sb_str(&b, ",");
        sb_csv(&b, sweep_value(s, p, a));
    }
    if (res) {
        row = malloc(sizeof *row);
        if (!row || report_collect(res, row, err, errlen) != 0) {
            if (!row)
                errbuf_set(err, errlen, "out of memory");
            free(row);
            free(b.p);
            return NULL;
        }
    }
    for (size_t c = 0; c < s->n_cols; c++) {
        sb_str(&b, ",");
        if (!row)
            continue;
        for (size_t i = 0; i < row->n; i++) {
            char name[3 * MACHINE_NAME_MAX + 8];
            join_path(&row->f[i], name, sizeof name);
            if (strcmp(name, s->cols[c]) == 0) {
                sb_field(&b, &row->f[i]);
                break;
            }
        }
    }
    sb_str(&b, ",");
    if (error)
        sb_csv(&b, error);
    free(row);
    if (b.oom) {
        free(b.p);
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    return b.p;
}

static char *json_record(const sweep_t *s, uint64_t p, const run_result_t *res, const char *error,
                         char *err, size_t errlen)
{
    json_t *o = json_object();
    json_t *sw = json_object();
    json_t *result = json_null();
    if (res) {
        result = report_run_json(res, err, errlen);
        if (!result) {
            json_decref(o);
            json_decref(sw);
            return NULL;
        }
    }
    for (size_t a = 0; a < s->n_axes; a++)
        json_object_set_new(sw, s->axes[a].key, json_string(sweep_value(s, p, a)));
    json_object_set_new(o, "point", json_integer((json_int_t)p));
    json_object_set_new(o, "sweep", sw);
    json_object_set_new(o, "error", error ? json_string(error) : json_null());
    json_object_set_new(o, "result", result);
    char *out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!out)
        errbuf_set(err, errlen, "out of memory (json)");
    return out;
}

typedef struct run_job {
    sweep_t *s;
    const uint64_t *points;
    report_format_t fmt;
    char **records;
    bool *failed;
    char (*why)[SWEEP_WHY_MAX];
    bool *fatal; /* formatting failed (out of memory) */
    char (*errs)[512];
} run_job_t;

static void run_one(void *vctx, size_t k)
{
    run_job_t *j = vctx;
    uint64_t p = j->points[k];
    run_point_t *r = malloc(sizeof *r);
    run_result_t *res = malloc(sizeof *res);
    char why[1024] = "";
    const machine_t *m = NULL;
    bool ok = false;
    int built = -1;
    if (!r || !res) {
        snprintf(why, sizeof why, "out of memory");
    } else if ((built = build_point(j->s, p, r, &m, why, sizeof why)) == 0) {
        r->opts.progress = false;
        memset(res, 0, sizeof *res);
        ok = run_predict(m, &r->spec, &r->opts, res, why, sizeof why) == 0;
    }
    for (char *c = why; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    j->failed[k] = !ok && built != 1;
    if (j->why)
        snprintf(j->why[k], sizeof j->why[k], "%s", ok ? "" : why);
    j->records[k] =
        j->fmt == REPORT_FMT_JSON
            ? json_record(j->s, p, ok ? res : NULL, ok ? NULL : why, j->errs[k], sizeof j->errs[k])
            : csv_record(j->s, p, ok ? res : NULL, ok ? NULL : why, j->errs[k], sizeof j->errs[k]);
    if (!j->records[k])
        j->fatal[k] = true;
    free(r);
    free(res);
}

int sweep_run(sweep_t *s, const uint64_t *points, size_t n, unsigned jobs, report_format_t fmt,
              progress_t *pr, uint64_t pr_base, char **records, bool *failed,
              char (*why)[SWEEP_WHY_MAX], char *err, size_t errlen)
{
    if (!s->header)
        return errbuf_set(err, errlen, "internal: sweep_run before sweep_prepare");
    for (size_t k = 0; k < n; k++)
        if (points[k] >= s->n_points)
            return errbuf_set(err, errlen, "internal: point %" PRIu64 " out of range", points[k]);
    bool *fatal = calloc(n ? n : 1, sizeof *fatal);
    char(*errs)[512] = calloc(n ? n : 1, sizeof *errs);
    if (!fatal || !errs) {
        free(fatal);
        free(errs);
        return errbuf_set(err, errlen, "out of memory");
    }
    run_job_t j = {.s = s,
                   .points = points,
                   .fmt = fmt,
                   .records = records,
                   .failed = failed,
                   .why = why,
                   .fatal = fatal,
                   .errs = errs};
    for (size_t k = 0; k < n; k++)
        records[k] = NULL;
    int rc = pool_run(n, jobs, run_one, &j, pr, pr_base, err, errlen);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (fatal[k])
            rc = errbuf_set(err, errlen, "point %" PRIu64 ": %s", points[k], errs[k]);
    free(fatal);
    free(errs);
    return rc;
}
