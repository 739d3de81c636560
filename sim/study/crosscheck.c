/*
 * crosscheck.c - the default sweep, its native measurements and its
 * predictions (see crosscheck.h).
 */
#include "sim/study/crosscheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/output/outfile.h"
#include "sim/output/pool.h"

static void add_case(xc_case_t *cs, size_t *n, const char *id, const wl_spec_t *s)
{
    if (*n >= XC_CASES_MAX)
        return;
    xc_case_t *c = &cs[(*n)++];
    memset(c, 0, sizeof(*c));
    snprintf(c->id, sizeof(c->id), "%s", id);
    c->spec = *s;
    char sz[32], ch[32], pg[32];
    unit_format_size(s->size_bytes, sz, sizeof(sz));
    unit_format_size(s->chunk_bytes ? s->chunk_bytes : s->size_bytes, ch, sizeof(ch));
    unit_format_size(s->page_bytes, pg, sizeof(pg));
    if (s->kind == WL_MMAP)
        snprintf(c->args, sizeof(c->args), "--workload mmap -p %s -s %s -l %u -f %s --caller %s",
                 pg, sz, s->loops, s->function, wl_caller_name(s->caller));
    else if (s->caller == WL_CALLER_REPEAT)
        snprintf(c->args, sizeof(c->args), "-s %s -l %u -f %s --caller repeat --fill %u", sz,
                 s->loops, s->function, s->fill);
    else
        snprintf(c->args, sizeof(c->args), "-s %s -k %s -l %u -f %s --fill %u", sz, ch, s->loops,
                 s->function, s->fill);
}

/* Can native_run map pages of this size here? 2 MiB: THP or reserved
 * hugetlb pages; 1 GiB: two reserved pages at least. */
static bool page_available(const host_info_t *h, uint64_t page)
{
    if (page == 4096)
        return true;
    if (page == (2ull << 20))
        return strcmp(h->thp_mode, "always") == 0 || strcmp(h->thp_mode, "madvise") == 0 ||
               host_hugepages_free(h, page) > 0;
    return host_hugepages_free(h, page) >= 2;
}

/* The default sweep for this host. */
size_t xc_build_sweep(const machine_t *m, const host_info_t *h, bool quick, xc_case_t *cs)
{
    size_t n = 0;
    uint64_t l3 = m->l3.present ? m->l3.size_bytes : m->l2.size_bytes;
    /* chunks 4 KiB .. 1 GiB in steps of 8 (--quick: 4 KiB .. 256 MiB in steps of 256) */
    uint64_t buf = quick ? (256ull << 20) : (1ull << 30);
    while (buf < l3 + l3 / 2)
        buf <<= 1;
    const kern_info_t *tab = kern_table();
    for (const kern_info_t *k = tab; k->name; k++) {
        char why[128];
        if (!k->native ||
            !kern_native_supported(k, h->isa, h->features, host_name(h), why, sizeof(why)) ||
            kern_check_machine(k, m, why, sizeof(why)))
            continue;
        for (uint64_t ch = 4096; ch <= buf; ch <<= (quick ? 8 : 3)) {
            wl_spec_t s;
            wl_spec_init(&s);
            snprintf(s.function, sizeof(s.function), "%s", k->name);
            s.size_bytes = buf;
            s.chunk_bytes = ch;
            s.loops = 1;
            char id[64], c[32];
            unit_format_size(ch, c, sizeof(c));
            snprintf(id, sizeof(id), "%s-k%s", k->name, c);
            add_case(cs, &n, id, &s);
        }
    }
    const char *rep = point_default_function(m);
    for (uint64_t sz = 16 << 10; sz <= (256ull << 20); sz <<= (quick ? 8 : 2)) {
        for (int f = 0; f < 2; f++) {
            wl_spec_t s;
            wl_spec_init(&s);
            snprintf(s.function, sizeof(s.function), "%s", rep);
            s.size_bytes = sz;
            s.caller = WL_CALLER_REPEAT;
            s.fill = f ? 0x5a : 0;
            uint64_t loops = (256ull << 20) / sz;
            s.loops = (uint32_t)(loops < 4 ? 4 : loops > 4096 ? 4096 : loops);
            char id[64], c[32];
            unit_format_size(sz, c, sizeof(c));
            snprintf(id, sizeof(id), "repeat-%s-fill%02x", c, s.fill);
            add_case(cs, &n, id, &s);
        }
    }
    /* every other kernel cleared again while its lines may still be cached:
     * non-temporal stores and line zeroing over cached lines behave unlike
     * a cold buffer; memset goes through the host's C library */
    for (const kern_info_t *k = tab; k->name && !quick; k++) {
        char why[128];
        if (!strcmp(k->name, rep) || !k->native ||
            !kern_native_supported(k, h->isa, h->features, host_name(h), why, sizeof(why)) ||
            kern_check_machine(k, m, why, sizeof(why)))
            continue;
        for (uint64_t sz = 16 << 10; sz <= (64ull << 20); sz <<= 6) {
            wl_spec_t s;
            wl_spec_init(&s);
            snprintf(s.function, sizeof(s.function), "%s", k->name);
            s.size_bytes = sz;
            s.caller = WL_CALLER_REPEAT;
            uint64_t loops = (256ull << 20) / sz;
            s.loops = (uint32_t)(loops < 4 ? 4 : loops > 4096 ? 4096 : loops);
            char id[64], c[32];
            unit_format_size(sz, c, sizeof(c));
            snprintf(id, sizeof(id), "%s-repeat-%s", k->name, c);
            add_case(cs, &n, id, &s);
        }
    }
    uint64_t pages[3] = {4096, 2ull << 20, 1ull << 30};
    for (int i = 0; i < 3; i++) {
        if (!page_available(h, pages[i]))
            continue;
        wl_spec_t s;
        wl_spec_init(&s);
        s.kind = WL_MMAP;
        snprintf(s.function, sizeof(s.function), "%s", rep);
        s.page_bytes = pages[i];
        s.size_bytes = i == 2 ? (2ull << 30) : (256ull << 20);
        s.caller = WL_CALLER_PAGE;
        s.loops = 1;
        char id[64], c[32];
        unit_format_size(pages[i], c, sizeof(c));
        snprintf(id, sizeof(id), "fault-%s", c);
        add_case(cs, &n, id, &s);
    }
    return n;
}

/* The model side: every case measured natively, predicted in parallel (the
 * thread pool). A task writes only its own case. */
typedef struct xc_pool {
    const machine_t *m;
    const char *path;  /* m's file, reloaded at a case's clock */
    bool at_own_clock; /* predict each case at its measured clock */
    xc_case_t *cs;
} xc_pool_t;

static void xc_task(void *ctx, size_t i)
{
    xc_pool_t *p = ctx;
    xc_case_t *c = &p->cs[i];
    static __thread run_result_t res; /* large: one per thread, not on the stack */
    if (c->skipped)
        return;
    const machine_t *m = p->m;
    machine_t *mc = NULL;
    if (p->at_own_clock && c->clock_ghz > 0) {
        char ce[512] = "";
        if (!(mc = cfg_machine_reload(p->m, c->clock_ghz, ce, sizeof ce))) {
            snprintf(c->why, sizeof(c->why), "%.*s", (int)sizeof(c->why) - 1, ce);
            c->model_failed = true;
            return;
        }
        m = mc;
    }
    c->predicted_at_ghz = m->freq_ghz;
    if (run_predict(m, &c->spec, NULL, &res, c->why, sizeof(c->why)))
        c->model_failed = true;
    else
        c->predicted = res.bytes_per_sec / GIB;
    cfg_machine_destroy(mc);
}

/* One batch of `repeat` timed runs of case c, pooled with its earlier
 * batches. *ghz holds the clock measured before the batch; the one measured
 * after it replaces it, and their mean is the batch's clock. Returns
 * native_run's code (c->why says why). */
void xc_host_state_measure(xc_host_state_t *hs)
{
    hs->ghz = host_measure_core_ghz(CLOCK_TRIALS);
    hs->adds_per_cycle = host_measure_adds_per_cycle(SHARE_TRIALS);
}

int xc_measure_case(xc_case_t *c, uint32_t repeat, long cpu, xc_host_state_t *hs,
                    native_result_t *nr)
{
    native_opts_t no;
    native_opts_init(&no);
    no.repeat = repeat;
    no.cpu = (int32_t)cpu;
    no.counters = false;
    no.clock = false; /* measured around the case by the caller */
    int rc = native_run(&c->spec, &no, nr, c->why, sizeof(c->why));
    if (rc)
        return rc;
    for (uint32_t r = 0; r < repeat && c->runs < XC_RUNS_MAX; r++)
        if (nr->run_seconds[r] > 0)
            c->rate[c->runs++] = (double)nr->run.bytes / nr->run_seconds[r];
    native_stat_t st = native_stats(c->rate, c->runs);
    c->measured = st.mean / GIB;
    c->ci95 = st.ci95 / GIB;
    xc_host_state_t after;
    xc_host_state_measure(&after);
    if (hs->ghz > 0 && after.ghz > 0) {
        c->clock_weighted += (hs->ghz + after.ghz) / 2 * repeat;
        c->clock_runs += repeat;
        c->clock_ghz = c->clock_weighted / c->clock_runs;
    }
    if (hs->adds_per_cycle > 0 && after.adds_per_cycle > 0) {
        c->adds_weighted += (hs->adds_per_cycle + after.adds_per_cycle) / 2 * repeat;
        c->adds_runs += repeat;
        c->adds_per_cycle = c->adds_weighted / c->adds_runs;
    }
    *hs = after;
    return 0;
}

double xc_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The second pass: batches for the case whose interval is widest relative
 * to its mean, while one is wider than r->ci_frac and the budget lasts. A
 * case of one run has no interval and is left alone. Returns 0 or
 * native_run's code for case r->failed. */
int xc_remeasure(xc_case_t *cs, size_t n, xc_remeasure_t *r)
{
    r->batches = r->cases = 0;
    r->failed = NULL;
    double budget_s = r->budget_s;
    if (!(r->ci_frac > 0) || !(budget_s > 0))
        return 0;
    double t0 = xc_now_seconds();
    if (r->deadline - t0 < budget_s)
        budget_s = r->deadline - t0;
    if (!(budget_s > 0))
        return 0;
    progress_t *pg = progress_create("crosscheck re-measure", (uint64_t)(budget_s * 10), !r->quiet);
    int rc = 0;
    for (;;) {
        xc_case_t *worst = NULL;
        double wr = r->ci_frac;
        for (size_t i = 0; i < n; i++) {
            xc_case_t *c = &cs[i];
            double w = c->ci95 / c->measured;
            if (!c->skipped && c->runs + r->repeat <= XC_RUNS_POOL && isfinite(w) && w > wr) {
                worst = c;
                wr = w;
            }
        }
        double spent = xc_now_seconds() - t0;
        if (!worst || spent >= budget_s)
            break;
        progress_update(pg, (uint64_t)(spent * 10));
        r->cases += worst->runs == r->repeat; /* its first extra batch */
        rc = xc_measure_case(worst, r->repeat, r->cpu, r->hs, r->nr);
        if (rc) {
            r->failed = worst;
            break;
        }
        r->batches++;
    }
    progress_destroy(pg);
    return rc;
}

/* The range and mean of the cases' measured clocks; 0 when none was measured. */
double xc_clock_range(const xc_case_t *cs, size_t n, double *lo, double *hi)
{
    double sum = 0;
    size_t k = 0;
    *lo = INFINITY;
    *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (cs[i].skipped || !(cs[i].clock_ghz > 0))
            continue;
        sum += cs[i].clock_ghz;
        k++;
        *lo = fmin(*lo, cs[i].clock_ghz);
        *hi = fmax(*hi, cs[i].clock_ghz);
    }
    if (k == 0)
        *lo = 0;
    return k ? sum / (double)k : 0;
}

int xc_write_csv(const char *path, const xc_case_t *cs, size_t n, const char *machine,
                 const char *set, char *err, size_t errlen)
{
    outfile_t *of = outfile_open(path, err, errlen);
    if (!of)
        return -1;
    FILE *f = outfile_fp(of);
    fprintf(f, "case,machine,workload,function,caller,page_bytes,size_bytes,chunk_bytes,loops,"
               "fill,measured_bytes_per_sec,measured_ci95_bytes_per_sec,predicted_bytes_per_sec,"
               "error_pct,predicted_at_ghz,runs,set,host_adds_per_cycle\n");
    for (size_t i = 0; i < n; i++) {
        const xc_case_t *c = &cs[i];
        if (c->skipped)
            continue;
        const wl_spec_t *s = &c->spec;
        fprintf(f, "%s,%s,%s,%s,%s,%llu,%llu,%llu,%u,%u,%.0f,%.0f,%.0f,%.3f,%.3f,%u,%s,%.2f\n",
                c->id, machine, wl_kind_name(s->kind), s->function, wl_caller_name(s->caller),
                (unsigned long long)s->page_bytes, (unsigned long long)s->size_bytes,
                (unsigned long long)(s->chunk_bytes ? s->chunk_bytes : s->size_bytes), s->loops,
                s->fill, c->measured * GIB, c->ci95 * GIB, c->predicted * GIB,
                100 * (c->predicted - c->measured) / c->measured, c->predicted_at_ghz, c->runs,
                set ? set : "", c->adds_per_cycle);
    }
    return outfile_commit(of, err, errlen);
}

int xc_write_data(const char *path, const xc_case_t *cs, size_t n, const char *machine,
                  const native_result_t *last, char *err, size_t errlen)
{
    outfile_t *of = outfile_open(path, err, errlen);
    if (!of)
        return -1;
    FILE *f = outfile_fp(of);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    fprintf(f, "# Native measurements by `clearsim crosscheck --emit-data` on %s.\n", date);
    fprintf(f, "# Host: %s; kernel %s %s.\n", last->host_model, last->kernel_release,
            last->kernel_version);
    fprintf(f, "# Each value is the mean GB/sec (2^30 B/s) of the timed runs; every third\n"
               "# case is kept for validation. Add a fit: section to calibrate with it.\n");
    fprintf(f, "machine: %s\n", machine);
    double lo, hi, mean = xc_clock_range(cs, n, &lo, &hi);
    if (mean > 0)
        fprintf(f,
                "clock: %.2fGHz  # the host's core clock (dependent adds) around the native runs, "
                "%.2f..%.2f GHz; calibrate predicts each case at its own clock:\n",
                mean, lo, hi);
    fprintf(f, "\ncases:\n");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const xc_case_t *c = &cs[i];
        if (c->skipped)
            continue;
        fprintf(f, "  - id: %s\n    set: %s\n", c->id, k % 3 == 2 ? "validate" : "fit");
        char at[32] = "";
        if (c->clock_ghz > 0)
            snprintf(at, sizeof(at), ", core at %.2f GHz", c->clock_ghz);
        fprintf(f,
                "    source: \"native run on %s, %s%s, mean of %u runs +- %.3f GB/s (95%% CI)\"\n",
                date, last->host_model, at, c->runs, c->ci95);
        fprintf(f, "    args: %s\n    value: %.4f\n    tolerance: 0.30\n", c->args, c->measured);
        if (c->clock_ghz > 0)
            fprintf(f, "    clock: %.3fGHz\n", c->clock_ghz);
        k++;
    }
    return outfile_commit(of, err, errlen);
}

int xc_predict_all(xc_case_t *cs, size_t n, const machine_t *m, const char *path, bool at_own_clock,
                   unsigned threads, progress_t *pg, char *err, size_t errlen)
{
    xc_pool_t xp = {.m = m, .path = path, .at_own_clock = at_own_clock, .cs = cs};
    int rc = pool_run(n, threads, xc_task, &xp, pg, 0, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (cs[i].model_failed)
            rc = errbuf_set(err, errlen, "%s: model: %s", cs[i].id, cs[i].why);
    return rc;
}
