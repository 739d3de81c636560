/*
 * test_native.c - native_run() on this host: every kernel the host runs
 * natively gives plausible statistics and passes its own verification; mmap
 * runs with 4 KiB, 2 MiB and 1 GiB pages where the host has them; what the
 * host lacks (a CPU feature, hugetlb pages, THP, perf counters) is reported
 * as a SKIP with the reason, and as a NATIVE_ENOTSUP error naming it. The
 * statistics helper is checked against hand-computed values. No timing is
 * asserted beyond "positive and finite".
 */
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "sim/host/host.h"
#include "sim/host/native_pmu.h"
#include "sim/host/native_run.h"

#ifdef CLEARSIM_HAVE_PFM
#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#endif

static host_info_t host;
static native_result_t res; /* large: static, one test at a time */

static void skip_because(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void skip_because(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("SKIP: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

static void small_memset(wl_spec_t *s, const char *function, uint32_t fill)
{
    wl_spec_init(s);
    s->kind = WL_MEMSET;
    snprintf(s->function, sizeof s->function, "%s", function);
    s->size_bytes = 256u << 10;
    s->chunk_bytes = 64u << 10;
    s->loops = 2;
    s->fill = fill;
    s->caller = WL_CALLER_CHUNKED;
}

static void small_opts(native_opts_t *o)
{
    native_opts_init(o);
    o->repeat = 3;
}

/* The statistics every successful run must have. */
static void check_plausible(const native_result_t *r, const wl_spec_t *s, uint32_t repeat)
{
    assert_int_equal(r->repeat, repeat);
    assert_int_equal(r->run.bytes, (uint64_t)s->loops * s->size_bytes);
    assert_string_equal(r->run.machine, "host");
    for (uint32_t i = 0; i < repeat; i++)
        assert_true(r->run_seconds[i] > 0 && isfinite(r->run_seconds[i]));
    assert_true(r->seconds.mean > 0 && isfinite(r->seconds.mean));
    assert_true(r->bytes_per_sec.mean > 0 && isfinite(r->bytes_per_sec.mean));
    assert_true(r->seconds.stddev >= 0 && r->bytes_per_sec.stddev >= 0);
    assert_true(r->seconds.ci95 >= 0 && r->bytes_per_sec.ci95 >= 0);
    assert_true(r->run.seconds == r->seconds.mean);
    assert_true(r->run.bytes_per_sec == r->bytes_per_sec.mean);
    /* counters: all seven reported; missing ones come with a reason */
    assert_int_equal(r->run.n_counters, 7);
    assert_string_equal(r->run.counters[0].name, "cycles");
    bool all = true;
    for (uint32_t i = 0; i < r->run.n_counters; i++)
        all &= r->run.counters[i].supported;
    if (!all)
        assert_true(r->counters_reason[0] != '\0');
    assert_int_equal(r->cycles_measured, r->run.counters[0].supported);
    assert_true(r->kernel_release[0] != '\0');
    assert_true(r->kernel_preempt[0] != '\0');
}

/* ---------------------------------------------------------------- kernels */

static void test_kernel(void **state)
{
    const kern_info_t *k = *state;
    char why[256], err[512];
    if (!kern_native_supported(k, host.isa, host.features, host_name(&host), why, sizeof why)) {
        skip_because("%s", why);
        skip();
    }
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, k->name, k->zero_only ? 0 : 0x5a);
    small_opts(&o);
    int rc = native_run(&s, &o, &res, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: native_run: %s", k->name, err);
    check_plausible(&res, &s, o.repeat);
    assert_int_equal(res.page_mode, NATIVE_PAGE_4K);
    assert_int_equal(res.huge_bytes, 0);

    /* the repeat caller: one call over the whole buffer per loop */
    s.caller = WL_CALLER_REPEAT;
    s.chunk_bytes = 0;
    rc = native_run(&s, &o, &res, err, sizeof err);
    if (rc != 0)
        fail_msg("%s (repeat): native_run: %s", k->name, err);
    check_plausible(&res, &s, o.repeat);
}

static void test_missing_feature_is_enotsup(void **state)
{
    (void)state;
    char why[256], err[512];
    for (const kern_info_t *k = kern_table(); k->name; k++) {
        if (kern_native_supported(k, host.isa, host.features, host_name(&host), why, sizeof why))
            continue;
        wl_spec_t s;
        native_opts_t o;
        small_memset(&s, k->name, 0);
        small_opts(&o);
        assert_int_equal(native_run(&s, &o, &res, err, sizeof err), NATIVE_ENOTSUP);
        assert_string_equal(err, why);
        assert_non_null(strstr(err, k->name));
        return;
    }
    skip_because("this host runs every kernel of the table natively");
    skip();
}

/* ------------------------------------------------------------------- mmap */

static void run_mmap(uint64_t page, wl_fault_t fault, uint64_t size)
{
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    s.size_bytes = size;
    s.page_bytes = page;
    s.loops = 2;
    s.fault = fault;
    s.caller = WL_CALLER_PAGE;
    small_opts(&o);
    int rc = native_run(&s, &o, &res, err, sizeof err);
    if (rc == NATIVE_ENOTSUP) {
        skip_because("%s", err);
        skip();
    }
    if (rc != 0)
        fail_msg("mmap page %llu: native_run: %s", (unsigned long long)page, err);
    check_plausible(&res, &s, o.repeat);
    if (page == 4096) {
        assert_int_equal(res.page_mode, NATIVE_PAGE_4K);
        assert_int_equal(res.huge_bytes, 0);
    } else if (res.page_mode == NATIVE_PAGE_HUGETLB) {
        assert_int_equal(res.huge_bytes, size); /* reserved pages: all of it */
    } else {
        assert_int_equal(res.page_mode, NATIVE_PAGE_THP);
        assert_true(res.huge_bytes <= size); /* THP may fall back to 4 KiB */
        if (res.huge_bytes < size)
            printf("note: THP backed %llu of %llu bytes\n", (unsigned long long)res.huge_bytes,
                   (unsigned long long)size);
    }
}

static void test_mmap_4k_demand(void **state)
{
    (void)state;
    run_mmap(4096, WL_FAULT_DEMAND, 4u << 20);
}

static void test_mmap_4k_populate(void **state)
{
    (void)state;
    run_mmap(4096, WL_FAULT_POPULATE, 4u << 20);
}

static void test_mmap_2m_demand(void **state)
{
    (void)state;
    run_mmap(2u << 20, WL_FAULT_DEMAND, 8u << 20);
}

static void test_mmap_2m_populate(void **state)
{
    (void)state;
    run_mmap(2u << 20, WL_FAULT_POPULATE, 8u << 20);
}

static void test_mmap_1g(void **state)
{
    (void)state;
    run_mmap(1u << 30, WL_FAULT_DEMAND, 1u << 30);
}

/* Without enough free 1 GiB hugetlb pages the error says how to reserve them. */
static void test_missing_hugepages_is_enotsup(void **state)
{
    (void)state;
    if (host_hugepages_free(&host, 1u << 30) >= 1) {
        skip_because("this host has a free 1 GiB hugetlb page");
        skip();
    }
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    wl_spec_init(&s);
    s.kind = WL_MMAP;
    s.size_bytes = 1u << 30;
    s.page_bytes = 1u << 30;
    s.caller = WL_CALLER_PAGE;
    small_opts(&o);
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), NATIVE_ENOTSUP);
    assert_non_null(strstr(err, "--page"));
    /* either the size is not offered at all, or how to reserve it is given */
    assert_true(strstr(err, "offers no 1048576kB hugetlb pages") != NULL ||
                strstr(err, "> /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages") != NULL);
}

/* 2 MiB memset buffer: hugetlb when reserved, else THP, else a clear ENOTSUP. */
static void test_memset_2m(void **state)
{
    (void)state;
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, "memset", 0x11);
    s.size_bytes = 4u << 20;
    s.chunk_bytes = 0;
    s.page_bytes = 2u << 20;
    small_opts(&o);
    int rc = native_run(&s, &o, &res, err, sizeof err);
    if (rc == NATIVE_ENOTSUP) {
        skip_because("%s", err);
        skip();
    }
    if (rc != 0)
        fail_msg("memset 2MB: %s", err);
    check_plausible(&res, &s, o.repeat);
    assert_true(res.page_mode == NATIVE_PAGE_HUGETLB || res.page_mode == NATIVE_PAGE_THP);
}

/* -------------------------------------------------------------- counters */

static void test_counters(void **state)
{
    (void)state;
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, "memset", 0);
    small_opts(&o);
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), 0);
    if (!host.perf_counters) {
        /* stated once, every counter null */
        assert_true(res.counters_reason[0] != '\0');
        for (uint32_t i = 0; i < res.run.n_counters; i++)
            assert_false(res.run.counters[i].supported);
        assert_false(res.cycles_measured);
        skip_because("no perf counters: %s", res.counters_reason);
        skip();
    }
    assert_true(res.cycles_measured);
    assert_true(res.run.counters[0].value > 0); /* cycles */
    assert_true(res.run.counters[1].value > 0); /* instructions */
}

static void test_counters_off(void **state)
{
    (void)state;
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, "memset", 0);
    small_opts(&o);
    o.counters = false;
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), 0);
    for (uint32_t i = 0; i < res.run.n_counters; i++)
        assert_false(res.run.counters[i].supported);
    assert_true(res.counters_reason[0] != '\0');
}

/* --------------------------------------------------------- pinning, input */

static void test_pinning_and_restore(void **state)
{
    (void)state;
    char err[512];
    cpu_set_t before, after;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    int cpu = -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &before)) {
            cpu = i;
            break;
        }
    assert_true(cpu >= 0);
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, "memset", 0);
    small_opts(&o);
    o.cpu = cpu;
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), 0);
    assert_int_equal(res.cpu, (uint32_t)cpu);
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after));
}

static void test_bad_input(void **state)
{
    (void)state;
    char err[512];
    wl_spec_t s;
    native_opts_t o;
    small_memset(&s, "memset", 0);
    small_opts(&o);
    o.repeat = 0;
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "--repeat"));
    o.repeat = NATIVE_REPEAT_MAX + 1;
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), -1);
    small_opts(&o);
    s.chunk_bytes = s.size_bytes * 2;
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "--chunk"));
    small_memset(&s, "memset", 0);
    s.kind = WL_MMAP;
    s.caller = WL_CALLER_PAGE;
    s.chunk_bytes = 0;
    s.fill = 3; /* mmap pages are cleared with zeros */
    assert_int_equal(native_run(&s, &o, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "--fill"));
}

/* ------------------------------------------------------------ statistics */

static void test_stats(void **state)
{
    (void)state;
    /* x = 1, 2, 3, 4: mean 2.5; sample variance 5/3, sd 1.2909944487;
     * t(0.975, 3) = 3.1824463053; ci = t * sd / sqrt(4) = 2.0542602... */
    const double x[] = {1, 2, 3, 4};
    native_stat_t s = native_stats(x, 4);
    assert_true(fabs(s.mean - 2.5) < 1e-12);
    assert_true(fabs(s.stddev - 1.2909944487358056) < 1e-9);
    assert_true(fabs(s.ci95 - 3.1824463052837091 * 1.2909944487358056 / 2.0) < 1e-6);
    /* a single run: a mean, no spread */
    s = native_stats(x, 1);
    assert_true(s.mean == 1.0);
    assert_true(isnan(s.stddev) && isnan(s.ci95));
    /* equal runs: zero spread */
    const double y[] = {5, 5, 5};
    s = native_stats(y, 3);
    assert_true(s.mean == 5.0 && s.stddev == 0.0 && s.ci95 == 0.0);
}

/* libpfm4 is not linked (it cost every process ~4 ms at start): it is not
 * loaded when the program starts (read in main, before any test), and
 * native_pfm_available() is true exactly when the host's libpfm.so.4 loads
 * and initialises (checked here through dlopen and dlsym of our own). */
static int pfm_at_start = -1; /* 1 loaded at start, 0 not, -1 not built with it */

static void test_pfm_on_demand(void **state)
{
    (void)state;
#ifdef CLEARSIM_HAVE_PFM
    assert_int_equal(pfm_at_start, 0);
    bool avail = native_pfm_available();
    void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    bool expect = false;
    if (h) {
        pfm_err_t (*init)(void);
        *(void **)&init = dlsym(h, "pfm_initialize");
        expect = init && init() == PFM_SUCCESS; /* a second initialisation is harmless */
        dlclose(h);
    }
    assert_int_equal(avail, expect);
    if (!h)
        skip_because("libpfm.so.4 is not installed: events use the kernel's generic encodings");
    else if (!avail)
        skip_because("libpfm.so.4 did not initialise: events use the kernel's generic encodings");
#else
    assert_int_equal(pfm_at_start, -1);
    assert_false(native_pfm_available());
    skip_because("built without libpfm4's header");
#endif
}

int main(void)
{
#ifdef CLEARSIM_HAVE_PFM
    pfm_at_start = dlopen("libpfm.so.4", RTLD_NOW | RTLD_NOLOAD) != NULL;
#endif
    char err[256];
    if (host_detect(&host, err, sizeof err) != 0) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    size_t nk = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++)
        nk++;
    struct CMUnitTest *tests = calloc(nk + 16, sizeof *tests);
    if (!tests)
        return 1;
    size_t n = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++) {
        struct CMUnitTest t = {k->name, test_kernel, NULL, NULL, (void *)k};
        tests[n++] = t;
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test(test_missing_feature_is_enotsup),
        cmocka_unit_test(test_mmap_4k_demand),
        cmocka_unit_test(test_mmap_4k_populate),
        cmocka_unit_test(test_mmap_2m_demand),
        cmocka_unit_test(test_mmap_2m_populate),
        cmocka_unit_test(test_mmap_1g),
        cmocka_unit_test(test_missing_hugepages_is_enotsup),
        cmocka_unit_test(test_memset_2m),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_counters_off),
        cmocka_unit_test(test_pinning_and_restore),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_pfm_on_demand),
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        tests[n++] = rest[i];
    int rc = _cmocka_run_group_tests("native", tests, n, NULL, NULL);
    free(tests);
    return rc;
}
