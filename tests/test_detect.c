/*
 * test_detect.c - the machine file `clearsim detect` writes: cache
 * geometries the cache model accepts (hand-computed), and the YAML for this
 * host loads, marks detected and copied values, and carries the host's
 * identity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cfg.h"
#include "sim/detect.h"
#include "sim/host.h"

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

static void test_host_yaml(void **state)
{
    (void)state;
    host_info_t h;
    char err[512], why[512], path[CFG_TEXT_MAX];
    assert_int_equal(host_detect(&h, err, sizeof err), 0);
    if (detect_nearest(&h, path, sizeof path, why, sizeof why, err, sizeof err) != 0) {
        printf("SKIP: %s\n", err);
        skip();
    }
    h.core_ghz = 2.346; /* as if measured: written with two decimals */
    char *yaml = detect_machine_yaml(&h, "testhost", path, why, err, sizeof err);
    if (!yaml)
        fail_msg("detect_machine_yaml: %s", err);
    assert_non_null(strstr(yaml, "\nname: testhost "));
    assert_non_null(strstr(yaml, "\n  freq: 2.35GHz "));
    assert_non_null(strstr(yaml, "# detected: "));
    assert_non_null(strstr(yaml, "# not measured: from "));
    cfg_error_t cerr = {{0}};
    cfg_machine_t *m = cfg_machine_load_string(yaml, strlen(yaml), "testhost.yaml", &cerr);
    if (!m)
        fail_msg("does not load: %s", cerr.msg);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_cache),
        cmocka_unit_test(test_host_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
