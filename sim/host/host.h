/*
 * host.h - what the machine clearsim runs on: ISA, identity, CPU features,
 * caches, virtualisation, perf counters, huge pages.
 *
 * Notes
 *  - Everything is detected at run time (CPUID / XGETBV on x86-64; HWCAPs,
 *    DCZID_EL0 and MIDR_EL1 on arm64; sysfs and procfs); nothing is assumed
 *    from the build machine.
 *  - features uses the machine_feature_t bits of models/base/machine.h, so a host can
 *    be compared with a machine file directly. AVX2 / AVX-512F count only
 *    when the OS saves their register state (XCR0).
 *  - vendor, family and model use the machine-file conventions
 *    (identity.vendor/family/model): x86 CPUID family/model; arm64 MIDR
 *    implementer/part number.
 *  - Detection never fails as a whole: a piece that cannot be read is left
 *    zero/empty (the reason for perf counters is kept in perf_why).
 *  - Units: sizes in bytes; counts are plain numbers.
 */
#ifndef CLEARSIM_HOST_H
#define CLEARSIM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"

#define HOST_CACHES_MAX         8
#define HOST_HUGEPAGE_SIZES_MAX 4

typedef struct host_cache {
    uint32_t level; /* 1, 2, 3 */
    char type[16];  /* "Data", "Instruction", "Unified" */
    uint64_t size_bytes;
    uint32_t ways;
    uint32_t line_bytes;
    uint32_t sets;
    uint32_t shared_cpus; /* CPUs sharing this cache (from shared_cpu_list) */
    /* where it was read, a prefix to which a field's name is added:
     * "/sys/devices/system/cpu/cpu0/cache/index2/" or "CPUID 0x8000001d.2 " */
    char source[112];
} host_cache_t;

typedef struct host_hugepages {
    uint64_t page_bytes;
    uint64_t total; /* nr_hugepages */
    uint64_t free;  /* free_hugepages */
} host_hugepages_t;

typedef struct host_info {
    machine_isa_t isa;
    char vendor[MACHINE_NAME_MAX]; /* intel | amd | hygon | arm | ampere | ... (lower case) */
    char vendor_id[16];            /* x86: CPUID vendor string ("GenuineIntel") */
    uint32_t family;               /* x86: CPUID family; arm64: MIDR implementer */
    uint32_t model;                /* x86: CPUID model; arm64: MIDR part number */
    uint32_t stepping;             /* x86: stepping; arm64: MIDR revision */
    char model_name[MACHINE_TEXT_MAX];
    uint32_t features;        /* machine_feature_t bits */
    uint32_t line_zero_bytes; /* CLZERO line / DC ZVA block (0: none) */
    uint32_t ncpus;           /* online CPUs */

    uint32_t n_caches;
    host_cache_t caches[HOST_CACHES_MAX]; /* cpu0, from sysfs (x86 without it: CPUID) */

    bool hypervisor;            /* running under a hypervisor */
    char hypervisor_vendor[16]; /* x86: CPUID 0x40000000 signature ("KVMKVMKVM") */

    bool perf_counters; /* perf_event_open(cycles) works for this process */
    char perf_why[128]; /* why not, when it does not */

    double core_ghz; /* measured core clock (host_measure_core_ghz), 0: not measured */

    char thp_mode[16];  /* always | madvise | never | "" (unknown) */
    int boost;          /* 1 on, 0 off, -1 unknown (no cpufreq boost control: a guest) */
    char boost_how[96]; /* the sysfs file it was read from, or why unknown */
    uint32_t n_hugepages;
    host_hugepages_t hugepages[HOST_HUGEPAGE_SIZES_MAX]; /* ascending page size */
} host_info_t;

/* One cache from a subleaf of CPUID's deterministic cache parameters (leaf 4
 * or 0x8000001d; registers a, b, c of subleaf sub): false when the subleaf
 * names no cache (type 0). Its source reads "CPUID <leaf>.<sub> ". */
bool host_cpuid_cache(unsigned leaf, unsigned sub, unsigned a, unsigned b, unsigned c,
                      host_cache_t *out);

/* Detect the host. Returns 0, or -1 with a reason when the ISA is not one
 * clearsim knows (h is still filled as far as possible). */
int host_detect(host_info_t *h, char *err, size_t errlen);

/* Measure the clock the core runs at while it works: a chain of dependent
 * register adds (one cycle each on every core clearsim knows; adds of an
 * immediate are avoided, as some cores execute those at rename) timed with
 * CLOCK_MONOTONIC, the best of `trials` trials of 16 Mi cycles (~5 ms each),
 * pinned to no CPU. Returns GHz, or 0 when the ISA has no such loop here.
 * detect takes 24 trials (~0.2 s); crosscheck 8 around each native case. */
double host_measure_core_ghz(unsigned trials);

/* How much of the core this thread gets: independent register adds per core
 * cycle, eight chains against one (each the best of `trials` trials of about
 * 2 Mi adds, ~1 ms). A core alone gives about its ALU count (4 on Zen 3); a
 * guest whose vCPU shares a physical core with another busy thread (SMT)
 * gives less, down to half or below (docs/MICROBENCH.md, "Warm-up and the
 * host's state"). Returns 0 when the ISA has no such loop here. */
double host_measure_adds_per_cycle(unsigned trials);

/* A small file of procfs or sysfs, whole (at most len - 1 bytes), as text.
 * Returns 0, or -1 when it cannot be read or is empty. */
int host_read_text(const char *path, char *buf, size_t len);
/* The host kernel's page settings as one comment line of a machine file,
 * with the run options that model them ("# Host kernel: base page 4 KiB,
 * transparent_hugepage madvise (run --workload mmap --base-page 4KB --thp
 * madvise models it).\n"). */
void host_kernel_pages_comment(const host_info_t *h, char *buf, size_t len);
/* How messages name the host: its model name, else its vendor. */
const char *host_name(const host_info_t *h);
/* Size of the cache at level (data or unified), or 0 if unknown. */
uint64_t host_cache_bytes(const host_info_t *h, uint32_t level);
/* Free hugetlb pages of page_bytes, 0 if that size is not configured. */
uint64_t host_hugepages_free(const host_info_t *h, uint64_t page_bytes);
/* Feature names, comma-separated ("erms,fsrm,avx2"), into buf. */
void host_features_format(uint32_t features, char *buf, size_t len);

#endif
