/*
 * repl_plru.c - tree pseudo-LRU replacement.
 *
 * Notes
 *  - Models the standard binary-tree PLRU: a set of N ways (N a power of two)
 *    keeps N-1 bits, one per inner node of a complete binary tree whose leaves
 *    are the ways. Node i has children 2i+1 (left, lower ways) and 2i+2
 *    (right, higher ways); node 0 is the root.
 *  - A bit says where the next victim is: 0 = left subtree, 1 = right subtree.
 *    A touch (hit or fill) walks root to leaf and points every bit on the path
 *    away from the touched way. The victim is found by following the bits.
 *    Both are O(log2 N).
 *  - The way number's bits, most significant first, are the path: at depth d
 *    the branch is bit (log2 N - 1 - d) of the way.
 *  - All bits start at 0, so before any touch the victim is way 0.
 *  - State: ceil((N-1)/8) bytes per set, bit i of the tree in byte i/8, bit
 *    i%8. One way: no bits, the victim is way 0.
 *  - Limits: N must be a power of two; check() rejects other way counts.
 *  - Ignores: recency beyond what the tree encodes (PLRU is not LRU: it can
 *    evict a line that is not the least recently used one).
 */
#include <stdio.h>

#include "models/cache.h"
#include "models/base/errbuf.h"

static inline unsigned plru_get(const uint8_t *state, uint32_t node)
{
    return (state[node >> 3] >> (node & 7u)) & 1u;
}

static inline void plru_set(uint8_t *state, uint32_t node, unsigned bit)
{
    uint8_t mask = (uint8_t)(1u << (node & 7u));
    state[node >> 3] = (uint8_t)((state[node >> 3] & ~mask) | (bit ? mask : 0u));
}

static size_t plru_state_bytes(uint32_t ways)
{
    return ways > 1 ? (ways - 1 + 7) / 8 : 0;
}

static void plru_init(uint8_t *state, uint32_t ways)
{
    for (size_t i = 0; i < plru_state_bytes(ways); i++)
        state[i] = 0;
}

static void plru_touch(uint8_t *state, uint32_t ways, uint32_t way)
{
    uint32_t levels = cache_log2(ways);
    uint32_t node = 0;
    for (uint32_t d = 0; d < levels; d++) {
        unsigned dir = (way >> (levels - 1 - d)) & 1u; /* 0 = way is left */
        plru_set(state, node, dir ^ 1u);               /* point the other way */
        node = 2 * node + 1 + dir;
    }
}

static uint32_t plru_victim(uint8_t *state, uint32_t ways, uint64_t *rng)
{
    (void)rng;
    uint32_t levels = cache_log2(ways);
    uint32_t node = 0, way = 0;
    for (uint32_t d = 0; d < levels; d++) {
        unsigned dir = plru_get(state, node);
        way = (way << 1) | dir;
        node = 2 * node + 1 + dir;
    }
    return way;
}

static int plru_check(uint32_t ways, char *err, size_t errlen)
{
    if (ways == 0 || (ways & (ways - 1)) != 0) {
        errbuf_set(err, errlen, "plru needs a power-of-two way count (got %u ways)", ways);
        return -1;
    }
    return 0;
}

const repl_ops_t repl_plru = {
    .name = "plru",
    .state_bytes = plru_state_bytes,
    .init = plru_init,
    .touch = plru_touch,
    .victim = plru_victim,
    .check = plru_check,
};
