/*
 * measure_figs.c - `clearsim detect --measure`: the suite's figures as rates,
 * and which of them enter which stage of the fit on this host (measure_fit.c
 * drives the fit; this file answers it).
 *
 * Notes
 *  - The write path is fitted where the clears run: with the non-temporal
 *    stores of data and of zeros and the line zeroing over 1 GiB, the L1-size
 *    figures of the same kernels leave the fit and give the issue costs.
 *  - On a guest whose host maps its memory in 4 KiB pages, the DRAM latency
 *    comes from a chase inside the reach of the TLB's 4 KiB entries: past it,
 *    every load of a chase walks the host's tables, which is the host's.
 *  - On such a guest a store that takes a page's TLB miss pays for it: when
 *    the zero stores over the cases' footprint ran more than HOSTMISS_NOISE
 *    slower than their _ahead twin, the twins fit the write path (stage 7)
 *    and the plain figures stay for `check`, and the miss is the plain zero
 *    figure's time a page less the model's issue time (sim/study/host_miss.h).
 *  - Library code: nothing is printed; values go to measure_i_value.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"
#include "sim/study/host_miss.h"
#include "sim/study/measure_impl.h"
#include "sim/study/microbench.h"

const measure_fig_t *measure_i_ran(measure_t *ms, const char *id)
{
    const measure_fig_t *f = measure_i_fig(ms, id);
    return f && !f->skipped ? f : NULL;
}

/* A figure's rate in bytes per cycle at the measured clock, times mult; 0
 * when it was not run. */
double measure_i_bpc(measure_t *ms, const char *id, double mult)
{
    const measure_fig_t *f = measure_i_ran(ms, id);
    return f && ms->clock_ghz > 0 ? f->mb.value * 1073741824.0 / 1e9 / ms->clock_ghz * mult : 0;
}

/* A figure's rate in its kernel's instructions per cycle (loads or stores of
 * width_bytes each); 0 when the figure or the width is unknown. */
double measure_i_ops_per_cycle(measure_t *ms, const char *id)
{
    const measure_fig_t *f = measure_i_ran(ms, id);
    if (!f)
        return 0;
    const kern_info_t *k = kern_find(f->mb.function);
    const kern_bench_t *b = k ? NULL : kern_bench_find(f->mb.function);
    uint32_t w = k ? k->width_bytes : b ? b->width_bytes : 0;
    return w ? measure_i_bpc(ms, id, 1) / w : 0;
}

/* The time of one call (chunk) or page of a figure in ns; 0 when not run. */
double measure_i_ns(measure_t *ms, const char *id)
{
    const measure_fig_t *f = measure_i_ran(ms, id);
    if (!f || f->mb.value <= 0)
        return 0;
    uint64_t unit = f->mb.chunk_bytes ? f->mb.chunk_bytes : f->mb.size_bytes;
    return (double)unit / (f->mb.value * 1073741824.0) * 1e9;
}

void measure_i_keep_base(measure_t *ms, const char *path, const char *label, const char *why_fmt,
                         ...)
{
    const cfg_key_t *k = cfg_key_find(path);
    double x;
    char v[64], why[600];
    if (!k || cfg_key_get(ms->base, k, &x))
        return;
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(why, sizeof why, why_fmt, ap);
    va_end(ap);
    cfg_key_format(k, x, CFG_FMT_YAML, v, sizeof v);
    measure_i_value(ms, path, v, "%s: from %s; %s", label, ms->base_name, why);
}

/* Whether the write path's figures at the cases' footprint ran: stores of
 * data and of zeros (and, for the line-zeroing share, line_zero too). A file
 * of figures from before them (--figures) fits the L1-size ones instead. */
bool measure_i_dram_writes(measure_t *ms)
{
    return measure_i_ran(ms, "ntstore-dram-data") && measure_i_ran(ms, "ntstore-dram");
}

bool measure_i_dram_line_zero(measure_t *ms)
{
    return measure_i_ran(ms, "ntstore-dram-data") && measure_i_ran(ms, "linezero-dram");
}

/* With the write path's figures at the cases' footprint, the L1-size ones
 * leave the fit: on a guest they ran 1.5-2 times faster (lines written again
 * and again over 36 KiB are absorbed before the contended part of its host's
 * memory; docs/MODEL.md section 12), and the model has one write path. They
 * stay in the file for `check`, and give the stores' and CLZERO's issue
 * costs directly (measure_i_issue_costs). */
static void write_figures_at_scale(measure_t *ms)
{
    static const char *const nt_l1[] = {"ntstore-l1", "ntstore-l1-wide", "ntstore-l1-data"};
    for (size_t i = 0; i < ms->n; i++) {
        measure_fig_t *f = &ms->f[i];
        for (size_t j = 0; j < sizeof nt_l1 / sizeof nt_l1[0]; j++)
            if (measure_i_dram_writes(ms) && strcmp(f->mb.id, nt_l1[j]) == 0)
                f->stage = 0;
        if (measure_i_dram_line_zero(ms) && strcmp(f->mb.id, "linezero-l1") == 0)
            f->stage = 0;
    }
}

/* A guest whose host maps its memory in 4 KiB pages: its 2 MiB pages do not
 * widen the TLB's reach, so past the reach of the TLB's 4 KiB entries every
 * load of a chase walks the host's tables as well as the guest's. Two signs
 * together: the DRAM chase on 2 MiB pages (lat-dram) takes at least
 * HOST_PAGES_RISE times the sweep's largest point inside that reach and past
 * the effective L3 (HOST_PAGES_PAST_L3 x (L2 + its share)), and on 4 KiB
 * pages (lat-walk) at most HOST_PAGES_SAME times lat-dram (on a host with
 * large pages, 4 KiB guest pages add a two-dimensional walk to every load
 * and 2 MiB ones reach gigabytes). A clear walks once a page, and most of
 * that overlaps its stores: the chase's time past the reach is the host's,
 * not the memory's. Then memory.latency comes from that point, lat-dram and
 * lat-walk stay in the file for `check`, and tlb.walk is not measured.
 * Measured on the Zen 5 guest (2026-12-07): the point at 15.2 MiB 128.6 ns,
 * lat-dram 272.5, lat-walk 258.7 (docs/MODEL.md section 13). Returns that
 * point, or NULL (bare metal; a host whose pages are large; no such point). */
#define HOST_PAGES_RISE    1.3
#define HOST_PAGES_SAME    1.2
#define HOST_PAGES_PAST_L3 1.5
static const measure_fig_t *host_pages_near(measure_t *ms)
{
    const measure_fig_t *d = measure_i_ran(ms, "lat-dram"), *w = measure_i_ran(ms, "lat-walk");
    /* a guest: the figures' file says so when the figures are its (--figures) */
    bool guest = ms->from ? ms->from->guest : ms->h.hypervisor;
    if (!guest || !d || !w || !(w->mb.value <= HOST_PAGES_SAME * d->mb.value))
        return NULL;
    double reach = (double)ms->base->tlb_entries_4k * 4096.0;
    double past = HOST_PAGES_PAST_L3 * (double)(ms->l2_bytes + ms->l3_eff_bytes);
    const measure_fig_t *best = NULL;
    for (size_t i = 0; i < ms->n; i++) {
        const measure_fig_t *f = &ms->f[i];
        if (f->skipped || strncmp(f->mb.id, "lat-sweep-", 10) ||
            !strcmp(f->mb.id, "lat-sweep-dram"))
            continue;
        double sz = (double)f->mb.size_bytes;
        if (sz <= reach && sz >= past && (!best || f->mb.size_bytes > best->mb.size_bytes))
            best = f;
    }
    return best && d->mb.value >= HOST_PAGES_RISE * best->mb.value ? best : NULL;
}

/* The DRAM latency's figure: lat-dram, or the point inside the reach on a
 * guest whose host's pages are 4 KiB (host_pages_near). */
const measure_fig_t *measure_i_dram_latency(measure_t *ms)
{
    const measure_fig_t *near = host_pages_near(ms);
    return near ? near : measure_i_ran(ms, "lat-dram");
}

/* Stage 5 on such a guest: the near point alone, for memory.latency. */
static void host_pages_stage(measure_t *ms)
{
    const measure_fig_t *near = host_pages_near(ms);
    if (!near)
        return;
    const measure_fig_t *d = measure_i_ran(ms, "lat-dram"), *w = measure_i_ran(ms, "lat-walk");
    measure_i_keep_base(ms, "tlb.walk", "not measured",
                        "this guest's host maps its memory in 4 KiB pages (lat-walk %.0f ns on 4 "
                        "KiB pages, lat-dram %.0f ns on 2 MiB): past the %.0f MiB its 4 KiB TLB "
                        "entries reach, a chase walks the host's tables on every load, which is "
                        "the host's, and memory.latency is fitted to %s inside that reach",
                        w->mb.value, d->mb.value,
                        (double)ms->base->tlb_entries_4k * 4096.0 / (1 << 20), near->mb.id);
    for (size_t i = 0; i < ms->n; i++) {
        measure_fig_t *f = &ms->f[i];
        if (!strcmp(f->mb.id, "lat-dram") || !strcmp(f->mb.id, "lat-walk"))
            f->stage = 0;
        else if (f == near)
            f->stage = 5;
    }
}

/* The line-zeroing stream whose rate gives CLZERO's cost a line: the faster
 * of linezero-l1 and the stream at the cases' footprint that fits stage 8
 * (linezero-l1 on a tie); NULL when neither ran. */
static const measure_fig_t *lz_issue_fig(measure_t *ms)
{
    const measure_fig_t *l1 = measure_i_ran(ms, "linezero-l1"),
                        *g = measure_i_ran(ms, measure_i_line_zero_id(ms));
    return g && (!l1 || g->mb.value > l1->mb.value) ? g : l1;
}

/* The stores' and CLZERO's issue costs from the L1-size figures (CLZERO's
 * from the faster stream), when the DRAM-scale ones fit the write path
 * (measure_i_assign_stages). */
void measure_i_issue_costs(measure_t *ms)
{
    char v[64];
    const measure_fig_t *f = measure_i_ran(ms, "ntstore-l1");
    double ops = measure_i_ops_per_cycle(ms, "ntstore-l1");
    if (measure_i_dram_writes(ms) && f && ops > 0) {
        /* the faster of the narrow stores at L1 size and over the cases'
         * footprint (ntstore-dram-narrow, when it ran) */
        const measure_fig_t *g = measure_i_ran(ms, "ntstore-dram-narrow");
        double gops = g ? measure_i_ops_per_cycle(ms, g->mb.id) : 0;
        const bool dram = gops > ops;
        char over[64] = "";
        if (dram)
            snprintf(over, sizeof over, ", over ntstore-l1's %.2f", ops);
        snprintf(v, sizeof v, "%.4gcycles", 1 / (dram ? gops : ops));
        measure_i_value(ms, "core.nt_store_cycles", v,
                        "measured: %s (%s %s) %.2f stores a cycle%s; at most the stores' cost "
                        "(their write path may bind them there too)",
                        dram ? g->mb.id : f->mb.id, dram ? g->mb.function : f->mb.function,
                        dram ? "over the cases' footprint" : "at L1 size", dram ? gops : ops, over);
    }
    /* the faster of the L1-size stream and the one at the cases' footprint
     * that fits the line-zeroing path: on the Zen 5 guest (2026-12-07, 14:56
     * UTC) CLZERO over 36 KiB again and again ran at 14.9 B a cycle, its
     * _ahead twin over 1 GiB at 19.5 (zeroing lines the L1 holds costs more) */
    f = measure_i_ran(ms, "linezero-l1");
    double bpc = measure_i_bpc(ms, "linezero-l1", 1);
    if (measure_i_dram_line_zero(ms) && f && bpc > 0) {
        const measure_fig_t *g = lz_issue_fig(ms);
        const double gbpc = measure_i_bpc(ms, g->mb.id, 1);
        char over[64] = "";
        if (g != f)
            snprintf(over, sizeof over, ", over linezero-l1's %.1f", bpc);
        snprintf(v, sizeof v, "%.4gcycles", 64 / gbpc);
        measure_i_value(ms, "core.line_zero_cycles", v,
                        "measured: %s (%s %s) %.1f B a cycle%s; at most the instruction's cost",
                        g->mb.id, g->mb.function,
                        g != f ? "over the cases' footprint" : "at L1 size", gbpc, over);
    }
}

/* The figures the miss comes from, on a guest (ntstore-dram and its twins). */
static bool host_miss_figures(measure_t *ms)
{
    bool guest = ms->from ? ms->from->guest : ms->h.hypervisor;
    return guest && measure_i_dram_writes(ms) && measure_i_ran(ms, "ntstore-dram-ahead") &&
           measure_i_ran(ms, "ntstore-dram-data-ahead") &&
           /* the data stores deny a dip of the zeros (crosscheck --gains likewise) */
           !hostmiss_denied(measure_i_ran(ms, "ntstore-dram-data")->mb.value,
                            measure_i_ran(ms, "ntstore-dram-data-ahead")->mb.value);
}

int measure_i_host_miss_prepare(measure_t *ms, char *err, size_t errlen)
{
    ms->hm_issue_ns = 0;
    if (!host_miss_figures(ms) ||
        !(hostmiss_ns(measure_i_ran(ms, "ntstore-dram")->mb.value,
                      measure_i_ran(ms, "ntstore-dram-ahead")->mb.value, 0) > 0))
        return 0; /* within the noise: no miss, whatever the issue time */
    const measure_fig_t *z = measure_i_ran(ms, "ntstore-dram");
    wl_spec_t spec;
    char why[256];
    double cycles = 0;
    if (mb_spec(&z->mb, ms->base, &spec, why, sizeof why))
        return errbuf_set(err, errlen, "%s: %s", z->mb.id, why);
    if (hostmiss_issue_cycles(ms->base_path, &spec, &cycles, err, errlen))
        return -1;
    ms->hm_issue_ns = ms->clock_ghz > 0 ? cycles / ms->clock_ghz : 0;
    return 0;
}

bool measure_i_host_miss(measure_t *ms)
{
    return host_miss_figures(ms) &&
           hostmiss_ns(measure_i_ran(ms, "ntstore-dram")->mb.value,
                       measure_i_ran(ms, "ntstore-dram-ahead")->mb.value, ms->hm_issue_ns) > 0;
}

const char *measure_i_write_id(measure_t *ms, bool zeros)
{
    if (measure_i_host_miss(ms))
        return zeros ? "ntstore-dram-ahead" : "ntstore-dram-data-ahead";
    return zeros ? "ntstore-dram" : "ntstore-dram-data";
}

/* The line-zeroing stream's twin takes the miss's place as the NT stores'
 * twins do (host_miss_stage). */
static bool lz_twin(measure_t *ms)
{
    return measure_i_host_miss(ms) && measure_i_ran(ms, "linezero-dram") &&
           measure_i_ran(ms, "linezero-dram-ahead");
}

const char *measure_i_line_zero_id(measure_t *ms)
{
    return lz_twin(ms) ? "linezero-dram-ahead" : "linezero-dram";
}

/* On a guest whose stores paid the host's miss: the twins fit the write
 * path, the plain figures stay for `check`. */
static void host_miss_stage(measure_t *ms)
{
    bool miss = measure_i_host_miss(ms);
    for (size_t i = 0; i < ms->n; i++) {
        measure_fig_t *f = &ms->f[i];
        if (!strcmp(f->mb.id, "ntstore-dram") || !strcmp(f->mb.id, "ntstore-dram-data"))
            f->stage = miss ? 0 : 7;
        else if (!strcmp(f->mb.id, "ntstore-dram-ahead") ||
                 !strcmp(f->mb.id, "ntstore-dram-data-ahead"))
            f->stage = miss ? 7 : 0;
        else if (!strcmp(f->mb.id, "linezero-dram"))
            f->stage = lz_twin(ms) ? 0 : 8;
        else if (!strcmp(f->mb.id, "linezero-dram-ahead"))
            f->stage = lz_twin(ms) ? 8 : 0;
    }
}

void measure_i_host_miss_values(measure_t *ms)
{
    if (!measure_i_host_miss(ms))
        return;
    const measure_fig_t *z = measure_i_ran(ms, "ntstore-dram"),
                        *za = measure_i_ran(ms, "ntstore-dram-ahead");
    const double issue_ns = ms->hm_issue_ns;
    double miss = hostmiss_ns(z->mb.value, za->mb.value, issue_ns); /* > 0 (measure_i_host_miss) */
    char sets[HOSTMISS_SETS][MACHINE_SET_ARG_MAX];
    size_t n = hostmiss_sets(ms->base, miss, sets);
    const machine_t *b = ms->base;
    for (size_t i = 0; i < n; i++) {
        char key[MACHINE_SET_ARG_MAX], *v = strchr(sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(v - sets[i]), sets[i]);
        v++;
        if (!strcmp(key, "tlb.host_page"))
            measure_i_value(ms, key, v,
                            "measured: ntstore-dram %.2f GiB/s against ntstore-dram-ahead "
                            "%.2f (a load from each next 4 KiB page first): this guest's stores "
                            "pay the TLB miss of a host's 4 KiB page",
                            z->mb.value, za->mb.value);
        else if (!strcmp(key, "tlb.host_entries"))
            measure_i_value(ms, key, v, "%s: from %s%s",
                            b->tlb_host_entries ? "same silicon" : "not measured", ms->base_name,
                            b->tlb_host_entries ? "" : " (its tlb.entries_4k: no host figure)");
        else if (!strcmp(key, "tlb.host_miss.nt_line"))
            measure_i_value(ms, key, v,
                            "measured: ntstore-dram's %.1f ns a 4 KiB page less the model's "
                            "issue time of it, %.1f ns",
                            hostmiss_page_ns(z->mb.value), issue_ns);
        else if (!strcmp(key, "tlb.host_miss.line_zero") && lz_twin(ms)) {
            /* what a line-zeroing stream shows of the miss: its page's time
             * less its issue time at core.line_zero_cycles, the faster
             * stream's (measure_i_issue_costs); the model stalls issue that
             * long, as for nt_line */
            const measure_fig_t *l = measure_i_ran(ms, "linezero-dram"),
                                *fast = lz_issue_fig(ms); /* the twin ran: not NULL */
            double issue = hostmiss_page_ns(fast->mb.value);
            double d = hostmiss_page_ns(l->mb.value) - issue;
            char lv[64];
            snprintf(lv, sizeof lv, "%.3fns", d > 0 ? d : 0);
            measure_i_value(ms, key, lv,
                            "measured: linezero-dram's %.1f ns a 4 KiB page less its issue time "
                            "at %s's rate, %.1f ns%s",
                            hostmiss_page_ns(l->mb.value), fast->mb.id, issue,
                            d > 0 ? "" : " (none seen: a miss charges tlb.walk)");
        } else
            measure_i_value(ms, key, v, "%s: nt_line x %s's proportion to its nt_line",
                            b->tlb_host_nt_line_ns > 0 && ms->same_silicon ? "same silicon"
                                                                           : "carried",
                            ms->base_name);
    }
}

/* On a guest whose stores pay the host's miss, the model translates every
 * page through the host's 4 KiB entries (tlb.host_page), those of lat-dram's
 * 2 MiB pages as of lat-walk's 4 KiB ones: the two chases walk alike, and
 * their difference cannot set tlb.walk (at 2026-12-07T12:54Z it pushed it
 * to the bound of its range, 448 cycles, which then stalled every load and
 * temporal store past the host TLB's reach). lat-dram alone fits
 * memory.latency, lat-walk stays for `check`, and tlb.walk is the base's.
 * (host_pages_stage has already taken both chases out when the host's
 * pages showed in the sweep.) */
static void host_walk_stage(measure_t *ms)
{
    const measure_fig_t *d = measure_i_ran(ms, "lat-dram"), *w = measure_i_ran(ms, "lat-walk");
    if (!d || !w || host_pages_near(ms) || !measure_i_host_miss(ms))
        return;
    measure_i_keep_base(ms, "tlb.walk", ms->same_silicon ? "same silicon" : "not measured",
                        "this guest's stores pay its host's 4 KiB pages' miss (tlb.host_page), so "
                        "the model walks the host's entries on 2 MiB pages as on 4 KiB ones, and "
                        "lat-walk %.1f ns against lat-dram %.1f ns does not set it",
                        w->mb.value, d->mb.value);
    for (size_t i = 0; i < ms->n; i++)
        if (!strcmp(ms->f[i].mb.id, "lat-walk"))
            ms->f[i].stage = 0;
}

void measure_i_assign_stages(measure_t *ms)
{
    write_figures_at_scale(ms);
    host_pages_stage(ms);
    host_miss_stage(ms);
    host_walk_stage(ms);
}
