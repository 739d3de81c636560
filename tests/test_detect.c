/*
 * test_detect.c - the machine file `clearsim detect` writes: cache
 * geometries the cache model accepts (hand-computed), and the YAML for this
 * host loads, marks detected and copied values, and carries the host's
 * identity.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/host/pick.h"
#include "sim/machine/cfg.h"
#include "sim/host/detect.h"
#include "sim/host/host.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

static void test_fit_cache(void **state)
{
    (void)state;
    uint64_t size;
    uint32_t ways;
    /* power-of-two set counts are kept: 32 MiB / (16 x 64) = 32768 sets */
    assert_false(detect_fit_cache(32 * MiB, 16, 64, &size, &ways));
    assert_int_equal(size, 32 * MiB);
    assert_int_equal(ways, 16);
    /* 48 KiB, 12 ways: 64 sets */
    assert_false(detect_fit_cache(48 * KiB, 12, 64, &size, &ways));
    /* 300 MiB, 20 ways: 245760 sets. 300 MiB / 64 B = 75 x 2^16 lines, so no
     * way count <= 64 divides it into a power of two. The nearest sizes are
     * 19 x 64 x 2^18 = 304 MiB and 37 x 64 x 2^17 = 296 MiB (both 4 MiB off);
     * 19 is closer to 20 ways. */
    assert_true(detect_fit_cache(300 * MiB, 20, 64, &size, &ways));
    assert_int_equal(size, 304 * MiB);
    assert_int_equal(ways, 19);
    /* 96 MiB, 16 ways: 98304 sets -> 12 ways x 131072 sets = 96 MiB exactly */
    assert_true(detect_fit_cache(96 * MiB, 16, 64, &size, &ways));
    assert_int_equal(size, 96 * MiB);
    assert_int_equal(ways, 12);
    /* more than 64 ways: the loader's bound */
    assert_true(detect_fit_cache(128 * MiB, 128, 64, &size, &ways));
    assert_int_equal(size, 128 * MiB);
    assert_true(ways <= 64 &&
                (size / ((uint64_t)ways * 64) & (size / ((uint64_t)ways * 64) - 1)) == 0);
}

/* This host and its nearest bundled file; the test skips without one. */
#define HOST_AND_BASE(h, path, why, err)                                                           \
    do {                                                                                           \
        assert_int_equal(host_detect(&(h), (err), sizeof(err)), 0);                                \
        if (detect_nearest(&(h), (path), sizeof(path), (why), sizeof(why), (err), sizeof(err))) {  \
            printf("SKIP: %s\n", (err));                                                           \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static void test_host_yaml(void **state)
{
    (void)state;
    host_info_t h;
    char err[512], why[512], path[MACHINE_TEXT_MAX];
    HOST_AND_BASE(h, path, why, err);
    h.core_ghz = 2.346; /* as if measured: written with two decimals */
    char *yaml = detect_machine_yaml(&h, "testhost", path, why, err, sizeof err);
    if (!yaml)
        fail_msg("detect_machine_yaml: %s", err);
    assert_non_null(strstr(yaml, "\nname: testhost "));
    assert_non_null(strstr(yaml, "\n  freq: 2.35GHz "));
    assert_non_null(strstr(yaml, "# detected: "));
    assert_non_null(strstr(yaml, "# not measured: from "));
    char cerr[512] = "";
    machine_t *m = cfg_machine_load_string(yaml, strlen(yaml), "testhost.yaml", cerr, sizeof cerr);
    if (!m)
        fail_msg("does not load: %s", cerr);
    assert_int_equal(m->isa, h.isa);
    assert_int_equal(m->family, h.family);
    assert_int_equal(m->model, h.model);
    assert_string_equal(m->vendor, h.vendor);
    assert_string_equal(m->model_name, h.model_name);
    assert_int_equal(m->features, h.features);
    assert_true(m->freq_ghz > 2.3449 && m->freq_ghz < 2.3501);
    if (host_cache_bytes(&h, 1))
        assert_int_equal(m->l1.size_bytes, host_cache_bytes(&h, 1));
    cfg_machine_destroy(m);
    free(yaml);
}

/* A value whose mapping the base lacks (tlb.host_miss in a base file without
 * one, as zen3-epyc-7j13 had): detect writes the mapping with its keys, not
 * an error, and the file loads with them. The base is this host's nearest
 * bundled file with its tlb.host_* lines taken out. */
static void test_missing_mapping(void **state)
{
    (void)state;
    host_info_t h;
    char err[512], why[512], path[MACHINE_TEXT_MAX];
    HOST_AND_BASE(h, path, why, err);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char base[] = "/tmp/clearsim-test-detect-XXXXXX";
    int fd = mkstemp(base);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    assert_non_null(out);
    char line[1024];
    bool in_miss = false;
    while (fgets(line, sizeof line, in)) {
        if (in_miss && strncmp(line, "    ", 4) == 0)
            continue; /* a key of the dropped tlb.host_miss */
        in_miss = strncmp(line, "  host_miss:", 12) == 0;
        if (in_miss || strncmp(line, "  host_", 7) == 0)
            continue;
        fputs(line, out);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
    const detect_value_t vals[] = {
        {"tlb.host_page", "4KiB", "measured: a test"},
        {"tlb.host_entries", "16384", "measured: a test"},
        {"tlb.host_miss.nt_line", "120ns", "measured: a test"},
        {"tlb.host_miss.string", "100ns", "measured: a test"},
    };
    detect_extra_t x = {.values = vals, .n_values = sizeof vals / sizeof vals[0]};
    char *yaml = detect_machine_yaml_ex(&h, "testhost", base, why, &x, err, sizeof err);
    unlink(base);
    if (!yaml)
        fail_msg("detect_machine_yaml_ex: %s", err);
    assert_non_null(strstr(yaml, "\n  host_miss:\n    nt_line: 120ns "));
    assert_non_null(strstr(yaml, "\n    string: 100ns "));
    char cerr[512] = "";
    machine_t *m = cfg_machine_load_string(yaml, strlen(yaml), "testhost.yaml", cerr, sizeof cerr);
    if (!m)
        fail_msg("does not load: %s", cerr);
    assert_int_equal(m->tlb_host_page_bytes, 4096);
    assert_true(m->tlb_host_nt_line_ns == 120.0);
    assert_true(m->tlb_host_string_ns == 100.0);
    cfg_machine_destroy(m);
    free(yaml);
}

/* CPUID's deterministic cache parameters (host_cpuid_cache), by hand: a Zen 5
 * L2 as leaf 0x8000001d gives it (unified, level 2, two threads; 16 ways, one
 * partition, 64 B lines, 1024 sets: 1 MiB) and an Intel L1D as leaf 4 gives
 * it (data, level 1; 12 ways x 64 B x 64 sets = 48 KiB); type 0 ends the
 * list. */
static void test_cpuid_cache(void **state)
{
    (void)state;
    host_cache_t c;
    assert_true(host_cpuid_cache(0x8000001du, 2, 0x4043, (15u << 22) | 63, 1023, &c));
    assert_int_equal(c.level, 2);
    assert_string_equal(c.type, "Unified");
    assert_int_equal(c.ways, 16);
    assert_int_equal(c.line_bytes, 64);
    assert_int_equal(c.sets, 1024);
    assert_int_equal(c.size_bytes, 1u << 20);
    assert_int_equal(c.shared_cpus, 2);
    assert_string_equal(c.source, "CPUID 0x8000001d.2 ");
    assert_true(host_cpuid_cache(4, 0, 0x21, (11u << 22) | 63, 63, &c));
    assert_int_equal(c.level, 1);
    assert_string_equal(c.type, "Data");
    assert_int_equal(c.size_bytes, 48u << 10);
    /* two partitions double the size */
    assert_true(host_cpuid_cache(4, 3, 0x63, (15u << 22) | (1u << 12) | 63, 1023, &c));
    assert_int_equal(c.size_bytes, 2u << 20);
    assert_false(host_cpuid_cache(4, 4, 0, 0, 0, &c));
}

/* --machine host's warning (host_pick_judge): a guest against a bare-metal file, and a clock
 * HOST_PICK_CLOCK_TOLERANCE (10%) away from the file's core.freq: 2.20 GHz on a 2.00 GHz file
 * is at the tolerance (no warning), 2.21 GHz past it. */
static void test_pick_judge(void **state)
{
    (void)state;
    host_info_t h;
    memset(&h, 0, sizeof h);
    char w[1024];
    /* bare metal, bare-metal file, same clock, or a clock that is not measured */
    assert_false(host_pick_judge(&h, "m", false, 2.0, 2.0, w, sizeof w));
    assert_string_equal(w, "");
    assert_false(host_pick_judge(&h, "m", false, 2.0, 0, w, sizeof w));
    /* at the tolerance, and one step past it, both ways */
    assert_false(host_pick_judge(&h, "m", false, 2.0, 2.2, w, sizeof w));
    assert_false(host_pick_judge(&h, "m", false, 2.0, 1.8, w, sizeof w));
    assert_true(host_pick_judge(&h, "m", false, 2.0, 2.21, w, sizeof w));
    assert_non_null(strstr(w, "the core runs at 2.21 GHz here, the file's core.freq is 2.00 GHz"));
    assert_non_null(strstr(w, "'clearsim detect'"));
    assert_null(strstr(w, "guest"));
    assert_true(host_pick_judge(&h, "m", false, 2.0, 1.79, w, sizeof w));
    /* a guest on a bare-metal file, and bare metal on a guest's file */
    h.hypervisor = true;
    snprintf(h.hypervisor_vendor, sizeof h.hypervisor_vendor, "KVMKVMKVM");
    assert_true(host_pick_judge(&h, "zen", false, 2.0, 2.0, w, sizeof w));
    assert_non_null(strstr(w, "zen describes another system (this host is a guest of hypervisor "
                              "'KVMKVMKVM', the file describes bare metal)"));
    assert_false(host_pick_judge(&h, "zen", true, 2.0, 2.0, w, sizeof w));
    h.hypervisor = false;
    assert_true(host_pick_judge(&h, "zen", true, 2.0, 2.0, w, sizeof w));
    assert_non_null(strstr(w, "this host is bare metal, the file describes a guest"));
    /* both at once: one warning naming both */
    h.hypervisor = true;
    assert_true(host_pick_judge(&h, "zen", false, 2.42, 3.1, w, sizeof w));
    assert_non_null(strstr(w, "bare metal; the core runs at 3.10 GHz here"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_cache),       cmocka_unit_test(test_host_yaml),
        cmocka_unit_test(test_missing_mapping), cmocka_unit_test(test_cpuid_cache),
        cmocka_unit_test(test_pick_judge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
