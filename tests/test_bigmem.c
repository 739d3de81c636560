/*
 * test_bigmem.c - unit tests of models/base/bigmem.c: large blocks aligned
 * to 2 MiB with their whole 2 MiB pages marked for huge pages, mid-sized
 * ones in one whole huge page, small ones plain.
 *
 * Notes
 *  - At each threshold (BIGMEM_MID_BYTES, BIGMEM_MIN_BYTES) and one byte
 *    short of it.
 *  - Whether the mark took is read from /proc/self/smaps (the "hg" VmFlag of
 *    the mapping holding the block): it is set by madvise whatever the host
 *    has free, so the check does not depend on memory being available in
 *    huge pages. A host without transparent huge pages or without smaps
 *    skips that part, saying why.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "models/base/bigmem.h"

/* 1: the mapping holding p is marked for huge pages, 0: it is not, -1: the
 * host cannot tell (no smaps). */
static int marked_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    uintptr_t a = (uintptr_t)p;
    bool in = false;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = a >= lo && a < hi;
            continue;
        }
        if (in && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

static bool host_has_thp(void)
{
    return access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
}

/* One byte short of the mid-size threshold: plain memory (its mapping not
 * marked for huge pages), aligned as asked. */
static void test_small(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 100, BIGMEM_MID_BYTES - 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *p = bigmem_alloc(64, sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        memset(p, 0xa5, sizes[i]);
        assert_int_equal(p[sizes[i] - 1], 0xa5);
        if (host_has_thp() && marked_huge(p) >= 0) /* not marked for huge pages */
            assert_int_equal(marked_huge(p), 0);
        bigmem_free(p);
    }
}

/* Blocks of the given sizes: each 2 MiB aligned, all of it writable (filled
 * with fill), and (where the host has transparent huge pages) marked for huge
 * pages. */
static void check_huge(const size_t *sizes, size_t n, uint8_t fill)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = bigmem_alloc(64, sizes[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % BIGMEM_HUGE_BYTES, 0);
        memset(p, fill, sizes[i]);
        assert_int_equal(p[sizes[i] - 1], fill);
        int marked = marked_huge(p);
        if (marked >= 0 && host_has_thp())
            assert_int_equal(marked, 1);
        else
            print_message("huge-page mark not checked: %s\n",
                          marked < 0 ? "no /proc/self/smaps" : "no transparent huge pages");
        bigmem_free(p);
    }
}

/* From the mid-size threshold to one byte short of the large one: one whole
 * huge page (a 448 KiB simulated L2 costs one page fault instead of 112). */
static void test_mid(void **state)
{
    (void)state;
    const size_t sizes[] = {BIGMEM_MID_BYTES, BIGMEM_MIN_BYTES - 1};
    check_huge(sizes, sizeof sizes / sizeof sizes[0], 0x3c);
}

/* At the large threshold and above: its whole 2 MiB pages. */
static void test_large(void **state)
{
    (void)state;
    const size_t sizes[] = {BIGMEM_MIN_BYTES, 3 * BIGMEM_HUGE_BYTES + 4096};
    check_huge(sizes, sizeof sizes / sizeof sizes[0], 0x5a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_mid),
        cmocka_unit_test(test_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
