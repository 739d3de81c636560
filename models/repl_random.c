/*
 * repl_random.c - random replacement.
 *
 * Notes
 *  - Models a victim chosen uniformly among the ways of a full set, from the
 *    cache's own xorshift64 generator (Marsaglia 2003, shifts 13, 7, 17). The
 *    generator is seeded by cache_create() from its seed argument (0 is mapped
 *    to a fixed non-zero constant, since xorshift's state must not be 0), so a
 *    run is deterministic for a given seed.
 *  - The way is mapped from the top 32 random bits by a multiply and shift
 *    ((r * ways) >> 32), which is uniform to within 2^-32 and needs no
 *    division.
 *  - Keeps no per-set state; touches are ignored.
 *  - Ignores: hardware LFSR details and any bias they have.
 */
#include "models/cache.h"

static size_t rnd_state_bytes(uint32_t ways)
{
    (void)ways;
    return 0;
}

static void rnd_init(uint8_t *state, uint32_t ways)
{
    (void)state;
    (void)ways;
}

static void rnd_touch(uint8_t *state, uint32_t ways, uint32_t way)
{
    (void)state;
    (void)ways;
    (void)way;
}

static uint32_t rnd_victim(uint8_t *state, uint32_t ways, uint64_t *rng)
{
    (void)state;
    uint64_t x = *rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *rng = x;
    return (uint32_t)(((x >> 32) * (uint64_t)ways) >> 32);
}

const repl_ops_t repl_random = {
    .name = "random",
    .state_bytes = rnd_state_bytes,
    .init = rnd_init,
    .touch = rnd_touch,
    .victim = rnd_victim,
    .check = NULL,
};
