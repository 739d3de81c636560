/*
 * native_run.c - native runs of the two workloads on this host (see
 * native_run.h).
 *
 * Notes
 *  - What is measured: for memset, `loops` passes of the caller over a
 *    prefaulted buffer, through the kernel's native entry point (the same
 *    source the simulator traces); for mmap, `loops` map / fault / unmap
 *    cycles, where the host kernel does the clearing. CLOCK_MONOTONIC brackets
 *    each timed run; nothing else (verification, progress, statistics)
 *    happens inside the bracket.
 *  - Deliberately ignored: frequency scaling and SMT siblings (pin the CPU and
 *    fix the clock outside clearsim if they matter); NUMA placement (the
 *    first touch decides, as in perf bench); for mmap, the simulated kernel's
 *    function / caller / preemption model (the host kernel's own are reported
 *    instead: kernel_release, kernel_preempt).
 *  - Huge pages: native_mem.c; perf counters: native_pmu.c.
 *  - Units: seconds, bytes, bytes per second.
 */
#include "sim/host/native_run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <linux/perf_event.h>

#ifdef CLEARSIM_HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

#include "kernels/callers.h"
#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/host/host.h"
#include "sim/host/native_mem.h"
#include "sim/host/native_pmu.h"
#include "sim/engine/bench.h"
#include "sim/engine/progress.h"
#include "sim/machine/units.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void native_opts_init(native_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = NATIVE_REPEAT_DEFAULT;
    o->cpu = -1;
    o->counters = true;
    o->progress = false;
    o->clock = true;
    o->warm_ms = NATIVE_WARM_MS_DEFAULT;
}

const char *native_page_mode_name(native_page_mode_t m)
{
    switch (m) {
    case NATIVE_PAGE_4K:
        return "4k";
    case NATIVE_PAGE_THP:
        return "thp";
    case NATIVE_PAGE_HUGETLB:
        return "hugetlb";
    }
    return "?";
}

native_stat_t native_stats(const double *x, size_t n)
{
    native_stat_t s = {NAN, NAN, NAN};
    if (n == 0)
        return s;
    s.mean = gsl_stats_mean(x, 1, n);
    if (n >= 2) {
        s.stddev = gsl_stats_sd_m(x, 1, n, s.mean);
        s.ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * s.stddev / sqrt((double)n);
    }
    return s;
}

/* ------------------------------------------------------------ host kernel */

/* The bracketed word of "none voluntary (full) lazy". */
static bool bracketed(const char *s, char *out, size_t len)
{
    const char *l = strchr(s, '('), *r = l ? strchr(l, ')') : NULL;
    if (!l || !r || (size_t)(r - l - 1) >= len)
        return false;
    memcpy(out, l + 1, (size_t)(r - l - 1));
    out[r - l - 1] = '\0';
    return true;
}

/* The preemption model from a kernel config file, or false. */
static bool preempt_from_config(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    static const struct {
        const char *line, *name;
    } opts[] = {
        {"CONFIG_PREEMPT_RT=y", "rt"},     {"CONFIG_PREEMPT_LAZY=y", "lazy"},
        {"CONFIG_PREEMPT=y", "full"},      {"CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"},
        {"CONFIG_PREEMPT_NONE=y", "none"},
    };
    int best = -1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        for (int i = 0; i < (int)(sizeof opts / sizeof opts[0]); i++)
            if (strcmp(line, opts[i].line) == 0 && (best < 0 || i < best))
                best = i;
    }
    fclose(f);
    if (best < 0)
        return false;
    snprintf(out, len, "%s", opts[best].name);
    return true;
}

static void kernel_info(native_result_t *r)
{
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(r->kernel_release, sizeof r->kernel_release, "%s", u.release);
        snprintf(r->kernel_version, sizeof r->kernel_version, "%s", u.version);
    }
    char buf[4096], word[32];
    if (host_read_text("/sys/kernel/debug/sched/preempt", buf, sizeof buf) == 0 &&
        bracketed(buf, word, sizeof word)) {
        snprintf(r->kernel_preempt, sizeof r->kernel_preempt, "%s", word);
        snprintf(r->preempt_source, sizeof r->preempt_source, "/sys/kernel/debug/sched/preempt");
        return;
    }
    bool dynamic = strstr(r->kernel_version, "PREEMPT_DYNAMIC") != NULL;
    if (dynamic && host_read_text("/proc/cmdline", buf, sizeof buf) == 0) {
        for (char *p = strstr(buf, "preempt="); p; p = strstr(p + 1, "preempt=")) {
            if (p != buf && p[-1] != ' ')
                continue;
            size_t n = strcspn(p + 8, " \n");
            if (n && n < sizeof word) {
                memcpy(word, p + 8, n);
                word[n] = '\0';
                snprintf(r->kernel_preempt, sizeof r->kernel_preempt, "%s", word);
                snprintf(r->preempt_source, sizeof r->preempt_source,
                         "/proc/cmdline preempt= (PREEMPT_DYNAMIC kernel)");
                return;
            }
        }
    }
    char path[160];
    snprintf(path, sizeof path, "/boot/config-%s", r->kernel_release);
    if (preempt_from_config(path, word, sizeof word)) {
        snprintf(r->kernel_preempt, sizeof r->kernel_preempt, "%s", word);
        snprintf(r->preempt_source, sizeof r->preempt_source, "%s%s", path,
                 dynamic ? " (the boot default of a PREEMPT_DYNAMIC kernel)" : "");
        return;
    }
    /* uname -v carries the build's preemption flags: "SMP PREEMPT_DYNAMIC", ... */
    const char *v = r->kernel_version;
    const char *m = "none or voluntary";
    if (strstr(v, "PREEMPT_RT"))
        m = "rt";
    else if (dynamic)
        m = "dynamic";
    else if (strstr(v, "PREEMPT_LAZY"))
        m = "lazy";
    else if (strstr(v, "PREEMPT "))
        m = "full";
    snprintf(r->kernel_preempt, sizeof r->kernel_preempt, "%s", m);
    snprintf(r->preempt_source, sizeof r->preempt_source, "uname -v%s",
             dynamic ? " (PREEMPT_DYNAMIC; the mode in effect is in "
                       "/sys/kernel/debug/sched/preempt, not readable here)"
                     : "");
}

/* ------------------------------------------------------------- workloads */

typedef struct wl_native {
    const wl_spec_t *s;
    const kern_info_t *k;  /* memset-based workloads */
    const kern_bench_t *b; /* load, copy, latency */
    pages_t pg;
    uint8_t fill;
    region_t buf; /* memset: the buffer; load, copy: the source; latency: the chase */
    region_t dst; /* copy: the destination */
} wl_native_t;

static void on_clear(void *ctx, uint64_t addr, uint64_t len)
{
    const wl_native_t *w = ctx;
    w->k->native((void *)(uintptr_t)addr, (size_t)len, w->fill);
}

/* One pass over the buffer through the caller (the same pass the trace
 * makes). */
static void memset_pass(wl_native_t *w)
{
    const caller_cb_t cb = {.clear = on_clear, .resched = NULL, .ctx = w};
    wl_memset_pass(w->s, NULL, (uint64_t)(uintptr_t)w->buf.p, &cb);
}

/* load, copy, latency: `loops` passes of the microbenchmark kernel, one
 * call each. */
static int bench_run(wl_native_t *w, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const wl_spec_t *s = w->s;
    uint64_t n = s->kind == WL_LATENCY ? s->size_bytes / WL_LINE_BYTES : s->size_bytes;
    volatile uint64_t sink = 0;
    for (uint32_t l = 0; l < s->loops; l++)
        sink += w->b->native(w->dst.p, w->buf.p, n);
    (void)sink;
    return 0;
}

/* The chase's buffer: each line starts with the address of the line after
 * it, in the order kern_chase_order(WL_CHASE_SEED) gives (the same as in
 * trace mode). */
static int chase_setup(wl_native_t *w, char *err, size_t errlen)
{
    uint64_t lines = w->s->size_bytes / WL_LINE_BYTES;
    uint32_t *next = malloc(lines * sizeof *next);
    if (!next)
        return errbuf_set(err, errlen, "out of memory for a chase of %llu lines",
                          (unsigned long long)lines);
    kern_chase_order(next, (uint32_t)lines, WL_CHASE_SEED);
    for (uint64_t i = 0; i < lines; i++)
        *(unsigned char **)(void *)(w->buf.p + i * WL_LINE_BYTES) =
            w->buf.p + (uint64_t)next[i] * WL_LINE_BYTES;
    free(next);
    return 0;
}

static int memset_run(wl_native_t *w, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    for (uint32_t l = 0; l < w->s->loops; l++)
        memset_pass(w);
    return 0;
}

/* Fault every page of g as the spec says (demand: one byte per page). */
static void touch(const region_t *g, const wl_spec_t *s)
{
    volatile unsigned char *p = g->p;
    for (uint64_t off = 0; off < s->size_bytes; off += s->page_bytes)
        p[off] = 0;
}

static int mmap_run(wl_native_t *w, char *err, size_t errlen)
{
    const bool populate = w->s->fault == WL_FAULT_POPULATE;
    for (uint32_t l = 0; l < w->s->loops; l++) {
        region_t g;
        int rc = native_region_map(&g, w->s->size_bytes, &w->pg, populate, err, errlen);
        if (rc)
            return rc;
        if (!populate)
            touch(&g, w->s);
        native_region_unmap(&g);
    }
    return 0;
}

/* First offset of p[0..n) that is not v, or n. */
static size_t first_not(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return i;
    return n;
}

static int verify_memset(wl_native_t *w, native_result_t *r, char *err, size_t errlen)
{
    const size_t n = (size_t)w->s->size_bytes;
    const unsigned char want = w->k->zero_only ? 0 : w->fill;
    size_t bad = first_not(w->buf.p, n, want);
    if (bad != n)
        return errbuf_set_rc(
            -1, err, errlen,
            "verification failed: after the timed runs, byte %zu of the buffer is 0x%02x, "
            "expected the fill 0x%02x",
            bad, w->buf.p[bad], want);
    /* Poison with the complement, then one more pass must rewrite every byte. */
    memset(w->buf.p, want ^ 0xff, n);
    memset_pass(w);
    bad = first_not(w->buf.p, n, want);
    if (bad != n)
        return errbuf_set_rc(
            -1, err, errlen,
            "verification failed: after a pass over a poisoned buffer, byte %zu is 0x%02x, "
            "expected 0x%02x",
            bad, w->buf.p[bad], want);
    r->huge_bytes = native_smaps_huge_bytes(w->buf.p);
    return 0;
}

/* copy: the destination holds the source; latency: the chase came back to
 * where it started after whole cycles (its length is a multiple of the lines). */
static int verify_bench(wl_native_t *w, native_result_t *r, char *err, size_t errlen)
{
    const wl_spec_t *s = w->s;
    if (s->kind == WL_COPY && memcmp(w->dst.p, w->buf.p, (size_t)s->size_bytes) != 0)
        return errbuf_set_rc(-1, err, errlen,
                             "verification failed: the copy's destination differs from its source");
    if (s->kind == WL_LATENCY) {
        uint64_t end = w->b->native(NULL, w->buf.p, s->size_bytes / WL_LINE_BYTES);
        if (end != (uint64_t)(uintptr_t)w->buf.p)
            return errbuf_set_rc(-1, err, errlen,
                                 "verification failed: the chase did not return to its start "
                                 "after one cycle");
    }
    r->huge_bytes = native_smaps_huge_bytes(w->buf.p);
    return 0;
}

static int verify_mmap(wl_native_t *w, native_result_t *r, char *err, size_t errlen)
{
    const bool populate = w->s->fault == WL_FAULT_POPULATE;
    const size_t n = (size_t)w->s->size_bytes;
    region_t a, b;
    /* Dirty a mapping and unmap it: its pages go back to the allocator, and
     * the next mapping (likely on the same pages) must come back cleared. */
    int rc = native_region_map(&a, n, &w->pg, populate, err, errlen);
    if (rc)
        return rc;
    if (!populate)
        touch(&a, w->s);
    memset(a.p, 0xa5, n);
    native_region_unmap(&a);
    if ((rc = native_region_map(&b, n, &w->pg, populate, err, errlen)))
        return rc;
    if (!populate)
        touch(&b, w->s);
    size_t bad = first_not(b.p, n, 0);
    r->huge_bytes = native_smaps_huge_bytes(b.p);
    if (bad != n) {
        unsigned v = b.p[bad];
        native_region_unmap(&b);
        return errbuf_set_rc(
            -1, err, errlen,
            "verification failed: byte %zu of a freshly faulted mapping is 0x%02x, "
            "expected 0 (the kernel did not clear it)",
            bad, v);
    }
    native_region_unmap(&b);
    return 0;
}

/* ------------------------------------------------------------------- run */

static int check_spec(const wl_spec_t *s, const native_opts_t *o, const host_info_t *h,
                      const kern_info_t **k, char *err, size_t errlen)
{
    char why[256];
    if (wl_validate(s, NULL, why, sizeof why))
        return errbuf_set_rc(-1, err, errlen, "%s", why);
    if (o->repeat < 1 || o->repeat > NATIVE_REPEAT_MAX)
        return errbuf_set_rc(-1, err, errlen, "--repeat %u: out of range 1..%u", o->repeat,
                             NATIVE_REPEAT_MAX);
    if (o->cpu >= CPU_SETSIZE)
        return errbuf_set_rc(-1, err, errlen, "--cpu %d: out of range 0..%d", (int)o->cpu,
                             CPU_SETSIZE - 1);
    if (wl_uses_bench_kernel(s->kind)) {
        const kern_bench_t *b = kern_bench_find(s->function);
        if (!kern_bench_native_supported(b, h->isa, h->features, host_name(h), why, sizeof why))
            return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen, "%s", why);
        return 0;
    }
    *k = kern_find(s->function);
    /* mmap: the host kernel clears; the function names the simulated kernel */
    if (wl_base_kind(s->kind) == WL_MEMSET &&
        !kern_native_supported(*k, h->isa, h->features, host_name(h), why, sizeof why))
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen, "%s", why);
    return 0;
}

static int pin(int32_t want, uint32_t *cpu, cpu_set_t *old, bool *have_old, char *err,
               size_t errlen)
{
    *have_old = sched_getaffinity(0, sizeof *old, old) == 0;
    int c = want >= 0 ? want : sched_getcpu();
    if (c < 0)
        return errbuf_set_rc(-1, err, errlen, "cannot tell which CPU this runs on: %s",
                             strerror(errno));
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return errbuf_set_rc(-1, err, errlen, "--cpu %d: cannot pin to it: %s", c, strerror(errno));
    *cpu = (uint32_t)c;
    return 0;
}

int native_run(const wl_spec_t *spec, const native_opts_t *o, native_result_t *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof *out);
    host_info_t *h = malloc(sizeof *h);
    if (!h)
        return errbuf_set_rc(-1, err, errlen, "out of memory");
    char why[256];
    if (host_detect(h, why, sizeof why)) {
        free(h);
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen, "%s", why);
    }
    const kern_info_t *k = NULL;
    int rc = check_spec(spec, o, h, &k, err, errlen);
    wl_native_t w = {
        .s = spec, .k = k, .fill = (uint8_t)spec->fill, .b = kern_bench_find(spec->function)};
    if (rc == 0)
        rc = native_choose_pages(spec, h, &w.pg, out, err, errlen);
    snprintf(out->host_model, sizeof out->host_model, "%s", h->model_name);
    snprintf(out->thp_enabled, sizeof out->thp_enabled, "%s", h->thp_mode);
    long pg = sysconf(_SC_PAGESIZE);
    out->base_page_bytes = pg > 0 ? (uint64_t)pg : 0;
    free(h);
    if (rc)
        return rc;

    run_result_t *rr = &out->run;
    rr->spec = *spec;
    snprintf(rr->machine, sizeof rr->machine, "host");
    rr->bytes = wl_measured_bytes(spec);
    out->repeat = o->repeat;
    out->page_mode = w.pg.mode;
    kernel_info(out);

    cpu_set_t old;
    bool have_old = false;
    if ((rc = pin(o->cpu, &out->cpu, &old, &have_old, err, errlen)))
        goto restore;

    const bool is_bench = wl_uses_bench_kernel(spec->kind);
    const bool is_memset = !is_bench && wl_base_kind(spec->kind) == WL_MEMSET;
    if (is_memset) {
        if ((rc = native_region_map(&w.buf, spec->size_bytes, &w.pg, false, err, errlen)))
            goto restore;
        /* Prefault as perf bench mem memset does: one call over the whole
         * buffer (fill 0xff) before timing, so that the timed runs measure
         * clearing, not page faults, and the buffer is in a known state. */
        k->native(w.buf.p, (size_t)spec->size_bytes, 0xff);
    }
    if (is_bench) {
        if ((rc = native_region_map(&w.buf, spec->size_bytes, &w.pg, false, err, errlen)))
            goto restore;
        /* prefault; a copy's source holds its --fill, the destination the
         * complement, so that verification sees every byte copied */
        const unsigned char src_fill = spec->kind == WL_COPY ? (unsigned char)spec->fill : 0x5a;
        memset(w.buf.p, src_fill, (size_t)spec->size_bytes);
        if (spec->kind == WL_COPY) {
            if ((rc = native_region_map(&w.dst, spec->size_bytes, &w.pg, false, err, errlen)))
                goto restore;
            memset(w.dst.p, src_fill ^ 0xff, (size_t)spec->size_bytes);
        }
        if (spec->kind == WL_LATENCY && (rc = chase_setup(&w, err, errlen)))
            goto restore;
    }
    int (*run_once)(wl_native_t *, char *, size_t) = is_bench    ? bench_run
                                                     : is_memset ? memset_run
                                                                 : mmap_run;

    counters_t ctr;
    memset(&ctr, 0, sizeof ctr);
    for (int i = 0; i < NCTR; i++)
        ctr.fd[i] = -1;
    if (o->counters)
        native_counters_open(&ctr, is_memset || is_bench, out);
    else
        snprintf(out->counters_reason, sizeof out->counters_reason, "counters not requested");

    time_t started = time(NULL);
    struct tm tm;
    if (gmtime_r(&started, &tm))
        strftime(out->date_utc, sizeof out->date_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (o->clock)
        out->clock_ghz_before = host_measure_core_ghz(NATIVE_CLOCK_TRIALS);
    progress_t *pr = progress_create("native", (uint64_t)o->repeat + 1, o->progress);
    /* warm-up: caches, TLB, page allocator, branch predictors, and the core
     * itself, which runs a memory stream slowly for milliseconds after idling
     * (NATIVE_WARM_MS_DEFAULT): the workload, back to back, until warm_ms */
    double w0 = now_s();
    out->warm_runs = 0;
    do {
        rc = run_once(&w, err, errlen);
        out->warm_runs++;
    } while (rc == 0 && (now_s() - w0) * 1e3 < (double)o->warm_ms &&
             out->warm_runs < NATIVE_WARM_RUNS_MAX);
    out->warm_seconds = now_s() - w0;
    progress_update(pr, 1);
    double bps[NATIVE_REPEAT_MAX];
    for (uint32_t i = 0; rc == 0 && i < o->repeat; i++) {
        native_counters_start(&ctr);
        double t0 = now_s();
        rc = run_once(&w, err, errlen);
        double t1 = now_s();
        native_counters_stop(&ctr);
        out->run_seconds[i] = t1 - t0;
        bps[i] = t1 > t0 ? (double)rr->bytes / (t1 - t0) : NAN;
        progress_update(pr, (uint64_t)i + 2);
    }
    progress_destroy(pr);
    if (o->clock)
        out->clock_ghz_after = host_measure_core_ghz(NATIVE_CLOCK_TRIALS);
    if (rc == 0 && is_bench)
        rc = verify_bench(&w, out, err, errlen);
    else if (rc == 0)
        rc = is_memset ? verify_memset(&w, out, err, errlen) : verify_mmap(&w, out, err, errlen);
    native_counters_result(&ctr, o->repeat, out);
    native_counters_close(&ctr);
    if (!o->counters) {
        for (uint32_t i = 0; i < rr->n_counters; i++)
            rr->counters[i].supported = false;
        out->cycles_measured = false;
        rr->cycles = 0;
    }
    if (rc == 0) {
        out->seconds = native_stats(out->run_seconds, o->repeat);
        out->bytes_per_sec = native_stats(bps, o->repeat);
        rr->seconds = out->seconds.mean;
        rr->bytes_per_sec = out->bytes_per_sec.mean;
        uint64_t loads = wl_measured_loads(spec);
        rr->ns_per_load = loads ? rr->seconds * 1e9 / (double)loads : 0;
    }
restore:
    native_region_unmap(&w.buf);
    native_region_unmap(&w.dst);
    if (have_old)
        sched_setaffinity(0, sizeof old, &old);
    return rc;
}
