/*
 * tiny_machine.h - a hand-built machine with tiny caches and round numbers,
 * so that model tests can compute their expectations by hand.
 *
 * 1 GHz (1 cycle = 1 ns), 64 B lines:
 *   L1  256 B, 4 lines, 1 set x 4 ways, LRU, 8 fill buffers
 *   L2  1 KiB, 16 lines, 1 set x 16 ways, LRU, latency 10, 8 miss slots
 *   L3  4 KiB, 64 lines, victim, latency 30
 *   memory: latency 100 ns, write ack 50 ns, no bandwidth limit
 *   no prefetchers, no TLB, no startup cost, string engine 64 B/cycle,
 *   lookahead 1 KiB (16 lines) whose requests hold L1 fill buffers, store
 *   buffer 64 entries, 1 store/cycle.
 */
#ifndef CLEARSIM_TESTS_TINY_MACHINE_H
#define CLEARSIM_TESTS_TINY_MACHINE_H

#include <string.h>

#include "models/base/machine.h"

static inline void tiny_cache(machine_cache_t *c, uint64_t size, uint32_t ways, double lat,
                              uint32_t mshrs)
{
    memset(c, 0, sizeof(*c));
    c->present = true;
    c->size_bytes = size;
    c->ways = ways;
    c->line_bytes = 64;
    c->repl = MACHINE_REPL_LRU;
    c->latency_cycles = lat;
    c->mshrs = mshrs;
    c->sets = (uint32_t)(size / (ways * 64ull));
    c->prefetch.boundary_bytes = 4096;
    c->prefetch.stores = true; /* the key's default */
}

static inline void tiny_machine(machine_t *m)
{
    memset(m, 0, sizeof(*m));
    strcpy(m->name, "tiny");
    m->isa = MACHINE_ISA_X86_64;
    m->features = MACHINE_FEAT_ERMS | MACHINE_FEAT_CLZERO | MACHINE_FEAT_AVX2 | MACHINE_FEAT_SSE2;
    m->freq_ghz = 1.0;
    m->stores_per_cycle = 1;
    m->store_width_bytes = 64;
    m->store_buffer_entries = 64;
    m->nt_store_cycles = 1;
    m->line_zero_cycles = 1;
    m->insns_per_cycle = 0; /* front end never limits */
    m->string_bpc = 64;
    m->string_lookahead_bytes = 1024;
    m->string_rfo = true;
    m->string_l1_slots = true;
    m->elide_threshold_bytes = UINT64_MAX;
    m->wc_buffers = 4;
    m->zva_block_bytes = 64;
    tiny_cache(&m->l1, 256, 4, 4, 8);
    tiny_cache(&m->l2, 1024, 16, 10, 8);
    tiny_cache(&m->l3, 4096, 16, 30, 16);
    m->l3.incl = MACHINE_INCL_VICTIM;
    m->mem_latency_ns = 100;
    m->mem_write_latency_ns = 50;
    m->mem_write_queue = 1;
    m->mem_zero_write_fraction = 1;
    m->mem_zero_data_fraction = 1;
    m->populate_fraction = 1;
    m->max_order_pages = 1024;
}

#endif
