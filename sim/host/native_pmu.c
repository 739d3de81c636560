/*
 * native_pmu.c - the perf counters of a native run (see native_pmu.h).
 */
#include "sim/host/native_pmu.h"

#include "sim/host/host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <math.h>

#ifdef CLEARSIM_HAVE_PFM
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>

/* libpfm4, loaded when a native run first encodes an event rather than
 * linked: linked, its event tables cost every clearsim process about 4 ms
 * and 290 page faults at start (relocation; measured 2026-12-06 on an AMD
 * EPYC family 0x1a KVM guest, against about 50 ms for a whole exact
 * simulation of a 256 MiB clear), and almost no run needs it. */
typedef pfm_err_t (*pfm_init_fn)(void);
typedef pfm_err_t (*pfm_encode_fn)(const char *, int, pfm_os_t, void *);
static struct {
    bool ok; /* loaded and initialised */
    pfm_init_fn initialize;
    pfm_encode_fn encode;
} pfm;
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

static void pfm_load(void)
{
    void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libpfm.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    /* POSIX's way to take a function from dlsym's void * */
    *(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
    *(void **)&pfm.encode = dlsym(h, "pfm_get_os_event_encoding");
    pfm.ok = pfm.initialize && pfm.encode && pfm.initialize() == PFM_SUCCESS;
    if (!pfm.ok)
        dlclose(h);
}

bool native_pfm_available(void)
{
    pthread_once(&pfm_once, pfm_load); /* native runs may come from a study's threads */
    return pfm.ok;
}
#else
bool native_pfm_available(void)
{
    return false;
}
#endif

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
    if (native_pfm_available()) {
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
        if (pfm.encode(name, plm, PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS) {
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

void native_counters_open(counters_t *c, bool user_only, native_result_t *r)
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
                if (host_read_text("/proc/sys/kernel/perf_event_paranoid", p, sizeof p) == 0)
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

void native_counters_start(counters_t *c)
{
    for (int i = 0; i < NCTR; i++)
        if (c->fd[i] >= 0) {
            ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

void native_counters_stop(counters_t *c)
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

void native_counters_close(counters_t *c)
{
    for (int i = 0; i < NCTR; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
}

void native_counters_result(const counters_t *c, uint32_t runs, native_result_t *r)
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
