/*
 * test_mshr.c - unit tests of the MSHR slot pool (models/mshr.c).
 *
 * Notes
 *  - Hand-computed pools of 1, 2 and 4 slots; times are core cycles.
 *  - A slot whose request completes at t is free again at t (boundary checked
 *    at t-1 and t).
 *  - A property test compares the heap against a brute-force pool (scan for
 *    the earliest-free slot) on a long random request sequence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/mshr.h"

/* One miss: wait for a slot, hold it for latency. Returns the completion. */
static double miss(mshr_t *p, double t, double latency)
{
    double start = mshr_acquire(p, t);
    mshr_commit(p, start + latency);
    return start + latency;
}

static void test_create(void **state)
{
    (void)state;
    assert_null(mshr_create(0));
    mshr_t *p = mshr_create(3);
    assert_non_null(p);
    assert_int_equal(mshr_slots(p), 3);
    assert_true(mshr_drain_time(p) == 0.0);
    assert_int_equal(mshr_in_flight(p, 0.0), 0);
    assert_true(mshr_acquire(p, 17.0) == 17.0);
    mshr_destroy(p);
    mshr_destroy(NULL);
}

static void test_two_slots(void **state)
{
    (void)state;
    /* Three misses at t=0, 100 cycles each, two slots: the first two start at
     * 0 and complete at 100; the third waits for a slot until 100 and
     * completes at 200. */
    mshr_t *p = mshr_create(2);
    assert_true(miss(p, 0, 100) == 100.0);
    assert_true(miss(p, 0, 100) == 100.0);
    assert_true(mshr_acquire(p, 0) == 100.0);
    assert_true(miss(p, 0, 100) == 200.0);
    assert_true(mshr_drain_time(p) == 200.0);
    /* Slots hold 100 and 200. */
    assert_int_equal(mshr_in_flight(p, 0), 2);
    assert_int_equal(mshr_in_flight(p, 99), 2);
    assert_int_equal(mshr_in_flight(p, 100), 1);
    assert_int_equal(mshr_in_flight(p, 199), 1);
    assert_int_equal(mshr_in_flight(p, 200), 0);
    /* A fourth miss at 150 finds the slot freed at 100. */
    assert_true(mshr_acquire(p, 150) == 150.0);
    assert_true(miss(p, 150, 100) == 250.0);
    assert_true(mshr_drain_time(p) == 250.0);
    mshr_destroy(p);
}

static void test_one_slot_boundary(void **state)
{
    (void)state;
    mshr_t *p = mshr_create(1);
    assert_true(miss(p, 0, 10) == 10.0);
    assert_true(mshr_acquire(p, 9) == 10.0);  /* t-1: still busy */
    assert_true(mshr_acquire(p, 10) == 10.0); /* t: free */
    assert_true(mshr_acquire(p, 11) == 11.0);
    /* Requests at 5 and 6 serialise behind it: 10..30, 30..50. */
    assert_true(miss(p, 5, 20) == 30.0);
    assert_true(miss(p, 6, 20) == 50.0);
    assert_int_equal(mshr_in_flight(p, 49), 1);
    assert_int_equal(mshr_in_flight(p, 50), 0);
    mshr_destroy(p);
}

static void test_out_of_order(void **state)
{
    (void)state;
    /* Four slots filled at t=0 with completions 50, 10, 40, 30. */
    mshr_t *p = mshr_create(4);
    assert_true(miss(p, 0, 50) == 50.0);
    assert_true(miss(p, 0, 10) == 10.0);
    assert_true(miss(p, 0, 40) == 40.0);
    assert_true(miss(p, 0, 30) == 30.0);
    assert_true(mshr_drain_time(p) == 50.0);
    /* Full: the next request waits for the earliest completion, 10. */
    assert_true(mshr_acquire(p, 0) == 10.0);
    assert_true(miss(p, 0, 50) == 60.0); /* slots 30 40 50 60 */
    assert_true(mshr_acquire(p, 0) == 30.0);
    assert_true(miss(p, 0, 40) == 70.0); /* slots 40 50 60 70 */
    assert_int_equal(mshr_in_flight(p, 45), 3);
    /* At 45 the slot freed at 40 is available at once. */
    assert_true(miss(p, 45, 55) == 100.0); /* slots 50 60 70 100 */
    assert_true(mshr_acquire(p, 0) == 50.0);
    assert_true(mshr_drain_time(p) == 100.0);
    assert_int_equal(mshr_in_flight(p, 69), 2);

    mshr_reset(p);
    assert_true(mshr_drain_time(p) == 0.0);
    assert_int_equal(mshr_in_flight(p, 0), 0);
    assert_true(mshr_acquire(p, 5) == 5.0);
    mshr_destroy(p);
}

static uint64_t test_rng(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_matches_brute_force(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 2, 3, 5, 10, 16};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t n = sizes[k];
        mshr_t *p = mshr_create(n);
        double slot[16] = {0}; /* brute force: each slot's free time */
        double t = 0, latest = 0;
        uint64_t rng = 0x9E3779B97F4A7C15ull + n;
        for (int i = 0; i < 5000; i++) {
            t += (double)(test_rng(&rng) % 8);               /* roughly time-ordered */
            double lat = (double)(1 + test_rng(&rng) % 200); /* whole cycles: exact */
            uint32_t m = 0;
            for (uint32_t s = 1; s < n; s++)
                if (slot[s] < slot[m])
                    m = s;
            double start = slot[m] > t ? slot[m] : t;
            assert_true(mshr_acquire(p, t) == start);
            mshr_commit(p, start + lat);
            slot[m] = start + lat;
            if (start + lat > latest)
                latest = start + lat;
            uint32_t busy = 0;
            for (uint32_t s = 0; s < n; s++)
                busy += slot[s] > t;
            assert_int_equal(mshr_in_flight(p, t), busy);
        }
        assert_true(mshr_drain_time(p) == latest);
        mshr_destroy(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_two_slots),
        cmocka_unit_test(test_one_slot_boundary),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
