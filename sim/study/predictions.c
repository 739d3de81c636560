/*
 * predictions.c - `clearsim report`: the case list of docs/PREDICTIONS.md, the
 * runs behind it and the case list's part of the fingerprint (the Markdown
 * writer is predictions_write.c, the input files' part of the fingerprint
 * predictions_fp.c).
 *
 * Notes
 *  - See predictions.h for the cases and the fingerprint. Every case is an
 *    option string of `clearsim run`, parsed by cli_parse_run in the calling
 *    thread (getopt is not reentrant) before any run starts; the worker
 *    threads only call run_predict, each with its own model, and write their
 *    own slot.
 *  - Threads are handed the largest runs first (by bytes cleared), so that
 *    a long run does not start last; the results land in case order, so the
 *    file does not depend on the number of threads.
 *  - Ignored: the published figures of machines other than Milan (the brief
 *    of issue 5 asks for Milan's only).
 */
#include "sim/output/pool.h"
#include "sim/study/predictions_impl.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/output/outfile.h"
#include "sim/engine/point.h"
#include "models/base/errbuf.h"
#include "sim/engine/run.h"
#include "sim/study/sweep.h"
#include "sim/machine/units.h"
#include "sim/engine/workload.h"

/* ------------------------------------------------------------------------ */
/* the fingerprint (its input files: predictions_fp.c)                            */

/* Every template of the case list, in a fixed order. */
static uint64_t hash_cases(uint64_t h)
{
    h = predmd_fnv1a_str(h, PREDMD_VERSION);
    h = predmd_fnv1a_str(h, FAULT_FORMAT);
    for (size_t i = 0; i < N_FAULT_PAGES; i++) {
        h = predmd_fnv1a_str(h, fault_pages[i].page);
        h = predmd_fnv1a_str(h, fault_pages[i].size);
    }
    for (size_t i = 0; i < N_FAULT_PREEMPTS; i++)
        h = predmd_fnv1a_str(h, fault_preempts[i]);
    for (size_t i = 0; i < N_FAULT_CALLERS; i++)
        h = predmd_fnv1a_str(h, fault_callers[i]);
    h = predmd_fnv1a_str(h, KERNEL_FORMAT);
    for (size_t i = 0; i < 2; i++)
        h = predmd_fnv1a_str(h, kernel_baseline[i]);
    for (size_t i = 0; i < N_KERNEL_OTHERS; i++)
        h = predmd_fnv1a_str(h, kernel_others[i]);
    h = predmd_fnv1a_str(h, MEMSET_FORMAT);
    for (size_t i = 0; i < N_MEMSET_CHUNKS; i++)
        h = predmd_fnv1a_str(h, memset_chunks[i].chunk);
    return h;
}

int predmd_fingerprint(const char names[][MACHINE_NAME_MAX], size_t n, uint64_t *out, char *err,
                       size_t errlen)
{
    uint64_t h = hash_cases(PREDMD_FNV_OFFSET);
    for (size_t i = 0; i < n; i++)
        h = predmd_fnv1a_str(h, names[i]);
    h = predmd_fnv1a_str(h, ""); /* end of the machine list */
    if (predmd_hash_inputs(&h, err, errlen))
        return -1;
    *out = h;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* machine selection                                                         */

int predmd_select(const char *arg, char names[][MACHINE_NAME_MAX], size_t max, size_t *n,
                  bool *usage, char *err, size_t errlen)
{
    static char all[PREDMD_MACHINES_MAX][MACHINE_NAME_MAX];
    size_t n_all = 0;
    char cerr[512] = "";
    *usage = false;
    *n = 0;
    if (cfg_machine_list_bundled(all, PREDMD_MACHINES_MAX, &n_all, cerr, sizeof cerr) != 0)
        return errbuf_set(err, errlen, "%s", cerr);
    if (strcmp(arg, "all") == 0) {
        if (n_all == 0)
            return errbuf_set(err, errlen, "no machine files in %s", cfg_configs_dir());
        if (n_all > max)
            return errbuf_set(err, errlen, "more than %zu machine files in %s", max,
                              cfg_configs_dir());
        for (size_t i = 0; i < n_all; i++)
            memcpy(names[i], all[i], MACHINE_NAME_MAX);
        *n = n_all;
        return 0;
    }
    *usage = true;
    const char *p = arg;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return errbuf_set(err, errlen,
                              "--machines '%.64s': empty name; give 'all' or NAME,NAME,...", arg);
        if (len >= MACHINE_NAME_MAX)
            return errbuf_set(err, errlen, "--machines: '%.64s...' is not a bundled machine", p);
        char name[MACHINE_NAME_MAX];
        memcpy(name, p, len);
        name[len] = '\0';
        bool known = false;
        for (size_t i = 0; i < n_all && !known; i++)
            known = strcmp(all[i], name) == 0;
        if (!known)
            return errbuf_set(err, errlen,
                              "--machines: '%s' is not a bundled machine; see 'clearsim machines'",
                              name);
        for (size_t i = 0; i < *n; i++)
            if (strcmp(names[i], name) == 0)
                return errbuf_set(err, errlen, "--machines: '%s' is given twice", name);
        if (*n >= max)
            return errbuf_set(err, errlen, "--machines: more than %zu machines", max);
        memcpy(names[(*n)++], name, MACHINE_NAME_MAX);
        if (!comma)
            break;
        p = comma + 1;
    }
    *usage = false;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* building the runs                                                         */

static md_run_t *add_run(predmd_t *r, size_t machine, md_kind_t kind, char *err, size_t errlen)
{
    if (r->n_runs == r->cap_runs) {
        size_t nc = r->cap_runs ? r->cap_runs * 2 : 64;
        md_run_t *nv = realloc(r->runs, nc * sizeof *nv);
        if (!nv) {
            errbuf_set(err, errlen, "out of memory");
            return NULL;
        }
        r->runs = nv;
        r->cap_runs = nc;
    }
    md_run_t *u = &r->runs[r->n_runs++];
    memset(u, 0, sizeof *u);
    u->machine = machine;
    u->kind = kind;
    u->same_as = r->n_runs - 1;
    return u;
}

/* Parse u->options as `clearsim run --machine NAME OPTIONS` would, into
 * u->spec, and validate it against the machine. */
static int parse_run(const md_machine_t *mm, md_run_t *u, char *err, size_t errlen)
{
    run_point_t *p = malloc(sizeof *p);
    if (!p)
        return errbuf_set(err, errlen, "out of memory");
    char why[RUN_ERR_MAX];
    int rc = 0;
    point_init(p);
    if (point_parse_args(p, u->options, why, sizeof why) != 0) {
        rc = errbuf_set(err, errlen, "%s: '%s': %s", mm->name, u->options, why);
    } else {
        point_apply_defaults(p, mm->m);
        if (wl_validate(&p->spec, mm->m, why, sizeof why) != 0)
            rc = errbuf_set(err, errlen, "%s: '%s': %s", mm->name, u->options, why);
        else
            u->spec = p->spec;
    }
    free(p);
    return rc;
}

/* The calls and reschedule points one folio of an mmap run makes, hashed:
 * the callers (kernels/callers.c) are the only place where the preemption
 * model acts (sim/engine/workload.c passes it to caller_extent alone). */
typedef struct md_calls {
    uint64_t h;
} md_calls_t;

static void calls_clear(void *ctx, uint64_t addr, uint64_t len)
{
    md_calls_t *c = ctx;
    uint64_t v[3] = {1, addr, len};
    c->h = predmd_fnv1a(c->h, v, sizeof v);
}

static void calls_resched(void *ctx)
{
    md_calls_t *c = ctx;
    uint64_t v = 2;
    c->h = predmd_fnv1a(c->h, &v, sizeof v);
}

static uint64_t folio_calls(const wl_spec_t *s, const machine_t *m)
{
    md_calls_t c = {PREDMD_FNV_OFFSET};
    caller_cb_t cb = {calls_clear, calls_resched, &c};
    /* the first folio: a run's folios are all of its size but a tail of base
     * pages, which every caller clears in one call */
    const uint64_t folio = wl_folio_bytes(s, 0);
    if (s->caller == WL_CALLER_PAGE)
        caller_page(s->base_addr, folio, s->base_addr, s->base_page_bytes, m->max_order_pages, &cb);
    else
        caller_extent(s->base_addr, folio, s->preempt, s->extent_cap_bytes, &cb);
    return c.h;
}

/* Do runs a and b of one machine give the same prediction by construction:
 * equal specs except for a preemption model under which the callers make the
 * same calls? */
static bool same_prediction(const md_run_t *a, const md_run_t *b, const machine_t *m)
{
    if (a->machine != b->machine)
        return false;
    wl_spec_t x = a->spec, y = b->spec;
    if (x.kind != WL_MMAP || y.kind != WL_MMAP)
        return memcmp(&x, &y, sizeof x) == 0;
    x.preempt = y.preempt = CALLER_PREEMPT_NONE;
    if (memcmp(&x, &y, sizeof x) != 0)
        return false;
    return folio_calls(&a->spec, m) == folio_calls(&b->spec, m);
}

static int build_machine(predmd_t *r, size_t mi, char *err, size_t errlen)
{
    md_machine_t *mm = &r->machines[mi];
    const machine_t *m = mm->m;
    mm->function = point_default_function(m);
    mm->baseline = kernel_baseline[m->isa == MACHINE_ISA_ARM64 ? 1 : 0];
    mm->first_run = r->n_runs;

    for (size_t p = 0; p < N_FAULT_PAGES; p++)
        for (size_t q = 0; q < N_FAULT_PREEMPTS; q++)
            for (size_t c = 0; c < N_FAULT_CALLERS; c++) {
                md_run_t *u = add_run(r, mi, MD_FAULT, err, errlen);
                if (!u)
                    return -1;
                u->a = p;
                u->b = q;
                u->c = c;
                snprintf(u->function, sizeof u->function, "%s", mm->function);
                snprintf(u->options, sizeof u->options, FAULT_FORMAT " --caller %s",
                         fault_pages[p].page, fault_pages[p].size, fault_preempts[q], mm->function,
                         fault_callers[c]);
                if (parse_run(mm, u, err, errlen) != 0)
                    return -1;
                for (size_t k = mm->first_run; k + 1 < r->n_runs; k++)
                    if (r->runs[k].same_as == k && same_prediction(&r->runs[k], u, m)) {
                        u->same_as = k;
                        break;
                    }
            }

    const char *kernels[1 + N_KERNEL_OTHERS];
    size_t nk = 0;
    kernels[nk++] = mm->baseline;
    size_t off = 0;
    mm->missing[0] = '\0';
    for (size_t i = 0; i < N_KERNEL_OTHERS; i++) {
        const kern_info_t *k = kern_find(kernel_others[i]);
        char why[256];
        if (!k)
            return errbuf_set(err, errlen, "no kernel '%s' in kernels/kernels.c", kernel_others[i]);
        if (k->isa != KERN_ISA_ANY &&
            k->isa != (m->isa == MACHINE_ISA_ARM64 ? KERN_ISA_ARM64 : KERN_ISA_X86_64))
            continue; /* the other ISA's kernels are not listed as missing */
        if (kern_check_machine(k, m, why, sizeof why) == 0) {
            kernels[nk++] = k->name;
            continue;
        }
        const char *names[8];
        size_t nn = kern_needs_names(k, names, 8);
        int w = snprintf(mm->missing + off, sizeof mm->missing - off, "%s`%s` (needs the",
                         off ? "; " : "", k->name);
        if (w > 0 && (size_t)w < sizeof mm->missing - off)
            off += (size_t)w;
        for (size_t j = 0; j < nn; j++) {
            w = snprintf(mm->missing + off, sizeof mm->missing - off, "%s %s",
                         j == 0 ? "" : (j + 1 == nn ? " and" : ","), names[j]);
            if (w > 0 && (size_t)w < sizeof mm->missing - off)
                off += (size_t)w;
        }
        w = snprintf(mm->missing + off, sizeof mm->missing - off, " feature%s)", nn > 1 ? "s" : "");
        if (w > 0 && (size_t)w < sizeof mm->missing - off)
            off += (size_t)w;
    }
    for (size_t i = 0; i < nk; i++) {
        md_run_t *u = add_run(r, mi, MD_KERNEL, err, errlen);
        if (!u)
            return -1;
        snprintf(u->function, sizeof u->function, "%s", kernels[i]);
        snprintf(u->options, sizeof u->options, KERNEL_FORMAT, kernels[i]);
        if (parse_run(mm, u, err, errlen) != 0)
            return -1;
    }

    for (size_t i = 0; i < N_MEMSET_CHUNKS; i++) {
        md_run_t *u = add_run(r, mi, MD_MEMSET, err, errlen);
        if (!u)
            return -1;
        u->a = i;
        snprintf(u->function, sizeof u->function, "memset");
        snprintf(u->options, sizeof u->options, MEMSET_FORMAT, memset_chunks[i].chunk);
        if (parse_run(mm, u, err, errlen) != 0)
            return -1;
    }
    mm->n_runs = r->n_runs - mm->first_run;
    return 0;
}

static int cmp_order(const void *pa, const void *pb, void *ctx);

predmd_t *predmd_create(const char names[][MACHINE_NAME_MAX], size_t n, const char *machines_arg,
                        char *err, size_t errlen)
{
    if (n == 0) {
        errbuf_set(err, errlen, "no machines selected");
        return NULL;
    }
    predmd_t *r = calloc(1, sizeof *r);
    if (!r || !(r->machines = calloc(n, sizeof *r->machines))) {
        free(r);
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(r->machines_arg, sizeof r->machines_arg, "%s", machines_arg);
    for (size_t i = 0; i < n; i++) {
        md_machine_t *mm = &r->machines[i];
        memcpy(mm->name, names[i], MACHINE_NAME_MAX);
        mm->name[MACHINE_NAME_MAX - 1] = '\0';
        if (!(mm->m = cfg_machine_open(mm->name, NULL, 0, err, errlen))) {
            predmd_destroy(r);
            return NULL;
        }
        r->n_machines = i + 1;
        if (build_machine(r, i, err, errlen) != 0) {
            predmd_destroy(r);
            return NULL;
        }
    }
    r->order = malloc((r->n_runs ? r->n_runs : 1) * sizeof *r->order);
    if (!r->order) {
        errbuf_set(err, errlen, "out of memory");
        predmd_destroy(r);
        return NULL;
    }
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].same_as == i)
            r->order[r->n_order++] = i;
    qsort_r(r->order, r->n_order, sizeof *r->order, cmp_order, r);
    return r;
}

/* Largest measured bytes first; ties in case order. */
static int cmp_order(const void *pa, const void *pb, void *ctx)
{
    const predmd_t *r = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    uint64_t ba = wl_measured_bytes(&r->runs[a].spec), bb = wl_measured_bytes(&r->runs[b].spec);
    if (ba != bb)
        return ba > bb ? -1 : 1;
    return a < b ? -1 : (a > b);
}

void predmd_destroy(predmd_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_machines; i++)
        if (r->machines[i].m)
            cfg_machine_destroy(r->machines[i].m);
    free(r->machines);
    free(r->runs);
    free(r->order);
    free(r);
}

size_t predmd_n_runs(const predmd_t *r)
{
    return r->n_order;
}

size_t predmd_n_rows(const predmd_t *r)
{
    return r->n_runs;
}

/* ------------------------------------------------------------------------ */
/* running                                                                   */

typedef struct md_job {
    predmd_t *r;
    pthread_t main_thread;
} md_job_t;

static void run_task(void *ctx, size_t i)
{
    md_job_t *j = ctx;
    predmd_t *r = j->r;
    md_run_t *u = &r->runs[r->order[i]];
    if (!pthread_equal(pthread_self(), j->main_thread)) {
        /* interrupts go to the thread that owns the output file (outfile.h) */
        sigset_t old;
        outfile_block_signals(&old);
    }
    run_result_t *res = malloc(sizeof *res);
    if (!res) {
        u->rc = errbuf_set(u->err, sizeof u->err, "out of memory");
        return;
    }
    run_opts_t o;
    run_opts_init(&o);
    o.progress = false;
    memset(res, 0, sizeof *res);
    u->rc = run_predict(r->machines[u->machine].m, &u->spec, &o, res, u->err, sizeof u->err);
    if (u->rc == 0)
        u->gbps = res->bytes_per_sec / GIB;
    free(res);
}

int predmd_run(predmd_t *r, unsigned jobs, progress_t *pr, char *err, size_t errlen)
{
    md_job_t j = {.r = r, .main_thread = pthread_self()};
    if (pool_run(r->n_order, jobs, run_task, &j, pr, 0, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < r->n_runs; i++) {
        md_run_t *u = &r->runs[i];
        if (u->same_as != i) {
            u->rc = r->runs[u->same_as].rc;
            u->gbps = r->runs[u->same_as].gbps;
            continue;
        }
        if (u->rc != 0)
            return errbuf_set(err, errlen, "clearsim run --machine %s %s: %s",
                              r->machines[u->machine].name, u->options, u->err);
    }
    return 0;
}
