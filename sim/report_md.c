/*
 * report_md.c - `clearsim report`: the case list of docs/PREDICTIONS.md, the
 * runs behind it, the Markdown writer and the case list's part of the
 * fingerprint (the input files' part is report_fp.c).
 *
 * Notes
 *  - See report_md.h for the cases and the fingerprint. Every case is an
 *    option string of `clearsim run`, parsed by cli_parse_run in the calling
 *    thread (getopt is not reentrant) before any run starts; the worker
 *    threads only call run_predict, each with its own model, and write their
 *    own slot.
 *  - Threads are handed the largest runs first (by bytes cleared), so that
 *    a long run does not start last; the results land in case order, so the
 *    file does not depend on the number of threads.
 *  - Numbers: GB/s is bytes per second / 2^30, printed with two decimals;
 *    gains are new / baseline - 1 in percent with one decimal and a sign.
 *  - Ignored: the published figures of machines other than Milan (the brief
 *    of issue 5 asks for Milan's only).
 */
#include "sim/report_md.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "sim/cfg.h"
#include "sim/cli.h"
#include "sim/errbuf.h"
#include "sim/run.h"
#include "sim/sweep.h"
#include "sim/units.h"
#include "sim/workload.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

#define GIB               1073741824.0
#define RUN_OPTIONS_MAX   192
#define RUN_ERR_MAX       512
#define MACHINES_ARG_SHOW 512

/* ------------------------------------------------------------------------ */
/* the case list                                                             */

typedef enum md_kind { MD_FAULT = 0, MD_KERNEL, MD_MEMSET } md_kind_t;

typedef struct md_fault_page {
    const char *page;  /* -p */
    const char *size;  /* -s */
    const char *label; /* table label */
} md_fault_page_t;

static const md_fault_page_t fault_pages[] = {
    {"2MB", "1GB", "2 MiB"},
    {"1GB", "4GB", "1 GiB"},
};
static const char *const fault_preempts[] = {"none", "voluntary", "full", "lazy"};
static const char *const fault_callers[] = {"page", "extent"};
#define N_FAULT_PAGES    (sizeof fault_pages / sizeof fault_pages[0])
#define N_FAULT_PREEMPTS (sizeof fault_preempts / sizeof fault_preempts[0])
#define N_FAULT_CALLERS  (sizeof fault_callers / sizeof fault_callers[0])
#define FAULT_FORMAT     "--workload mmap -p %s -s %s --preempt %s -f %s"

/* Clearing kernels in user space: the temporal baseline of each ISA, then
 * the others of issue 5 where the machine has them. */
#define KERNEL_FORMAT "-s 1GB -k 2MB -f %s"
#define KERNEL_WHAT   "2 MiB calls over a 1 GiB buffer"
static const char *const kernel_baseline[] = {"rep_stosb", "stp"}; /* by cfg_isa_t */
static const char *const kernel_others[] = {"movnti", "clzero", "dc_zva", "stnp", "mops"};
#define N_KERNEL_OTHERS (sizeof kernel_others / sizeof kernel_others[0])

typedef struct md_memset_chunk {
    const char *chunk;
    const char *label;
} md_memset_chunk_t;

#define MEMSET_FORMAT "-s 1GB -k %s -f memset"
static const md_memset_chunk_t memset_chunks[] = {
    {"4KB", "4 KiB"},
    {"2MB", "2 MiB"},
    {"1GB", "1 GiB"},
};
#define N_MEMSET_CHUNKS (sizeof memset_chunks / sizeof memset_chunks[0])

/* Published figures, Milan only: calibration data (data/calibration/). */
#define PUB_MACHINE "zen3-epyc-7j13"

typedef struct md_pub_fault {
    const char *page, *preempt; /* the rows they sit next to */
    const char *label;
    double page_gbps, extent_gbps, change_pct;
    const char *source;
} md_pub_fault_t;

static const md_pub_fault_t pub_faults[] = {
    {"2MB", "none", "2 MiB pages, any preemption model", 11.82, 16.48, 39.4, "[AR25b]"},
    {"1GB", "voluntary", "1 GiB pages, none / voluntary (8 MiB extents)", 17.14, 17.42, 1.6,
     "[AR25b]"},
    {"1GB", "full", "1 GiB pages, full / lazy (one 1 GiB extent)", 17.51, 43.23, 146.8, "[AR25b]"},
};

typedef struct md_pub_kernel {
    const char *function;
    double lo, hi; /* GB/s; a range when the source gives one */
    const char *note;
} md_pub_kernel_t;

static const md_pub_kernel_t pub_kernels[] = {
    {"rep_stosb", 14.8, 14.8, "2 MiB chunks"},
    {"movnti", 17.8, 18.6, "flat across chunk sizes"},
    {"clzero", 38.9, 46.0, "chunk size not stated per value"},
};

#define N_PUB_FAULTS  (sizeof pub_faults / sizeof pub_faults[0])
#define N_PUB_KERNELS (sizeof pub_kernels / sizeof pub_kernels[0])

/* ------------------------------------------------------------------------ */
/* state                                                                     */

typedef struct md_run {
    size_t machine;
    md_kind_t kind;
    size_t a, b, c; /* fault: page, preempt, caller; kernel: -; memset: chunk */
    char function[32];
    char options[RUN_OPTIONS_MAX];
    wl_spec_t spec;
    size_t same_as; /* the run whose prediction this one shares (itself: its own) */
    /* result */
    int rc;
    char err[RUN_ERR_MAX];
    double gbps;
} md_run_t;

typedef struct md_machine {
    char name[CFG_NAME_MAX];
    cfg_machine_t *m;
    const char *function; /* default clear function */
    const char *baseline; /* temporal kernel baseline */
    char missing[512];    /* kernels of kernel_others it lacks */
    size_t first_run, n_runs;
} md_machine_t;

struct predmd {
    char machines_arg[MACHINES_ARG_SHOW];
    size_t n_machines;
    md_machine_t *machines;
    size_t n_runs, cap_runs;
    md_run_t *runs;
    size_t n_order;
    size_t *order; /* the runs that run (same_as == self), largest first */
};

/* ------------------------------------------------------------------------ */
/* the fingerprint (its input files: report_fp.c)                            */

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

int predmd_fingerprint(const char names[][CFG_NAME_MAX], size_t n, uint64_t *out, char *err,
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

int predmd_select(const char *arg, char names[][CFG_NAME_MAX], size_t max, size_t *n, bool *usage,
                  char *err, size_t errlen)
{
    static char all[PREDMD_MACHINES_MAX][CFG_NAME_MAX];
    size_t n_all = 0;
    cfg_error_t cerr = {{0}};
    *usage = false;
    *n = 0;
    if (cfg_machine_list(all, PREDMD_MACHINES_MAX, &n_all, &cerr) != 0)
        return errbuf_set(err, errlen, "%s", cerr.msg);
    if (strcmp(arg, "all") == 0) {
        if (n_all == 0)
            return errbuf_set(err, errlen, "no machine files in %s", cfg_configs_dir());
        if (n_all > max)
            return errbuf_set(err, errlen, "more than %zu machine files in %s", max,
                              cfg_configs_dir());
        for (size_t i = 0; i < n_all; i++)
            memcpy(names[i], all[i], CFG_NAME_MAX);
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
        if (len >= CFG_NAME_MAX)
            return errbuf_set(err, errlen, "--machines: '%.64s...' is not a bundled machine", p);
        char name[CFG_NAME_MAX];
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
        memcpy(names[(*n)++], name, CFG_NAME_MAX);
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
    char buf[RUN_OPTIONS_MAX];
    char *argv[40];
    int argc = 0;
    argv[argc++] = (char *)"run";
    argv[argc++] = (char *)"--machine";
    argv[argc++] = (char *)mm->name;
    snprintf(buf, sizeof buf, "%s", u->options);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (argc >= (int)(sizeof argv / sizeof argv[0]) - 1)
            return errbuf_set(err, errlen, "%s: too many options in '%s'", mm->name, u->options);
        argv[argc++] = t;
    }
    argv[argc] = NULL;
    cli_run_t *cr = malloc(sizeof *cr);
    if (!cr)
        return errbuf_set(err, errlen, "out of memory");
    char why[RUN_ERR_MAX];
    int rc = 0;
    if (cli_parse_run(argc, argv, cr, why, sizeof why) != CLI_OK) {
        rc = errbuf_set(err, errlen, "%s: '%s': %s", mm->name, u->options, why);
    } else {
        cli_apply_defaults(cr, mm->m);
        if (wl_validate(&cr->spec, mm->m, why, sizeof why) != 0)
            rc = errbuf_set(err, errlen, "%s: '%s': %s", mm->name, u->options, why);
        else
            u->spec = cr->spec;
    }
    free(cr);
    return rc;
}

/* The calls and reschedule points one folio of an mmap run makes, hashed:
 * the callers (kernels/callers.c) are the only place where the preemption
 * model acts (sim/workload.c passes it to caller_extent alone). */
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

static uint64_t folio_calls(const wl_spec_t *s, const cfg_machine_t *m)
{
    md_calls_t c = {PREDMD_FNV_OFFSET};
    caller_cb_t cb = {calls_clear, calls_resched, &c};
    if (s->caller == WL_CALLER_PAGE)
        caller_page(s->base_addr, s->page_bytes, s->base_addr, m->max_order_pages, &cb);
    else
        caller_extent(s->base_addr, s->page_bytes, s->preempt, s->extent_cap_bytes, &cb);
    return c.h;
}

/* Do runs a and b of one machine give the same prediction by construction:
 * equal specs except for a preemption model under which the callers make the
 * same calls? */
static bool same_prediction(const md_run_t *a, const md_run_t *b, const cfg_machine_t *m)
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
    const cfg_machine_t *m = mm->m;
    mm->function = cli_default_function(m);
    mm->baseline = kernel_baseline[m->isa == CFG_ISA_ARM64 ? 1 : 0];
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
            k->isa != (m->isa == CFG_ISA_ARM64 ? KERN_ISA_ARM64 : KERN_ISA_X86_64))
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

predmd_t *predmd_create(const char names[][CFG_NAME_MAX], size_t n, const char *machines_arg,
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
        memcpy(mm->name, names[i], CFG_NAME_MAX);
        mm->name[CFG_NAME_MAX - 1] = '\0';
        char path[CLI_MACHINE_ARG_MAX];
        cfg_error_t cerr = {{0}};
        if (cfg_machine_resolve(mm->name, path, sizeof path, &cerr) == 0)
            mm->m = cfg_machine_load(path, &cerr);
        if (!mm->m) {
            errbuf_set(err, errlen, "%s", cerr.msg);
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
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        sigaddset(&s, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &s, NULL);
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
    if (sweep_parallel(r->n_order, jobs, run_task, &j, pr, 0, err, errlen) != 0)
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

/* ------------------------------------------------------------------------ */
/* the Markdown                                                              */

static const md_run_t *find_fault(const predmd_t *r, const md_machine_t *mm, size_t page,
                                  size_t preempt, size_t caller)
{
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_FAULT && u->a == page && u->b == preempt && u->c == caller)
            return u;
    }
    return NULL;
}

static const md_run_t *find_kernel(const predmd_t *r, const md_machine_t *mm, const char *fn)
{
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_KERNEL && strcmp(u->function, fn) == 0)
            return u;
    }
    return NULL;
}

static size_t index_of(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return n;
}

static size_t page_index(const char *page)
{
    for (size_t i = 0; i < N_FAULT_PAGES; i++)
        if (strcmp(fault_pages[i].page, page) == 0)
            return i;
    return N_FAULT_PAGES;
}

/* "+39.4%" / "-7.5%" of new against base. */
static const char *gain(double new_gbps, double base_gbps, char *buf, size_t len)
{
    if (!(base_gbps > 0)) {
        snprintf(buf, len, "-");
        return buf;
    }
    double g = (new_gbps / base_gbps - 1.0) * 100.0;
    /* no "-0.0%" */
    if (g > -0.05 && g < 0.05)
        g = 0.0;
    snprintf(buf, len, "%+.1f%%", g);
    return buf;
}

/* The fault-row options without the trailing " --caller X". */
static void fault_base(const md_run_t *u, char *buf, size_t len)
{
    snprintf(buf, len, "%s", u->options);
    char *c = strstr(buf, " --caller ");
    if (c)
        *c = '\0';
}

static void write_features(FILE *out, const cfg_machine_t *m)
{
    bool any = false;
    for (unsigned b = 0; b < 32; b++) {
        const char *name = (m->features >> b & 1u) ? cfg_feature_name(b) : NULL;
        if (!name)
            continue;
        fprintf(out, "%s%s", any ? ", " : "", name);
        any = true;
    }
    if (!any)
        fputs("none", out);
}

static void size_or_never(uint64_t bytes, char *buf, size_t len)
{
    if (bytes == 0)
        snprintf(buf, len, "never");
    else {
        char s[32];
        unit_format_size(bytes, s, sizeof s);
        snprintf(buf, len, "from %s", s);
    }
}

static void write_memset_policy(FILE *out, const cfg_machine_t *m)
{
    char a[48], b[48];
    if (m->isa == CFG_ISA_ARM64) {
        size_or_never(m->memset_zva_bytes, a, sizeof a);
        fprintf(out, "%u-byte stores%s; DC ZVA for zero fills %s", (unsigned)m->memset_vec_bytes,
                m->memset_vec_bytes == 16 ? " (STP)" : "", a);
        if (m->memset_zva_bytes && !(m->features & CFG_FEAT_DCZVA))
            fputs(" (but DC ZVA is not permitted)", out);
        fprintf(out, "; MOPS %s",
                m->memset_mops && (m->features & CFG_FEAT_MOPS) ? "used" : "not used");
    } else {
        size_or_never(m->memset_stosb_bytes, a, sizeof a);
        size_or_never(m->memset_nt_bytes, b, sizeof b);
        fprintf(out, "%u-byte vector stores; rep stosb %s; non-temporal stores %s",
                (unsigned)m->memset_vec_bytes, a, b);
    }
}

static void write_header(const predmd_t *r, FILE *out, uint64_t fp)
{
    bool all = strcmp(r->machines_arg, "all") == 0;
    fputs("<!-- Generated by 'clearsim report'. Do not edit by hand: regenerate it. -->\n", out);
    fputs("# Predictions for the bundled machines\n\n", out);
    if (all)
        fputs("This file is generated by `clearsim report --machines all --output "
              "docs/PREDICTIONS.md`.\n",
              out);
    else
        fprintf(out, "This file is generated by `clearsim report --machines %s`.\n",
                r->machines_arg);
    fputs("Do not edit it by hand: change the machine files or the model, then run that command\n"
          "again.\n\n",
          out);
    fprintf(out, PREDMD_FINGERPRINT_PREFIX "%016llx\n\n", (unsigned long long)fp);
    fputs("The fingerprint is a 64-bit FNV-1a hash of the report's case list (" PREDMD_VERSION
          "),\n"
          "the machine names and every input that can change a prediction: `configs/*.yaml`,\n"
          "`models/*.c`, `models/*.h`, `kernels/*.c`, `kernels/*.h`, `kernels/*.inc`, "
          "`sim/run.c`,\n"
          "`sim/workload.c`, `sim/trace.c`, `sim/trace.h`, `sim/cfg.c`, `sim/cfg_parse.c`,\n"
          "`sim/cfg_impl.h`, `sim/cfg_keys.c` and\n"
          "`sim/report_md.c`/`.h`. `clearsim report --check docs/PREDICTIONS.md` recomputes it\n"
          "without running anything and fails when this file is out of date; the test\n"
          "`cli_predictions` runs that check.\n\n",
          out);
    fputs("Every figure below is a **prediction of the model**, not a measurement, except where\n"
          "a table says *published*. GB/s is 2^30 bytes per second, as `perf bench` prints\n"
          "GB/sec. A gain is new / baseline - 1. Each row gives the options of the\n"
          "`clearsim run --machine NAME` command it comes from, so it can be reproduced; the\n"
          "runs use the model's steady-state fast-forward (no `--exact`) and seed 1.\n\n",
          out);
}

static void write_summary(const predmd_t *r, FILE *out)
{
    size_t p2m = page_index("2MB"), p1g = page_index("1GB");
    size_t none = index_of(fault_preempts, N_FAULT_PREEMPTS, "none");
    size_t vol = index_of(fault_preempts, N_FAULT_PREEMPTS, "voluntary");
    size_t full = index_of(fault_preempts, N_FAULT_PREEMPTS, "full");
    fputs("## Summary\n\n"
          "Demand faults (`--workload mmap`): the gain of clearing each folio as extents\n"
          "(`clear_pages`) over page-at-a-time (`clear_page` per 4 KiB subpage). User space: the\n"
          "fastest kernel in " KERNEL_WHAT ". Details and commands are in\n"
          "each machine's section.\n\n"
          "| machine | ISA | clear function | 2 MiB pages, none | 1 GiB pages, voluntary | 1 GiB "
          "pages, full | fastest user-space clear |\n"
          "|---|---|---|---:|---:|---:|---|\n",
          out);
    for (size_t i = 0; i < r->n_machines; i++) {
        const md_machine_t *mm = &r->machines[i];
        char g1[32], g2[32], g3[32];
        const md_run_t *a = find_fault(r, mm, p2m, none, 0), *b = find_fault(r, mm, p2m, none, 1);
        const md_run_t *c = find_fault(r, mm, p1g, vol, 0), *d = find_fault(r, mm, p1g, vol, 1);
        const md_run_t *e = find_fault(r, mm, p1g, full, 0), *f = find_fault(r, mm, p1g, full, 1);
        const md_run_t *best = NULL;
        for (size_t k = mm->first_run; k < mm->first_run + mm->n_runs; k++) {
            const md_run_t *u = &r->runs[k];
            if (u->kind == MD_KERNEL && (!best || u->gbps > best->gbps))
                best = u;
        }
        fprintf(out, "| [%s](#%s) | %s | `%s` | %s | %s | %s | `%s` %.2f GB/s |\n", mm->name,
                mm->name, mm->m->isa == CFG_ISA_ARM64 ? "arm64" : "x86_64", mm->function,
                a && b ? gain(b->gbps, a->gbps, g1, sizeof g1) : "-",
                c && d ? gain(d->gbps, c->gbps, g2, sizeof g2) : "-",
                e && f ? gain(f->gbps, e->gbps, g3, sizeof g3) : "-", best ? best->function : "-",
                best ? best->gbps : 0.0);
    }
    fputs("\n", out);
}

static void write_faults(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fprintf(out,
            "### Demand faults: extent against page-at-a-time\n\n"
            "`perf bench mem mmap -f demand`: every fault clears one folio with `%s`, either\n"
            "page-at-a-time or as extents (capped at 8 MiB under `none` and `voluntary`). The\n"
            "command of a row is `clearsim run --machine %s OPTIONS --caller page` (or\n"
            "`--caller extent`). In the model the preemption model only sets the extent cap,\n"
            "and rows for which the callers make the same calls share one prediction: the\n"
            "page-at-a-time column does not depend on it, nor does a 2 MiB folio, which is\n"
            "below the cap.\n\n"
            "| page | preemption | page-at-a-time GB/s | extent GB/s | gain | OPTIONS |\n"
            "|---|---|---:|---:|---:|---|\n",
            mm->function, mm->name);
    for (size_t p = 0; p < N_FAULT_PAGES; p++)
        for (size_t q = 0; q < N_FAULT_PREEMPTS; q++) {
            const md_run_t *pg = find_fault(r, mm, p, q, 0), *ex = find_fault(r, mm, p, q, 1);
            if (!pg || !ex)
                continue;
            char base[RUN_OPTIONS_MAX], g[32];
            fault_base(pg, base, sizeof base);
            fprintf(out, "| %s | %s | %.2f | %.2f | %s | `%s` |\n", fault_pages[p].label,
                    fault_preempts[q], pg->gbps, ex->gbps, gain(ex->gbps, pg->gbps, g, sizeof g),
                    base);
        }
    fputs("\n", out);
}

static void write_kernels(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    const md_run_t *base = find_kernel(r, mm, mm->baseline);
    fprintf(out,
            "### Clearing kernels in user space\n\n"
            "`perf bench mem memset -f KERNEL` in " KERNEL_WHAT " on 4 KiB pages, next to\n"
            "the temporal baseline `%s`. The command of a row is\n"
            "`clearsim run --machine %s OPTIONS`.\n\n"
            "| kernel | GB/s | gain over `%s` | OPTIONS |\n"
            "|---|---:|---:|---|\n",
            mm->baseline, mm->name, mm->baseline);
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind != MD_KERNEL)
            continue;
        char g[32];
        bool is_base = u == base;
        fprintf(out, "| `%s`%s | %.2f | %s | `%s` |\n", u->function, is_base ? " (baseline)" : "",
                u->gbps, is_base || !base ? "-" : gain(u->gbps, base->gbps, g, sizeof g),
                u->options);
    }
    if (mm->missing[0])
        fprintf(out, "\nNot on this machine: %s.\n", mm->missing);
    fputs("\n", out);
}

static void write_memset(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fputs("### memset by chunk size\n\n"
          "`perf bench mem memset -f memset` on 4 KiB pages: the C library's memset, with the\n"
          "dispatch the machine file gives it:\n",
          out);
    write_memset_policy(out, mm->m);
    fprintf(out,
            ".\nThe command of a row is `clearsim run --machine %s OPTIONS`.\n\n"
            "| chunk | GB/s | OPTIONS |\n"
            "|---|---:|---|\n",
            mm->name);
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_MEMSET)
            fprintf(out, "| %s | %.2f | `%s` |\n", memset_chunks[u->a].label, u->gbps, u->options);
    }
    fputs("\n", out);
}

static void write_published(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fputs("### Published measurements (calibration data for this machine only)\n\n"
          "These are measurements, not predictions. They were used to calibrate this machine\n"
          "file (`data/calibration/" PUB_MACHINE ".yaml`, `clearsim calibrate`), so agreement\n"
          "here shows the fit, not the model's accuracy on other machines. The published runs\n"
          "clear more memory than the rows above (5 x 64 GiB of demand faults [AR25b], a 4 GB\n"
          "buffer [AR22]); the model is in steady state at the sizes used here.\n\n"
          "| case | row | predicted GB/s | published GB/s | difference | source |\n"
          "|---|---|---:|---:|---:|---|\n",
          out);
    for (size_t i = 0; i < N_PUB_FAULTS; i++) {
        const md_pub_fault_t *pf = &pub_faults[i];
        size_t p = page_index(pf->page);
        size_t q = index_of(fault_preempts, N_FAULT_PREEMPTS, pf->preempt);
        for (size_t c = 0; c < N_FAULT_CALLERS; c++) {
            const md_run_t *u = find_fault(r, mm, p, q, c);
            double pub = c == 0 ? pf->page_gbps : pf->extent_gbps;
            if (!u)
                continue;
            char g[32];
            fprintf(out, "| %s, %s | `%s` | %.2f | %.2f | %s | %s |\n", pf->label,
                    c == 0 ? "page-at-a-time" : "extent", u->options, u->gbps, pub,
                    gain(u->gbps, pub, g, sizeof g), pf->source);
        }
    }
    for (size_t i = 0; i < N_PUB_KERNELS; i++) {
        const md_pub_kernel_t *pk = &pub_kernels[i];
        const md_run_t *u = find_kernel(r, mm, pk->function);
        if (!u)
            continue;
        char pub[48], g[32];
        double mid = (pk->lo + pk->hi) / 2;
        if (pk->lo == pk->hi)
            snprintf(pub, sizeof pub, "%.2f", pk->lo);
        else
            snprintf(pub, sizeof pub, "%.2f-%.2f", pk->lo, pk->hi);
        fprintf(out, "| `%s`, %s | `%s` | %.2f | %s | %s%s | [AR22] |\n", pk->function, pk->note,
                u->options, u->gbps, pub, gain(u->gbps, mid, g, sizeof g),
                pk->lo == pk->hi ? "" : " (from the midpoint)");
    }
    fputs("\n| change from page-at-a-time to extent | predicted | published | difference "
          "(points) |\n|---|---:|---:|---:|\n",
          out);
    for (size_t i = 0; i < N_PUB_FAULTS; i++) {
        const md_pub_fault_t *pf = &pub_faults[i];
        size_t p = page_index(pf->page);
        size_t q = index_of(fault_preempts, N_FAULT_PREEMPTS, pf->preempt);
        const md_run_t *pg = find_fault(r, mm, p, q, 0), *ex = find_fault(r, mm, p, q, 1);
        if (!pg || !ex || !(pg->gbps > 0))
            continue;
        char g[32];
        double pred = (ex->gbps / pg->gbps - 1.0) * 100.0;
        fprintf(out, "| %s (`--preempt %s` rows) | %s | %+.1f%% | %+.1f |\n", pf->label,
                pf->preempt, gain(ex->gbps, pg->gbps, g, sizeof g), pf->change_pct,
                pred - pf->change_pct);
    }
    fputs(
        "\nSources: [AR25b] A. Arora, LKML, Oct-Dec 2025, \"x86/clear_pages: Support clearing "
        "of\npage-extents\" (v5 cover letter): `perf bench mem map -p PG -f demand -s 64GB -l 5`, "
        "one\nthread, boost off. [AR22] A. Arora, LKML, 2022-06-06, \"[PATCH v3 00/21] huge page "
        "clearing\noptimizations\": one thread, a 4 GB buffer on 4 KiB pages, boost off.\n\n",
        out);
}

int predmd_write(const predmd_t *r, FILE *out, uint64_t fingerprint, char *err, size_t errlen)
{
    write_header(r, out, fingerprint);
    write_summary(r, out);
    for (size_t i = 0; i < r->n_machines; i++) {
        const md_machine_t *mm = &r->machines[i];
        fprintf(out, "## %s\n\n", mm->name);
        if (mm->m->description[0])
            fprintf(out, "%s.\n\n", mm->m->description);
        fprintf(out, "ISA `%s`; features: ", mm->m->isa == CFG_ISA_ARM64 ? "arm64" : "x86_64");
        write_features(out, mm->m);
        fprintf(out,
                ".\nClear function: `%s`, what `clearsim run` uses without `-f` (as Linux's\n"
                "`clear_page` does on this machine).\n\n",
                mm->function);
        write_faults(r, mm, out);
        write_kernels(r, mm, out);
        write_memset(r, mm, out);
        if (strcmp(mm->name, PUB_MACHINE) == 0)
            write_published(r, mm, out);
    }
    if (fflush(out) != 0 || ferror(out))
        return errbuf_set(err, errlen, "write error");
    return 0;
}
