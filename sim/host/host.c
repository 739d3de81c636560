/*
 * host.c - host detection (see host.h) and matching the host against the
 * bundled machine files.
 *
 * Notes
 *  - x86-64: CPUID leaf 0 (vendor), 1 (family/model/stepping, SSE2, OSXSAVE,
 *    AVX, hypervisor bit 31 of ECX), 7.0 (AVX2 EBX[5], ERMS EBX[9], AVX512F
 *    EBX[16], FSRM EDX[4]), 7.1 (FZRM EAX[10], FSRS EAX[11]), 0x80000002-4
 *    (brand string), 0x80000008 (CLZERO EBX[0]), 0x40000000 (hypervisor
 *    signature). AVX2 needs XCR0 bits 1-2 (SSE, AVX state) and AVX-512F bits
 *    1-2 and 5-7 (opmask, ZMM_Hi256, Hi16_ZMM), read with XGETBV when
 *    OSXSAVE is set. rep_good is Linux's own judgement, read from the flags
 *    line of /proc/cpuinfo.
 *  - arm64: FEAT_MOPS from AT_HWCAP2 bit 43 (HWCAP2_MOPS); DC ZVA from
 *    DCZID_EL0 (DZP bit 4 clear; block 4 << BS); MIDR_EL1 from sysfs
 *    (cpu0/regs/identification/midr_el1), else /proc/cpuinfo. The model name
 *    comes from a small table of part numbers, since arm64 /proc/cpuinfo has
 *    none. The hypervisor flag is best effort (/sys/hypervisor, device tree,
 *    DMI strings).
 *  - Caches: /sys/devices/system/cpu/cpu0/cache/index* (level, type, size,
 *    ways_of_associativity, coherency_line_size, number_of_sets,
 *    shared_cpu_list). Some guests have no such directory (a Firecracker
 *    Zen 5 guest, 2026-12-05); on x86-64 the same fields then come from the
 *    deterministic cache parameters leaf, 4 (Intel) or 0x8000001d (AMD, with
 *    TOPOEXT, CPUID 0x80000001 ECX[22]): EAX[4:0] type, [7:5] level,
 *    [25:14] threads sharing - 1; EBX[11:0] line - 1, [21:12] partitions - 1,
 *    [31:22] ways - 1; ECX sets - 1.
 *  - Perf counters work when perf_event_open() of a user-space
 *    PERF_COUNT_HW_CPU_CYCLES event succeeds and counts something.
 *  - THP mode: the bracketed word of transparent_hugepage/enabled. Hugetlb:
 *    /sys/kernel/mm/hugepages/hugepages-<N>kB/{nr,free}_hugepages.
 */
#include "sim/host/host.h"
#include "models/base/errbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "kernels/kernels.h"
#include "sim/machine/cfg.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

/* ------------------------------------------------------------------ files */

/* Read the first line of a small file into buf (newline stripped). */
int host_read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n ? 0 : -1;
}

/* The first line of a small file, without its line end. */
static int read_line(const char *path, char *buf, size_t len)
{
    if (host_read_text(path, buf, len) != 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int read_u64(const char *path, uint64_t *out)
{
    char buf[64];
    if (read_line(path, buf, sizeof buf))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || end == buf)
        return -1;
    *out = v;
    return 0;
}

/* Copy src into dst, truncating to dstlen - 1 characters. */
static void copy_str(char *dst, size_t dstlen, const char *src)
{
    size_t n = strlen(src);
    if (!dstlen)
        return;
    if (n >= dstlen)
        n = dstlen - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void trim(char *s)
{
    size_t i = 0, n = strlen(s);
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    while (n > i && isspace((unsigned char)s[n - 1]))
        n--;
    memmove(s, s + i, n - i);
    s[n - i] = '\0';
}

/* Value of the first "key : value" line of /proc/cpuinfo whose key is `key`. */
static int cpuinfo_value(const char *key, char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[4096];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        trim(line);
        if (strcmp(line, key) != 0)
            continue;
        snprintf(buf, len, "%s", colon + 1);
        trim(buf);
        rc = 0;
        break;
    }
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------- x86 */
#if defined(__x86_64__)

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n) {
        bool start = p == flags || p[-1] == ' ';
        bool end = p[n] == '\0' || p[n] == ' ';
        if (start && end)
            return true;
    }
    return false;
}

static void detect_cpu(host_info_t *h)
{
    unsigned a, b, c, d;
    h->isa = MACHINE_ISA_X86_64;
    unsigned max = __get_cpuid_max(0, NULL);
    __cpuid(0, a, b, c, d);
    memcpy(h->vendor_id + 0, &b, 4);
    memcpy(h->vendor_id + 4, &d, 4);
    memcpy(h->vendor_id + 8, &c, 4);
    h->vendor_id[12] = '\0';
    static const struct {
        const char *id, *name;
    } vendors[] = {{"GenuineIntel", "intel"},
                   {"AuthenticAMD", "amd"},
                   {"HygonGenuine", "hygon"},
                   {"CentaurHauls", "centaur"},
                   {"  Shanghai  ", "zhaoxin"}};
    copy_str(h->vendor, sizeof h->vendor, h->vendor_id);
    lower(h->vendor);
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strcmp(h->vendor_id, vendors[i].id) == 0)
            snprintf(h->vendor, sizeof h->vendor, "%s", vendors[i].name);

    bool osxsave = false, avx = false;
    if (max >= 1) {
        __cpuid(1, a, b, c, d);
        unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
        h->stepping = a & 0xf;
        h->family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
        h->model = base_model;
        if (base_family == 0x6 || base_family == 0xf)
            h->model |= ((a >> 16) & 0xf) << 4;
        if (d & (1u << 26))
            h->features |= MACHINE_FEAT_SSE2;
        osxsave = c & (1u << 27);
        avx = c & (1u << 28);
        h->hypervisor = c & (1u << 31);
        if ((b >> 8) & 0xff)
            h->line_zero_bytes = ((b >> 8) & 0xff) * 8u;
    }
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    bool ymm_os = (xcr0 & 0x6) == 0x6, zmm_os = (xcr0 & 0xe6) == 0xe6;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        unsigned subleaves = a;
        if ((b & (1u << 5)) && avx && ymm_os)
            h->features |= MACHINE_FEAT_AVX2;
        if (b & (1u << 9))
            h->features |= MACHINE_FEAT_ERMS;
        if ((b & (1u << 16)) && zmm_os)
            h->features |= MACHINE_FEAT_AVX512;
        if (d & (1u << 4))
            h->features |= MACHINE_FEAT_FSRM;
        if (subleaves >= 1) {
            __cpuid_count(7, 1, a, b, c, d);
            if (a & (1u << 10))
                h->features |= MACHINE_FEAT_FZRM;
            if (a & (1u << 11))
                h->features |= MACHINE_FEAT_FSRS;
        }
    }
    unsigned ext = __get_cpuid_max(0x80000000u, NULL);
    if (ext >= 0x80000004u) {
        unsigned r[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
        char brand[49];
        memcpy(brand, r, 48);
        brand[48] = '\0';
        trim(brand);
        copy_str(h->model_name, sizeof h->model_name, brand);
    }
    if (ext >= 0x80000008u) {
        __cpuid(0x80000008u, a, b, c, d);
        if (b & 1u)
            h->features |= MACHINE_FEAT_CLZERO;
    }
    if (!(h->features & MACHINE_FEAT_CLZERO))
        h->line_zero_bytes = 0;
    else if (!h->line_zero_bytes)
        h->line_zero_bytes = 64;
    if (h->hypervisor) {
        __cpuid(0x40000000u, a, b, c, d);
        memcpy(h->hypervisor_vendor + 0, &b, 4);
        memcpy(h->hypervisor_vendor + 4, &c, 4);
        memcpy(h->hypervisor_vendor + 8, &d, 4);
        h->hypervisor_vendor[12] = '\0';
        trim(h->hypervisor_vendor);
    }
    char *flags = malloc(8192);
    if (flags && cpuinfo_value("flags", flags, 8192) == 0 && has_flag(flags, "rep_good"))
        h->features |= MACHINE_FEAT_REP_GOOD;
    free(flags);
}

/* ----------------------------------------------------------------- arm64 */
#elif defined(__aarch64__)

#ifndef HWCAP2_MOPS
#define HWCAP2_MOPS (1UL << 43)
#endif

static const struct {
    uint32_t implementer;
    const char *vendor;
} arm_vendors[] = {
    {0x41, "arm"},       {0x42, "broadcom"},  {0x43, "cavium"}, {0x46, "fujitsu"},
    {0x48, "hisilicon"}, {0x4e, "nvidia"},    {0x50, "apm"},    {0x51, "qualcomm"},
    {0x61, "apple"},     {0x6d, "microsoft"}, {0xc0, "ampere"},
};

static const struct {
    uint32_t implementer, part;
    const char *name;
} arm_parts[] = {
    {0x41, 0xd08, "Cortex-A72"},  {0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse-N1"},
    {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"}, {0x41, 0xd4a, "Neoverse-E1"},
    {0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"}, {0x41, 0xd8e, "Neoverse-N3"},
    {0xc0, 0xac3, "AmpereOne"},
};

static bool detect_midr(uint64_t *midr)
{
    if (read_u64("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr) == 0)
        return true;
    char buf[64];
    uint64_t impl, part, var = 0, rev = 0;
    if (cpuinfo_value("CPU implementer", buf, sizeof buf))
        return false;
    impl = strtoull(buf, NULL, 0);
    if (cpuinfo_value("CPU part", buf, sizeof buf))
        return false;
    part = strtoull(buf, NULL, 0);
    if (cpuinfo_value("CPU variant", buf, sizeof buf) == 0)
        var = strtoull(buf, NULL, 0);
    if (cpuinfo_value("CPU revision", buf, sizeof buf) == 0)
        rev = strtoull(buf, NULL, 0);
    *midr = (impl << 24) | (var << 20) | (part << 4) | rev;
    return true;
}

static void detect_cpu(host_info_t *h)
{
    h->isa = MACHINE_ISA_ARM64;
    unsigned long hwcap2 = getauxval(AT_HWCAP2);
    if (hwcap2 & HWCAP2_MOPS)
        h->features |= MACHINE_FEAT_MOPS;
    uint64_t dczid;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
    if (!(dczid & 0x10)) {
        h->features |= MACHINE_FEAT_DCZVA;
        h->line_zero_bytes = 4u << (dczid & 0xf);
    }
    uint64_t midr;
    if (!detect_midr(&midr))
        return;
    h->family = (midr >> 24) & 0xff;
    h->model = (midr >> 4) & 0xfff;
    h->stepping = midr & 0xf;
    snprintf(h->vendor, sizeof h->vendor, "0x%02x", h->family);
    for (size_t i = 0; i < sizeof arm_vendors / sizeof arm_vendors[0]; i++)
        if (arm_vendors[i].implementer == h->family)
            snprintf(h->vendor, sizeof h->vendor, "%s", arm_vendors[i].vendor);
    snprintf(h->model_name, sizeof h->model_name, "%s part 0x%03x", h->vendor, h->model);
    for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
        if (arm_parts[i].implementer == h->family && arm_parts[i].part == h->model)
            snprintf(h->model_name, sizeof h->model_name, "%s", arm_parts[i].name);

    char buf[256];
    if (read_line("/sys/hypervisor/type", buf, sizeof buf) == 0 && buf[0]) {
        h->hypervisor = true;
        copy_str(h->hypervisor_vendor, sizeof h->hypervisor_vendor, buf);
    } else if (access("/proc/device-tree/hypervisor", F_OK) == 0) {
        h->hypervisor = true;
    } else if (read_line("/sys/class/dmi/id/product_name", buf, sizeof buf) == 0) {
        static const char *const vm_names[] = {"KVM", "QEMU", "VMware", "VirtualBox"};
        for (size_t i = 0; i < sizeof vm_names / sizeof vm_names[0]; i++)
            if (strstr(buf, vm_names[i]))
                h->hypervisor = true;
    }
}

#else

static void detect_cpu(host_info_t *h)
{
    (void)h;
}

#endif

/* ---------------------------------------------------------------- caches */

static uint64_t parse_size_kmg(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'K':
        return v << 10;
    case 'M':
        return v << 20;
    case 'G':
        return v << 30;
    default:
        return v;
    }
}

/* Number of CPUs in a list like "0-3,8,10-11". */
static uint32_t count_cpu_list(const char *s)
{
    uint32_t n = 0;
    while (*s) {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtoul(end + 1, &end, 10);
        if (b >= a)
            n += (uint32_t)(b - a + 1);
        s = *end == ',' ? end + 1 : end;
        if (*s == '\n' || *s == '\0')
            break;
    }
    return n;
}

static void detect_caches(host_info_t *h)
{
    for (int i = 0; i < 16 && h->n_caches < HOST_CACHES_MAX; i++) {
        char dir[96], path[160], buf[256];
        uint64_t v;
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        snprintf(path, sizeof path, "%s/level", dir);
        if (read_u64(path, &v))
            break;
        host_cache_t *c = &h->caches[h->n_caches++];
        c->level = (uint32_t)v;
        snprintf(c->source, sizeof c->source, "%s/", dir);
        snprintf(path, sizeof path, "%s/type", dir);
        read_line(path, c->type, sizeof c->type);
        snprintf(path, sizeof path, "%s/size", dir);
        if (read_line(path, buf, sizeof buf) == 0)
            c->size_bytes = parse_size_kmg(buf);
        snprintf(path, sizeof path, "%s/ways_of_associativity", dir);
        if (read_u64(path, &v) == 0)
            c->ways = (uint32_t)v;
        snprintf(path, sizeof path, "%s/coherency_line_size", dir);
        if (read_u64(path, &v) == 0)
            c->line_bytes = (uint32_t)v;
        snprintf(path, sizeof path, "%s/number_of_sets", dir);
        if (read_u64(path, &v) == 0)
            c->sets = (uint32_t)v;
        snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
        if (read_line(path, buf, sizeof buf) == 0)
            c->shared_cpus = count_cpu_list(buf);
    }
}

bool host_cpuid_cache(unsigned leaf, unsigned sub, unsigned a, unsigned b, unsigned c,
                      host_cache_t *k)
{
    static const char *const types[] = {"", "Data", "Instruction", "Unified"};
    unsigned type = a & 0x1f;
    if (type == 0 || type > 3)
        return false;
    memset(k, 0, sizeof *k);
    k->level = (a >> 5) & 7;
    snprintf(k->type, sizeof k->type, "%s", types[type]);
    k->line_bytes = (b & 0xfff) + 1;
    k->ways = (b >> 22) + 1;
    k->sets = c + 1;
    k->size_bytes =
        (uint64_t)k->ways * (((b >> 12) & 0x3ff) + 1) * k->line_bytes * (uint64_t)k->sets;
    k->shared_cpus = ((a >> 14) & 0xfff) + 1;
    snprintf(k->source, sizeof k->source, "CPUID %#x.%u ", leaf, sub);
    return true;
}

#if defined(__x86_64__)
/* The caches from CPUID's deterministic cache parameters (see Notes), when
 * sysfs gave none. */
static void detect_caches_cpuid(host_info_t *h)
{
    unsigned a, b, c, d, leaf = 0;
    unsigned max = __get_cpuid_max(0, NULL), ext = __get_cpuid_max(0x80000000u, NULL);
    if (strcmp(h->vendor, "intel") == 0 && max >= 4) {
        leaf = 4;
    } else if (ext >= 0x8000001du) {
        __cpuid(0x80000001u, a, b, c, d);
        if (c & (1u << 22))
            leaf = 0x8000001du;
    }
    for (unsigned i = 0; leaf && i < 16 && h->n_caches < HOST_CACHES_MAX; i++) {
        __cpuid_count(leaf, i, a, b, c, d);
        if (!host_cpuid_cache(leaf, i, a, b, c, &h->caches[h->n_caches]))
            break;
        h->n_caches++;
    }
}
#endif

/* ------------------------------------------------------------------ perf */

static void detect_perf(host_info_t *h)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
            snprintf(h->perf_why, sizeof h->perf_why,
                     "no hardware cycles event (%s): no PMU exposed to this system", strerror(e));
        else if (e == EACCES || e == EPERM) {
            char p[32] = "?";
            read_line("/proc/sys/kernel/perf_event_paranoid", p, sizeof p);
            snprintf(h->perf_why, sizeof h->perf_why,
                     "perf_event_open not permitted (%s; kernel.perf_event_paranoid = %s)",
                     strerror(e), p);
        } else
            snprintf(h->perf_why, sizeof h->perf_why, "perf_event_open(cycles) failed: %s",
                     strerror(e));
        return;
    }
    uint64_t count = 0;
    ioctl((int)fd, PERF_EVENT_IOC_RESET, 0);
    ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0);
    for (int i = 0; i < 100000; i++)
        __asm__ volatile("" : : : "memory"); /* something to count */
    ioctl((int)fd, PERF_EVENT_IOC_DISABLE, 0);
    if (read((int)fd, &count, sizeof count) != (ssize_t)sizeof count)
        count = 0;
    close((int)fd);
    if (count == 0) {
        snprintf(h->perf_why, sizeof h->perf_why, "the cycles counter opens but counts nothing");
        return;
    }
    h->perf_counters = true;
}

/* ------------------------------------------------------------------ boost */

/* Boost (turbo) from cpufreq: the generic boost switch (acpi-cpufreq, AMD),
 * or intel_pstate's no_turbo (inverted). A guest usually has neither. */
static void detect_boost(host_info_t *h)
{
    static const struct {
        const char *path;
        bool inverted;
    } src[] = {{"/sys/devices/system/cpu/cpufreq/boost", false},
               {"/sys/devices/system/cpu/intel_pstate/no_turbo", true},
               {"/sys/devices/system/cpu/amd_pstate/cpb_boost", false}};
    char buf[16];
    h->boost = -1;
    snprintf(h->boost_how, sizeof h->boost_how, "no cpufreq boost control is visible%s",
             h->hypervisor ? " (a guest)" : "");
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        if (read_line(src[i].path, buf, sizeof buf) != 0 || (buf[0] != '0' && buf[0] != '1'))
            continue;
        h->boost = (buf[0] == '1') != src[i].inverted;
        snprintf(h->boost_how, sizeof h->boost_how, "%s = %c", src[i].path, buf[0]);
        return;
    }
}

/* ------------------------------------------------------------- huge pages */

static void detect_pages(host_info_t *h)
{
    char buf[128];
    if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) == 0) {
        char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
        if (l && r && (size_t)(r - l - 1) < sizeof h->thp_mode) {
            memcpy(h->thp_mode, l + 1, (size_t)(r - l - 1));
            h->thp_mode[r - l - 1] = '\0';
        }
    }
    DIR *d = opendir("/sys/kernel/mm/hugepages");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && h->n_hugepages < HOST_HUGEPAGE_SIZES_MAX) {
        unsigned long long kb;
        char tail[8];
        if (sscanf(e->d_name, "hugepages-%llu%7s", &kb, tail) != 2 || strcmp(tail, "kB") != 0)
            continue;
        host_hugepages_t *hp = &h->hugepages[h->n_hugepages++];
        hp->page_bytes = (uint64_t)kb << 10;
        char path[320];
        snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/%s/nr_hugepages", e->d_name);
        read_u64(path, &hp->total);
        snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/%s/free_hugepages", e->d_name);
        read_u64(path, &hp->free);
    }
    closedir(d);
    /* ascending page size (insertion sort; at most a handful) */
    for (uint32_t i = 1; i < h->n_hugepages; i++)
        for (uint32_t j = i; j > 0 && h->hugepages[j - 1].page_bytes > h->hugepages[j].page_bytes;
             j--) {
            host_hugepages_t t = h->hugepages[j];
            h->hugepages[j] = h->hugepages[j - 1];
            h->hugepages[j - 1] = t;
        }
}

/* ------------------------------------------------------------------ API */

int host_detect(host_info_t *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->ncpus = n > 0 ? (uint32_t)n : 1;
    detect_cpu(h);
    detect_caches(h);
#if defined(__x86_64__)
    if (h->n_caches == 0)
        detect_caches_cpuid(h);
#endif
    detect_perf(h);
    detect_pages(h);
    detect_boost(h);
#if !defined(__x86_64__) && !defined(__aarch64__)
    errbuf_set(err, errlen, "unsupported host ISA: clearsim knows x86_64 and arm64");
    return -1;
#else
    (void)err;
    (void)errlen;
    return 0;
#endif
}

uint64_t host_cache_bytes(const host_info_t *h, uint32_t level)
{
    for (uint32_t i = 0; i < h->n_caches; i++)
        if (h->caches[i].level == level && strcmp(h->caches[i].type, "Instruction") != 0)
            return h->caches[i].size_bytes;
    return 0;
}

uint64_t host_hugepages_free(const host_info_t *h, uint64_t page_bytes)
{
    for (uint32_t i = 0; i < h->n_hugepages; i++)
        if (h->hugepages[i].page_bytes == page_bytes)
            return h->hugepages[i].free;
    return 0;
}

void host_features_format(uint32_t features, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (uint32_t bit = 1; bit; bit <<= 1) {
        if (!(features & bit))
            continue;
        const char *name = kern_feature_name(bit);
        int w = snprintf(buf + used, len > used ? len - used : 0, "%s%s", used ? "," : "",
                         name ? name : "?");
        if (w < 0 || (size_t)w >= (len > used ? len - used : 0))
            return;
        used += (size_t)w;
    }
}

const char *host_name(const host_info_t *h)
{
    return h->model_name[0] ? h->model_name : h->vendor;
}

/* ---- core clock --------------------------------------------------------------- */

static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n iterations of 16 dependent register adds: 16 n cycles. */
static uint64_t add_chain(uint64_t n, uint64_t x)
{
    uint64_t step = n | 1;
#if defined(__x86_64__)
#define ADD4 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile(ADD4 ADD4 ADD4 ADD4 : "+r"(x) : "r"(step));
#undef ADD4
#elif defined(__aarch64__)
#define ADD4 "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile(ADD4 ADD4 ADD4 ADD4 : "+r"(x) : "r"(step));
#undef ADD4
#else
    (void)n;
    (void)step;
#endif
    return x;
}

/* n iterations of 32 register adds in 8 independent chains. */
#if defined(__x86_64__)
#define ADD8                                                                                       \
    "add %8, %0\n\tadd %8, %1\n\tadd %8, %2\n\tadd %8, %3\n\tadd %8, %4\n\tadd %8, %5\n\t"         \
    "add %8, %6\n\tadd %8, %7\n\t"
#elif defined(__aarch64__)
#define ADD8                                                                                       \
    "add %0, %0, %8\n\tadd %1, %1, %8\n\tadd %2, %2, %8\n\tadd %3, %3, %8\n\t"                     \
    "add %4, %4, %8\n\tadd %5, %5, %8\n\tadd %6, %6, %8\n\tadd %7, %7, %8\n\t"
#endif
static uint64_t add_chains8(uint64_t n, uint64_t x)
{
    uint64_t step = n | 1, b = x, c = x, d = x, e = x, f = x, g = x, k = x;
#ifdef ADD8
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile(ADD8 ADD8 ADD8 ADD8
                         : "+r"(x), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(k)
                         : "r"(step));
#undef ADD8
#else
    (void)n;
    (void)step;
#endif
    return x + b + c + d + e + f + g + k;
}

double host_measure_adds_per_cycle(unsigned trials)
{
#if defined(__x86_64__) || defined(__aarch64__)
    const uint64_t n = 1u << 16; /* 2 Mi adds a trial */
    volatile uint64_t sink = 1;
    double best_dep = 0, best_ind = 0; /* adds per second */
    for (unsigned trial = 0; trial < trials; trial++) {
        double t0 = mono_seconds();
        sink = add_chain(n * 2, sink); /* 16 adds an iteration: the same 2 Mi adds */
        double t1 = mono_seconds();
        sink = add_chains8(n, sink);
        double t2 = mono_seconds();
        if (t1 > t0 && 32.0 * (double)n / (t1 - t0) > best_dep)
            best_dep = 32.0 * (double)n / (t1 - t0);
        if (t2 > t1 && 32.0 * (double)n / (t2 - t1) > best_ind)
            best_ind = 32.0 * (double)n / (t2 - t1);
    }
    (void)sink;
    return best_dep > 0 ? best_ind / best_dep : 0;
#else
    (void)trials;
    return 0;
#endif
}

double host_measure_core_ghz(unsigned trials)
{
#if defined(__x86_64__) || defined(__aarch64__)
    const uint64_t n = 1u << 20;              /* 16 Mi cycles: ~5 ms at 3 GHz */
    volatile uint64_t sink = add_chain(n, 1); /* wake the core up */
    double best = 0;
    for (unsigned trial = 0; trial < trials; trial++) {
        double t0 = mono_seconds();
        sink = add_chain(n, sink);
        double dt = mono_seconds() - t0;
        if (dt > 0 && 16.0 * (double)n / dt > best)
            best = 16.0 * (double)n / dt;
    }
    (void)sink;
    return best / 1e9;
#else
    (void)trials;
    return 0;
#endif
}

void host_kernel_pages_comment(const host_info_t *h, char *buf, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned kib = pg > 0 ? (unsigned)(pg >> 10) : 4;
    const char *thp = h->thp_mode[0] ? h->thp_mode : "unknown";
    if (h->thp_mode[0])
        snprintf(buf, len,
                 "# Host kernel: base page %u KiB, transparent_hugepage %s ('run --workload mmap "
                 "--base-page %uKB --thp %s' models it).\n",
                 kib, thp, kib, thp);
    else
        snprintf(buf, len,
                 "# Host kernel: base page %u KiB, transparent_hugepage unknown (not readable).\n",
                 kib);
}
