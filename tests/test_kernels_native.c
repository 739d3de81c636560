/*
 * test_kernels_native.c - every kernel this host runs natively clears exactly
 * its range: the range holds the fill byte afterwards and guard areas on both
 * sides (4 KiB + the alignment, filled with 0xA5) are untouched. Kernels the
 * host cannot run (other ISA, missing CPU feature) are skipped with the
 * reason printed. One cmocka test per kernel in the table.
 */
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

#define GUARD_FILL 0xA5

static host_info_t host;

/* First offset in [from, to) whose byte is not v, or `to`. */
static size_t first_not(const unsigned char *p, size_t from, size_t to, unsigned char v)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != v)
            return i;
    return to;
}

static void check_one(const kern_info_t *k, size_t len, uint8_t fill, size_t align)
{
    const size_t guard = 4096 + align;
    const size_t total = (2 * guard + len + 4095) / 4096 * 4096;
    unsigned char *buf = aligned_alloc(4096, total);
    assert_non_null(buf);
    memset(buf, GUARD_FILL, total);
    memset(buf + guard, (unsigned char)(fill ^ 0xff), len); /* differs from fill everywhere */

    k->native(buf + guard, len, fill);

    size_t bad = first_not(buf, 0, guard, GUARD_FILL);
    if (bad != guard)
        fail_msg("%s len %zu fill 0x%02x: guard byte at -%zu changed to 0x%02x", k->name, len, fill,
                 guard - bad, buf[bad]);
    bad = first_not(buf, guard, guard + len, fill);
    if (bad != guard + len)
        fail_msg("%s len %zu fill 0x%02x: byte %zu of the range is 0x%02x", k->name, len, fill,
                 bad - guard, buf[bad]);
    bad = first_not(buf, guard + len, total, GUARD_FILL);
    if (bad != total)
        fail_msg("%s len %zu fill 0x%02x: guard byte at +%zu after the range changed to 0x%02x",
                 k->name, len, fill, bad - guard - len, buf[bad]);
    free(buf);
}

static void test_kernel(void **state)
{
    const kern_info_t *k = *state;
    char why[256];
    if (!kern_native_supported(k, host.isa, host.features, host_name(&host), why, sizeof why)) {
        print_message("[ SKIP     ] %s: %s\n", k->name, why);
        skip();
    }
    size_t align = 64;
    if (k->zero_only && kern_native_block_bytes() > align)
        align = kern_native_block_bytes();

    static const size_t lengths[] = {1,    3,    8,    24,    63,    64,     128,     192,
                                     4095, 4096, 4160, 12288, 65536, 200000, 1 << 20, 3 << 20};
    static const uint8_t fills[] = {0, 1, 0x7f, 0xff};
    size_t tried = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        char err[256];
        if (kern_check_len(k, NULL, lengths[i], err, sizeof err))
            continue;
        for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
            if (kern_check_fill(k, fills[f], err, sizeof err))
                continue; /* zero-only kernels: fill 0 only */
            check_one(k, lengths[i], fills[f], align);
            tried++;
        }
    }
    assert_true(tried >= 4);
}

int main(void)
{
    char err[256];
    if (host_detect(&host, err, sizeof err)) {
        fprintf(stderr, "host detection failed: %s\n", err);
        return 77;
    }
    char feats[256];
    host_features_format(host.features, feats, sizeof feats);
    printf("host: %s (%s family %u model %u), features: %s\n", host.model_name, host.vendor,
           host.family, host.model, feats[0] ? feats : "-");

    size_t n = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++)
        n++;
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests)
        return 1;
    size_t i = 0;
    for (const kern_info_t *k = kern_table(); k->name; k++, i++) {
        tests[i].name = k->name;
        tests[i].test_func = test_kernel;
        tests[i].initial_state = (void *)k;
    }
    int rc = _cmocka_run_group_tests("native kernels", tests, n, NULL, NULL);
    free(tests);
    return rc;
}
