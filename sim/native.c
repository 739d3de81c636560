/*
 * native.c - native runs of the two workloads on this host (see native.h).
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
 *  - Huge pages: hugetlb is used only when enough pages of the size are free
 *    (/sys/kernel/mm/hugepages); for 2 MiB, THP through madvise(MADV_HUGEPAGE)
 *    is the fallback when THP is not "never". huge_bytes (from
 *    /proc/self/smaps: AnonHugePages + *_Hugetlb) says how much of the
 *    verification mapping really got huge pages.
 *  - Counters: one perf event per counter (no group, so that the kernel may
 *    multiplex them), disabled at open, reset + enabled right before the start
 *    time and disabled right after the end time of each timed run. memset
 *    counts user space only (the clearing runs there); mmap counts user and
 *    kernel (the clearing runs in the kernel), which needs
 *    perf_event_paranoid <= 1 or CAP_PERFMON.
 *  - Units: seconds, bytes, bytes per second.
 */
#include "sim/native.h"

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
#include "sim/errbuf.h"
#include "sim/host.h"
#include "sim/progress.h"
#include "sim/units.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define PAGE_4K (4ull << 10)
#define PAGE_2M (2ull << 20)
#define PAGE_1G (1ull << 30)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned ilog2_u64(uint64_t v)
{
    unsigned n = 0;
    while (v >>= 1)
        n++;
    return n;
}

void native_opts_init(native_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = NATIVE_REPEAT_DEFAULT;
    o->cpu = -1;
    o->counters = true;
    o->progress = false;
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

static int read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n ? 0 : -1;
}

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
    if (read_small("/sys/kernel/debug/sched/preempt", buf, sizeof buf) == 0 &&
        bracketed(buf, word, sizeof word)) {
        snprintf(r->kernel_preempt, sizeof r->kernel_preempt, "%s", word);
        snprintf(r->preempt_source, sizeof r->preempt_source, "/sys/kernel/debug/sched/preempt");
        return;
    }
    bool dynamic = strstr(r->kernel_version, "PREEMPT_DYNAMIC") != NULL;
    if (dynamic && read_small("/proc/cmdline", buf, sizeof buf) == 0) {
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

/* ------------------------------------------------------------------ pages */

typedef struct pages {
    native_page_mode_t mode;
    uint64_t page_bytes;
} pages_t;

static const char *thp_or_unknown(const host_info_t *h)
{
    return h->thp_mode[0] ? h->thp_mode : "not available";
}

static bool hugepage_size_exists(const host_info_t *h, uint64_t page_bytes)
{
    for (uint32_t i = 0; i < h->n_hugepages; i++)
        if (h->hugepages[i].page_bytes == page_bytes)
            return true;
    return false;
}

static uint64_t hugepage_total(const host_info_t *h, uint64_t page_bytes)
{
    for (uint32_t i = 0; i < h->n_hugepages; i++)
        if (h->hugepages[i].page_bytes == page_bytes)
            return h->hugepages[i].total;
    return 0;
}

static int choose_pages(const wl_spec_t *s, const host_info_t *h, pages_t *p, native_result_t *r,
                        char *err, size_t errlen)
{
    p->page_bytes = s->page_bytes;
    if (s->page_bytes == PAGE_4K) {
        p->mode = NATIVE_PAGE_4K;
        snprintf(r->page_how, sizeof r->page_how, "anonymous mmap, madvise(MADV_NOHUGEPAGE)");
        return 0;
    }
    const uint64_t need = (s->size_bytes + s->page_bytes - 1) / s->page_bytes;
    const uint64_t kb = s->page_bytes >> 10;
    const uint64_t free_pages = host_hugepages_free(h, s->page_bytes);
    if (free_pages >= need) {
        p->mode = NATIVE_PAGE_HUGETLB;
        snprintf(r->page_how, sizeof r->page_how,
                 "MAP_HUGETLB|MAP_HUGE_%s (%" PRIu64 " of %" PRIu64 " free %" PRIu64 "kB pages)",
                 s->page_bytes == PAGE_2M ? "2MB" : "1GB", need, free_pages, kb);
        return 0;
    }
    bool thp = strcmp(h->thp_mode, "always") == 0 || strcmp(h->thp_mode, "madvise") == 0;
    if (s->page_bytes == PAGE_2M && thp) {
        p->mode = NATIVE_PAGE_THP;
        snprintf(r->page_how, sizeof r->page_how,
                 "THP: madvise(MADV_HUGEPAGE), THP enabled '%s' (%" PRIu64
                 " free hugetlb pages, %" PRIu64 " needed)",
                 h->thp_mode, free_pages, need);
        return 0;
    }
    char sz[32];
    unit_format_size(s->page_bytes, sz, sizeof sz);
    if (!hugepage_size_exists(h, s->page_bytes))
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen,
                             "--page %s: this kernel offers no %" PRIu64
                             "kB hugetlb pages (no /sys/kernel/mm/hugepages/hugepages-%" PRIu64
                             "kB)%s",
                             sz, kb, kb, s->page_bytes == PAGE_2M ? " and THP is off" : "");
    uint64_t want = hugepage_total(h, s->page_bytes) + (need - free_pages);
    return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen,
                         "--page %s: %" PRIu64 " free %" PRIu64 "kB hugetlb pages, %" PRIu64
                         " needed%s%s%s; reserve them with 'echo %" PRIu64
                         " > /sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/nr_hugepages'",
                         sz, free_pages, kb, need, s->page_bytes == PAGE_2M ? " and THP is '" : "",
                         s->page_bytes == PAGE_2M ? thp_or_unknown(h) : "",
                         s->page_bytes == PAGE_2M ? "'" : "", want, kb);
}

typedef struct region {
    void *base; /* what mmap returned */
    size_t len; /* what was mapped */
    unsigned char *p;
} region_t;

static int region_map(region_t *g, uint64_t bytes, const pages_t *pg, bool populate, char *err,
                      size_t errlen)
{
    const size_t len = (size_t)((bytes + pg->page_bytes - 1) / pg->page_bytes * pg->page_bytes);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    memset(g, 0, sizeof *g);
    char sz[32];
    if (pg->mode == NATIVE_PAGE_HUGETLB) {
        flags |= MAP_HUGETLB | (int)(ilog2_u64(pg->page_bytes) << MAP_HUGE_SHIFT);
        if (populate)
            flags |= MAP_POPULATE;
        g->len = len;
    } else if (pg->mode == NATIVE_PAGE_THP) {
        g->len = len + (size_t)pg->page_bytes; /* room to align to the huge page */
    } else {
        g->len = len;
    }
    g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (g->base == MAP_FAILED) {
        int e = errno;
        g->base = NULL;
        unit_format_size(bytes, sz, sizeof sz);
        return errbuf_set_rc(pg->mode == NATIVE_PAGE_HUGETLB ? NATIVE_ENOTSUP : -1, err, errlen,
                             "cannot map %s%s: %s", sz,
                             pg->mode == NATIVE_PAGE_HUGETLB ? " of hugetlb pages" : "",
                             strerror(e));
    }
    uintptr_t a = (uintptr_t)g->base;
    if (pg->mode == NATIVE_PAGE_THP)
        a = (a + (uintptr_t)pg->page_bytes - 1) & ~(uintptr_t)(pg->page_bytes - 1);
    g->p = (unsigned char *)a;
    if (pg->mode == NATIVE_PAGE_HUGETLB)
        return 0;
    /* 4 KiB: keep THP away (it may be "always"); THP: ask for it. Both before
     * any fault, so populate goes through madvise, not MAP_POPULATE. */
    int advice = pg->mode == NATIVE_PAGE_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
    if (madvise(g->p, len, advice) != 0 && pg->mode == NATIVE_PAGE_THP) {
        int e = errno;
        munmap(g->base, g->len);
        g->base = NULL;
        return errbuf_set_rc(NATIVE_ENOTSUP, err, errlen, "madvise(MADV_HUGEPAGE) failed: %s",
                             strerror(e));
    }
    if (populate && madvise(g->p, len, MADV_POPULATE_WRITE) != 0) {
        int e = errno;
        munmap(g->base, g->len);
        g->base = NULL;
        return errbuf_set_rc(e == EINVAL ? NATIVE_ENOTSUP : -1, err, errlen,
                             "madvise(MADV_POPULATE_WRITE) failed: %s%s", strerror(e),
                             e == EINVAL ? " (it needs Linux 5.14 or later)" : "");
    }
    return 0;
}

static void region_unmap(region_t *g)
{
    if (g->base)
        munmap(g->base, g->len);
    g->base = NULL;
}

/* Bytes backed by huge pages in the mapping that holds addr (/proc/self/smaps). */
static uint64_t smaps_huge_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    bool in = false;
    uint64_t kb_total = 0;
    while (fgets(line, sizeof line, f)) {
        uint64_t lo, hi, kb;
        char key[64];
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &lo, &hi) == 2 && strchr(line, ' ') &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (in)
                break;
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            continue;
        }
        if (in && sscanf(line, "%63[^:]: %" SCNu64 " kB", key, &kb) == 2 &&
            (strcmp(key, "AnonHugePages") == 0 || strcmp(key, "Private_Hugetlb") == 0 ||
             strcmp(key, "Shared_Hugetlb") == 0))
            kb_total += kb;
    }
    fclose(f);
    return kb_total << 10;
}

/* ---------------------------------------------------------------- counters */

#define NCTR 7

typedef struct counters {
    int fd[NCTR];
    double sum[NCTR];
    bool counted[NCTR]; /* counted in every timed run so far */
    bool any;
} counters_t;

static const struct {
    const char *name;
    uint32_t type;
    uint64_t config;
} builtin_events[NCTR] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"L1-dcache-loads", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)},
    {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"LLC-loads", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)},
    {"LLC-load-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"dTLB-load-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
};

/* The event's type/config: libpfm4 ("perf::L1-DCACHE-LOADS") when built with
 * it and it resolves the name, else the builtin encoding. */
static bool encode_event(int i, bool user_only, struct perf_event_attr *attr)
{
    attr->type = builtin_events[i].type;
    attr->config = builtin_events[i].config;
#ifdef CLEARSIM_HAVE_PFM
    static int pfm_state; /* 0 untried, 1 ok, -1 failed */
    if (pfm_state == 0)
        pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
    if (pfm_state == 1) {
        char name[64] = "perf::";
        size_t o = strlen(name);
        for (const char *p = builtin_events[i].name; *p && o + 1 < sizeof name; p++)
            name[o++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        name[o] = '\0';
        struct perf_event_attr a;
        pfm_perf_encode_arg_t arg;
        memset(&a, 0, sizeof a);
        memset(&arg, 0, sizeof arg);
        arg.attr = &a;
        arg.size = sizeof arg;
        int plm = user_only ? PFM_PLM3 : PFM_PLM0 | PFM_PLM3;
        if (pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS) {
            attr->type = a.type;
            attr->config = a.config;
            attr->config1 = a.config1;
            attr->config2 = a.config2;
            return true;
        }
    }
#else
    (void)user_only;
#endif
    return false;
}

static long open_event(struct perf_event_attr *attr)
{
    return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

static void counters_open(counters_t *c, bool user_only, native_result_t *r)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NCTR; i++)
        c->fd[i] = -1;
    bool pfm_used = false, builtin_used = false;
    for (int i = 0; i < NCTR; i++) {
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        bool via_pfm = encode_event(i, user_only, &attr);
        attr.size = sizeof attr;
        attr.disabled = 1;
        attr.exclude_hv = 1;
        attr.exclude_kernel = user_only ? 1 : 0;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        long fd = open_event(&attr);
        if (fd < 0) {
            int e = errno;
            if (i == 0) {
                /* no cycles: the PMU is absent or forbidden; say why once */
                char p[32] = "?";
                if (read_small("/proc/sys/kernel/perf_event_paranoid", p, sizeof p) == 0)
                    p[strcspn(p, "\n")] = '\0';
                if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
                    snprintf(r->counters_reason, sizeof r->counters_reason,
                             "perf_event_open(cycles): %s: this system exposes no hardware PMU "
                             "(a VM without a virtual PMU?)",
                             strerror(e));
                else if (e == EACCES || e == EPERM)
                    snprintf(r->counters_reason, sizeof r->counters_reason,
                             "perf_event_open(cycles%s): %s (kernel.perf_event_paranoid = %s)",
                             user_only ? "" : ", kernel included", strerror(e), p);
                else
                    snprintf(r->counters_reason, sizeof r->counters_reason,
                             "perf_event_open(cycles): %s", strerror(e));
                return;
            }
            if (!r->counters_reason[0])
                snprintf(r->counters_reason, sizeof r->counters_reason,
                         "%s: not counted on this CPU (perf_event_open: %s)",
                         builtin_events[i].name, strerror(e));
            continue;
        }
        c->fd[i] = (int)fd;
        c->counted[i] = true;
        c->any = true;
        if (via_pfm)
            pfm_used = true;
        else
            builtin_used = true;
    }
    snprintf(r->counters_via, sizeof r->counters_via, "%s",
             pfm_used && !builtin_used ? "libpfm4"
             : pfm_used                ? "libpfm4+builtin"
                                       : "builtin");
}

static void counters_start(counters_t *c)
{
    for (int i = 0; i < NCTR; i++)
        if (c->fd[i] >= 0) {
            ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

static void counters_stop(counters_t *c)
{
    for (int i = 0; i < NCTR; i++)
        if (c->fd[i] >= 0)
            ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    for (int i = 0; i < NCTR; i++) {
        if (c->fd[i] < 0)
            continue;
        uint64_t v[3] = {0, 0, 0}; /* value, time enabled, time running */
        if (read(c->fd[i], v, sizeof v) != (ssize_t)sizeof v || v[2] == 0) {
            c->counted[i] = false; /* never scheduled on the PMU in this run */
            continue;
        }
        double scaled = (double)v[0];
        if (v[2] < v[1])
            scaled *= (double)v[1] / (double)v[2];
        c->sum[i] += scaled;
    }
}

static void counters_close(counters_t *c)
{
    for (int i = 0; i < NCTR; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
}

static void counters_result(const counters_t *c, uint32_t runs, native_result_t *r)
{
    run_result_t *rr = &r->run;
    rr->n_counters = 0;
    for (int i = 0; i < NCTR; i++) {
        run_counter_t *k = &rr->counters[rr->n_counters++];
        snprintf(k->name, sizeof k->name, "%s", builtin_events[i].name);
        k->supported = c->fd[i] >= 0 && c->counted[i];
        k->value = k->supported ? (uint64_t)llround(c->sum[i] / runs) : 0;
        if (c->fd[i] >= 0 && !c->counted[i] && !r->counters_reason[0])
            snprintf(r->counters_reason, sizeof r->counters_reason,
                     "%s: the kernel never scheduled it on the PMU", builtin_events[i].name);
    }
    r->cycles_measured = rr->counters[0].supported;
    rr->cycles = r->cycles_measured ? rr->counters[0].value : 0;
}

/* ------------------------------------------------------------- workloads */

typedef struct wl_native {
    const wl_spec_t *s;
    const kern_info_t *k;
    pages_t pg;
    uint8_t fill;
    region_t buf; /* memset: the buffer */
} wl_native_t;

static void on_clear(void *ctx, uint64_t addr, uint64_t len)
{
    const wl_native_t *w = ctx;
    w->k->native((void *)(uintptr_t)addr, (size_t)len, w->fill);
}

/* One pass over the buffer through the caller. */
static void memset_pass(wl_native_t *w)
{
    const wl_spec_t *s = w->s;
    if (s->caller == WL_CALLER_REPEAT) {
        w->k->native(w->buf.p, (size_t)s->size_bytes, w->fill);
        return;
    }
    caller_cb_t cb = {.clear = on_clear, .resched = NULL, .ctx = w};
    caller_chunked((uint64_t)(uintptr_t)w->buf.p, s->size_bytes, s->chunk_bytes, &cb);
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
        int rc = region_map(&g, w->s->size_bytes, &w->pg, populate, err, errlen);
        if (rc)
            return rc;
        if (!populate)
            touch(&g, w->s);
        region_unmap(&g);
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
    r->huge_bytes = smaps_huge_bytes(w->buf.p);
    return 0;
}

static int verify_mmap(wl_native_t *w, native_result_t *r, char *err, size_t errlen)
{
    const bool populate = w->s->fault == WL_FAULT_POPULATE;
    const size_t n = (size_t)w->s->size_bytes;
    region_t a, b;
    /* Dirty a mapping and unmap it: its pages go back to the allocator, and
     * the next mapping (likely on the same pages) must come back cleared. */
    int rc = region_map(&a, n, &w->pg, populate, err, errlen);
    if (rc)
        return rc;
    if (!populate)
        touch(&a, w->s);
    memset(a.p, 0xa5, n);
    region_unmap(&a);
    if ((rc = region_map(&b, n, &w->pg, populate, err, errlen)))
        return rc;
    if (!populate)
        touch(&b, w->s);
    size_t bad = first_not(b.p, n, 0);
    r->huge_bytes = smaps_huge_bytes(b.p);
    if (bad != n) {
        unsigned v = b.p[bad];
        region_unmap(&b);
        return errbuf_set_rc(
            -1, err, errlen,
            "verification failed: byte %zu of a freshly faulted mapping is 0x%02x, "
            "expected 0 (the kernel did not clear it)",
            bad, v);
    }
    region_unmap(&b);
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
    *k = kern_find(s->function);
    /* mmap: the host kernel clears; the function names the simulated kernel */
    if (s->kind == WL_MEMSET && !kern_native_supported(*k, h, why, sizeof why))
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
    wl_native_t w = {.s = spec, .k = k, .fill = (uint8_t)spec->fill};
    if (rc == 0)
        rc = choose_pages(spec, h, &w.pg, out, err, errlen);
    snprintf(out->host_model, sizeof out->host_model, "%s", h->model_name);
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

    const bool is_memset = spec->kind == WL_MEMSET;
    if (is_memset) {
        if ((rc = region_map(&w.buf, spec->size_bytes, &w.pg, false, err, errlen)))
            goto restore;
        /* Prefault as perf bench mem memset does: one call over the whole
         * buffer (fill 0xff) before timing, so that the timed runs measure
         * clearing, not page faults, and the buffer is in a known state. */
        k->native(w.buf.p, (size_t)spec->size_bytes, 0xff);
    }
    int (*run_once)(wl_native_t *, char *, size_t) = is_memset ? memset_run : mmap_run;

    counters_t ctr;
    memset(&ctr, 0, sizeof ctr);
    for (int i = 0; i < NCTR; i++)
        ctr.fd[i] = -1;
    if (o->counters)
        counters_open(&ctr, is_memset, out);
    else
        snprintf(out->counters_reason, sizeof out->counters_reason, "counters not requested");

    progress_t *pr = progress_create("native", (uint64_t)o->repeat + 1, o->progress);
    /* warm-up: caches, TLB, page allocator and branch predictors */
    rc = run_once(&w, err, errlen);
    progress_update(pr, 1);
    double bps[NATIVE_REPEAT_MAX];
    for (uint32_t i = 0; rc == 0 && i < o->repeat; i++) {
        counters_start(&ctr);
        double t0 = now_s();
        rc = run_once(&w, err, errlen);
        double t1 = now_s();
        counters_stop(&ctr);
        out->run_seconds[i] = t1 - t0;
        bps[i] = t1 > t0 ? (double)rr->bytes / (t1 - t0) : NAN;
        progress_update(pr, (uint64_t)i + 2);
    }
    progress_destroy(pr);
    if (rc == 0)
        rc = is_memset ? verify_memset(&w, out, err, errlen) : verify_mmap(&w, out, err, errlen);
    counters_result(&ctr, o->repeat, out);
    counters_close(&ctr);
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
    }
restore:
    region_unmap(&w.buf);
    if (have_old)
        sched_setaffinity(0, sizeof old, &old);
    return rc;
}
