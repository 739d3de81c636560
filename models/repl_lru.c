/*
 * repl_lru.c - true LRU replacement.
 *
 * Notes
 *  - Models exact least-recently-used order within one set: every hit and
 *    every fill makes the way the most recently used; the victim is the way
 *    touched longest ago.
 *  - State per set is one rank byte per way, a permutation of 0..ways-1:
 *    rank 0 = most recently used, rank ways-1 = least recently used. A touch
 *    ages every way younger than the touched one by one (branch-free,
 *    O(ways)); the victim is the way whose rank is ways-1 (O(ways)).
 *  - Initial ranks are rank[w] = w, so before any touch the victim is the
 *    highest way. (The cache fills invalid ways first, lowest index first,
 *    so the initial order only matters for a policy used on its own.)
 *  - Limits: at most 256 ways (one byte per rank); check() rejects more.
 *  - Ignores: anything but recency (no insertion-position tricks, no
 *    thread/priority awareness). Removal of a line does not change ranks.
 */
#include <stdio.h>

#include "models/cache.h"
#include "models/base/errbuf.h"

#define REPL_LRU_MAX_WAYS 256u

static size_t lru_state_bytes(uint32_t ways)
{
    return ways;
}

static void lru_init(uint8_t *state, uint32_t ways)
{
    for (uint32_t w = 0; w < ways; w++)
        state[w] = (uint8_t)w;
}

static void lru_touch(uint8_t *state, uint32_t ways, uint32_t way)
{
    uint8_t r = state[way];
    for (uint32_t w = 0; w < ways; w++)
        state[w] = (uint8_t)(state[w] + (state[w] < r));
    state[way] = 0;
}

static uint32_t lru_victim(uint8_t *state, uint32_t ways, uint64_t *rng)
{
    (void)rng;
    uint8_t oldest = (uint8_t)(ways - 1);
    uint32_t victim = 0;
    for (uint32_t w = 0; w < ways; w++)
        victim = state[w] == oldest ? w : victim;
    return victim;
}

static int lru_check(uint32_t ways, char *err, size_t errlen)
{
    if (ways > REPL_LRU_MAX_WAYS) {
        errbuf_set(err, errlen, "lru supports at most %u ways (got %u)", REPL_LRU_MAX_WAYS, ways);
        return -1;
    }
    return 0;
}

const repl_ops_t repl_lru = {
    .name = "lru",
    .state_bytes = lru_state_bytes,
    .init = lru_init,
    .touch = lru_touch,
    .victim = lru_victim,
    .check = lru_check,
};
