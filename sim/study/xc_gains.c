/*
 * xc_gains.c - the folio-clearing gains, natively and in the model at the
 * host's measured state (see xc_gains.h).
 */
#include "sim/study/xc_gains.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_statistics_double.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/run.h"
#include "sim/host/native_run.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/output/outfile.h"
#include "sim/output/pool.h"
#include "sim/study/crosscheck.h"
#include "sim/study/host_miss.h"
#include "sim/study/link_shares.h"

#define FOLIO_BYTES  (2ull << 20)
#define XCG_OWN_SETS (6 + HOSTMISS_SETS) /* the most --set a pass adds: memory, host */

bool xcg_role_is_probe(xcg_role_t r)
{
    return r == XCG_PROBE_READ || r == XCG_PROBE_WRITE || r == XCG_PROBE_ZERO ||
           r == XCG_PROBE_WRITE_AHEAD || r == XCG_PROBE_ZERO_AHEAD || r == XCG_PROBE_LATENCY ||
           r == XCG_PROBE_FILL || r == XCG_PROBE_FILL_ZERO;
}

static const xcg_case_t *role_case(const xcg_study_t *st, xcg_role_t role)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->cs[i].role == role)
            return &st->cs[i];
    return NULL;
}

/* A kernel both the host and the machine run. */
static bool both_run(const char *fn, const machine_t *m, const host_info_t *h)
{
    char why[256];
    const kern_info_t *k = kern_find(fn);
    return k && kern_native_supported(k, h->isa, h->features, host_name(h), why, sizeof why) &&
           wl_function_of(WL_MEMSET, fn, m);
}

static void add(xcg_study_t *st, xcg_role_t role, const char *id, wl_kind_t kind, const char *fn,
                wl_caller_t caller, uint64_t size, uint32_t fill)
{
    if (st->n >= st->cap) {
        st->full = true; /* xcg_build says so: no case is dropped silently */
        return;
    }
    xcg_case_t *c = &st->cs[st->n++];
    memset(c, 0, sizeof *c);
    c->role = role;
    snprintf(c->id, sizeof c->id, "%s", id);
    wl_spec_t *s = &c->spec;
    wl_spec_init(s);
    s->kind = kind;
    snprintf(s->function, sizeof s->function, "%s", fn);
    s->caller = caller;
    s->page_bytes = FOLIO_BYTES;
    s->size_bytes = size;
    s->fill = fill;
    s->preempt = CALLER_PREEMPT_LAZY;
    char sz[32];
    unit_format_size(size, sz, sizeof sz);
    if (kind == WL_MEMSET) {
        snprintf(c->args, sizeof c->args, "--workload memset --caller %s%s --page 2MB -s %s -f %s",
                 wl_caller_name(caller), caller == WL_CALLER_EXTENT ? " --preempt lazy" : "", sz,
                 fn);
        if (fill)
            snprintf(c->args + strlen(c->args), sizeof c->args - strlen(c->args), " --fill %u",
                     fill);
    } else
        snprintf(c->args, sizeof c->args, "--workload %s --page 2MB -s %s -f %s --fill %u",
                 wl_kind_name(kind), sz, fn, fill);
}

size_t xcg_build(xcg_study_t *st, const machine_t *m, const host_info_t *h, uint64_t size_bytes,
                 char *why, size_t whylen)
{
    return xcg_build_cap(st, m, h, size_bytes, XCG_CASES_MAX, why, whylen);
}

size_t xcg_build_cap(xcg_study_t *st, const machine_t *m, const host_info_t *h, uint64_t size_bytes,
                     size_t cap, char *why, size_t whylen)
{
    memset(st, 0, sizeof *st);
    if (cap < 1 || cap > XCG_CASES_MAX) {
        errbuf_set(why, whylen, "the study holds 1..%d cases, not %zu", XCG_CASES_MAX, cap);
        return 0;
    }
    st->cap = cap;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(st->started_utc, sizeof st->started_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (size_bytes == 0)
        size_bytes = XCG_DEFAULT_BYTES;
    if (m->n_set + XCG_OWN_SETS > MACHINE_SET_MAX) {
        errbuf_set(why, whylen,
                   "--gains takes at most %d --set: each pass adds %d of its own (the host's "
                   "state)",
                   MACHINE_SET_MAX - XCG_OWN_SETS, XCG_OWN_SETS);
        return 0;
    }
    if (size_bytes % FOLIO_BYTES) {
        errbuf_set(why, whylen, "the gains' size must be a multiple of 2 MiB");
        return 0;
    }
    if (strcmp(h->thp_mode, "always") && strcmp(h->thp_mode, "madvise") &&
        host_hugepages_free(h, FOLIO_BYTES) == 0) {
        errbuf_set(why, whylen,
                   "the folio gains need 2 MiB pages: THP is '%s' and no hugetlb pages are "
                   "reserved",
                   h->thp_mode[0] ? h->thp_mode : "unknown");
        return 0;
    }
    /* the probes: the widest load and non-temporal store the host has */
    static const char *const loads[] = {"load64", "load32", "load8", "load_q32", "load_x16"};
    static const char *const nts[] = {"avx512_nt", "avx2_nt", "movnti", "stnp"};
    char w[256];
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        const kern_bench_t *b = kern_bench_find(loads[i]);
        if (b && kern_bench_native_supported(b, h->isa, h->features, host_name(h), w, sizeof w)) {
            add(st, XCG_PROBE_READ, "probe-read", WL_LOAD, loads[i], WL_CALLER_REPEAT, size_bytes,
                0);
            add(st, XCG_PROBE_LATENCY, "probe-latency-ns", WL_LATENCY, "chase", WL_CALLER_REPEAT,
                size_bytes < XCG_LATENCY_BYTES ? size_bytes : XCG_LATENCY_BYTES, 0);
            break;
        }
    }
    for (size_t i = 0; i < sizeof nts / sizeof nts[0]; i++)
        if (both_run(nts[i], m, h)) {
            add(st, XCG_PROBE_WRITE, "probe-write", WL_NTSTORE, nts[i], WL_CALLER_REPEAT,
                size_bytes, 0x5a);
            add(st, XCG_PROBE_ZERO, "probe-zero", WL_NTSTORE, nts[i], WL_CALLER_REPEAT, size_bytes,
                0);
            char twin[40];
            snprintf(twin, sizeof twin, "%s_ahead", nts[i]);
            if (both_run(twin, m, h)) {
                add(st, XCG_PROBE_WRITE_AHEAD, "probe-write-ahead", WL_NTSTORE, twin,
                    WL_CALLER_REPEAT, size_bytes, 0x5a);
                add(st, XCG_PROBE_ZERO_AHEAD, "probe-zero-ahead", WL_NTSTORE, twin,
                    WL_CALLER_REPEAT, size_bytes, 0);
            }
            break;
        }
    /* the fill: the widest temporal store, data, one call per folio */
    static const char *const fills[] = {"avx512", "avx2", "unrolled", "stp"};
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++)
        if (both_run(fills[i], m, h)) {
            add(st, XCG_PROBE_FILL, "probe-fill", WL_MEMSET, fills[i], WL_CALLER_EXTENT, size_bytes,
                0x5a);
            add(st, XCG_PROBE_FILL_ZERO, "probe-fill-zero", WL_MEMSET, fills[i], WL_CALLER_EXTENT,
                size_bytes, 0);
            break;
        }
    if (!role_case(st, XCG_PROBE_READ) || !role_case(st, XCG_PROBE_WRITE)) {
        errbuf_set(why, whylen, "no load or non-temporal store kernel for the probes runs here");
        st->n = 0;
        return 0;
    }
    /* the base: the kernel's clear_page (ERMS, REP_GOOD, the fallback; arm64
     * DC ZVA, else STNP), page-at-a-time */
    static const char *const bases[] = {"rep_stosb", "rep_stosq", "unrolled", "dc_zva", "stnp"};
    const char *base = NULL;
    for (size_t i = 0; i < sizeof bases / sizeof bases[0] && !base; i++) {
        if (strcmp(bases[i], "rep_stosb") == 0 && !(h->features & MACHINE_FEAT_ERMS))
            continue;
        if (strcmp(bases[i], "rep_stosq") == 0 && !(h->features & MACHINE_FEAT_REP_GOOD))
            continue;
        if (both_run(bases[i], m, h))
            base = bases[i];
    }
    if (!base) {
        errbuf_set(why, whylen, "no clear_page kernel runs both here and on machine '%s'", m->name);
        st->n = 0;
        return 0;
    }
    char id[48];
    snprintf(id, sizeof id, "page-%s", base);
    add(st, XCG_BASE, id, WL_MEMSET, base, WL_CALLER_PAGE, size_bytes, 0);
    /* page-at-a-time for a fault at the folio's last subpage: process_huge_page
     * then clears subpages 0..N-3 ascending (the base, at subpage 0, goes
     * N-1 down to 2): what the direction across 4 KiB boundaries costs */
    snprintf(id, sizeof id, "page-%s-up", base);
    add(st, XCG_WAY, id, WL_MEMSET, base, WL_CALLER_PAGE, size_bytes, 0);
    st->cs[st->n - 1].spec.fault_subpage = FOLIO_BYTES / CALLER_SUBPAGE_BYTES - 1;
    snprintf(st->cs[st->n - 1].args + strlen(st->cs[st->n - 1].args),
             sizeof st->cs[st->n - 1].args - strlen(st->cs[st->n - 1].args),
             " --fault-subpage %llu", (unsigned long long)(FOLIO_BYTES / CALLER_SUBPAGE_BYTES - 1));
    /* the ways: one call per folio with the base's kernel and each
     * non-temporal or line-zeroing kernel; of the vector non-temporal
     * stores only the widest (avx2_nt where avx512_nt does not run) */
    static const char *const ways[] = {"clzero", "movnti", "avx512_nt", "avx2_nt",
                                       "dc_zva", "stnp",   "mops_nt"};
    snprintf(id, sizeof id, "extent-%s", base);
    add(st, XCG_WAY, id, WL_MEMSET, base, WL_CALLER_EXTENT, size_bytes, 0);
    bool vector_nt = false;
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        const kern_info_t *wk = kern_find(ways[i]); /* a vector NT store: 32 B or more */
        bool vec = wk && wk->cls == KERN_CLASS_NT && wk->width_bytes >= 32;
        if (vec && vector_nt)
            continue;
        if (strcmp(ways[i], base) && both_run(ways[i], m, h)) {
            vector_nt |= vec;
            snprintf(id, sizeof id, "extent-%s", ways[i]);
            add(st, XCG_WAY, id, WL_MEMSET, ways[i], WL_CALLER_EXTENT, size_bytes, 0);
        }
    }
    if (st->full) {
        errbuf_set(why, whylen, "more cases than the study holds (%zu)", st->cap);
        st->n = 0;
        return 0;
    }
    return st->n;
}

int xcg_measure_pass(xcg_study_t *st, uint32_t pass, uint32_t repeat, long cpu,
                     const xcg_case_t **failed)
{
    static native_result_t nr; /* large */
    *failed = NULL;
    if (pass >= XCG_PASSES_MAX)
        return -1;
    double ghz_sum = 0;
    uint32_t ghz_n = 0;
    for (size_t k = 0; k < st->n; k++) {
        xcg_case_t *c = &st->cs[(k + pass) % st->n]; /* rotated by one each pass */
        native_opts_t no;
        native_opts_init(&no);
        no.repeat = repeat;
        no.cpu = (int32_t)cpu;
        no.counters = false;
        int rc = native_run(&c->spec, &no, &nr, c->why, sizeof c->why);
        if (rc) {
            *failed = c;
            return rc;
        }
        double sum = 0;
        uint32_t runs = 0;
        for (uint32_t r = 0; r < repeat; r++)
            if (nr.run_seconds[r] > 0) {
                sum += (double)nr.run.bytes / nr.run_seconds[r];
                runs++;
            }
        c->native_gib[pass] = runs ? sum / runs / GIB : NAN;
        if (c->role == XCG_PROBE_LATENCY)
            c->native_gib[pass] = nr.run.ns_per_load > 0 ? nr.run.ns_per_load : NAN;
        double before = nr.clock_ghz_before, after = nr.clock_ghz_after;
        c->clock_ghz[pass] = before > 0 && after > 0 ? (before + after) / 2 : 0;
        if (c->clock_ghz[pass] > 0) {
            ghz_sum += c->clock_ghz[pass];
            ghz_n++;
        }
    }
    st->pass_ghz[pass] = ghz_n ? ghz_sum / ghz_n : 0;
    st->passes = pass + 1 > st->passes ? pass + 1 : st->passes;
    return 0;
}

/* ---------------------------------------------------------- predictions */

typedef struct xcg_pool {
    xcg_study_t *st;
    const machine_t *m;
    bool at_file_clock;
} xcg_pool_t;

/* A probe's rate in a pass, 0 when the study has no such probe. */
static double probe_gib(const xcg_study_t *st, xcg_role_t role, size_t pass)
{
    const xcg_case_t *c = role_case(st, role);
    return c ? c->native_gib[pass] : 0;
}

/* Task i: pass i / n (n = the file's own figures), case i % n. */
static void xcg_task(void *ctx, size_t i)
{
    xcg_pool_t *p = ctx;
    xcg_study_t *st = p->st;
    const size_t pass = i / st->n;
    xcg_case_t *c = &st->cs[i % st->n];
    static __thread run_result_t res; /* large: one per thread */
    if (xcg_role_is_probe(c->role))
        return;
    const bool own = pass == st->passes;
    const char *set[MACHINE_SET_MAX];
    char mine[XCG_OWN_SETS][MACHINE_SET_ARG_MAX];
    size_t n = 0, k = 0;
    for (uint32_t j = 0; j < p->m->n_set && n + XCG_OWN_SETS < MACHINE_SET_MAX; j++)
        set[n++] = p->m->set[j];
    double ghz = 0;
    if (!own) {
        double w = probe_gib(st, XCG_PROBE_WRITE, pass), r = probe_gib(st, XCG_PROBE_READ, pass);
        double z = probe_gib(st, XCG_PROBE_ZERO, pass);
        double wa = probe_gib(st, XCG_PROBE_WRITE_AHEAD, pass);
        double za = probe_gib(st, XCG_PROBE_ZERO_AHEAD, pass);
        if (wa > 0 && za > 0) { /* the links without the host's miss */
            w = wa;
            z = za;
        }
        double bus = lshare_bus_gib(r, w, probe_gib(st, XCG_PROBE_FILL, pass));
        snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.read_bandwidth=%.4fGB/s", r);
        double lat = probe_gib(st, XCG_PROBE_LATENCY, pass);
        if (lat > 0)
            snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.latency=%.2fns", lat);
        snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.write_bandwidth=%.4fGB/s", w);
        const double zero_share = lshare_zero_data(w, z);
        snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.zero_data_fraction=%.4f", zero_share);
        /* a written-back line of zeros: the fills' share (fill_bus.sh) */
        snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.zero_writeback_fraction=%.4f",
                 lshare_zero_writeback(probe_gib(st, XCG_PROBE_FILL, pass),
                                       probe_gib(st, XCG_PROBE_FILL_ZERO, pass), zero_share));
        if (bus > 0)
            snprintf(mine[k++], MACHINE_SET_ARG_MAX, "memory.combined_bandwidth=%.4fGB/s", bus);
        k += hostmiss_sets(p->m, st->host_miss_ns[pass], mine + k);
        ghz = p->at_file_clock ? 0 : st->pass_ghz[pass];
    }
    for (size_t j = 0; j < k; j++)
        set[n++] = mine[j];
    char why[512] = "";
    machine_t *mc = cfg_machine_load_set(p->m->path, ghz, set, n, why, sizeof why);
    double *out = own ? &c->model_file_gib : &c->model_gib[pass];
    *out = NAN;
    if (!mc) {
        snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, why);
        return;
    }
    if (run_predict(mc, &c->spec, NULL, &res, why, sizeof why) == 0)
        *out = res.bytes_per_sec / GIB;
    else
        snprintf(c->why, sizeof c->why, "%.*s", (int)sizeof c->why - 1, why);
    cfg_machine_destroy(mc);
}

int xcg_predict(xcg_study_t *st, const machine_t *m, bool at_file_clock, unsigned threads,
                progress_t *pg, char *err, size_t errlen)
{
    xcg_pool_t p = {.st = st, .m = m, .at_file_clock = at_file_clock};
    const xcg_case_t *z = role_case(st, XCG_PROBE_ZERO);
    st->issue_cycles_page = 0;
    if (z && role_case(st, XCG_PROBE_ZERO_AHEAD) &&
        hostmiss_issue_cycles(m->path, &z->spec, &st->issue_cycles_page, err, errlen))
        return -1;
    for (uint32_t k = 0; k < st->passes; k++) {
        double ghz = !at_file_clock && st->pass_ghz[k] > 0 ? st->pass_ghz[k] : m->freq_ghz;
        st->host_miss_ns[k] =
            hostmiss_denied(probe_gib(st, XCG_PROBE_WRITE, k),
                            probe_gib(st, XCG_PROBE_WRITE_AHEAD, k))
                ? 0
                : hostmiss_ns(probe_gib(st, XCG_PROBE_ZERO, k),
                              probe_gib(st, XCG_PROBE_ZERO_AHEAD, k), st->issue_cycles_page / ghz);
    }
    size_t tasks = (st->passes + 1) * st->n;
    if (pool_run(tasks, threads, xcg_task, &p, pg, 0, err, errlen))
        return -1;
    for (size_t i = 0; i < st->n; i++) {
        const xcg_case_t *c = &st->cs[i];
        if (xcg_role_is_probe(c->role))
            continue;
        bool bad = isnan(c->model_file_gib);
        for (uint32_t k = 0; k < st->passes; k++)
            bad |= isnan(c->model_gib[k]);
        if (bad)
            return errbuf_set(err, errlen, "%s: model: %s", c->id, c->why);
    }
    return 0;
}

size_t xcg_gains(const xcg_study_t *st, xcg_gain_t *out, size_t max)
{
    const xcg_case_t *base = role_case(st, XCG_BASE);
    const xcg_case_t *zero = role_case(st, XCG_PROBE_ZERO);
    size_t n = 0;
    if (!base || st->passes == 0)
        return 0;
    for (size_t i = 0; i < st->n && n < max; i++) {
        const xcg_case_t *c = &st->cs[i];
        if (c->role != XCG_WAY)
            continue;
        double nat[XCG_PASSES_MAX], mod[XCG_PASSES_MAX];
        for (uint32_t k = 0; k < st->passes; k++) {
            nat[k] = c->native_gib[k] / base->native_gib[k];
            mod[k] = c->model_gib[k] / base->model_gib[k];
        }
        xcg_gain_t *g = &out[n++];
        g->way = c;
        gsl_stats_minmax(&g->native_lo, &g->native_hi, nat, 1, st->passes);
        gsl_stats_minmax(&g->model_lo, &g->model_hi, mod, 1, st->passes);
        g->native_mean = gsl_stats_mean(nat, 1, st->passes);
        g->model_mean = gsl_stats_mean(mod, 1, st->passes);
        g->model_file = c->model_file_gib / base->model_file_gib;
        g->within = g->model_mean >= g->native_lo / (1 + XCG_TOLERANCE) &&
                    g->model_mean <= g->native_hi * (1 + XCG_TOLERANCE);
        g->probe_set = zero && c->spec.fill == zero->spec.fill &&
                       strcmp(c->spec.function, zero->spec.function) == 0;
    }
    return n;
}

int xcg_write_csv(const char *path, const xcg_study_t *st, const char *machine, char *err,
                  size_t errlen)
{
    outfile_t *of = outfile_open(path, err, errlen);
    if (!of)
        return -1;
    FILE *f = outfile_fp(of);
    fprintf(f, "pass,case,role,machine,args,native_gib_per_s,model_gib_per_s,clock_ghz,"
               "probe_read_gib_per_s,probe_write_gib_per_s,probe_zero_gib_per_s,"
               "model_zero_data_fraction,model_combined_gib_per_s,probe_write_ahead_gib_per_s,"
               "probe_zero_ahead_gib_per_s,model_host_miss_ns,probe_latency_ns,"
               "probe_fill_gib_per_s,model_file_gib_per_s,started_utc,probe_fill_zero_gib_per_s,"
               "model_zero_writeback_fraction\n");
    static const char *const roles[] = {
        "probe-read",    "probe-write", "probe-zero", "probe-write-ahead", "probe-zero-ahead",
        "probe-latency", "base",        "way",        "probe-fill",        "probe-fill-zero"};
    for (uint32_t k = 0; k < st->passes; k++)
        for (size_t i = 0; i < st->n; i++) {
            const xcg_case_t *c = &st->cs[i];
            bool probe = xcg_role_is_probe(c->role);
            double r = probe_gib(st, XCG_PROBE_READ, k), w = probe_gib(st, XCG_PROBE_WRITE, k);
            double z = probe_gib(st, XCG_PROBE_ZERO, k);
            double wa = probe_gib(st, XCG_PROBE_WRITE_AHEAD, k);
            double za = probe_gib(st, XCG_PROBE_ZERO_AHEAD, k);
            double lw = wa > 0 && za > 0 ? wa : w, lz = wa > 0 && za > 0 ? za : z;
            double fill = probe_gib(st, XCG_PROBE_FILL, k);
            fprintf(f, "%u,%s,%s,%s,\"%s\",%.4f,", k, c->id, roles[c->role], machine, c->args,
                    c->native_gib[k]);
            if (probe)
                fputs(",", f);
            else
                fprintf(f, "%.4f,", c->model_gib[k]);
            fprintf(f, "%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,", c->clock_ghz[k], r, w, z,
                    lshare_zero_data(lw, lz), lshare_bus_gib(r, lw, fill));
            if (wa > 0 && za > 0)
                fprintf(f, "%.4f,%.4f,%.2f,", wa, za, st->host_miss_ns[k]);
            else
                fputs(",,,", f);
            double lat = probe_gib(st, XCG_PROBE_LATENCY, k);
            if (lat > 0)
                fprintf(f, "%.2f,", lat);
            else
                fputs(",", f);
            if (fill > 0)
                fprintf(f, "%.4f,", fill);
            else
                fputs(",", f);
            if (!probe)
                fprintf(f, "%.4f", c->model_file_gib);
            fprintf(f, ",%s,", st->started_utc);
            double fz = probe_gib(st, XCG_PROBE_FILL_ZERO, k);
            if (fz > 0)
                fprintf(f, "%.4f", fz);
            fprintf(f, ",%.4f\n", lshare_zero_writeback(fill, fz, lshare_zero_data(lw, lz)));
        }
    return outfile_commit(of, err, errlen);
}
