/*
 * measure.c - the microbenchmark suite of `detect --measure` and its native
 * runs (see measure.h).
 *
 * Notes
 *  - Sizes, from the caches: l1s = 3/4 L1 (a clear that stays in L1; not
 *    crosscheck's 16 KiB), L1/2 for loads and chases, l2s = 3/8 L2, the L3
 *    point of the latency sweep at most 0.6 of the capacity found (L2 + L3
 *    for a victim L3), DRAM: a power of two at least 8 x that capacity for
 *    the chase (at least 32 MiB) and 6 x for the streams.
 *  - Kernels are named in every figure (the host's widest and narrowest of
 *    each kind), so that the file says what ran.
 *  - A figure's value is the median of its timed runs; ci95_rel is the 95%
 *    interval of their mean, relative to the median.
 */
#include "sim/study/measure_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/progress.h"
#include "sim/host/native_run.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/study/microbench.h"

#define CLOCK_TRIALS  8
#define SHARE_TRIALS  4   /* host_measure_adds_per_cycle trials after a figure (~4 ms) */
#define SWEEP_STEP    1.5 /* the latency sweep's size ratio */
#define SWEEP_TOP     1.5 /* ... up to this times the nominal L3 */
#define MIN_DRAM      (32ull << 20)
#define CHASE_FACTOR  8u /* DRAM chase: at least this times the cache capacity */
#define STREAM_FACTOR 4u /* DRAM load and copy: at least this times it */
/* The write path's figures at the footprint of the clearing cases they serve
 * (crosscheck's chunked cases and its folio gains clear 1 GiB): on a guest
 * the same stores ran 1.5-3 times faster over 36 KiB-512 MiB than over
 * 1 GiB (docs/MODEL.md section 12), and the model has one write path. */
#define CASES_BYTES (1ull << 30)
/* a sweep point from 1/EDGE_BELOW to EDGE_ABOVE times the size where half
 * its loads miss is at the L3's edge, and is checked within EDGE_TOLERANCE:
 * there a tenant's burst moves the share that misses, the model's cache (one
 * size, replacement by recency) steps where the host's slopes, and past the
 * edge the host's DRAM latency still rises with the footprint (fewer DRAM
 * row hits), which the model's one memory.latency does not */
#define EDGE_BELOW     2.0
#define EDGE_ABOVE     4.0
#define EDGE_TOLERANCE 0.6
#define SWEEP_RETRIES  2
#define MEASURE_PASSES 2
/* the sweep stops once it has reached DRAM (measure_sweep_at_dram): its
 * last SWEEP_FLAT_POINTS points within SWEEP_FLAT of each other, at least
 * DRAM_OVER_L2 times the L2's latency and L3_HIT_FLOOR times the base
 * file's L3 hit time (l3.latency / core.freq). In the bundled files an L3
 * or SLC hit takes 3.6-4.3 x the L2's (Zen 3-5, Ice Lake-SP, Sapphire
 * Rapids), 6.9 x (Neoverse V2), 11.4 x (Graviton3) and 17.5 x (AmpereOne):
 * the L2 rule alone would take the last two SLCs for DRAM, the floor does
 * not. DRAM takes 3.4-12.7 x their L3 hit and 14-75 x their L2's. */
#define SWEEP_FLAT_POINTS 3u
#define SWEEP_FLAT        1.10
#define DRAM_OVER_L2      10.0
#define L3_HIT_FLOOR      2.0
/* a sweep point whose L3 share would take at least this share of the
 * DRAM reference's time is no L3 hit: the point already misses */
#define L3_OVER_DRAM 0.5
/* a sweep step at least this many times slower than the point before it is
 * the L3's cliff: past it a loaded socket's DRAM latency itself still rises
 * with the footprint (106 ns at 6.75 MiB, 313 at 256 MiB on a Zen 5 guest,
 * 2026-12-05), so the half-miss share judged against the DRAM reference may
 * come only far past the cliff; the capacity is then at the cliff */
#define SWEEP_CLIFF 3.0

void measure_opts_init(measure_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = 5;
    o->cpu = -1;
    o->threads = 2;
    o->max_iter = 5;
}

measure_fig_t *measure_i_fig(measure_t *ms, const char *id)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->f[i].mb.id, id) == 0)
            return &ms->f[i];
    return NULL;
}

void measure_i_value(measure_t *ms, const char *path, const char *value, const char *comment_fmt,
                     ...)
{
    detect_value_t *d = NULL;
    for (size_t i = 0; i < ms->nv && !d; i++)
        if (strcmp(ms->v[i].path, path) == 0)
            d = &ms->v[i];
    if (!d) {
        if (ms->nv == MEASURE_VALUES_MAX)
            return; /* cannot happen: the suite sets fewer */
        d = &ms->v[ms->nv++];
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    snprintf(d->value, sizeof d->value, "%s", value);
    va_list ap;
    va_start(ap, comment_fmt);
    vsnprintf(d->comment, sizeof d->comment, comment_fmt, ap);
    va_end(ap);
}

const measure_fig_t *measure_figs(const measure_t *ms, size_t *n)
{
    *n = ms->n;
    return ms->f;
}

uint64_t measure_l3_effective(const measure_t *ms, const char **how)
{
    if (how)
        *how = ms->l3_how;
    return ms->l3_eff_bytes;
}

measure_t *measure_create(const host_info_t *h, const char *base_path, const char *base_why,
                          const measure_opts_t *o, char *err, size_t errlen)
{
    measure_t *ms = calloc(1, sizeof *ms);
    if (!ms) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    ms->h = *h;
    ms->o = *o;
    snprintf(ms->base_path, sizeof ms->base_path, "%s", base_path);
    snprintf(ms->base_why, sizeof ms->base_why, "%s", base_why ? base_why : "");
    ms->base = cfg_machine_load(base_path, err, errlen);
    if (!ms->base) {
        free(ms);
        return NULL;
    }
    snprintf(ms->base_name, sizeof ms->base_name, "%s", ms->base->name);
    ms->same_silicon = ms->base->isa == h->isa && strcasecmp(ms->base->vendor, h->vendor) == 0 &&
                       ms->base->family == h->family && ms->base->model == h->model;
    ms->l1_bytes = host_cache_bytes(h, 1);
    ms->l2_bytes = host_cache_bytes(h, 2);
    ms->l3_nominal_bytes = host_cache_bytes(h, 3);
    if (!ms->l1_bytes)
        ms->l1_bytes = ms->base->l1.size_bytes;
    if (!ms->l2_bytes)
        ms->l2_bytes = ms->base->l2.size_bytes;
    if (!ms->l3_nominal_bytes && ms->base->l3.present)
        ms->l3_nominal_bytes = ms->base->l3.size_bytes;
    if (host_libc(&ms->libc, err, errlen)) {
        measure_destroy(ms);
        return NULL;
    }
    return ms;
}

int measure_use_figures(measure_t *ms, const char *path, char *err, size_t errlen)
{
    machine_t *m = cfg_machine_load(path, err, errlen);
    if (!m)
        return -1;
    if (m->n_mb == 0) {
        errbuf_set(err, errlen, "%s: no microbench: figures to fit", path);
        cfg_machine_destroy(m);
        return -1;
    }
    cfg_machine_destroy(ms->from);
    ms->from = m;
    return 0;
}

void measure_destroy(measure_t *ms)
{
    if (!ms)
        return;
    cfg_machine_destroy(ms->from);
    cfg_machine_destroy(ms->base);
    free(ms);
}

/* ------------------------------------------------------------ the suite */

static uint64_t round_down(uint64_t v, uint64_t to)
{
    return v / to * to;
}

static uint64_t pow2_at_least(uint64_t v)
{
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static measure_fig_t *add(measure_t *ms, const char *id, const char *workload, const char *fn,
                          uint64_t size, uint64_t chunk, uint64_t page, uint32_t fill,
                          machine_mb_metric_t metric, unsigned stage)
{
    if (ms->n == MEASURE_FIGS_MAX) {
        ms->full = true;
        return NULL;
    }
    measure_fig_t *f = &ms->f[ms->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->mb.id, sizeof f->mb.id, "%s", id);
    snprintf(f->mb.workload, sizeof f->mb.workload, "%s", workload);
    snprintf(f->mb.function, sizeof f->mb.function, "%s", fn ? fn : "");
    f->mb.size_bytes = size;
    f->mb.chunk_bytes = chunk;
    f->mb.page_bytes = page;
    f->mb.fill = fill;
    f->mb.metric = metric;
    f->stage = stage;
    return f;
}

/* The widest / narrowest kernel of a class (clearing) or kind (bench). */
static const char *clear_kernel(const host_info_t *h, kern_class_t cls, bool fences, bool widest)
{
    const kern_info_t *best = NULL;
    for (const kern_info_t *k = kern_table(); k->name; k++) {
        char why[160];
        if (k->cls != cls || (fences && !k->fences) || !k->native ||
            !kern_native_supported(k, h->isa, h->features, host_name(h), why, sizeof why))
            continue;
        if (!best ||
            (widest ? k->width_bytes > best->width_bytes : k->width_bytes < best->width_bytes))
            best = k;
    }
    return best ? best->name : NULL;
}

static const char *bench_kernel(const host_info_t *h, kern_bench_kind_t kind, bool widest)
{
    const kern_bench_t *best = NULL;
    for (const kern_bench_t *b = kern_bench_table(); b->name; b++) {
        char why[160];
        if (b->kind != kind || !b->native ||
            !kern_bench_native_supported(b, h->isa, h->features, host_name(h), why, sizeof why))
            continue;
        if (!best ||
            (widest ? b->width_bytes > best->width_bytes : b->width_bytes < best->width_bytes))
            best = b;
    }
    return best ? best->name : NULL;
}

/* Phase 1: the latency sweep (and its DRAM reference). */
static void suite_latency(measure_t *ms)
{
    char id[48], s[32];
    add(ms, "lat-l1", "latency", "chase", round_down(ms->l1_bytes / 2, 4096), 0, 0, 0,
        MACHINE_MB_NS_PER_LOAD, 0);
    add(ms, "lat-l2", "latency", "chase", round_down(ms->l2_bytes / 2, 4096), 0, 0, 0,
        MACHINE_MB_NS_PER_LOAD, 0);
    uint64_t top =
        ms->l3_nominal_bytes ? ms->l3_nominal_bytes + ms->l3_nominal_bytes / 2 : 4 * ms->l2_bytes;
    for (double sz = 2.0 * (double)ms->l2_bytes; sz <= (double)top; sz *= SWEEP_STEP) {
        uint64_t b = round_down((uint64_t)sz, 64 << 10);
        unit_format_size(b, s, sizeof s);
        snprintf(id, sizeof id, "lat-sweep-%s", s);
        add(ms, id, "latency", "chase", b, 0, 0, 0, MACHINE_MB_NS_PER_LOAD, 0);
    }
    uint64_t dram = pow2_at_least(4 * (top > MIN_DRAM ? top : MIN_DRAM));
    add(ms, "lat-sweep-dram", "latency", "chase", dram, 0, 0, 0, MACHINE_MB_NS_PER_LOAD, 0);
}

/* Phase 2: the rest, at sizes from the caches phase 1 found. */
static void suite_rest(measure_t *ms)
{
    const host_info_t *h = &ms->h;
    const bool victim = ms->base->l3.present && ms->base->l3.incl == MACHINE_INCL_VICTIM;
    uint64_t cap = ms->l2_bytes + (victim ? ms->l3_eff_bytes : 0);
    if (!victim && ms->l3_eff_bytes > cap)
        cap = ms->l3_eff_bytes;
    uint64_t l1s = round_down(ms->l1_bytes / 4 * 3, 1024), l1h = ms->l1_bytes / 2;
    uint64_t l2s = round_down(ms->l2_bytes / 8 * 3, 4096);
    uint64_t chase = pow2_at_least(CHASE_FACTOR * cap), stream = pow2_at_least(STREAM_FACTOR * cap);
    if (chase < MIN_DRAM)
        chase = MIN_DRAM;
    if (stream < MIN_DRAM)
        stream = MIN_DRAM;

    /* the L3 points: the sweep sizes at most 0.6 of the capacity (they fit
     * l3.latency); the largest sizes the L3 streams */
    measure_fig_t *l3p = NULL;
    for (size_t i = 0; i < ms->n; i++) {
        measure_fig_t *f = &ms->f[i];
        if (strncmp(f->mb.id, "lat-sweep-", 10) == 0 && strcmp(f->mb.id, "lat-sweep-dram") &&
            !f->skipped && (double)f->mb.size_bytes <= 0.6 * (double)cap &&
            f->mb.size_bytes > ms->l2_bytes) {
            l3p = f;
            if (ms->base->l3.present)
                f->stage = 3;
        }
    }
    uint64_t l3s = l3p ? l3p->mb.size_bytes : 2 * ms->l2_bytes;

    add(ms, "lat-dram", "latency", "chase", chase, 0, 0, 0, MACHINE_MB_NS_PER_LOAD, 5);
    add(ms, "lat-walk", "latency", "chase", chase, 0, 4096, 0, MACHINE_MB_NS_PER_LOAD, 5);

    const char *ld_w = bench_kernel(h, KERN_BENCH_LOAD, true);
    const char *ld_n = bench_kernel(h, KERN_BENCH_LOAD, false);
    const char *st_w = clear_kernel(h, KERN_CLASS_STORE, false, true);
    const char *st_n = clear_kernel(h, KERN_CLASS_STORE, false, false);
    const char *cp = bench_kernel(h, KERN_BENCH_COPY, true);
    const char *cp_n = bench_kernel(h, KERN_BENCH_COPY, false);
    const char *cpnt = bench_kernel(h, KERN_BENCH_COPY_NT, true);
    const char *nt = clear_kernel(h, KERN_CLASS_NT, false, false);
    const char *ntw = clear_kernel(h, KERN_CLASS_NT, false, true);
    const char *ntf = clear_kernel(h, KERN_CLASS_NT, true, false);
    const char *lz = clear_kernel(h, KERN_CLASS_LINEZERO, false, true);
    const char *str = clear_kernel(h, KERN_CLASS_STRING, false, false);

    add(ms, "load-l1", "load", ld_w, l1h, 0, 0, 0, MACHINE_MB_GBPS, 1);
    if (ld_n && ld_w && strcmp(ld_n, ld_w))
        add(ms, "load-l1-narrow", "load", ld_n, l1h, 0, 0, 0, MACHINE_MB_GBPS, 1);
    add(ms, "store-l1", "store", st_w, l1s, 0, 0, 0, MACHINE_MB_GBPS, 1);
    if (st_n && st_w && strcmp(st_n, st_w))
        add(ms, "store-l1-narrow", "store", st_n, l1s, 0, 0, 0, MACHINE_MB_GBPS, 1);

    add(ms, "load-l2", "load", ld_w, l2s, 0, 0, 0, MACHINE_MB_GBPS, 2);
    add(ms, "store-l2", "store", st_w, l2s, 0, 0, 0, MACHINE_MB_GBPS, 2);
    if (ms->base->l3.present) {
        add(ms, "load-l3", "load", ld_w, l3s, 0, 0, 0, MACHINE_MB_GBPS, 3);
        add(ms, "store-l3", "store", st_w, l3s, 0, 0, 0, MACHINE_MB_GBPS, 3);
    }
    add(ms, "load-dram", "load", ld_w, stream, 0, 0, 0, MACHINE_MB_GBPS, 6);
    add(ms, "copy-dram", "copy", cp, stream, 0, 0, 0, MACHINE_MB_GBPS, 6);
    /* the narrowest copy: eight times the stores a line of the widest on
     * some cores, the same rate on others (core.rfo_window; not fitted) */
    if (cp_n && cp && strcmp(cp_n, cp))
        add(ms, "copy-dram-narrow", "copy", cp_n, stream, 0, 0, 0, MACHINE_MB_GBPS, 0);
    if (cpnt) {
        add(ms, "copynt-dram", "copy", cpnt, stream, 0, 0, 0x5a, MACHINE_MB_GBPS, 6);
        add(ms, "copynt-dram-zero", "copy", cpnt, stream, 0, 0, 0, MACHINE_MB_GBPS, 6);
    }
    if (nt) {
        add(ms, "ntstore-l1", "ntstore", nt, l1s, 0, 0, 0, MACHINE_MB_GBPS, 7);
        /* the widest non-temporal store (one or two stores a line), so the
         * write path's rate where the narrow one may be its stores' issue rate */
        if (ntw && strcmp(ntw, nt))
            add(ms, "ntstore-l1-wide", "ntstore", ntw, l1s, 0, 0, 0, MACHINE_MB_GBPS, 7);
        /* the same stream of data, not zeros: whether the memory side
         * charges a line by what it holds (memory.zero_data_fraction) */
        add(ms, "ntstore-l1-data", "ntstore", ntw ? ntw : nt, l1s, 0, 0, 0x5a, MACHINE_MB_GBPS, 7);
        if (ntf) {
            add(ms, "fence-nt-256B", "fence", ntf, l1s, 256, 0, 0, MACHINE_MB_GBPS, 7);
            add(ms, "fence-nt-2KiB", "fence", ntf, l1s, 2048, 0, 0, MACHINE_MB_GBPS, 7);
        }
        /* the widest stores of data and of zeros at the cases' footprint: the
         * write path's rate and what a line of zeros costs on it, where the
         * clears run (with both, the L1-size figures above are kept for
         * `check` and the stores' issue rate, not fitted: measure_fit.c) */
        add(ms, "ntstore-dram-data", "ntstore", ntw ? ntw : nt, CASES_BYTES, 0, 0, 0x5a,
            MACHINE_MB_GBPS, 7);
        add(ms, "ntstore-dram", "ntstore", ntw ? ntw : nt, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS,
            7);
        /* the narrow stores of zeros there too, not fitted: their issue cost
         * is the faster of this and ntstore-l1 (on the Zen 3 guest MOVNTI
         * ran 1.05 cycles a store over 1 GiB, 1.23 at L1 size) */
        if (ntw && strcmp(ntw, nt))
            add(ms, "ntstore-dram-narrow", "ntstore", nt, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS, 0);
        /* the same through the kernel's _ahead twin (a load takes each 4 KiB
         * page's TLB miss first): on a guest whose host backs it with 4 KiB
         * pages, the write path without the store's miss, and the miss
         * (measure_figs.c host_miss_stage) */
        char twin[24], why[160];
        snprintf(twin, sizeof twin, "%s_ahead", ntw ? ntw : nt);
        const kern_info_t *tk = kern_find(twin);
        if (tk && tk->native &&
            kern_native_supported(tk, h->isa, h->features, host_name(h), why, sizeof why) &&
            kern_check_machine(tk, ms->base, why, sizeof why) == 0) {
            add(ms, "ntstore-dram-data-ahead", "ntstore", twin, CASES_BYTES, 0, 0, 0x5a,
                MACHINE_MB_GBPS, 0);
            add(ms, "ntstore-dram-ahead", "ntstore", twin, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS,
                0);
        }
        /* fills of data and of zeros with the widest temporal store: a line
         * read for ownership and one written back a line, so against the
         * read and write links a limit they share, and what a written-back
         * line of zeros costs against one of data (measure_fit.c
         * dram_values; on the Zen 5 guest 0.6, on the Zen 3 guest as data:
         * data/native/fill_bus.sh) */
        if (st_w) {
            add(ms, "store-dram-data", "store", st_w, CASES_BYTES, 0, 0, 0x5a, MACHINE_MB_GBPS, 0);
            add(ms, "store-dram-zero", "store", st_w, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS, 0);
        }
    }
    if (lz) {
        add(ms, "linezero-l1", "linezero", lz, l1s, 0, 0, 0, MACHINE_MB_GBPS, 8);
        /* a line-zeroing command's cost against a line of data, at the
         * cases' footprint (with ntstore-dram-data) */
        add(ms, "linezero-dram", "linezero", lz, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS, 8);
        /* its _ahead twin, as the non-temporal stores': on a guest whose
         * stores pay the host's miss, the line-zeroing path without it, and
         * the share of the miss a line-zeroing stream shows (measure_figs.c) */
        char lzt[24], lwhy[160];
        snprintf(lzt, sizeof lzt, "%s_ahead", lz);
        const kern_info_t *lk = kern_find(lzt);
        if (lk && lk->native &&
            kern_native_supported(lk, h->isa, h->features, host_name(h), lwhy, sizeof lwhy) &&
            kern_check_machine(lk, ms->base, lwhy, sizeof lwhy) == 0)
            add(ms, "linezero-dram-ahead", "linezero", lzt, CASES_BYTES, 0, 0, 0, MACHINE_MB_GBPS,
                0);
        add(ms, "fence-lz-1KiB", "fence", lz, l1s, 1024, 0, 0, MACHINE_MB_GBPS, 8);
        add(ms, "fence-lz-4KiB", "fence", lz, l1s, 4096, 0, 0, MACHINE_MB_GBPS, 8);
    }
    add(ms, "call-64B", "memset", st_n, l1s, 64, 0, 0, MACHINE_MB_GBPS, 9);
    if (str) {
        add(ms, "string-l1", "startup", str, l1s, l1s, 0, 0, MACHINE_MB_GBPS, 9);
        static const uint64_t lens[] = {64, 256, 1024, 4096};
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            char id[48], s[32];
            unit_format_size(lens[i], s, sizeof s);
            snprintf(id, sizeof id, "startup-%s", s);
            add(ms, id, "startup", str, l1s, lens[i], 0, 0, MACHINE_MB_GBPS, 0);
        }
    }
    measure_fig_t *f =
        add(ms, "fault-4k", "fault", NULL, 1ull << 20, 0, 4096, 0, MACHINE_MB_GBPS, 10);
    if (f)
        f->mb.loops = 16;
    f = add(ms, "fault-4k-populate", "fault", NULL, 1ull << 20, 0, 4096, 0, MACHINE_MB_GBPS, 10);
    if (f) {
        f->mb.loops = 16;
        snprintf(f->mb.fault, sizeof f->mb.fault, "populate");
    }
    f = add(ms, "fault-2m", "fault", NULL, 2ull << 20, 0, 2ull << 20, 0, MACHINE_MB_GBPS, 10);
    if (f)
        f->mb.loops = 32;
}

/* ------------------------------------------------------------ native runs */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A machine that describes this host's ISA and features, for validation. */
static machine_t *host_machine(const measure_t *ms)
{
    machine_t *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    *m = *ms->base;
    m->isa = ms->h.isa;
    m->features = ms->h.features;
    if (ms->h.line_zero_bytes)
        m->zva_block_bytes = ms->h.line_zero_bytes;
    return m;
}

/* A figure from the file given to measure_use_figures, matched by id: the
 * run it describes (shape, value, source) and its clock; the suite's own
 * tolerance (the sweep's edge is found again). A figure of another kernel
 * or metric than this host's suite runs is not used. */
static void copy_fig(measure_t *ms, measure_fig_t *f)
{
    for (uint32_t i = 0; i < ms->from->n_mb; i++) {
        const machine_mb_t *g = &ms->from->mb[i];
        if (strcmp(g->id, f->mb.id) != 0)
            continue;
        if (strcmp(g->workload, f->mb.workload) || strcmp(g->function, f->mb.function) ||
            g->metric != f->mb.metric) {
            f->skipped = true;
            snprintf(f->why, sizeof f->why, "%s's figure %s runs %s %s; this host's suite, %s %s",
                     ms->from->name, g->id, g->workload, g->function[0] ? g->function : "-",
                     f->mb.workload, f->mb.function[0] ? f->mb.function : "-");
            return;
        }
        double tol = f->mb.tolerance;
        f->mb = *g;
        f->mb.tolerance = tol;
        f->runs = 1;
        f->clock_ghz = ms->from->mb_clock_ghz > 0 ? ms->from->mb_clock_ghz : ms->from->freq_ghz;
        f->adds_per_cycle = ms->from->mb_adds_per_cycle;
        return;
    }
    f->skipped = true;
    snprintf(f->why, sizeof f->why, "not among the figures of %s", ms->from->name);
}

static void run_fig(measure_t *ms, const machine_t *hm, measure_fig_t *f, double *ghz)
{
    if (ms->from) {
        copy_fig(ms, f);
        return;
    }
    wl_spec_t s;
    if (mb_spec(&f->mb, hm, &s, f->why, sizeof f->why)) {
        f->skipped = true;
        return;
    }
    native_opts_t no;
    native_opts_init(&no);
    no.repeat = ms->o.repeat;
    no.cpu = ms->o.cpu;
    no.counters = false;
    no.progress = false;
    no.clock = false;          /* measured around the figure below */
    static native_result_t nr; /* large; native runs are one at a time */
    if (native_run(&s, &no, &nr, f->why, sizeof f->why)) {
        f->skipped = true;
        return;
    }
    /* pooled with the figure's earlier batches (a second pass) */
    for (uint32_t i = 0; i < nr.repeat && f->runs < MEASURE_RUNS_MAX; i++)
        if (nr.run_seconds[i] > 0)
            f->sec[f->runs++] = nr.run_seconds[i];
    if (!f->runs) {
        f->skipped = true;
        snprintf(f->why, sizeof f->why, "no timed run took measurable time");
        return;
    }
    double sec[MEASURE_RUNS_MAX];
    uint32_t n = f->runs;
    memcpy(sec, f->sec, n * sizeof sec[0]);
    qsort(sec, n, sizeof sec[0], cmp_double);
    double med = n % 2 ? sec[n / 2] : (sec[n / 2 - 1] + sec[n / 2]) / 2;
    uint64_t loads = wl_measured_loads(&s);
    double bps = (double)nr.run.bytes / med;
    f->mb.value = mb_metric(&f->mb, med, bps, loads ? med * 1e9 / (double)loads : 0);
    native_stat_t st = native_stats(f->sec, n);
    f->ci95_rel = st.mean > 0 && isfinite(st.ci95) ? st.ci95 / st.mean : 0;
    if (!f->mb.loops)
        f->mb.loops = s.loops;
    double after = host_measure_core_ghz(CLOCK_TRIALS);
    double here = *ghz > 0 && after > 0 ? (*ghz + after) / 2 : after;
    f->clock_ghz = f->clock_ghz > 0 ? (f->clock_ghz + here) / 2 : here;
    *ghz = after;
    double share = host_measure_adds_per_cycle(SHARE_TRIALS);
    f->adds_per_cycle = f->adds_per_cycle > 0 ? (f->adds_per_cycle + share) / 2 : share;
}

/* The median of the figures' clocks, or (share) of their core shares, over
 * the figures that ran and have one; 0 when none has. */
static double fig_median(const measure_t *ms, bool share)
{
    double v[MEASURE_FIGS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < ms->n; i++) {
        double x = share ? ms->f[i].adds_per_cycle : ms->f[i].clock_ghz;
        if (!ms->f[i].skipped && x > 0)
            v[n++] = x;
    }
    if (!n)
        return 0;
    qsort(v, n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void sweep_trim(measure_t *ms, size_t i, size_t *to);

/* Figures from .. *to; phase 1 (trim) stops its sweep at DRAM and moves
 * *to down by the points it drops. */
static int run_range(measure_t *ms, size_t from, size_t *to, bool trim, progress_t *pr,
                     size_t *done)
{
    machine_t *hm = host_machine(ms);
    if (!hm)
        return -1;
    double ghz = ms->from ? 0 : host_measure_core_ghz(CLOCK_TRIALS);
    for (size_t i = from; i < *to; i++) {
        run_fig(ms, hm, &ms->f[i], &ghz);
        progress_update(pr, ++*done);
        if (trim)
            sweep_trim(ms, i, to);
    }
    free(hm);
    return 0;
}

/* The L3's own latency from the sweep's first point: for a victim L3, the
 * loads that hit the L2 (L2 / size of them) come out first. */
static double sweep_l3_ns(const uint64_t *sizes, const double *lat, double l2_ns, double l2b,
                          bool victim)
{
    double s0 = (double)sizes[0];
    return victim && s0 > l2b ? (lat[0] * s0 - l2_ns * l2b) / (s0 - l2b) : lat[0];
}

/* The share of a chase's loads over s bytes that miss, from its latency. */
static double sweep_share(double s, double lat, double l3_ns, double l2_ns, double l2b,
                          double dram_ns, bool victim)
{
    double cached = victim && s > l2b ? (l2_ns * l2b + l3_ns * (s - l2b)) / s : l3_ns;
    return dram_ns > cached ? (lat - cached) / (dram_ns - cached) : 0;
}

/* A chase over more bytes never takes less per load: a sweep point slower
 * than the next larger one by half again met a burst of the other tenants'
 * traffic, and is measured again (twice at most; the lower value stays). */
static void sweep_again(measure_t *ms, size_t phase1)
{
    machine_t *hm = host_machine(ms);
    if (!hm)
        return;
    double ghz = host_measure_core_ghz(CLOCK_TRIALS);
    for (int round = 0; round < SWEEP_RETRIES; round++) {
        bool again = false;
        for (size_t i = 0; i + 1 < phase1; i++) {
            measure_fig_t *f = &ms->f[i], *g = &ms->f[i + 1];
            if (strncmp(f->mb.id, "lat-", 4) || strncmp(g->mb.id, "lat-", 4) || f->skipped ||
                g->skipped || !(f->mb.value > 1.5 * g->mb.value))
                continue;
            measure_fig_t redo = *f;
            redo.runs = 0;
            redo.clock_ghz = 0;
            run_fig(ms, hm, &redo, &ghz);
            if (!redo.skipped && redo.mb.value < f->mb.value)
                *f = redo;
            again = true;
        }
        if (!again)
            break;
    }
    free(hm);
}

bool measure_sweep_at_dram(const double *lat, size_t n, double l2_ns, double l3_hit_ns)
{
    if (n < SWEEP_FLAT_POINTS || !(l2_ns > 0))
        return false;
    double lo = lat[n - 1], hi = lat[n - 1];
    for (size_t i = n - SWEEP_FLAT_POINTS; i < n; i++) {
        lo = lat[i] < lo ? lat[i] : lo;
        hi = lat[i] > hi ? lat[i] : hi;
    }
    return lo > 0 && hi <= SWEEP_FLAT * lo && lo >= DRAM_OVER_L2 * l2_ns &&
           lo >= L3_HIT_FLOOR * l3_hit_ns;
}

/* After phase 1's figure i: when the sweep has reached DRAM there, the
 * points past it are dropped and the DRAM reference is sized from it (a
 * host whose L3 share is far below the nominal L3 is not swept up to 1.5 x
 * the nominal size, nor chased over 4 x it). *to is phase 1's end. */
static void sweep_trim(measure_t *ms, size_t i, size_t *to)
{
    const measure_fig_t *f = &ms->f[i], *l2 = measure_i_fig(ms, "lat-l2");
    if (strncmp(f->mb.id, "lat-sweep-", 10) || !strcmp(f->mb.id, "lat-sweep-dram") || f->skipped ||
        !l2 || l2->skipped)
        return;
    double lat[MEASURE_FIGS_MAX];
    size_t k = 0;
    for (size_t j = 0; j <= i; j++)
        if (!strncmp(ms->f[j].mb.id, "lat-sweep-", 10) && !ms->f[j].skipped)
            lat[k++] = ms->f[j].mb.value;
    const machine_t *b = ms->base;
    double l3_hit_ns = b->l3.present && b->freq_ghz > 0 ? b->l3.latency_cycles / b->freq_ghz : 0;
    if (!measure_sweep_at_dram(lat, k, l2->mb.value, l3_hit_ns))
        return;
    size_t dram = i + 1;
    while (dram < *to && strcmp(ms->f[dram].mb.id, "lat-sweep-dram"))
        dram++;
    if (dram == *to || dram == i + 1)
        return;
    char at[32];
    unit_format_size(f->mb.size_bytes, at, sizeof at);
    snprintf(ms->sweep_stop, sizeof ms->sweep_stop,
             "; the sweep stopped at %s, its last %u points within %.0f%% at %.0f ns "
             "(>= %.0f x lat-l2 and %.1f x %s's L3 hit: DRAM)",
             at, SWEEP_FLAT_POINTS, 100 * (SWEEP_FLAT - 1), f->mb.value, DRAM_OVER_L2, L3_HIT_FLOOR,
             b->name);
    size_t drop = dram - (i + 1);
    memmove(&ms->f[i + 1], &ms->f[dram], (ms->n - dram) * sizeof ms->f[0]);
    ms->n -= drop;
    *to -= drop;
    uint64_t bytes = 4 * f->mb.size_bytes;
    if (!ms->from)
        ms->f[i + 1].mb.size_bytes = pow2_at_least(bytes > MIN_DRAM ? bytes : MIN_DRAM);
}

int measure_native(measure_t *ms, char *err, size_t errlen)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ms->date, sizeof ms->date, "%Y-%m-%dT%H:%MZ", &tm);
    ms->n = 0;
    ms->full = false;
    suite_latency(ms);
    size_t phase1 = ms->n, done = 0;
    /* the second phase's count is known only after the first; the estimate
     * keeps the ETA honest (it is corrected once phase 2 is built) */
    progress_t *pr = progress_create("measure", phase1 + 26, ms->o.progress);
    ms->sweep_stop[0] = '\0';
    if (run_range(ms, 0, &phase1, true, pr, &done)) {
        progress_destroy(pr);
        return errbuf_set(err, errlen, "out of memory");
    }
    if (!ms->from)
        sweep_again(ms, phase1);
    measure_fig_t *l2 = measure_i_fig(ms, "lat-l2"), *dram = measure_i_fig(ms, "lat-sweep-dram");
    if (!l2 || l2->skipped || !dram || dram->skipped) {
        progress_destroy(pr);
        return errbuf_set(err, errlen, "the latency sweep failed: %s",
                          l2 && l2->skipped ? l2->why
                          : dram            ? dram->why
                                            : "?");
    }
    uint64_t sizes[MEASURE_FIGS_MAX];
    double lat[MEASURE_FIGS_MAX];
    size_t k = 0;
    for (size_t i = 0; i < phase1; i++) {
        const measure_fig_t *f = &ms->f[i];
        if (!strncmp(f->mb.id, "lat-sweep-", 10) && f != dram && !f->skipped) {
            sizes[k] = f->mb.size_bytes;
            lat[k++] = f->mb.value;
        }
    }
    const bool victim = ms->base->l3.present && ms->base->l3.incl == MACHINE_INCL_VICTIM;
    ms->l3_eff_bytes = ms->l3_nominal_bytes
                           ? measure_l3_from_sweep(sizes, lat, k, l2->mb.value, ms->l2_bytes,
                                                   dram->mb.value, victim, ms->l3_nominal_bytes)
                           : 0;
    /* Points at the effective L3's edge, by size (their miss share is no
     * guide: the first point that misses at all is off by more than the
     * tolerance, and past the edge DRAM's latency itself varies) */
    const uint64_t half_bytes = ms->l3_eff_bytes + (victim ? ms->l2_bytes : 0);
    for (size_t i = 0; i < phase1 && k && ms->l3_eff_bytes; i++) {
        measure_fig_t *f = &ms->f[i];
        if (strncmp(f->mb.id, "lat-sweep-", 10) || f == dram || f->skipped)
            continue;
        if (measure_at_l3_edge(f->mb.size_bytes, half_bytes))
            f->mb.tolerance = EDGE_TOLERANCE;
    }
    char first[32], half[32], nom[32];
    snprintf(first, sizeof first, "-");
    if (k)
        unit_format_size(sizes[0], first, sizeof first);
    unit_format_size(ms->l3_eff_bytes + (victim ? ms->l2_bytes : 0), half, sizeof half);
    unit_format_size(ms->l3_nominal_bytes, nom, sizeof nom);
    snprintf(ms->l3_how, sizeof ms->l3_how,
             "a chase sweep from %s up: half of its loads miss at %s%s (nominal L3 %s)%s", first,
             half, victim ? ", less the L2 that a victim L3 does not hold" : "", nom,
             ms->sweep_stop);
    suite_rest(ms);
    progress_destroy(pr);
    if (ms->full)
        return errbuf_set(err, errlen, "more figures than the suite holds (%d)", MEASURE_FIGS_MAX);
    /* two passes over the rest, pooled: a host whose other tenants come and
     * go is seen at two times */
    pr = progress_create("measure", phase1 + MEASURE_PASSES * (ms->n - phase1), ms->o.progress);
    progress_update(pr, done);
    int rc = 0;
    for (int pass = 0; pass < (ms->from ? 1 : MEASURE_PASSES) && rc == 0; pass++)
        rc = run_range(ms, phase1, &ms->n, false, pr, &done);
    progress_destroy(pr);
    if (rc)
        return errbuf_set(err, errlen, "out of memory");

    ms->clock_ghz = fig_median(ms, false);
    if (!(ms->clock_ghz > 0))
        return errbuf_set(err, errlen, "the core clock could not be measured");
    ms->adds_per_cycle = fig_median(ms, true);
    for (size_t i = 0; i < ms->n && !ms->from; i++) {
        measure_fig_t *f = &ms->f[i];
        if (f->skipped)
            continue;
        char share[48] = "";
        if (f->adds_per_cycle > 0)
            snprintf(share, sizeof share, ", %.1f adds/cycle", f->adds_per_cycle);
        snprintf(f->mb.source, sizeof f->mb.source,
                 "measured %s, %u runs (median; +-%.0f%%), %.2f GHz%s", ms->date, f->runs,
                 100 * f->ci95_rel, f->clock_ghz, share);
    }
    return 0;
}

/* ------------------------------------------------------------ the sweep */

int measure_rfo_pick(double host, double store_buffer, double fill_buffers)
{
    if (!(host > 0) || !(store_buffer > 0) || !(fill_buffers > 0))
        return -1;
    double d0 = fabs(log(store_buffer / host)), d1 = fabs(log(fill_buffers / host));
    if (d1 * MEASURE_RFO_CLEAR <= d0)
        return 1;
    if (d0 * MEASURE_RFO_CLEAR <= d1)
        return 0;
    return -1;
}

bool measure_at_l3_edge(uint64_t size_bytes, uint64_t half_bytes)
{
    if (!half_bytes)
        return false;
    double r = (double)size_bytes / (double)half_bytes;
    return r > 1 / EDGE_BELOW && r < EDGE_ABOVE;
}

uint64_t measure_l3_from_sweep(const uint64_t *sizes, const double *lat, size_t n, double l2_ns,
                               uint64_t l2_bytes, double dram_ns, bool victim, uint64_t nominal_l3)
{
    if (n == 0)
        return nominal_l3;
    double s0 = (double)sizes[0], l2b = (double)l2_bytes;
    double l3_ns = sweep_l3_ns(sizes, lat, l2_ns, l2b, victim);
    /* a first point whose "L3 time" is DRAM's already misses */
    const bool first_misses = l3_ns >= L3_OVER_DRAM * dram_ns;
    /* the steepest step, when it is a cliff */
    size_t cliff = n;
    double steepest = SWEEP_CLIFF;
    for (size_t i = 1; i < n; i++)
        if (lat[i - 1] > 0 && lat[i] / lat[i - 1] >= steepest) {
            steepest = lat[i] / lat[i - 1];
            cliff = i;
        }
    double prev_share = 0, prev_size = s0;
    for (size_t i = 0; i < n; i++) {
        double s = (double)sizes[i];
        double share = sweep_share(s, lat[i], l3_ns, l2_ns, l2b, dram_ns, victim);
        if (share >= 0.5 || (i == 0 && first_misses) || i == cliff) {
            double cap;
            if (i == 0 || share <= prev_share) {
                cap = s;
            } else if (share < 0.5) { /* the cliff: half way across it, in log size */
                cap = sqrt(prev_size * s);
            } else {
                double t = (0.5 - prev_share) / (share - prev_share);
                cap = exp(log(prev_size) + t * (log(s) - log(prev_size)));
            }
            double l3 = victim ? cap - l2b : cap;
            if (l3 < l2b / 2)
                l3 = l2b / 2;
            return l3 > (double)nominal_l3 ? nominal_l3 : (uint64_t)l3;
        }
        prev_share = share > 0 ? share : 0;
        prev_size = s;
    }
    return nominal_l3;
}
