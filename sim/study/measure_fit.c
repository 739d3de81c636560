/*
 * measure_fit.c - the machine parameters from the suite's figures: the ones
 * a figure gives directly, then the staged fit (see measure.h).
 *
 * Notes
 *  - Every fitted key starts from what a figure says of it (start_value), or
 *    else the base file's value, and is bounded to 1/16 .. 16 x that start
 *    within the key's range: a fit that ends on a bound says so in its
 *    comment.
 *  - The string startup table is not a fittable key (a table): its points
 *    are what each startup figure's call takes beyond what the model gives
 *    it without a startup, at 64 B, 256 B, 1 KiB and 4 KiB; string.
 *    bytes_per_cycle and call_cycles are then fitted again with it.
 */
#include "sim/study/measure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/progress.h"
#include "sim/engine/run.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"
#include "sim/study/calibrate.h"
#include "sim/study/link_shares.h"
#include "sim/study/microbench.h"

#define FIT_NAME          "measured" /* the name of the machine the fit runs on */
#define FIT_RANGE         16.0 /* a fitted key stays within start / FIT_RANGE .. start x FIT_RANGE */
#define L3_OVER_L2_CYCLES 1.0  /* the least l3.latency the fit may reach, over l2.latency */

typedef struct stage_keys {
    unsigned stage;
    const char *keys[6];
} stage_keys_t;

/* The keys of each stage; a key is fitted only when its stage has figures
 * enough (at least as many as keys; the first keys win). */
static const stage_keys_t stages[] = {
    {1,
     {"core.load_bandwidth", "core.stores_per_cycle", "core.insns_per_cycle",
      "core.store_bandwidth"}},
    {2, {"l2.bandwidth"}},
    {3, {"l3.bandwidth", "l3.latency"}}, /* together: a hit's time holds both (no stage 4) */
    {5, {"memory.latency", "tlb.walk"}},
    {6, {"memory.read_bandwidth", "memory.combined_bandwidth"}},
    {7,
     {"memory.write_bandwidth", "memory.zero_data_fraction", "wc.buffers", "memory.write_latency",
      "core.nt_store_cycles"}},
    {8, {"core.line_zero_cycles", "line_zero.buffers", "memory.zero_write_fraction"}},
    {9, {"core.call_cycles", "string.bytes_per_cycle"}},
    {10, {"os.fault_4k", "os.populate_fraction", "os.fault_2m"}},
};

static void fmt_key(const char *path, double v, char *buf, size_t len)
{
    const cfg_key_t *k = cfg_key_find(path);
    if (k)
        cfg_key_format(k, v, CFG_FMT_YAML, buf, len);
    else
        snprintf(buf, len, "%g", v);
}

/* ------------------------------------------------------------ direct values */

static double in_flight(const measure_t *ms, double bpc, const measure_fig_t *lat);

/* The write link's rate: the stores of data at the cases' footprint; without
 * them the non-temporal stores at L1 size (their lines go to memory at any
 * size), the faster width (the other may be bound by its stores' issue
 * rate). 0 when none ran. */
static double nt_write_bpc(measure_t *ms)
{
    if (measure_i_dram_writes(ms))
        return measure_i_bpc(ms, measure_i_write_id(ms, false), 1);
    return fmax(measure_i_bpc(ms, "ntstore-l1", 1), measure_i_bpc(ms, "ntstore-l1-wide", 1));
}

/* Whether both fills ran with a rate: the written-back zeros' share is theirs. */
static bool fills_ran(measure_t *ms)
{
    const measure_fig_t *fd = measure_i_ran(ms, "store-dram-data"),
                        *fz = measure_i_ran(ms, "store-dram-zero");
    return fd && fz && fd->mb.value > 0 && fz->mb.value > 0;
}

/* The memory path from the DRAM streams, each the rate that binds in it: a
 * load stream is one read per line (memory.read_bandwidth), a copy two
 * reads and a write (src, the destination's RFO, its writeback) and a
 * non-temporal copy a read and a write, on the bus they share
 * (memory.combined_bandwidth: the faster of the two streams' bus rates).
 * These are the starts of stage 6, which fits the read link and the bus to
 * the streams. The miss slots carry the load stream at the DRAM latency
 * (Little's law; the L2's twice over), so that the links, not they, bind;
 * they are not fitted. The non-temporal stores of data at the cases'
 * footprint (else those at L1 size, whose lines go to memory at any size)
 * give the write link's start (stage 7). */
static void dram_values(measure_t *ms)
{
    const measure_fig_t *ld = measure_i_ran(ms, "load-dram"), *cp = measure_i_ran(ms, "copy-dram"),
                        *nt = measure_i_ran(ms, "copynt-dram"),
                        *ntz = measure_i_ran(ms, "copynt-dram-zero"),
                        *lat = measure_i_dram_latency(ms);
    const cfg_key_t *bw = cfg_key_find("memory.read_bandwidth");
    char v[64];
    if (measure_i_host_miss(ms)) { /* a line of zeros' share, not fitted (stage_has) */
        double za = measure_i_bpc(ms, "ntstore-dram-ahead", 1),
               wa = measure_i_bpc(ms, "ntstore-dram-data-ahead", 1);
        snprintf(v, sizeof v, "%.4g", lshare_zero_data(wa, za));
        measure_i_value(ms, "memory.zero_data_fraction", v,
                        "measured: ntstore-dram-data-ahead / ntstore-dram-ahead (%.2f / %.2f "
                        "GiB/s): what a line of zeros costs on the write link where no store pays "
                        "the host's miss",
                        measure_i_ran(ms, "ntstore-dram-data-ahead")->mb.value,
                        measure_i_ran(ms, "ntstore-dram-ahead")->mb.value);
        if (!strcmp(measure_i_line_zero_id(ms), "linezero-dram-ahead")) {
            /* a line-zeroing command's share, likewise (stage_has); the twin
             * may be held by its issue, so at most */
            double lz = measure_i_bpc(ms, "linezero-dram-ahead", 1);
            char zv[64];
            snprintf(zv, sizeof zv, "%.4g", fmin(1.0, wa / lz));
            measure_i_value(ms, "memory.zero_write_fraction", zv,
                            "measured: ntstore-dram-data-ahead / linezero-dram-ahead (%.2f / "
                            "%.2f GiB/s): what a line-zeroing command costs on the write link "
                            "against a line of data where neither pays the host's miss, at most "
                            "(the twin may be held by its issue)",
                            measure_i_ran(ms, "ntstore-dram-data-ahead")->mb.value,
                            measure_i_ran(ms, "linezero-dram-ahead")->mb.value);
        }
        /* what the fill's bus needs beside it, without fills of both kinds
         * (figures of an older detect): the NT share, as on the Zen 5 guest
         * (data/native/fill_bus.sh); with them, below */
        if (measure_i_ran(ms, "store-dram-data") && !fills_ran(ms))
            measure_i_value(ms, "memory.zero_writeback_fraction", v,
                            "measured: as zero_data_fraction (a written-back line of zeros cost "
                            "what an NT line of zeros did on the Zen 5 guest: "
                            "data/native/fill_bus.sh)");
    } else if (measure_i_dram_writes(ms) &&
               measure_i_bpc(ms, measure_i_write_id(ms, true), 1) > 0) {
        /* no host's miss: the plain stores' ratio, not fitted (stage_has).
         * Fitted beside the link, the fences' drain and the buffers, it ran
         * off to its bound on a Zen 3 guest (data 19.3, zeros 43.0 GiB/s:
         * zen3-guest-20261207b.yaml's first fit, a link of 0.41 B a cycle);
         * at most, as the zeros' stream may be held by its stores' issue */
        double z = measure_i_bpc(ms, measure_i_write_id(ms, true), 1),
               w = measure_i_bpc(ms, measure_i_write_id(ms, false), 1);
        snprintf(v, sizeof v, "%.4g", lshare_zero_data(w, z));
        measure_i_value(ms, "memory.zero_data_fraction", v,
                        "measured: %s / %s (%.2f / %.2f GiB/s): what a line of zeros costs on "
                        "the write link against a line of data, at most (the zeros' stream may be "
                        "held by its stores' issue)",
                        measure_i_write_id(ms, false), measure_i_write_id(ms, true),
                        measure_i_ran(ms, measure_i_write_id(ms, false))->mb.value,
                        measure_i_ran(ms, measure_i_write_id(ms, true))->mb.value);
    }
    /* a written-back line of zeros against one of data, from the fills (a
     * line read and one written back a line on the bus they share): 0.6 on
     * the Zen 5 guest, as data on the Zen 3 guest (data/native/fill_bus.sh) */
    if (fills_ran(ms)) {
        const measure_fig_t *fd = measure_i_ran(ms, "store-dram-data"),
                            *fz = measure_i_ran(ms, "store-dram-zero");
        snprintf(v, sizeof v, "%.4g", lshare_zero_writeback(fd->mb.value, fz->mb.value, 1.0));
        measure_i_value(ms, "memory.zero_writeback_fraction", v,
                        "measured: 2 x store-dram-data / store-dram-zero - 1 (%.2f / %.2f "
                        "GiB/s): what a written-back line of zeros costs against one of data, "
                        "where each line of a fill is read and written back on one bus",
                        fd->mb.value, fz->mb.value);
    }
    if (!ld || !cp || !bw)
        return;
    double rd = measure_i_bpc(ms, "load-dram", 1);
    cfg_key_format(bw, rd, CFG_FMT_YAML, v, sizeof v);
    measure_i_value(ms, "memory.read_bandwidth", v,
                    "measured: load-dram %.2f GiB/s, one read a "
                    "line",
                    ld->mb.value);
    double bus = measure_i_bpc(ms, "copy-dram", 3);
    const char *by = "copy-dram x 3 (two reads and a write a line)";
    /* the non-temporal copy of data (of zeros only when that one did not
     * run: their lines may cost less at the memory, memory.zero_data_fraction,
     * the two fills' ratio or stage 7's fit) */
    double ntb = nt ? measure_i_bpc(ms, "copynt-dram", 2) : 0,
           ntzb = ntz ? measure_i_bpc(ms, "copynt-dram-zero", 2) : 0;
    const char *ntby = "copynt-dram x 2 (a read and a write a line)";
    if (!(ntb > 0) && ntzb > 0) {
        ntb = ntzb;
        ntby = "copynt-dram-zero x 2 (a read and a write a line)";
    }
    if (ntb > bus) {
        bus = ntb;
        by = ntby;
    }
    if (bus < rd) {
        bus = rd;
        by = "load-dram: the reads alone";
    }
    if (measure_i_host_miss(ms)) {
        /* not fitted (stage_has): the copies' rate, which the host's miss
         * bounds on the Zen 5 guest (data/native/bus_study.sh), would hold
         * the write figures at it */
        double wl = measure_i_bpc(ms, "ntstore-dram-data-ahead", 1);
        /* a fill of data (a read and a write-back a line) below both links
         * met a limit they share (data/native/fill_bus.sh) */
        double fl =
            measure_i_ran(ms, "store-dram-data") ? measure_i_bpc(ms, "store-dram-data", 2) : 0;
        if (fl > 0 && fl < rd + wl) {
            cfg_key_format(bw, fl, CFG_FMT_YAML, v, sizeof v);
            measure_i_value(ms, "memory.combined_bandwidth", v,
                            "measured: store-dram-data x 2 (a read and a write-back a line), "
                            "under load-dram + ntstore-dram-data-ahead (%.3g B/cycle): the "
                            "limit reads and writes share (data/native/fill_bus.sh)",
                            rd + wl);
        } else {
            cfg_key_format(bw, rd + wl, CFG_FMT_YAML, v, sizeof v);
            measure_i_value(ms, "memory.combined_bandwidth", v,
                            "measured: load-dram + ntstore-dram-data-ahead, the read and write "
                            "links together (%s would give %.3g B/cycle)",
                            by, bus);
        }
    } else {
        cfg_key_format(bw, bus, CFG_FMT_YAML, v, sizeof v);
        measure_i_value(ms, "memory.combined_bandwidth", v, "measured: %s", by);
    }
    double wr = nt_write_bpc(ms);
    cfg_key_format(bw, wr > 0 ? wr : bus, CFG_FMT_YAML, v, sizeof v);
    measure_i_value(ms, "memory.write_bandwidth", v, "(the start of stage 7: %s)",
                    measure_i_dram_writes(ms) ? measure_i_write_id(ms, false) : "ntstore-l1*");
    if (lat) {
        double lines = in_flight(ms, rd, lat);
        snprintf(v, sizeof v, "%.0f", ceil(lines * 2));
        measure_i_value(ms, "l2.mshrs", v,
                        "measured: Little's law, load-dram %.2f GiB/s x %s %.1f ns / 64 B "
                        "= %.1f lines in flight, twice that",
                        ld->mb.value, lat->mb.id, lat->mb.value, lines);
        /* the L1's miss slots at least carry the load stream: an integer
         * key the fit's steps could not move off its staircase */
        snprintf(v, sizeof v, "%.0f", ceil(lines));
        measure_i_value(ms, "l1.mshrs", v,
                        "measured: Little's law, load-dram %.2f GiB/s x %s %.1f ns / 64 B "
                        "= %.1f lines in flight",
                        ld->mb.value, lat->mb.id, lat->mb.value, lines);
    }
}

/* l2.latency from the chase that hits L2: its time less the line's transfer
 * at l2.bandwidth (bpc), which the model adds to a hit; on m too when given. */
static void set_l2_latency(measure_t *ms, machine_t *m, double bpc)
{
    const measure_fig_t *l2 = measure_i_ran(ms, "lat-l2"), *l1 = measure_i_ran(ms, "lat-l1");
    if (!l2)
        return;
    double line = ms->base->l2.line_bytes ? ms->base->l2.line_bytes : 64;
    double xfer = bpc > 0 ? line / bpc : 0;
    double cyc = l2->mb.value * ms->clock_ghz - xfer;
    double floor_cyc = l1 ? l1->mb.value * ms->clock_ghz + 1 : 1;
    if (cyc < floor_cyc)
        cyc = floor_cyc;
    char v[32];
    snprintf(v, sizeof v, "%.2fcycles", cyc);
    measure_i_value(ms, "l2.latency", v,
                    "measured: lat-l2 %.2f ns at %.2f GHz, less the line's %.1f-cycle transfer at "
                    "l2.bandwidth",
                    l2->mb.value, ms->clock_ghz, xfer);
    if (m) {
        char err[160];
        cfg_key_set(m, cfg_key_find("l2.latency"), cyc, err, sizeof err);
    }
}

static void l3_values(measure_t *ms);

static void direct_values(measure_t *ms)
{
    const host_info_t *h = &ms->h;
    char v[400], b[32];
    double lo = 0, hi = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const measure_fig_t *f = &ms->f[i];
        if (f->skipped || f->clock_ghz <= 0)
            continue;
        if (lo == 0 || f->clock_ghz < lo)
            lo = f->clock_ghz;
        if (f->clock_ghz > hi)
            hi = f->clock_ghz;
    }
    snprintf(v, sizeof v, "%.3fGHz", ms->clock_ghz);
    measure_i_value(ms, "core.freq", v,
                    "measured %s: median of the clocks around the figures (%.2f..%.2f GHz), a "
                    "chain of dependent adds",
                    ms->date, lo, hi);
    snprintf(v, sizeof v, "\"%s (measured by clearsim detect --measure, %s)\"",
             h->model_name[0] ? h->model_name : h->vendor, ms->date);
    measure_i_value(ms, "description", v, "measured: the figures in microbench: below");
    measure_i_value(ms, "identity.guest", h->hypervisor ? "true" : "false",
                    "detected: CPUID hypervisor bit%s%s", h->hypervisor ? ", " : "",
                    h->hypervisor ? h->hypervisor_vendor : "");
    measure_i_keep_base(
        ms, "l1.bandwidth", "unused",
        "the model does not use an L1's own rate (core.load_bandwidth is its loads')");
    /* replaced by record_fit when stage 7 fits it (two store widths) */
    measure_i_keep_base(
        ms, "core.nt_store_cycles", "not measured",
        "without figures of two non-temporal store widths, ntstore-l1 does not tell the "
        "stores' issue rate from the write path's, which is fitted "
        "(memory.write_bandwidth)");
    measure_i_keep_base(ms, "memory.turnaround", "not measured",
                        "the copy streams do not tell a read/write turnaround from the bus's rate");
    measure_i_keep_base(
        ms, "os.resched", "not measured",
        "a cond_resched() in the kernel's clear_pages loop, which no microbenchmark reaches");
    measure_i_keep_base(
        ms, "os.fault_1g", "not measured",
        "1 GiB pages exist only when reserved by hand (hugetlbfs); the suite faults 4 KiB "
        "and 2 MiB pages");

    const measure_fig_t *l1 = measure_i_ran(ms, "lat-l1"), *l2 = measure_i_ran(ms, "lat-l2");
    if (l1) {
        snprintf(v, sizeof v, "%.2fcycles", l1->mb.value * ms->clock_ghz);
        measure_i_value(ms, "l1.latency", v, "measured: lat-l1 %.2f ns at %.2f GHz", l1->mb.value,
                        ms->clock_ghz);
    }
    if (l2)
        set_l2_latency(ms, NULL, ms->base->l2.fill_bpc);
    if (ms->base->l3.present && ms->l3_eff_bytes)
        l3_values(ms);
    dram_values(ms);
    /* the elision threshold is the CPU's, from its nominal L3 */
    const machine_t *bm = ms->base;
    if (bm->elide_enabled && bm->elide_threshold_fraction > 0) {
        uint64_t lvl = bm->elide_threshold_level == 1   ? ms->l1_bytes
                       : bm->elide_threshold_level == 2 ? ms->l2_bytes
                                                        : ms->l3_nominal_bytes;
        uint64_t t = (uint64_t)(bm->elide_threshold_fraction * (double)lvl);
        unit_format_size(t, v, sizeof v);
        unit_format_size(lvl, b, sizeof b);
        measure_i_value(ms, "string.elide.threshold", v,
                        "%s: %s's %g x the nominal L%u (%s), the CPU's own size, not a share",
                        ms->same_silicon ? "structural" : "assumed", ms->base_name,
                        bm->elide_threshold_fraction, bm->elide_threshold_level, b);
        measure_i_value(ms, "string.elide.threshold_fraction", "", "%s", "");
    }

    /* memset: this host's C library */
    detect_value_t lv[HOST_LIBC_VALUES];
    char why[200];
    if (host_libc_values(h, ms->base, ms->l2_bytes, ms->l3_nominal_bytes, &ms->libc, lv, why,
                         sizeof why) == HOST_LIBC_VALUES)
        for (int i = 0; i < HOST_LIBC_VALUES; i++)
            measure_i_value(ms, lv[i].path, lv[i].value, "%s", lv[i].comment);
}

/* The chase sweep's L3 (see Notes of measure.h). A host whose chase keeps
 * (nearly) its whole nominal L3 gets the effective size and no foreign
 * fills. A guest whose chase keeps only a share S of the nominal C gets C
 * itself, which it shares, and l3.foreign_fills, the rate R at which the
 * other cores' fills age its lines: under LRU a workload that fills r lines
 * a second keeps about C / (1 + R / r), and the chase fills one line per hit
 * time t_hit, so R = (C / S - 1) / t_hit is the start; foreign_fit() then
 * moves R until the model's own chase has its edge where the sweep's is. */
static void l3_values(measure_t *ms)
{
    const host_info_t *h = &ms->h;
    char v[64], a[32], b[32];
    uint32_t w0 = ms->base->l3.ways;
    for (uint32_t i = 0; i < h->n_caches; i++)
        if (h->caches[i].level == 3 && h->caches[i].ways)
            w0 = h->caches[i].ways;
    const uint64_t nominal = ms->l3_nominal_bytes, eff = ms->l3_eff_bytes;
    const measure_fig_t *hit = NULL;
    for (size_t i = 0; i < ms->n; i++) {
        const measure_fig_t *f = &ms->f[i];
        if (!f->skipped && !strncmp(f->mb.id, "lat-sweep-", 10) &&
            strcmp(f->mb.id, "lat-sweep-dram") && (!hit || f->mb.size_bytes < hit->mb.size_bytes))
            hit = f;
    }
    unit_format_size(eff, a, sizeof a);
    ms->foreign_start_gbps = 0;
    /* the staged fit runs on the share (a smaller cache is faster to run;
     * what it fits does not depend on the size); foreign_fit() then puts
     * the nominal size and the foreign fills in its place */
    uint64_t size;
    uint32_t ways;
    detect_fit_cache(eff, w0, ms->base->l3.line_bytes, &size, &ways);
    unit_format_size(size, v, sizeof v);
    measure_i_value(ms, "l3.size", v, "measured: effective %s, %s%s", a, ms->l3_how,
                    size != eff ? "; the nearest size the cache model takes" : "");
    snprintf(v, sizeof v, "%u", ways);
    measure_i_value(ms, "l3.ways", v, "detected: %u ways%s", w0,
                    ways != w0 ? ", adjusted with the size" : "");
    if (!nominal || eff >= nominal - nominal / 8 || !hit || hit->mb.value <= 0) {
        measure_i_value(ms, "l3.foreign_fills", "0GB/s",
                        "measured: the chase keeps (nearly) the whole nominal L3 (%s)", ms->l3_how);
        return;
    }
    ms->l3_ways = w0;
    double lines_per_ns = ((double)nominal / (double)eff - 1) / hit->mb.value;
    ms->foreign_start_gbps = lines_per_ns * ms->base->l3.line_bytes / 1.073741824;
    unit_format_size(nominal, b, sizeof b);
    snprintf(ms->foreign_start_how, sizeof ms->foreign_start_how,
             "(C %s / S %s - 1) / t_hit %.1f ns of %s = %.4g GB/s", b, a, hit->mb.value, hit->mb.id,
             ms->foreign_start_gbps);
}

/* The model's ns per load of a chase over size_bytes (on 2 MiB pages). */
static double chase_ns(const machine_t *m, uint64_t size_bytes, uint32_t loops)
{
    wl_spec_t s;
    wl_spec_init(&s);
    s.kind = WL_LATENCY;
    snprintf(s.function, sizeof s.function, "chase");
    s.caller = point_default_caller(WL_LATENCY);
    s.loops = loops;
    s.page_bytes = 2ull << 20;
    s.size_bytes = size_bytes & ~(uint64_t)(WL_LINE_BYTES - 1);
    run_opts_t o;
    run_opts_init(&o);
    static run_result_t r; /* large; measure runs one at a time */
    char err[256];
    if (run_predict(m, &s, &o, &r, err, sizeof err))
        return -1;
    return r.ns_per_load;
}

/* l3.foreign_fills by bisection: the rate that puts the model's chase over
 * the sweep's half-miss size half way between its L3 hit time and its DRAM
 * time. The chase's edge is a cliff (a chase that misses fills L3 ten times
 * slower and so keeps a tenth of the share), so the model's time there
 * jumps from one to the other at one rate: that rate is the answer. */
static int foreign_fit(measure_t *ms, machine_t *m, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    if (ms->foreign_start_gbps <= 0)
        return 0;
    const bool victim = m->l3.incl == MACHINE_INCL_VICTIM;
    const uint64_t half = ms->l3_eff_bytes + (victim ? ms->l2_bytes : 0);
    /* the nominal L3 in a shape the cache model takes (a power-of-two set
     * count: 54 MiB x 12 ways is not) */
    uint64_t size;
    uint32_t ways;
    detect_fit_cache(ms->l3_nominal_bytes, ms->l3_ways, m->l3.line_bytes, &size, &ways);
    machine_t *t = malloc(sizeof *t);
    if (!t)
        return errbuf_set(err, errlen, "out of memory");
    *t = *m;
    t->l3.size_bytes = size;
    t->l3.ways = ways;
    t->l3.sets = (uint32_t)(size / ((uint64_t)ways * t->l3.line_bytes));
    t->l3_foreign_bpc = 0;
    double hit = chase_ns(t, half, 3), miss = chase_ns(t, 64 * half, 1);
    double lo = 0, hi = 2 * ms->foreign_start_gbps, target = (hit + miss) / 2;
    const char *why = NULL;
    if (hit <= 0 || miss <= 1.5 * hit)
        why = "the model's chase over the nominal L3 shows no edge";
    /* the edge must lie below hi: widen it until the chase misses there */
    for (int k = 0; !why && k < 6; k++) {
        t->l3_foreign_bpc = hi * 1.073741824 / m->freq_ghz;
        double ns = chase_ns(t, half, 3);
        if (ns < 0)
            why = "the model's chase failed";
        else if (ns >= target)
            break;
        else if (k == 5)
            why = "no rate up to 64 x the start moves the model's chase edge there";
        else
            hi *= 2;
    }
    for (int i = 0; !why && i < 20 && hi - lo > 0.005 * hi; i++) {
        double mid = (lo + hi) / 2;
        t->l3_foreign_bpc = mid * 1.073741824 / m->freq_ghz;
        double ns = chase_ns(t, half, 3);
        if (ns < 0)
            why = "the model's chase failed";
        else if (ns < target)
            lo = mid;
        else
            hi = mid;
    }
    char v[32], hb[32], eb[32];
    unit_format_size(half, hb, sizeof hb);
    unit_format_size(ms->l3_eff_bytes, eb, sizeof eb);
    if (why) {
        /* keep the share the fit ran on (l3.size, l3.ways as set), no fills */
        measure_i_value(ms, "l3.foreign_fills", "0GB/s",
                        "not measured: %s (the L3 is the share the chase keeps, %s)", why, eb);
        free(t);
        return 0;
    }
    double gb = (lo + hi) / 2;
    snprintf(v, sizeof v, "%.4gGB/s", gb);
    measure_i_value(ms, "l3.foreign_fills", v,
                    "measured: the other cores' fill rate that puts the model's chase edge at "
                    "the sweep's half-miss point %s (%.1f ns, half way from %.1f to %.1f; "
                    "start %s)",
                    hb, target, hit, miss, ms->foreign_start_how);
    unit_format_size(size, v, sizeof v);
    measure_i_value(ms, "l3.size", v,
                    "detected: the nominal L3%s, which this core shares with other cores (its "
                    "chase keeps %s: %s; l3.foreign_fills)",
                    size != ms->l3_nominal_bytes ? " (the nearest size the cache model takes)" : "",
                    eb, ms->l3_how);
    snprintf(v, sizeof v, "%u", ways);
    measure_i_value(ms, "l3.ways", v, "detected: %u ways%s", ms->l3_ways,
                    ways != ms->l3_ways ? ", adjusted with the size" : "");
    free(t);
    return 0;
}

/* core.rfo_window from the two DRAM copies: with the store buffer bounding
 * the RFOs in flight, the narrowest copy (eight stores a line) runs well
 * under the widest; with the fill buffers holding missed stores, both run
 * alike. The mode whose model ratio narrow / wide lies clearly nearer the
 * host's is taken (measure_rfo_pick); each is run at the fit's starts, on
 * m. Where the copies are bound elsewhere (a loaded memory path: both
 * ratios near the host's), the base file's value stays, and says why. */
static int choose_rfo_window(measure_t *ms, machine_t *m, char *err, size_t errlen)
{
    const measure_fig_t *n = measure_i_ran(ms, "copy-dram-narrow"),
                        *w = measure_i_ran(ms, "copy-dram");
    if (!n || !w || !(n->mb.value > 0) || !(w->mb.value > 0))
        return 0; /* the base file's value, labelled as the file's other such values */
    run_result_t *r = malloc(sizeof *r);
    if (!r)
        return errbuf_set(err, errlen, "out of memory");
    static const machine_rfo_window_t modes[2] = {MACHINE_RFO_STORE_BUFFER,
                                                  MACHINE_RFO_FILL_BUFFERS};
    double ratio[2];
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        m->rfo_window = modes[i];
        double a = 0, b = 0;
        if (mb_model(&n->mb, m, r, &a, err, errlen) || mb_model(&w->mb, m, r, &b, err, errlen))
            rc = -1;
        else if (!(a > 0 && b > 0))
            rc = errbuf_set(err, errlen, "the model gives no rate for copy-dram%s",
                            a > 0 ? "" : "-narrow");
        ratio[i] = rc ? 0 : a / b;
    }
    free(r);
    if (rc)
        return rc;
    double host = n->mb.value / w->mb.value;
    int best = measure_rfo_pick(host, ratio[0], ratio[1]);
    char why[200];
    snprintf(why, sizeof why,
             "copy-dram-narrow / copy-dram %.2f (%.2f / %.2f GiB/s); the model gives %.2f with "
             "store_buffer, %.2f with fill_buffers",
             host, n->mb.value, w->mb.value, ratio[0], ratio[1]);
    if (best < 0) {
        m->rfo_window = ms->base->rfo_window;
        measure_i_keep_base(ms, "core.rfo_window", ms->same_silicon ? "structural" : "assumed",
                            "%s", why);
        return 0;
    }
    m->rfo_window = modes[best];
    char name[32];
    cfg_key_format(cfg_key_find("core.rfo_window"), modes[best], CFG_FMT_YAML, name, sizeof name);
    measure_i_value(ms, "core.rfo_window", name, "measured: %s", why);
    return 0;
}

/* ------------------------------------------------------------ the fit */

static machine_t *load_values(measure_t *ms, char *err, size_t errlen)
{
    detect_extra_t x = {.values = ms->v, .n_values = ms->nv, .skip_top = "microbench"};
    char *text = detect_machine_yaml_ex(&ms->h, FIT_NAME, ms->base_path, NULL, &x, err, errlen);
    if (!text)
        return NULL;
    machine_t *m = cfg_machine_load_string(text, strlen(text), FIT_NAME ".yaml", err, errlen);
    free(text);
    return m;
}

/* Lines in flight that a rate (bytes/cycle) at a latency (ns) needs. */
static double in_flight(const measure_t *ms, double bpc, const measure_fig_t *lat)
{
    return lat ? bpc * lat->mb.value * ms->clock_ghz / 64.0 : 0;
}

/* A fitted key's start: where a figure bounds the key (a bandwidth at
 * least the rate it carries, miss slots at least the lines in flight that
 * Little's law asks for), that; else the base's value; else a start from
 * the figures. A start near the answer keeps the fit off plateaus where the
 * key does not yet bind. */
static double start_value(measure_t *ms, const machine_t *m, const cfg_key_t *k)
{
    const char *p = k->path;
    double v = 0;
    if (!strcmp(p, "core.load_bandwidth"))
        v = measure_i_bpc(ms, "load-l1", 1);
    else if (!strcmp(p, "core.store_bandwidth"))
        v = measure_i_bpc(ms, "store-l1", 1);
    else if (!strcmp(p, "core.stores_per_cycle")) /* the narrow stores bound by their count */
        v = measure_i_ops_per_cycle(ms, "store-l1-narrow");
    else if (!strcmp(p,
                     "core.insns_per_cycle")) /* the narrow loads and about 1/4 more: their loop */
        v = 1.25 * measure_i_ops_per_cycle(ms, "load-l1-narrow");
    else if (!strcmp(p, "l2.bandwidth")) /* the slower stream: where the level binds first */
        v = fmin(measure_i_bpc(ms, "store-l2", 1), measure_i_bpc(ms, "load-l2", 1));
    else if (!strcmp(p, "l3.bandwidth"))
        v = fmin(measure_i_bpc(ms, "store-l3", 1), measure_i_bpc(ms, "load-l3", 1));
    else if (!strcmp(p, "memory.read_bandwidth"))
        v = measure_i_bpc(ms, "load-dram", 1);
    else if (!strcmp(p, "memory.combined_bandwidth"))
        v = measure_i_bpc(ms, "copy-dram", 3);
    else if (!strcmp(p, "memory.write_bandwidth"))
        v = nt_write_bpc(ms);
    else if (!strcmp(p, "memory.zero_write_fraction") && measure_i_dram_line_zero(ms))
        v = fmin(1.0, measure_i_bpc(ms, measure_i_write_id(ms, false), 1) /
                          measure_i_bpc(ms, measure_i_line_zero_id(ms), 1));
    else if (!strcmp(p, "core.nt_store_cycles") && measure_i_ops_per_cycle(ms, "ntstore-l1") > 0)
        v = 1 /
            measure_i_ops_per_cycle(ms, "ntstore-l1"); /* the narrow stores bound by their count */
    else if (!strcmp(p, "line_zero.buffers")) /* a write is acknowledged in about half a read */
        v = ceil(0.5 *
                 in_flight(ms, measure_i_bpc(ms, "linezero-l1", 1), measure_i_dram_latency(ms)));
    else if (!strcmp(p, "memory.write_latency")) /* a short fenced call is mostly its drain */
        v = measure_i_ns(ms, "fence-nt-256B");
    else if (!strcmp(p, "wc.buffers") && measure_i_dram_writes(ms) &&
             measure_i_ns(ms, "fence-nt-256B") > 0) {
        /* at least the lines in flight that carry the zeros' stream for the
         * drain's time (Little's law), and the base's count where that is
         * more. From a base's few buffers (Milan's 8) every stream started
         * bound by them, the link moved nothing, and the fit left it at a
         * bound of its range (zen3-guest-20261207b) */
        double base = 0;
        cfg_key_get(m, k, &base);
        v = fmax(base, ceil(measure_i_bpc(ms, measure_i_write_id(ms, true), 1) *
                            measure_i_ns(ms, "fence-nt-256B") * ms->clock_ghz / 64.0));
    } else if (!strcmp(p, "memory.latency"))
        v = measure_i_dram_latency(ms) ? measure_i_dram_latency(ms)->mb.value : 0;
    else if (!strcmp(p, "tlb.walk") && measure_i_ran(ms, "lat-walk") &&
             measure_i_ran(ms, "lat-dram"))
        /* every load of the chase on 4 KiB pages walks: its extra time */
        v = (measure_i_ran(ms, "lat-walk")->mb.value - measure_i_ran(ms, "lat-dram")->mb.value) *
            ms->clock_ghz;
    else if (!strcmp(p, "core.line_zero_cycles") && measure_i_bpc(ms, "linezero-l1", 1) > 0)
        v = 64 / measure_i_bpc(ms, "linezero-l1", 1);
    else if (!strcmp(p, "os.fault_4k")) /* a fault's time, its clear included */
        v = measure_i_ns(ms, "fault-4k") / 256;
    else if (!strcmp(p, "os.fault_2m"))
        v = measure_i_ns(ms, "fault-2m") / 2;
    if (v > 0 && v >= k->min && v <= k->max)
        return v;
    cfg_key_get(m, k, &v);
    if (v > 0)
        return v;
    if (!strcmp(p, "memory.write_latency"))
        return m->mem_latency_ns / 4;
    if (!strcmp(p, "tlb.walk"))
        return m->l2.latency_cycles;
    return 1;
}

static bool stage_has(measure_t *ms, unsigned stage, const char *key)
{
    /* issue costs measured directly while the write path is fitted at the
     * cases' footprint (issue_costs) */
    if ((!strcmp(key, "core.nt_store_cycles") && measure_i_dram_writes(ms)) ||
        (!strcmp(key, "core.line_zero_cycles") && measure_i_dram_line_zero(ms)))
        return false;
    /* a guest whose stores pay its host's miss: the bus is the links together;
     * a line of zero data's share is the _ahead figures' ratio there, the
     * plain ones' elsewhere, wherever both fills ran at the cases' footprint
     * (dram_values) */
    if (!strcmp(key, "memory.combined_bandwidth") && measure_i_host_miss(ms))
        return false;
    if (!strcmp(key, "memory.zero_data_fraction") &&
        (measure_i_host_miss(ms) || measure_i_dram_writes(ms)))
        return false;
    if (!strcmp(key, "memory.zero_write_fraction") &&
        !strcmp(measure_i_line_zero_id(ms), "linezero-dram-ahead"))
        return false;
    /* keys that need a figure of their own */
    const char *need =
        !strcmp(key, "line_zero.buffers") || !strcmp(key, "core.line_zero_cycles") ? "linezero-l1"
        : !strcmp(key, "memory.zero_write_fraction")
            ? (measure_i_dram_line_zero(ms) ? measure_i_line_zero_id(ms) : "linezero-l1")
        : !strcmp(key, "string.bytes_per_cycle")    ? "string-l1"
        : !strcmp(key, "os.fault_2m")               ? "fault-2m"
        : !strcmp(key, "core.nt_store_cycles")      ? "ntstore-l1-wide"
        : !strcmp(key, "memory.zero_data_fraction") ? "ntstore-l1-data"
        : !strcmp(key, "os.populate_fraction")      ? "fault-4k-populate"
                                                    : NULL;
    (void)stage;
    if (!need)
        return true;
    const measure_fig_t *f = measure_i_fig(ms, need);
    return f && !f->skipped;
}

/* Add the figures of `only` (0: every stage) and their keys to d. */
static int build_data(measure_t *ms, const machine_t *m, unsigned only, cal_data_t *d, char *err,
                      size_t errlen)
{
    memset(d, 0, sizeof *d);
    snprintf(d->machine, sizeof d->machine, "%s", FIT_NAME);
    snprintf(d->path, sizeof d->path, "(detect --measure)");
    size_t per_stage[MEASURE_STAGES + 1] = {0};
    for (size_t i = 0; i < ms->n; i++) {
        const measure_fig_t *f = &ms->f[i];
        if (f->skipped || !f->stage || (only && f->stage != only) || d->n_cases == CAL_CASES_MAX)
            continue;
        cal_case_t *c = &d->cases[d->n_cases];
        if (mb_cal_case(&f->mb, m, c, err, errlen))
            return -1;
        c->fit = true;
        c->stage = f->stage;
        d->n_cases++;
        per_stage[f->stage]++;
    }
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        unsigned st = stages[s].stage;
        if (only && st != only)
            continue;
        size_t room = per_stage[st];
        for (size_t j = 0; j < 6 && stages[s].keys[j] && room; j++) {
            const char *path = stages[s].keys[j];
            const cfg_key_t *k = cfg_key_find(path);
            if (!k || !stage_has(ms, st, path))
                continue;
            cal_key_t *ck = &d->keys[d->n_keys++];
            ck->key = k;
            ck->stage = st;
            double v0 = start_value(ms, m, k);
            bool share = !strcmp(path, "memory.zero_write_fraction") ||
                         !strcmp(path, "memory.zero_data_fraction") ||
                         !strcmp(path, "os.populate_fraction");
            ck->lo = share ? 0.02 : v0 / FIT_RANGE;
            ck->hi = share ? 1.0 : v0 * FIT_RANGE;
            if (ck->lo < k->min)
                ck->lo = k->min;
            /* the loader's order of levels: an L3 hit takes longer than an L2 hit */
            if (!strcmp(path, "l3.latency") && ck->lo < m->l2.latency_cycles + L3_OVER_L2_CYCLES)
                ck->lo = m->l2.latency_cycles + L3_OVER_L2_CYCLES;
            if (ck->hi > k->max)
                ck->hi = k->max;
            room--;
        }
    }
    return 0;
}

/* The start values inside the bounds (a key the base left at 0). */
static int set_starts(measure_t *ms, machine_t *m, const cal_data_t *d, char *err, size_t errlen)
{
    for (size_t i = 0; i < d->n_keys; i++) {
        const cal_key_t *k = &d->keys[i];
        double v = start_value(ms, m, k->key);
        if (v <= k->lo || v >= k->hi)
            v = k->hi <= 1 ? (k->lo + k->hi) / 2 : sqrt(k->lo * k->hi);
        if (cfg_key_set(m, k->key, v, err, errlen))
            return -1;
    }
    return 0;
}

static void record_fit(measure_t *ms, const machine_t *m, const cal_data_t *d,
                       const cal_result_t *res)
{
    for (size_t i = 0; i < d->n_keys; i++) {
        const cal_key_t *k = &d->keys[i];
        char ids[256] = "", v[64], sig[64] = "?";
        for (size_t j = 0; j < d->n_cases; j++) {
            if (d->cases[j].stage != k->stage)
                continue;
            size_t o = strlen(ids);
            snprintf(ids + o, sizeof ids - o, "%s%s", o ? ", " : "", d->cases[j].id);
        }
        double val = 0;
        cfg_key_get(m, k->key, &val);
        fmt_key(k->key->path, val, v, sizeof v);
        if (isfinite(res->sigma[i]))
            fmt_key(k->key->path, res->sigma[i], sig, sizeof sig);
        bool edge = val <= k->lo * 1.001 || val >= k->hi * 0.999;
        /* no interval (the figures do not move it, or an integer key only in
         * steps), or one wider than the key's whole range: its figures barely
         * move it; at a bound the interval is one-sided (the fit's logistic
         * has no slope there) */
        bool loose = !edge && (!isfinite(res->sigma[i]) || res->sigma[i] > k->hi - k->lo);
        measure_i_value(ms, k->key->path, v, "fitted: stage %u to %s (+- %s)%s%s", k->stage, ids,
                        loose || edge ? "?" : sig, edge ? "; at the bound of its range" : "",
                        loose ? "; these figures barely move it" : "");
    }
}

/* The startup table from the startup figures (see Notes). */
static int derive_startup(measure_t *ms, machine_t *m, char *err, size_t errlen)
{
    static const char *const ids[] = {"startup-64B", "startup-256B", "startup-1KiB",
                                      "startup-4KiB"};
    machine_point_t pts[4];
    uint32_t n = 0;
    machine_t *zero = malloc(sizeof *zero);
    run_result_t *r = malloc(sizeof *r);
    if (!zero || !r) {
        free(zero);
        free(r);
        return errbuf_set(err, errlen, "out of memory");
    }
    *zero = *m;
    zero->n_startup = 0;
    int rc = 0;
    for (size_t i = 0; i < 4 && rc == 0; i++) {
        const measure_fig_t *f = measure_i_ran(ms, ids[i]);
        if (!f)
            continue;
        wl_spec_t s;
        run_opts_t o;
        run_opts_init(&o);
        if (mb_spec(&f->mb, zero, &s, err, errlen) || run_predict(zero, &s, &o, r, err, errlen)) {
            rc = -1;
            break;
        }
        double calls = (double)wl_measured_bytes(&s) / (double)f->mb.chunk_bytes;
        double meas_cycles = (double)wl_measured_bytes(&s) / (f->mb.value * 1073741824.0) * 1e9 *
                             m->freq_ghz / calls;
        double model_cycles = r->seconds * 1e9 * m->freq_ghz / calls;
        double extra = meas_cycles - model_cycles;
        pts[n].len_bytes = f->mb.chunk_bytes;
        pts[n].cycles = extra > 0 ? extra : 0;
        n++;
    }
    free(zero);
    free(r);
    if (rc || n == 0)
        return rc;
    m->n_startup = n;
    memcpy(m->startup, pts, n * sizeof pts[0]);
    char v[160] = "[", one[64], len[32], ids_text[128] = "";
    for (uint32_t i = 0; i < n; i++) {
        unit_format_size(pts[i].len_bytes, len, sizeof len);
        snprintf(one, sizeof one, "%s{len: %s, cost: %.1fcycles}", i ? ", " : "", len,
                 pts[i].cycles);
        strncat(v, one, sizeof v - strlen(v) - 2);
    }
    strncat(v, "]", sizeof v - strlen(v) - 1);
    for (size_t i = 0; i < 4; i++) {
        if (!measure_i_ran(ms, ids[i]))
            continue;
        size_t o = strlen(ids_text);
        snprintf(ids_text + o, sizeof ids_text - o, "%s%s", o ? ", " : "", ids[i]);
    }
    measure_i_value(ms, "string.startup", v,
                    "measured: %s, each call's time beyond the model's without a startup",
                    ids_text);
    return 0;
}

int measure_fit(measure_t *ms, char *err, size_t errlen)
{
    if (measure_i_host_miss_prepare(ms, err, errlen))
        return -1;
    measure_i_assign_stages(ms);
    direct_values(ms);
    measure_i_issue_costs(ms);
    measure_i_host_miss_values(ms);
    machine_t *m = load_values(ms, err, errlen);
    if (!m)
        return -1;
    cal_data_t *d = malloc(sizeof *d);
    cal_result_t *res = malloc(sizeof *res);
    int rc = -1;
    if (!d || !res) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    bool log = ms->o.progress; /* a terminal: the progress line; else a line per evaluation */
    if (choose_rfo_window(ms, m, err, errlen) || build_data(ms, m, 0, d, err, errlen) ||
        set_starts(ms, m, d, err, errlen) ||
        cal_fit(m, d, ms->o.threads, log, ms->o.max_iter, res, err, errlen))
        goto out;
    record_fit(ms, m, d, res);
    set_l2_latency(ms, m, m->l2.fill_bpc);
    if (measure_i_ran(ms, "string-l1")) {
        /* the table, the string rate and call cost again with it, the table
         * again at that rate */
        if (derive_startup(ms, m, err, errlen) || build_data(ms, m, 9, d, err, errlen) ||
            cal_fit(m, d, ms->o.threads, log, ms->o.max_iter, res, err, errlen))
            goto out;
        record_fit(ms, m, d, res);
        if (derive_startup(ms, m, err, errlen))
            goto out;
    }
    if (foreign_fit(ms, m, err, errlen))
        goto out;
    ms->fitted = true;
    rc = 0;
out:
    free(d);
    free(res);
    cfg_machine_destroy(m);
    return rc;
}
