/*
 * test_bulk.c - unit tests of exact bulk stepping's state comparisons
 * (models/model_bulk.c's parts: timing_same, cache_snap_*, cache_move,
 * pf_same, mshr_same).
 *
 * Notes
 *  - Tiny structures with the expected answers worked out by hand in the
 *    comments: a 2-set, 2-way LRU cache (line N goes to set N % 2), a
 *    prefetcher with 4-line regions, 2-slot miss queues.
 *  - Each rule is tested at its threshold and one step short of it.
 *  - The whole mechanism against per-line simulation, on every bundled
 *    machine: tests/cli/bulk_exact.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "models/cache.h"
#include "models/mshr.h"
#include "models/prefetch.h"
#include "models/timing.h"

#define L(n) ((uint64_t)(n)*64u)

/* 2 sets x `ways` ways, LRU. */
static cache_t *mk_cache_ways(uint32_t ways)
{
    char err[160];
    machine_cache_t g;
    memset(&g, 0, sizeof g);
    g.present = true;
    g.size_bytes = 2 * ways * 64;
    g.ways = ways;
    g.line_bytes = 64;
    g.repl = MACHINE_REPL_LRU;
    cache_t *c = cache_create(&g, 1, err, sizeof err);
    assert_non_null(c);
    return c;
}

/* 2 sets x 2 ways. */
static cache_t *mk_cache(void)
{
    return mk_cache_ways(2);
}

/* Insert lines[0..n) in order, dirty or not, arriving at `ready`. */
static void fill_with(cache_t *c, const unsigned *lines, int n, bool dirty, double ready)
{
    for (int i = 0; i < n; i++) {
        cache_meta_t m = {.ready_cycles = ready, .dirty = dirty};
        cache_victim_t v;
        cache_insert(c, L(lines[i]), &m, &v);
    }
}

static void fill(cache_t *c, const unsigned *lines, int n, bool dirty)
{
    fill_with(c, lines, n, dirty, 0);
}

static void fill_at(cache_t *c, const unsigned *lines, int n, double ready)
{
    fill_with(c, lines, n, false, ready);
}

/* timing_same: floors 100 (now) and 40 (then), tolerance 0.5. */
static void test_timing_same(void **state)
{
    (void)state;
    timing_shift_t sh = {.floor_now = 100, .floor_then = 40, .tol_cycles = 0.5};
    assert_true(timing_same(107, 47, &sh));   /* both 7 after their floors */
    assert_true(timing_same(107.5, 47, &sh)); /* 0.5 apart: the tolerance */
    assert_false(timing_same(107.51, 47, &sh));
    assert_true(timing_same(99.9, 1, &sh));  /* both past: values never read */
    assert_false(timing_same(100, 39, &sh)); /* at the floor is not past */
    assert_true(timing_same(100, 40, &sh));
    assert_false(timing_same(99, 40, &sh)); /* one past, one not */
}

/* Lines 0,1,2,3 into 2 sets: set 0 holds 2 (MRU) and 0, set 1 holds 3 and
 * 1. Lines 2,3,4,5 in the same order: set 0 holds 4 and 2, set 1 5 and 3:
 * the first state moved by 2 lines (a multiple of the 2 sets). */
static void test_cache_moved(void **state)
{
    (void)state;
    cache_t *a = mk_cache(), *b = mk_cache();
    const unsigned la[] = {0, 1, 2, 3}, lb[] = {2, 3, 4, 5};
    fill(a, la, 4, true);
    fill(b, lb, 4, true);
    cache_snap_t *s = cache_snap_take(a, NULL, 0);
    assert_non_null(s);
    timing_shift_t sh = {.floor_now = 0, .floor_then = 0, .tol_cycles = 0};
    assert_int_equal(cache_snap_same(b, s, 2, 0, 100, 0, 0, &sh, NULL), 1);
    /* by one line the sets would change: never */
    assert_int_equal(cache_snap_same(b, s, 1, 0, 100, 0, 0, &sh, NULL), -1);
    /* the stream's range ends at line 5: line 3 moved to 5 would leave it */
    assert_int_equal(cache_snap_same(b, s, 2, 0, 5, 0, 0, &sh, NULL), -1);
    assert_int_equal(cache_snap_same(b, s, 2, 0, 6, 0, 0, &sh, NULL), 1);
    /* and it starts at line 0: from line 1 on, line 0 would have stayed where
     * it was, so nothing can have become line 2 (a line of [lo, lo + 2)) */
    assert_int_equal(cache_snap_same(b, s, 2, 1, 100, 0, 0, &sh, NULL), -1);
    /* cache_move makes a into b: then a equals its own snapshot moved */
    cache_move(a, 2, 0, 100, 0);
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 0, 0, &sh, NULL), 1);
    cache_snap_destroy(s);
    cache_destroy(a);
    cache_destroy(b);
}

/* The same lines in another recency order are another state: 2,3,4,5
 * against 4,5,2,3 (set 0 then holds 2 as MRU, not 4). */
static void test_cache_recency(void **state)
{
    (void)state;
    cache_t *a = mk_cache(), *b = mk_cache();
    const unsigned la[] = {0, 1, 2, 3}, lb[] = {4, 5, 2, 3};
    fill(a, la, 4, false);
    fill(b, lb, 4, false);
    cache_snap_t *s = cache_snap_take(a, NULL, 0);
    timing_shift_t sh = {0};
    assert_int_equal(cache_snap_same(b, s, 2, 0, 100, 0, 0, &sh, NULL), -1);
    /* and a dirty bit is part of the state */
    cache_t *c = mk_cache();
    const unsigned lc[] = {2, 3, 4, 5};
    fill(c, lc, 4, true);
    assert_int_equal(cache_snap_same(c, s, 2, 0, 100, 0, 0, &sh, NULL), -1);
    cache_snap_destroy(s);
    cache_destroy(a);
    cache_destroy(b);
    cache_destroy(c);
}

/* A level the stream does not fill stays where it was (0), unless a line
 * of it lies in the window the stream will go through: lines 0..3 against
 * the window [4, 8) (none there) and [3, 8) (line 3 there). */
static void test_cache_static(void **state)
{
    (void)state;
    cache_t *a = mk_cache();
    const unsigned la[] = {0, 1, 2, 3};
    fill(a, la, 4, false);
    cache_snap_t *s = cache_snap_take(a, NULL, 0);
    timing_shift_t sh = {0};
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 4, 8, &sh, NULL), 0);
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 3, 8, &sh, NULL), -1);
    /* asked where the stream must stop short instead: the lowest line in
     * the window (3 of [2, 8), 3 of [3, 8)), none when the window is clear */
    uint64_t ahead = 0;
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 2, 8, &sh, &ahead), 0);
    assert_int_equal(ahead, 2);
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 3, 8, &sh, &ahead), 0);
    assert_int_equal(ahead, 3);
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 4, 8, &sh, &ahead), 0);
    assert_int_equal(ahead, UINT64_MAX);
    cache_snap_destroy(s);
    cache_destroy(a);
}

/* c holds what ref holds: the same lines in the same recency order, with
 * the same bits and times. */
static void assert_same_cache(const cache_t *c, const cache_t *ref)
{
    cache_snap_t *s = cache_snap_take(ref, NULL, 0);
    timing_shift_t sh = {0};
    assert_int_equal(cache_snap_same(c, s, 0, 0, 0, 0, 0, &sh, NULL), 0);
    cache_snap_destroy(s);
}

/* A snapshot keeps a line's tag and bits in 32 bits when the tag (the line
 * number above the set index) fits in 29, else the line in 64 bits: lines
 * 2^30 + 0..3 of the 2-set cache have tags from 2^29 (wide), lines 2^29 +
 * 0..3 tags below it (narrow). Both compare alike, dirty bits included. */
static void test_cache_snap_wide(void **state)
{
    (void)state;
    timing_shift_t sh = {0};
    const uint64_t bases[] = {UINT64_C(1) << 29, UINT64_C(1) << 30};
    for (int i = 0; i < 2; i++) {
        cache_t *a = mk_cache(), *b = mk_cache(), *d = mk_cache();
        for (uint64_t l = 0; l < 4; l++) {
            cache_meta_t m = {.dirty = l == 1};
            cache_insert(a, L(bases[i] + l), &m, NULL);
            cache_insert(b, L(bases[i] + l + 2), &m, NULL);
            m.dirty = l == 2; /* another line dirty */
            cache_insert(d, L(bases[i] + l + 2), &m, NULL);
        }
        cache_snap_t *s = cache_snap_take(a, NULL, 0);
        assert_non_null(s);
        uint64_t lo = bases[i], hi = bases[i] + 100;
        assert_int_equal(cache_snap_same(b, s, 2, lo, hi, 0, 0, &sh, NULL), 1);
        assert_int_equal(cache_snap_same(d, s, 2, lo, hi, 0, 0, &sh, NULL), -1);
        assert_int_equal(cache_snap_same(a, s, 2, lo, hi, 0, 0, &sh, NULL), 0);
        cache_snap_destroy(s);
        cache_destroy(a);
        cache_destroy(b);
        cache_destroy(d);
    }
}

/* A narrow snapshot (tags below 2^29) against a live line whose tag differs
 * from a snapshot tag by 2^29 only (line 2^30 + 2 against line 2: tag 2^29 + 1
 * against 1 in the 2-set cache): the same low 29 bits, never the same line. */
static void test_cache_snap_narrow_alias(void **state)
{
    (void)state;
    timing_shift_t sh = {0};
    cache_t *a = mk_cache(), *b = mk_cache();
    const unsigned la[] = {0, 1, 2, 3};
    fill(a, la, 4, false);
    cache_snap_t *s = cache_snap_take(a, NULL, 0);
    assert_non_null(s);
    const unsigned lb[] = {0, 1, (1u << 30) + 2, 3};
    fill(b, lb, 4, false);
    assert_int_equal(cache_snap_same(b, s, 2, 0, 100, 0, 0, &sh, NULL), -1);
    assert_int_equal(cache_snap_same(a, s, 2, 0, 100, 0, 0, &sh, NULL), 0);
    cache_snap_destroy(s);
    cache_destroy(a);
    cache_destroy(b);
}

/* cache_move keeps every moved line findable. The fingerprint is the line
 * number above the set index, low byte, and a lookup tests it for every way
 * but the most recent (the head is tested by its tag). A move by whole set
 * counts adds dlines / sets to the fingerprints when every line of a set
 * moves: set 0 holds 508 (most recent) and 510, which move to 510 and 512
 * (fingerprint 255 wraps to 0). The set's fingerprints are made again when
 * only some move: set 1 holds 601 (most recent, outside the range [0, 520),
 * so it stays) and 513, which moves to 515. */
static void test_cache_move_fingerprints(void **state)
{
    (void)state;
    cache_t *c = mk_cache();
    const unsigned l[] = {510, 508, 513, 601};
    fill(c, l, 4, false);
    cache_move(c, 2, 0, 520, 5);
    const cache_meta_t *m = cache_lookup(c, L(512), false);
    assert_non_null(m);
    assert_true(m->ready_cycles == 5); /* and its time moved on */
    assert_non_null(cache_lookup(c, L(510), false));
    assert_null(cache_lookup(c, L(508), false));
    assert_non_null(cache_lookup(c, L(515), false));
    assert_non_null(cache_lookup(c, L(601), false));
    assert_null(cache_lookup(c, L(513), false));
    cache_destroy(c);
}

/* A stream filling a 2-set, 4-way cache. Lines 10..13 leave set 0 holding
 * 12, 10 (most recent first); 14, 15 make it 14, 12, 10: the snapshot's
 * lines moved by 2 (one period: the set count) and its oldest, 10, left
 * where it was. One free way is left in each set: one more period (the
 * threshold); with 16, 17 as well, none (one short of it). */
static void test_cache_grown_fill(void **state)
{
    (void)state;
    cache_t *c = mk_cache_ways(4), *ref = mk_cache_ways(4);
    const unsigned first[] = {10, 11, 12, 13}, next[] = {14, 15}, more[] = {16, 17};
    fill(c, first, 4, true);
    cache_snap_t *s = cache_snap_take(c, NULL, 0);
    fill(c, next, 2, true);
    timing_shift_t sh = {0};
    cache_growth_t g;
    /* the counts differ: not a move, nor in place */
    assert_int_equal(cache_snap_same(c, s, 2, 0, 100, 14, 18, &sh, NULL), -1);
    assert_true(cache_snap_grown(c, s, 2, 0, 100, 14, 14 + 2, false, false, &sh, &g));
    assert_int_equal(g.max_periods, 1);
    assert_int_equal(g.ahead_line, UINT64_MAX);
    assert_int_equal(g.split[0], 2);
    assert_int_equal(g.split[1], 2);
    /* the moving lines must stay in [lo, hi): 13 moves to 15 */
    assert_false(cache_snap_grown(c, s, 2, 0, 15, 14, 14 + 2, false, false, &sh, &g));
    assert_true(cache_snap_grown(c, s, 2, 0, 16, 14, 14 + 2, false, false, &sh, &g));
    /* one period applied is what simulating 16, 17 gives */
    cache_grow(c, &g, 2, 0);
    const unsigned all[] = {10, 11, 12, 13, 14, 15, 16, 17};
    fill(ref, all, 8, true);
    assert_same_cache(c, ref);
    /* one period short: the sets are full, nothing left to fill */
    cache_snap_destroy(s);
    cache_t *d = mk_cache_ways(4);
    fill(d, first, 4, true);
    fill(d, next, 2, true);
    s = cache_snap_take(d, NULL, 0);
    fill(d, more, 2, true);
    assert_false(cache_snap_grown(d, s, 2, 0, 100, 16, 16 + 2, false, false, &sh, &g));
    cache_snap_destroy(s);
    /* the line after the moved ones must be the one the period left: set 0
     * as 14, 8, 10 (12 gone, 8 in its place) is not 12, 10 grown */
    cache_t *e = mk_cache_ways(4);
    fill(e, first, 4, true);
    s = cache_snap_take(e, NULL, 0);
    assert_true(cache_remove(e, L(12), NULL));
    const unsigned other[] = {8, 14, 15};
    fill(e, other, 3, true);
    assert_false(cache_snap_grown(e, s, 2, 0, 100, 14, 14 + 2, false, false, &sh, &g));
    cache_snap_destroy(s);
    cache_destroy(e);
    cache_destroy(c);
    cache_destroy(ref);
    cache_destroy(d);
}

/* A set's first line of the stream (fresh): line 10 in set 0 and line 51
 * (outside the stream's range [0, 40)) in set 1 of the 2-set, 4-way cache;
 * then 11 and 12: set 0 grows as before (12, 10) and set 1 gains 11 before
 * 51, a line of the period with nothing of the stream in its set before.
 * Only where the level allows it (fresh), and only for a line below the
 * stream's next one: 11 < 12 holds, 11 < 11 does not. 51 is left ahead.
 * Two more periods fit (the free ways); applied, they are 13..16 simulated. */
static void test_cache_grown_fresh(void **state)
{
    (void)state;
    cache_t *c = mk_cache_ways(4), *ref = mk_cache_ways(4);
    const unsigned first[] = {51, 10}, next[] = {11, 12};
    fill(c, first, 2, false);
    cache_snap_t *s = cache_snap_take(c, NULL, 0);
    fill(c, next, 2, false);
    timing_shift_t sh = {0};
    cache_growth_t g;
    assert_false(cache_snap_grown(c, s, 2, 0, 40, 11, 13, false, false, &sh, &g));
    assert_false(cache_snap_grown(c, s, 2, 0, 40, 11, 11, false, true, &sh, &g));
    assert_true(cache_snap_grown(c, s, 2, 0, 40, 11, 12, false, true, &sh, &g));
    assert_true(cache_snap_grown(c, s, 2, 0, 40, 11, 13, false, true, &sh, &g));
    assert_int_equal(g.max_periods, 2);
    assert_int_equal(g.ahead_line, 51);
    assert_int_equal(g.split[0], 1);
    assert_int_equal(g.split[1], 0);
    cache_grow(c, &g, 4, 0);
    const unsigned all[] = {51, 10, 11, 12, 13, 14, 15, 16};
    fill(ref, all, 8, false);
    assert_same_cache(c, ref);
    cache_snap_destroy(s);
    cache_destroy(c);
    cache_destroy(ref);
}

/* The line a filling set leaves behind may have been in flight at the
 * snapshot: lines 6, 7 arrived at 0, the stream's 12, 13 arrive at 45,
 * after the snapshot's floor (40). A period of dt = F - 40 later, 14, 15
 * arrive at 45 + dt: set 0 is 14, 12, 6, with 12 untouched (its time is
 * still 45, not moved). That is the set grown if 12 is past now (45 < F):
 * F = 46 is, F = 45 (the threshold) is not. 12 at another time (44) is
 * not it either. One period applied is 16, 17 simulated at 45 + 2 dt. */
static void test_cache_grown_in_flight(void **state)
{
    (void)state;
    const unsigned past[] = {6, 7}, flight[] = {12, 13}, next[] = {14, 15}, more[] = {16, 17};
    for (int f = 45; f <= 46; f++) {
        double dt = f - 40;
        timing_shift_t sh = {.floor_now = f, .floor_then = 40, .tol_cycles = 0.5};
        cache_t *c = mk_cache_ways(4);
        fill_at(c, past, 2, 0);
        fill_at(c, flight, 2, 45);
        cache_snap_t *s = cache_snap_take(c, NULL, 40);
        fill_at(c, next, 2, 45 + dt);
        cache_growth_t g;
        assert_int_equal(cache_snap_grown(c, s, 2, 0, 100, 14, 16, false, false, &sh, &g), f == 46);
        if (f == 46) {
            assert_int_equal(g.max_periods, 1);
            cache_lookup(c, L(12), false)->ready_cycles = 44;
            assert_false(cache_snap_grown(c, s, 2, 0, 100, 14, 16, false, false, &sh, &g));
            cache_lookup(c, L(12), false)->ready_cycles = 45;
            assert_true(cache_snap_grown(c, s, 2, 0, 100, 14, 16, false, false, &sh, &g));
            cache_grow(c, &g, 2, dt);
            cache_t *ref = mk_cache_ways(4);
            fill_at(ref, past, 2, 0);
            fill_at(ref, flight, 2, 45);
            fill_at(ref, next, 2, 45 + dt);
            fill_at(ref, more, 2, 45 + 2 * dt);
            assert_same_cache(c, ref);
            cache_destroy(ref);
        }
        cache_snap_destroy(s);
        cache_destroy(c);
    }
}

/* cache_tags_moved: lines 10..13 in the 2-set, 2-way cache against 12..15
 * (moved by 2, the set count), 14..17 (by 4), 12..15 with 12 touched (the
 * order differs), 12..15 with 13 dirty (bits differ), and a move of 1 (not
 * whole sets). The TLB's replay uses it to stop after one period. */
static void test_cache_tags_moved(void **state)
{
    (void)state;
    const unsigned a_l[] = {10, 11, 12, 13}, b_l[] = {12, 13, 14, 15}, c_l[] = {14, 15, 16, 17};
    cache_t *a = mk_cache(), *b = mk_cache(), *c = mk_cache(), *d = mk_cache(), *e = mk_cache();
    fill(a, a_l, 4, false);
    fill(b, b_l, 4, false);
    fill(c, c_l, 4, false);
    fill(d, b_l, 4, false);
    /* set 0 becomes 12, 14 where the move gives 14, 12 */
    assert_non_null(cache_lookup(d, L(12), true));
    fill(e, b_l, 4, false);
    cache_lookup(e, L(13), false)->dirty = true;
    assert_true(cache_tags_moved(a, b, 2));
    assert_false(cache_tags_moved(a, b, 0));
    assert_true(cache_tags_moved(a, c, 4));
    assert_false(cache_tags_moved(a, c, 2));
    assert_false(cache_tags_moved(a, d, 2));
    assert_false(cache_tags_moved(a, e, 2));
    assert_false(cache_tags_moved(a, b, 1));
    assert_true(cache_tags_moved(b, b, 0));
    cache_destroy(a);
    cache_destroy(b);
    cache_destroy(c);
    cache_destroy(d);
    cache_destroy(e);
}

/* A stream draining the lines of a run before it. Dirty lines 50..57 fill
 * the 2-set, 4-way cache (set 0: 56, 54, 52, 50); clean stream lines 0, 1
 * take the place of 50, 51 (set 0: 0, 56, 54, 52): the snapshot. 2, 3 then
 * give 2, 0, 56, 54: 0 moved to 2, 0 left where it was, 52 gone. Only the
 * stream's range [0, 40) moves. Two dirty lines are left to go in each set
 * (56, 54; 57, 55): two periods; with 56 clean, one (its bits differ from
 * the line that went). The lowest line left ahead of the stream is 54. */
static void test_cache_grown_drain(void **state)
{
    (void)state;
    /* every ready time (0) is past: a line in flight never drains */
    timing_shift_t sh = {.floor_now = 1, .floor_then = 1};
    cache_growth_t g;
    for (int clean56 = 0; clean56 <= 1; clean56++) {
        cache_t *c = mk_cache_ways(4), *ref = mk_cache_ways(4);
        const unsigned old[] = {50, 51, 52, 53, 54, 55}, old56[] = {56}, old57[] = {57};
        const unsigned first[] = {0, 1}, next[] = {2, 3};
        fill(c, old, 6, true);
        fill(c, old56, 1, !clean56);
        fill(c, old57, 1, true);
        fill(c, first, 2, false);
        cache_snap_t *s = cache_snap_take(c, NULL, 1);
        fill(c, next, 2, false);
        assert_int_equal(cache_snap_same(c, s, 2, 0, 40, 2, 8, &sh, NULL), -1);
        /* only a level allowed to drain */
        assert_false(cache_snap_grown(c, s, 2, 0, 40, 2, 2 + 2, false, false, &sh, &g));
        assert_true(cache_snap_grown(c, s, 2, 0, 40, 2, 2 + 2, true, false, &sh, &g));
        assert_int_equal(g.max_periods, clean56 ? 1 : 2);
        assert_int_equal(g.ahead_line, 54);
        assert_int_equal(g.split[0], 1);
        /* the periods applied are what simulating the lines gives */
        uint64_t n = g.max_periods;
        cache_grow(c, &g, 2 * n, 0);
        fill(ref, old, 6, true);
        fill(ref, old56, 1, !clean56);
        fill(ref, old57, 1, true);
        fill(ref, first, 2, false);
        fill(ref, next, 2, false);
        const unsigned then[] = {4, 5, 6, 7};
        fill(ref, then, 2 * (int)n, false);
        assert_same_cache(c, ref);
        cache_snap_destroy(s);
        cache_destroy(c);
        cache_destroy(ref);
    }
}

/* Ready times: a line still in flight (ready 50 against a floor of 40)
 * must sit at the same distance from the floor one period later (floor
 * 140: ready 150), a past one (ready 10) need not. */
static void test_cache_ready(void **state)
{
    (void)state;
    cache_t *a = mk_cache(), *b = mk_cache();
    cache_victim_t v;
    cache_meta_t m0 = {.ready_cycles = 10}, m1 = {.ready_cycles = 50};
    cache_insert(a, L(0), &m0, &v);
    cache_insert(a, L(1), &m1, &v);
    cache_snap_t *s = cache_snap_take(a, NULL, 40);
    timing_shift_t sh = {.floor_now = 140, .floor_then = 40, .tol_cycles = 0};
    cache_meta_t n0 = {.ready_cycles = 20}, n1 = {.ready_cycles = 150};
    cache_insert(b, L(2), &n0, &v);
    cache_insert(b, L(3), &n1, &v);
    assert_int_equal(cache_snap_same(b, s, 2, 0, 100, 0, 0, &sh, NULL), 1);
    cache_t *c = mk_cache();
    cache_meta_t k1 = {.ready_cycles = 151};
    cache_insert(c, L(2), &n0, &v);
    cache_insert(c, L(3), &k1, &v);
    assert_int_equal(cache_snap_same(c, s, 2, 0, 100, 0, 0, &sh, NULL), -1);
    cache_snap_destroy(s);
    cache_destroy(a);
    cache_destroy(b);
    cache_destroy(c);
}

static pf_t *mk_pf(void)
{
    machine_prefetch_t cfg = {.enabled = true,
                              .train_lines = 2,
                              .degree_lines = 1,
                              .distance_lines = 2,
                              .boundary_bytes = 4 * 64};
    pf_t *p = pf_create(&cfg, 64);
    assert_non_null(p);
    return p;
}

static void walk(pf_t *p, unsigned from, unsigned n)
{
    uint64_t out[8];
    for (unsigned i = 0; i < n; i++)
        pf_access(p, L(from + i), out, 8);
}

/* A stream over lines 0..5 and one over 8..13 are the same stream 8 lines
 * on (two whole 4-line regions): moved. By 6 lines (not whole regions):
 * never. */
static void test_pf_moved(void **state)
{
    (void)state;
    pf_t *a = mk_pf(), *b = mk_pf();
    walk(a, 0, 6);
    walk(b, 8, 6);
    pf_t *snap = pf_clone(a, NULL);
    assert_true(pf_same(b, snap, 8, 0, 100, 0, 0) > 0);
    assert_int_equal(pf_same(b, snap, 6, 0, 100, 0, 0), -1);
    /* pf_move makes a into b */
    pf_move(a, 8, pf_same(b, snap, 8, 0, 100, 0, 0));
    assert_true(pf_same(a, snap, 8, 0, 100, 0, 0) > 0);
    pf_destroy(snap);
    pf_destroy(a);
    pf_destroy(b);
}

/* Each period walks 6 lines 16 lines (four 4-line regions) on from the
 * last: lines 16k..16k+5, two streams (regions 4k and 4k+1; without
 * next_page nothing carries over), so each period adds a generation of 2
 * in the lowest free slots. After periods 0 and 1 (4 streams, the
 * snapshot) and period 2 (6), the snapshot's youngest two (slots 2, 3)
 * moved by 16 are slots 4, 5: growing, 2 a period, (16 - 6) / 2 = 5
 * periods before the 16 slots run out. */
static void walk_periods(pf_t *p, unsigned from, unsigned to)
{
    for (unsigned k = from; k < to; k++)
        walk(p, 16 * k, 6);
}

static void test_pf_growing(void **state)
{
    (void)state;
    pf_t *a = mk_pf();
    walk_periods(a, 0, 2);
    pf_t *snap = pf_clone(a, NULL);
    walk_periods(a, 2, 3);
    pf_growth_t g;
    assert_int_equal(pf_same(a, snap, 16, 0, 1000, 48, 112), -1); /* 6 streams against 4 */
    assert_true(pf_same_growing(a, snap, 16, 0, 1000, 48, 112, &g));
    assert_int_equal(g.count, 2);
    assert_int_equal(g.max_periods, 5);
    assert_int_equal(g.slots[0], 4);
    assert_int_equal(g.slots[1], 5);
    assert_int_equal(g.slots[g.last_idx], 5); /* region 4k+1 was hit last */
    /* a window that reaches an old stream's region (lines 0..3): no */
    assert_false(pf_same_growing(a, snap, 16, 0, 1000, 0, 112, &g));
    /* not whole regions: no */
    assert_false(pf_same_growing(a, snap, 6, 0, 1000, 48, 112, &g));
    /* pf_grow by 3 periods is what walking them does, slot by slot */
    assert_true(pf_same_growing(a, snap, 16, 0, 1000, 48, 112, &g));
    pf_t *ref = pf_clone(a, NULL), *c = pf_clone(a, NULL);
    walk_periods(ref, 3, 6);
    pf_grow(c, &g, 3 * 16);
    assert_int_equal(pf_same(c, ref, 16, 0, 0, 0, 0), 0);
    /* and they go on alike: the same prefetches for the next period */
    uint64_t o1[8], o2[8];
    for (unsigned i = 0; i < 6; i++) {
        uint32_t n1 = pf_access(ref, L(96 + i), o1, 8), n2 = pf_access(c, L(96 + i), o2, 8);
        assert_int_equal(n1, n2);
        assert_memory_equal(o1, o2, n1 * sizeof o1[0]);
    }
    assert_int_equal(pf_same(c, ref, 16, 0, 0, 0, 0), 0);
    pf_destroy(ref);
    pf_destroy(c);
    pf_destroy(snap);
    pf_destroy(a);
}

/* The threshold, with one stream a period (3 lines 16k..16k+2, one
 * region): after 15 periods (15 streams) one slot is left, so one more
 * period may be stepped (max 1); after 16 (full) the table no longer grows
 * and pf_same judges it (by age). */
static void test_pf_growing_full(void **state)
{
    (void)state;
    pf_t *a = mk_pf();
    pf_growth_t g;
    for (unsigned k = 0; k < 14; k++)
        walk(a, 16 * k, 3);
    pf_t *snap = pf_clone(a, NULL);
    walk(a, 16 * 14, 3);
    assert_true(pf_same_growing(a, snap, 16, 0, 1000, 240, 272, &g));
    assert_int_equal(g.count, 1);
    assert_int_equal(g.max_periods, 1);
    pf_destroy(snap);
    snap = pf_clone(a, NULL);
    walk(a, 16 * 15, 3);
    assert_false(pf_same_growing(a, snap, 16, 0, 1000, 256, 288, &g));
    assert_int_equal(g.count, 0);
    pf_destroy(snap);
    pf_destroy(a);
}

/* A stream left behind (not moved) is allowed only outside the window the
 * stream goes through: the stream at lines 0..5 against the window [8, 16)
 * and [5, 16) (its last line, 5, is there). */
static void test_pf_left_behind(void **state)
{
    (void)state;
    pf_t *a = mk_pf();
    walk(a, 0, 6);
    pf_t *snap = pf_clone(a, NULL);
    assert_int_equal(pf_same(a, snap, 8, 100, 200, 8, 16), 0);
    assert_int_equal(pf_same(a, snap, 8, 100, 200, 5, 16), -1);
    pf_destroy(snap);
    pf_destroy(a);
}

/* Miss queues: completion times 45 and 60 against floor 40 are 105 and
 * 120 against floor 100; 105 and 121 are not. */
static void test_mshr_same(void **state)
{
    (void)state;
    mshr_t *a = mshr_create(2), *b = mshr_create(2), *c = mshr_create(2);
    mshr_commit(a, 45);
    mshr_commit(a, 60);
    mshr_commit(b, 105);
    mshr_commit(b, 120);
    mshr_commit(c, 105);
    mshr_commit(c, 121);
    timing_shift_t sh = {.floor_now = 100, .floor_then = 40, .tol_cycles = 0};
    assert_true(mshr_same(b, a, &sh));
    assert_false(mshr_same(c, a, &sh));
    mshr_t *d = mshr_clone(a, NULL);
    assert_true(mshr_same(d, a, &(timing_shift_t){.floor_now = 0, .floor_then = 0}));
    mshr_destroy(a);
    mshr_destroy(b);
    mshr_destroy(c);
    mshr_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timing_same),
        cmocka_unit_test(test_cache_moved),
        cmocka_unit_test(test_cache_recency),
        cmocka_unit_test(test_cache_static),
        cmocka_unit_test(test_cache_ready),
        cmocka_unit_test(test_pf_moved),
        cmocka_unit_test(test_pf_growing),
        cmocka_unit_test(test_pf_growing_full),
        cmocka_unit_test(test_pf_left_behind),
        cmocka_unit_test(test_mshr_same),
        cmocka_unit_test(test_cache_grown_fill),
        cmocka_unit_test(test_cache_grown_drain),
        cmocka_unit_test(test_cache_snap_wide),
        cmocka_unit_test(test_cache_snap_narrow_alias),
        cmocka_unit_test(test_cache_move_fingerprints),
        cmocka_unit_test(test_cache_grown_fresh),
        cmocka_unit_test(test_cache_grown_in_flight),
        cmocka_unit_test(test_cache_tags_moved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
