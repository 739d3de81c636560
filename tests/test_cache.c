/*
 * test_cache.c - unit tests of the cache array (models/cache.c) and the
 * replacement policies (models/repl_*.c).
 *
 * Notes
 *  - Tiny caches (1 to 16 sets, 2 to 8 ways, 64-byte lines) with expected
 *    states worked out by hand in the comments.
 *  - Addresses are byte addresses; with 64-byte lines line N starts at N*64.
 *  - The random-policy expectations come from xorshift64 (13, 7, 17) worked
 *    out separately; only determinism and range are assumed elsewhere.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "models/cache.h"

#define L(n) ((uint64_t)(n)*64u) /* byte address of line n (64-byte lines) */

static machine_cache_t geom(uint64_t size, uint32_t ways, uint32_t line, machine_repl_t repl)
{
    machine_cache_t g;
    memset(&g, 0, sizeof g);
    g.present = true;
    g.size_bytes = size;
    g.ways = ways;
    g.line_bytes = line;
    g.repl = repl;
    return g;
}

static cache_t *mk(uint64_t size, uint32_t ways, machine_repl_t repl, uint64_t seed)
{
    char err[160];
    machine_cache_t g = geom(size, ways, 64, repl);
    cache_t *c = cache_create(&g, seed, err, sizeof err);
    if (c == NULL)
        fail_msg("cache_create: %s", err);
    return c;
}

/* Insert addr; returns the evicted line's address, or UINT64_MAX if none. */
static uint64_t ins(cache_t *c, uint64_t addr)
{
    cache_victim_t v;
    memset(&v, 0xAB, sizeof v);
    cache_insert(c, addr, &(cache_meta_t){0}, &v);
    return v.valid ? v.addr : UINT64_MAX;
}

/* The way addr sits in (set = cache_set_of), or UINT32_MAX. */
static uint32_t way_of(const cache_t *c, uint64_t addr)
{
    uint32_t set = cache_set_of(c, addr);
    for (uint32_t w = 0; w < cache_ways(c); w++) {
        uint64_t a;
        if (cache_peek(c, set, w, &a) && a == (addr & ~(uint64_t)(cache_line_bytes(c) - 1)))
            return w;
    }
    return UINT32_MAX;
}

/* ---- geometry ---------------------------------------------------------- */

typedef struct bad_geom {
    uint64_t size;
    uint32_t ways, line;
    int repl;
    const char *why;
} bad_geom_t;

static void test_geometry_errors(void **state)
{
    (void)state;
    static const bad_geom_t cases[] = {
        {0, 4, 64, MACHINE_REPL_LRU, "size must be non-zero"},
        {256, 0, 64, MACHINE_REPL_LRU, "ways must be non-zero"},
        {256, 4, 0, MACHINE_REPL_LRU, "line must be non-zero"},
        {288, 1, 48, MACHINE_REPL_LRU, "line 48 is not a power of two"},
        {16, 1, 1, MACHINE_REPL_LRU, "line 1 is too small (at least 2 bytes)"},
        {100, 1, 64, MACHINE_REPL_LRU, "size 100 is not a multiple of line 64"},
        /* 128 / 64 = 2 lines, 4 ways wanted */
        {128, 4, 64, MACHINE_REPL_LRU, "ways 4 exceed the 2 lines of the cache"},
        /* 384 / 64 = 6 lines, 6 % 4 != 0 */
        {384, 4, 64, MACHINE_REPL_LRU, "size 384 is not divisible by ways x line (4 x 64 = 256)"},
        /* 768 / (4 * 64) = 3 sets */
        {768, 4, 64, MACHINE_REPL_LRU, "set count 3 is not a power of two"},
        /* 3 ways x 2 sets: fine for lru, not for plru */
        {384, 3, 64, MACHINE_REPL_PLRU, "plru needs a power-of-two way count (got 3 ways)"},
        {512 * 64, 512, 64, MACHINE_REPL_LRU, "lru supports at most 256 ways (got 512)"},
        {256, 4, 64, 7, "unknown replacement policy 7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_geom_t *b = &cases[i];
        machine_cache_t g = geom(b->size, b->ways, b->line, (machine_repl_t)b->repl);
        char err[160] = "untouched";
        cache_t *c = cache_create(&g, 1, err, sizeof err);
        assert_null(c);
        assert_string_equal(err, b->why);
        /* A NULL or zero-length reason buffer is allowed. */
        assert_null(cache_create(&g, 1, NULL, 0));
    }
}

static void test_geometry_ok(void **state)
{
    (void)state;
    char err[160];
    /* 12 ways x 4 sets x 64 B: non-power-of-two ways are fine for lru and random. */
    for (int r = MACHINE_REPL_LRU; r <= MACHINE_REPL_RANDOM; r += 2) {
        machine_cache_t g = geom(3072, 12, 64, (machine_repl_t)r);
        cache_t *c = cache_create(&g, 0, err, sizeof err);
        assert_non_null(c);
        assert_int_equal(cache_sets(c), 4);
        assert_int_equal(cache_ways(c), 12);
        assert_int_equal(cache_line_bytes(c), 64);
        assert_int_equal(cache_valid_lines(c), 0);
        assert_ptr_equal(cache_repl(c), repl_find((machine_repl_t)r));
        cache_destroy(c);
    }
    /* Fully associative (1 set) and direct mapped (1 way) are both legal. */
    machine_cache_t fa = geom(512, 8, 64, MACHINE_REPL_PLRU);
    cache_t *c = cache_create(&fa, 0, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(cache_sets(c), 1);
    cache_destroy(c);
    machine_cache_t dm = geom(512, 1, 64, MACHINE_REPL_PLRU);
    c = cache_create(&dm, 0, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(cache_sets(c), 8);
    /* Direct mapped: the second line of a set always evicts the first. */
    assert_int_equal(ins(c, L(0)), UINT64_MAX);
    assert_int_equal(ins(c, L(8)), L(0));
    cache_destroy(c);
    cache_destroy(NULL);
}

static void test_repl_find(void **state)
{
    (void)state;
    assert_ptr_equal(repl_find(MACHINE_REPL_LRU), &repl_lru);
    assert_ptr_equal(repl_find(MACHINE_REPL_PLRU), &repl_plru);
    assert_ptr_equal(repl_find(MACHINE_REPL_RANDOM), &repl_random);
    assert_null(repl_find((machine_repl_t)3));
    assert_ptr_equal(repl_find_name("lru"), &repl_lru);
    assert_ptr_equal(repl_find_name("plru"), &repl_plru);
    assert_ptr_equal(repl_find_name("random"), &repl_random);
    assert_null(repl_find_name("LRU"));
    assert_null(repl_find_name("mru"));
    assert_null(repl_find_name(""));
    assert_null(repl_find_name(NULL));
}

/* ---- LRU --------------------------------------------------------------- */

/* The policy on its own: ranks, 0 = most recently used. */
static void test_lru_ranks(void **state)
{
    (void)state;
    uint8_t s[4];
    assert_int_equal(repl_lru.state_bytes(4), 4);
    repl_lru.init(s, 4); /* ranks 0 1 2 3: way 3 is the oldest */
    assert_int_equal(repl_lru.victim(s, 4, NULL), 3);
    repl_lru.touch(s, 4, 3); /* 1 2 3 0 */
    assert_memory_equal(s, ((uint8_t[]){1, 2, 3, 0}), 4);
    assert_int_equal(repl_lru.victim(s, 4, NULL), 2);
    repl_lru.touch(s, 4, 0); /* 0 2 3 1: way 0 was rank 1, only way 3 (rank 0) ages */
    assert_memory_equal(s, ((uint8_t[]){0, 2, 3, 1}), 4);
    repl_lru.touch(s, 4, 0); /* touching the MRU way changes nothing */
    assert_memory_equal(s, ((uint8_t[]){0, 2, 3, 1}), 4);
    repl_lru.touch(s, 4, 2); /* 1 3 0 2 */
    assert_memory_equal(s, ((uint8_t[]){1, 3, 0, 2}), 4);
    assert_int_equal(repl_lru.victim(s, 4, NULL), 1);
}

static void test_lru_victim_order(void **state)
{
    (void)state;
    /* 1 set, 4 ways. Lines A..H = lines 0..7. */
    const uint64_t A = L(0), B = L(1), C = L(2), D = L(3), E = L(4), F = L(5), G = L(6), H = L(7);
    cache_t *c = mk(256, 4, MACHINE_REPL_LRU, 1);
    assert_int_equal(cache_sets(c), 1);
    /* Fills go to invalid ways, lowest first, and evict nothing. */
    assert_int_equal(ins(c, A), UINT64_MAX);
    assert_int_equal(ins(c, B), UINT64_MAX);
    assert_int_equal(ins(c, C), UINT64_MAX);
    assert_int_equal(ins(c, D), UINT64_MAX);
    assert_int_equal(way_of(c, A), 0);
    assert_int_equal(way_of(c, B), 1);
    assert_int_equal(way_of(c, C), 2);
    assert_int_equal(way_of(c, D), 3);
    assert_int_equal(cache_valid_lines(c), 4);
    /* MRU..LRU: D C B A. Touch A: A D C B. */
    assert_non_null(cache_lookup(c, A, true));
    assert_int_equal(ins(c, E), B); /* E A D C */
    assert_int_equal(way_of(c, E), 1);
    assert_int_equal(ins(c, F), C); /* F E A D */
    assert_int_equal(way_of(c, F), 2);
    /* A lookup without touch leaves the order alone: D is still the LRU. */
    assert_non_null(cache_lookup(c, D, false));
    assert_int_equal(ins(c, G), D);            /* G F E A */
    assert_non_null(cache_lookup(c, A, true)); /* A G F E */
    assert_int_equal(ins(c, H), E);            /* H A G F */
    assert_null(cache_lookup(c, B, true));     /* misses do not touch anything */
    assert_int_equal(ins(c, B), F);            /* B H A G */
    assert_int_equal(ins(c, C), G);            /* C B H A */
    assert_int_equal(ins(c, D), A);            /* D C B H */
    assert_int_equal(cache_valid_lines(c), 4);
    cache_destroy(c);
}

/* ---- tree PLRU --------------------------------------------------------- */

/*
 * 4 ways: three bits. b0 is the root (ways 0,1 | ways 2,3), b1 decides
 * way 0 | way 1, b2 decides way 2 | way 3. A bit points at the victim side:
 * 0 = left (lower ways), 1 = right. Stored as bit i of byte 0, so the state
 * byte is b2 b1 b0 read as binary.
 *
 *              b0
 *            /    \
 *          b1      b2
 *         /  \    /  \
 *        w0  w1  w2  w3
 */
static void test_plru_bits(void **state)
{
    (void)state;
    uint8_t s[1] = {0xFF};
    assert_int_equal(repl_plru.state_bytes(4), 1);
    assert_int_equal(repl_plru.state_bytes(8), 1);  /* 7 bits */
    assert_int_equal(repl_plru.state_bytes(16), 2); /* 15 bits */
    assert_int_equal(repl_plru.state_bytes(1), 0);
    repl_plru.init(s, 4); /* b0=0 b1=0 b2=0 -> victim w0 */
    assert_int_equal(s[0], 0);
    assert_int_equal(repl_plru.victim(s, 4, NULL), 0);
    repl_plru.touch(s, 4, 0); /* w0 is left, left: b0=1 b1=1 -> 0b011 */
    assert_int_equal(s[0], 3);
    assert_int_equal(repl_plru.victim(s, 4, NULL), 2); /* b0=1 right, b2=0 left: w2 */
    repl_plru.touch(s, 4, 1);                          /* b0=1 b1=0 -> 0b001 */
    assert_int_equal(s[0], 1);
    repl_plru.touch(s, 4, 2); /* b0=0 b2=1, b1 stays 0 -> 0b100 */
    assert_int_equal(s[0], 4);
    assert_int_equal(repl_plru.victim(s, 4, NULL), 0); /* b0=0 left, b1=0 left: w0 */
    repl_plru.touch(s, 4, 3);                          /* b0=0 b2=0 -> 0b000 */
    assert_int_equal(s[0], 0);

    /* 8 ways: nodes 0..6, root 0, children of i at 2i+1, 2i+2. Touching w5
     * (binary 101: right, left, right) sets b0=0 (victim left), b2=1 (node 2,
     * victim right), b5=0 (node 5 = 2*2+1, victim left) -> 0b0000100 = 4. */
    uint8_t s8[1];
    repl_plru.init(s8, 8);
    repl_plru.touch(s8, 8, 5);
    assert_int_equal(s8[0], 4);
    assert_int_equal(repl_plru.victim(s8, 8, NULL), 0); /* b0=0, b1=0, b3=0: w0 */
    repl_plru.touch(s8, 8, 0); /* b0=1, b1=1, b3=1 -> 0b0001011 + b2 = 0b0001111 = 15 */
    assert_int_equal(s8[0], 15);
    /* b0=1 right -> node 2: b2=1 right -> node 6: b6=0 left -> w6 */
    assert_int_equal(repl_plru.victim(s8, 8, NULL), 6);
}

static void test_plru_victim_order(void **state)
{
    (void)state;
    const uint64_t A = L(0), B = L(1), C = L(2), D = L(3), E = L(4), F = L(5), G = L(6), H = L(7);
    cache_t *c = mk(256, 4, MACHINE_REPL_PLRU, 1);
    /*                                   b0 b1 b2   (state byte b2b1b0) */
    /* start                              0  0  0                        */
    assert_int_equal(ins(c, A), UINT64_MAX); /* w0:  1  1  0 */
    assert_int_equal(ins(c, B), UINT64_MAX); /* w1:  1  0  0 */
    assert_int_equal(ins(c, C), UINT64_MAX); /* w2:  0  0  1 */
    assert_int_equal(ins(c, D), UINT64_MAX); /* w3:  0  0  0 */
    assert_int_equal(way_of(c, D), 3);
    /* Touch A (w0): b0=1 b1=1, b2=0.        1  1  0 */
    assert_non_null(cache_lookup(c, A, true));
    /* Victim: b0=1 -> right, b2=0 -> w2 = C (true LRU would pick B). */
    assert_int_equal(ins(c, E), C); /* E in w2:       0  1  1 */
    assert_int_equal(way_of(c, E), 2);
    /* Victim: b0=0 -> left, b1=1 -> w1 = B. */
    assert_int_equal(ins(c, F), B); /* F in w1:       1  0  1 */
    assert_int_equal(way_of(c, F), 1);
    /* Victim: b0=1 -> right, b2=1 -> w3 = D. */
    assert_int_equal(ins(c, G), D); /* G in w3:       0  0  0 */
    /* Victim: b0=0 -> left, b1=0 -> w0 = A. */
    assert_int_equal(ins(c, H), A); /* H in w0:       1  1  0 */
    /* A lookup without touch leaves the bits: victim is still w2 = E. */
    assert_non_null(cache_lookup(c, F, false));
    assert_int_equal(ins(c, A), E); /* A in w2:       0  1  1 */
    /* Touch G (w3): b0=0 b2=0.                      0  1  0 */
    assert_non_null(cache_lookup(c, G, true));
    /* Victim: b0=0 -> left, b1=1 -> w1 = F. */
    assert_int_equal(ins(c, B), F);
    cache_destroy(c);
}

/* ---- random ------------------------------------------------------------ */

#define RND_N 1000

/* 1 set x 8 ways: fill, then insert RND_N more lines; record the way each
 * new line replaced. */
static void random_ways(uint64_t seed, uint32_t *ways_out)
{
    cache_t *c = mk(512, 8, MACHINE_REPL_RANDOM, seed);
    for (uint64_t i = 0; i < 8; i++)
        assert_int_equal(ins(c, L(i)), UINT64_MAX);
    for (uint64_t i = 0; i < RND_N; i++) {
        uint64_t a = L(8 + i);
        uint64_t victim = ins(c, a);
        assert_int_not_equal(victim, UINT64_MAX);
        uint32_t w = way_of(c, a);
        assert_true(w < 8);
        /* the victim was the line that sat in that way: it is gone, and it
         * was one of the lines inserted so far */
        assert_null(cache_lookup(c, victim, false));
        assert_true(victim < a);
        ways_out[i] = w;
    }
    assert_int_equal(cache_valid_lines(c), 8);
    cache_destroy(c);
}

static void test_random(void **state)
{
    (void)state;
    static uint32_t a[RND_N], b[RND_N], d[RND_N], z[RND_N];
    random_ways(1, a);
    random_ways(1, b);
    random_ways(42, d);
    random_ways(0, z);
    /* Hand-computed xorshift64 (13, 7, 17), way = ((x >> 32) * 8) >> 32:
     * seed 1 gives ways 0 0 4 7 4 7, seed 42 gives 0 5 4 1 2 4. */
    static const uint32_t first1[6] = {0, 0, 4, 7, 4, 7};
    static const uint32_t first42[6] = {0, 5, 4, 1, 2, 4};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(a[i], first1[i]);
        assert_int_equal(d[i], first42[i]);
    }
    /* Same seed, same sequence; different seeds, different sequences. */
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, d, sizeof a);
    /* Roughly uniform (expected 125 per way, sd ~10.5) and seed 0 is not a
     * stuck generator (xorshift from state 0 would pick way 0 forever). */
    const uint32_t *seqs[3] = {a, d, z};
    for (int s = 0; s < 3; s++) {
        unsigned hist[8] = {0};
        for (int i = 0; i < RND_N; i++)
            hist[seqs[s][i]]++;
        for (int w = 0; w < 8; w++) {
            assert_in_range(hist[w], 80, 170);
        }
    }
}

/* ---- set mapping -------------------------------------------------------- */

static void test_set_mapping(void **state)
{
    (void)state;
    /* 4 sets x 2 ways x 64 B = 512 B: set = (addr >> 6) & 3. */
    cache_t *c = mk(512, 2, MACHINE_REPL_LRU, 1);
    assert_int_equal(cache_sets(c), 4);
    assert_int_equal(cache_set_of(c, 0x000), 0);
    assert_int_equal(cache_set_of(c, 0x03F), 0);
    assert_int_equal(cache_set_of(c, 0x040), 1);
    assert_int_equal(cache_set_of(c, 0x080), 2);
    assert_int_equal(cache_set_of(c, 0x0C0), 3);
    assert_int_equal(cache_set_of(c, 0x100), 0);
    assert_int_equal(cache_set_of(c, 0x1C5), 3);
    assert_int_equal(cache_set_of(c, UINT64_MAX), 3);

    /* Lines 0..7 (0x000..0x1C0) fill every set exactly (two per set). */
    for (uint64_t i = 0; i < 8; i++)
        assert_int_equal(ins(c, L(i)), UINT64_MAX);
    assert_int_equal(cache_valid_lines(c), 8);
    uint64_t a;
    assert_true(cache_peek(c, 0, 0, &a));
    assert_int_equal(a, 0x000);
    assert_true(cache_peek(c, 0, 1, &a));
    assert_int_equal(a, 0x100);
    assert_true(cache_peek(c, 3, 0, &a));
    assert_int_equal(a, 0x0C0);
    assert_true(cache_peek(c, 3, 1, &a));
    assert_int_equal(a, 0x1C0);
    assert_false(cache_peek(c, 4, 0, &a)); /* out of range */
    assert_false(cache_peek(c, 0, 2, &a));

    /* 0x200 conflicts with 0x000 and 0x100 (set 0) and evicts the older. */
    assert_int_equal(ins(c, 0x200), 0x000);
    /* The other sets are untouched. */
    for (uint64_t i = 1; i < 8; i++)
        if (i != 4)
            assert_non_null(cache_lookup(c, L(i), false));
    /* 0x240 (set 1) evicts 0x040, the older of set 1, not anything in set 0. */
    assert_int_equal(ins(c, 0x245), 0x040); /* any byte of the line; victim is aligned */
    assert_non_null(cache_lookup(c, 0x100, false));
    assert_non_null(cache_lookup(c, 0x200, false));

    /* Every byte of a line hits; the next byte is another line. A line-
     * straddling access is the caller's to split: the array sees lines. */
    assert_non_null(cache_lookup(c, 0x200, false));
    assert_non_null(cache_lookup(c, 0x23F, false));
    assert_non_null(cache_lookup(c, 0x240, false)); /* 0x245's line */
    assert_null(cache_lookup(c, 0x280, false));
    assert_null(cache_lookup(c, 0x1FF + 0x400, false));

    /* Top of the address space: line 0x03FF_FFFF_FFFF_FFFF, set 3. */
    cache_t *h = mk(512, 2, MACHINE_REPL_LRU, 1);
    const uint64_t top = UINT64_MAX & ~(uint64_t)63;
    assert_int_equal(ins(h, UINT64_MAX), UINT64_MAX);
    assert_true(cache_peek(h, 3, 0, &a));
    assert_int_equal(a, top);
    assert_non_null(cache_lookup(h, top, false));
    assert_null(cache_lookup(h, top - 64, false));
    cache_destroy(h);
    cache_destroy(c);
}

/* ---- metadata ----------------------------------------------------------- */

static void test_meta_roundtrip(void **state)
{
    (void)state;
    cache_t *c = mk(128, 2, MACHINE_REPL_LRU, 1); /* 1 set x 2 ways */
    cache_victim_t v;
    cache_insert(c, L(1), &(cache_meta_t){.ready_cycles = 123.5, .dirty = true}, &v);
    assert_false(v.valid);
    cache_insert(c, L(2), NULL, &v); /* NULL meta: clean, ready at 0 */
    assert_false(v.valid);

    cache_meta_t *m = cache_lookup(c, L(1) + 17, false);
    assert_non_null(m);
    assert_true(m->dirty);
    assert_false(m->prefetched);
    assert_true(m->ready_cycles == 123.5);
    m = cache_lookup(c, L(2), true);
    assert_non_null(m);
    assert_false(m->dirty);
    assert_true(m->ready_cycles == 0.0);
    /* The model updates metadata in place through the pointer. */
    m->dirty = true;
    m->prefetched = true;
    m->ready_cycles = 4000.25;

    /* Line 1 is LRU; inserting line 3 evicts it with its metadata. */
    cache_insert(c, L(3), &(cache_meta_t){.ready_cycles = 7.0, .prefetched = true}, &v);
    assert_true(v.valid);
    assert_int_equal(v.addr, L(1));
    assert_true(v.meta.dirty);
    assert_false(v.meta.prefetched);
    assert_true(v.meta.ready_cycles == 123.5);
    /* Line 2 next, carrying what was written through the pointer. */
    cache_insert(c, L(4), NULL, &v);
    assert_true(v.valid);
    assert_int_equal(v.addr, L(2));
    assert_true(v.meta.dirty);
    assert_true(v.meta.prefetched);
    assert_true(v.meta.ready_cycles == 4000.25);
    /* The victim output may be NULL. */
    cache_insert(c, L(5), NULL, NULL);
    assert_null(cache_lookup(c, L(3), false));
    cache_destroy(c);
}

/* ---- remove ------------------------------------------------------------- */

static void test_remove(void **state)
{
    (void)state;
    cache_t *c = mk(256, 4, MACHINE_REPL_LRU, 1); /* 1 set x 4 ways */
    for (uint64_t i = 0; i < 4; i++)
        cache_insert(c, L(i), &(cache_meta_t){.ready_cycles = (double)i, .dirty = i == 3}, NULL);
    assert_int_equal(cache_valid_lines(c), 4);

    cache_meta_t out;
    assert_true(cache_remove(c, L(3) + 5, &out));
    assert_true(out.dirty);
    assert_true(out.ready_cycles == 3.0);
    assert_false(cache_remove(c, L(3), &out)); /* already gone */
    assert_false(cache_remove(c, L(9), NULL)); /* never there */
    assert_true(cache_remove(c, L(1), NULL));
    assert_int_equal(cache_valid_lines(c), 2);
    assert_null(cache_lookup(c, L(1), true));
    assert_null(cache_lookup(c, L(3), true));
    assert_false(cache_peek(c, 0, 1, NULL));
    assert_false(cache_peek(c, 0, 3, NULL));

    /* Removed ways are refilled first, lowest index first, with no eviction,
     * even though line 0 is the LRU line. */
    assert_int_equal(ins(c, L(10)), UINT64_MAX);
    assert_int_equal(way_of(c, L(10)), 1);
    assert_int_equal(ins(c, L(11)), UINT64_MAX);
    assert_int_equal(way_of(c, L(11)), 3);
    /* Full again: LRU order (MRU..LRU) is 11 10 2 0, so line 0 goes. */
    assert_int_equal(ins(c, L(12)), L(0));
    /* The refilled line is clean with fresh metadata. */
    cache_meta_t *m = cache_lookup(c, L(11), false);
    assert_non_null(m);
    assert_false(m->dirty);
    cache_destroy(c);
}

/* ---- fingerprint search --------------------------------------------------- */

/* One set of `ways`, so the fingerprint is the low 8 bits of the line
 * number: lines k*256 + f share fingerprint f. Up to 16 ways the search
 * compares every fingerprint byte at once and keeps the valid ways (SSE2
 * hosts); from 17 ways on it filters a word of eight at a time. Both must
 * find exactly the lines present, whatever collides: every line of a set
 * with one fingerprint, a removed line whose byte stays behind, fingerprint
 * bytes of never-filled ways (0 at create) and the padding past the last
 * way. */
static void fp_collisions(uint32_t ways)
{
    cache_t *c = mk((uint64_t)ways * 64, ways, MACHINE_REPL_LRU, 1);
    /* one valid line (fingerprint 1): every other way's byte is 0 */
    assert_int_equal(ins(c, L(1)), UINT64_MAX);
    assert_null(cache_lookup(c, L(0), false));   /* fingerprint 0: invalid ways only */
    assert_null(cache_lookup(c, L(256), false)); /* the same */
    assert_true(cache_remove(c, L(1), NULL));
    /* every way with fingerprint 0 */
    for (uint32_t k = 0; k < ways; k++)
        assert_int_equal(ins(c, L((uint64_t)k * 256)), UINT64_MAX);
    for (uint32_t k = 0; k < ways; k++) {
        assert_non_null(cache_lookup(c, L((uint64_t)k * 256), false));
        assert_int_equal(way_of(c, L((uint64_t)k * 256)), k);
    }
    assert_null(cache_lookup(c, L((uint64_t)ways * 256), false)); /* same byte, absent */
    assert_null(cache_lookup(c, L(5), false));                    /* other byte */
    /* a removed line's byte stays: it must not be found, nor hide the others */
    uint32_t gone = ways / 2;
    assert_true(cache_remove(c, L((uint64_t)gone * 256), NULL));
    assert_null(cache_lookup(c, L((uint64_t)gone * 256), false));
    assert_false(cache_remove(c, L((uint64_t)gone * 256), NULL));
    for (uint32_t k = 0; k < ways; k++)
        assert_true((cache_lookup(c, L((uint64_t)k * 256), false) != NULL) == (k != gone));
    /* the freed way is refilled first, by a line of another fingerprint */
    assert_int_equal(ins(c, L(7)), UINT64_MAX);
    assert_int_equal(way_of(c, L(7)), gone);
    assert_non_null(cache_lookup(c, L(7), false));
    assert_null(cache_lookup(c, L((uint64_t)gone * 256), false));
    /* full: the next line of fingerprint 0 evicts the LRU one (line 0) and
     * takes its way; both searches see the change */
    assert_int_equal(ins(c, L((uint64_t)ways * 256)), L(0));
    assert_int_equal(way_of(c, L((uint64_t)ways * 256)), 0);
    assert_null(cache_lookup(c, L(0), false));
    assert_non_null(cache_lookup(c, L((uint64_t)ways * 256), false));
    cache_destroy(c);
}

static void test_fp_collisions(void **state)
{
    (void)state;
    fp_collisions(12); /* padding: bytes 12..15 of the two words */
    fp_collisions(15);
    fp_collisions(16); /* the last geometry of the byte-at-once search */
    fp_collisions(17); /* the first of the word-at-a-time filter */
    fp_collisions(24);
}

/* ---- property ----------------------------------------------------------- */

static uint64_t test_rng(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

#define PROP_POOL 512 /* distinct lines the test draws from */

static void property_run(machine_repl_t repl, uint32_t ways)
{
    /* 16 sets x ways x 64 B; lines drawn from a pool of 512 (32 per set, more
     * than the ways), so the run has both hits and evictions. */
    cache_t *c = mk((uint64_t)16 * ways * 64, ways, repl, 7);
    bool present[PROP_POOL] = {false};
    uint64_t n_present = 0, rng = 0x1234567u, evictions = 0, hits = 0;
    for (int step = 0; step < 20000; step++) {
        uint64_t n = test_rng(&rng) % PROP_POOL;
        uint64_t a = L(n) + (test_rng(&rng) & 63);
        cache_meta_t *m = cache_lookup(c, a, true);
        assert_true((m != NULL) == present[n]);
        if (m != NULL) {
            hits++;
            continue;
        }
        cache_victim_t v;
        cache_insert(c, a, NULL, &v);
        present[n] = true;
        n_present++;
        if (v.valid) {
            uint64_t vn = v.addr / 64;
            assert_int_equal(v.addr % 64, 0);
            assert_true(vn < PROP_POOL && vn != n);
            assert_true(present[vn]);
            assert_int_equal(cache_set_of(c, v.addr), cache_set_of(c, a));
            present[vn] = false;
            n_present--;
            evictions++;
        }
        if (step % 97 == 0) {
            assert_int_equal(cache_valid_lines(c), n_present);
            assert_true(cache_valid_lines(c) <= (uint64_t)cache_sets(c) * cache_ways(c));
        }
    }
    assert_int_equal(cache_valid_lines(c), n_present);
    assert_int_equal(n_present, (uint64_t)16 * ways); /* the pool covers every set */
    for (uint64_t n = 0; n < PROP_POOL; n++)
        assert_true((cache_lookup(c, L(n), false) != NULL) == present[n]);
    assert_true(hits > 1000 && evictions > 1000);
    cache_destroy(c);
}

/* Aging by other cores' fills (l3.foreign_fills): a line of a 4-way set
 * filled at t = 0, with two lines of its set filled after it (at 10 and
 * 20), is gone once 2 + per_set x t reaches 4 ways: at per_set 0.01 a line
 * a cycle, at t = 200 and not at t = 199. The youngest line (20) lasts until
 * 0 + 0.01 x (t - 20) = 4, t = 420. */
static void test_aged_out(void **state)
{
    (void)state;
    cache_t *c = mk(4 * 64 * 4, 4, MACHINE_REPL_LRU, 1); /* 4 sets x 4 ways */
    /* without touch times (no cache keeps them unless asked): never aged */
    cache_meta_t m0 = {0};
    cache_insert(c, 0, &m0, NULL);
    assert_false(cache_aged_out(c, 0, 1e12, 1));
    assert_int_equal(cache_keep_touch(c), 0);
    assert_true(cache_remove(c, 0, NULL));
    const uint64_t set_stride = 4 * 64; /* lines of one set */
    cache_meta_t m = {0};
    for (int i = 0; i < 3; i++) {
        m.ready_cycles = 10.0 * i;
        cache_insert(c, set_stride * (uint64_t)i, &m, NULL);
    }
    assert_false(cache_aged_out(c, 0, 199, 0.01));
    assert_true(cache_aged_out(c, 0, 200, 0.01));
    assert_false(cache_aged_out(c, set_stride, 299, 0.01)); /* one younger: 1 + 0.01 (t - 10) */
    assert_true(cache_aged_out(c, set_stride, 310, 0.01));
    assert_false(cache_aged_out(c, 2 * set_stride, 419, 0.01));
    assert_true(cache_aged_out(c, 2 * set_stride, 420, 0.01));
    /* no foreign fills: never; an absent line: no */
    assert_false(cache_aged_out(c, 0, 1e12, 0));
    assert_false(cache_aged_out(c, 64, 1e12, 1));
    /* a later touch renews it (the hierarchy sets touch_cycles on a hit) */
    cache_touched(c, 0, cache_lookup(c, 0, true), 150);
    assert_false(cache_aged_out(c, 0, 200, 0.01)); /* nothing younger: 0.01 x 50 */
    assert_true(cache_aged_out(c, 0, 550, 0.01));
    cache_destroy(c);
}

static void test_property(void **state)
{
    (void)state;
    property_run(MACHINE_REPL_LRU, 4);
    property_run(MACHINE_REPL_LRU, 12);
    property_run(MACHINE_REPL_LRU, 16);
    property_run(MACHINE_REPL_LRU, 17);
    property_run(MACHINE_REPL_PLRU, 8);
    property_run(MACHINE_REPL_RANDOM, 4);
    property_run(MACHINE_REPL_RANDOM, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_errors),
        cmocka_unit_test(test_geometry_ok),
        cmocka_unit_test(test_repl_find),
        cmocka_unit_test(test_lru_ranks),
        cmocka_unit_test(test_lru_victim_order),
        cmocka_unit_test(test_plru_bits),
        cmocka_unit_test(test_plru_victim_order),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_set_mapping),
        cmocka_unit_test(test_meta_roundtrip),
        cmocka_unit_test(test_remove),
        cmocka_unit_test(test_fp_collisions),
        cmocka_unit_test(test_aged_out),
        cmocka_unit_test(test_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
