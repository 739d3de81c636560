/*
 * bounds.c - the resources that bound a prediction: shares, occupancy and
 * relaxation keys (see bounds.h, docs/MODEL.md "Bottleneck attribution").
 */
#include "sim/engine/bounds.h"

#include <string.h>

#define R(ev, name, label, key, factor)                                                            \
    {                                                                                              \
        ev, name, label, key, factor                                                               \
    }

static const bounds_resource_t resources[ST_BOUND_COUNT] = {
    R(ST_BOUND_STORE_ISSUE, "store_issue", "store issue", "core.stores_per_cycle", 2),
    R(ST_BOUND_NT_STORE_ISSUE, "nt_store_issue", "non-temporal store issue", "core.nt_store_cycles",
      0.5),
    R(ST_BOUND_FRONT_END, "front_end", "front end", "core.insns_per_cycle", 2),
    R(ST_BOUND_STRING_ENGINE, "string_engine", "string engine rate", "string.bytes_per_cycle", 2),
    R(ST_BOUND_STRING_STARTUP, "string_startup", "string startup", "string.startup", 0.5),
    R(ST_BOUND_STORE_BUFFER, "store_buffer", "store buffer × latency", "core.store_buffer", 2),
    R(ST_BOUND_STRING_LOOKAHEAD, "string_lookahead", "string lookahead × latency",
      "string.lookahead", 2),
    R(ST_BOUND_L1_FILL_BUFFERS, "l1_fill_buffers", "L1 fill buffers × latency", "l1.mshrs", 2),
    R(ST_BOUND_L1_PREFETCH_DISTANCE, "l1_prefetch_distance", "L1 prefetch distance × latency",
      "l1.prefetch.distance", 2),
    R(ST_BOUND_L2_PREFETCH_DISTANCE, "l2_prefetch_distance", "L2 prefetch distance × latency",
      "l2.prefetch.distance", 2),
    R(ST_BOUND_L2_MISS_SLOTS_DRAM, "l2_miss_slots_dram", "L2 miss slots × DRAM latency", "l2.mshrs",
      2),
    R(ST_BOUND_L2_MISS_SLOTS_L3, "l2_miss_slots_l3", "L2 miss slots × L3 latency", "l2.mshrs", 2),
    R(ST_BOUND_L1_LATENCY, "l1_latency", "L1 latency", "l1.latency", 0.5),
    R(ST_BOUND_L2_LATENCY, "l2_latency", "L2 latency", "l2.latency", 0.5),
    R(ST_BOUND_L3_LATENCY, "l3_latency", "L3 latency", "l3.latency", 0.5),
    R(ST_BOUND_DRAM_LATENCY, "dram_latency", "DRAM latency", "memory.latency", 0.5),
    R(ST_BOUND_L2_FILL_BANDWIDTH, "l2_fill_bandwidth", "L2 -> L1 fill bandwidth", "l2.bandwidth",
      2),
    R(ST_BOUND_L3_FILL_BANDWIDTH, "l3_fill_bandwidth", "L3 <-> L2 fill bandwidth", "l3.bandwidth",
      2),
    R(ST_BOUND_WC_BUFFERS, "wc_buffers", "WC buffers × write latency", "wc.buffers", 2),
    R(ST_BOUND_MEM_READ_LINK, "mem_read_link", "memory read link", "memory.read_bandwidth", 2),
    R(ST_BOUND_MEM_WRITE_LINK, "mem_write_link", "memory write link", "memory.write_bandwidth", 2),
    R(ST_BOUND_MEM_BUS, "mem_bus", "memory bus", "memory.combined_bandwidth", 2),
    R(ST_BOUND_TLB_WALKS, "tlb_walks", "TLB walks", "tlb.walk", 0.5),
    R(ST_BOUND_HOST_MISSES, "host_misses", "host page's TLB misses", "tlb.host_miss", 0.5),
    R(ST_BOUND_FAULTS, "faults", "page faults", NULL, 0.5),
    R(ST_BOUND_CALLS, "calls", "per-call cost", "core.call_cycles", 0.5),
    R(ST_BOUND_RESCHEDS, "rescheds", "reschedule points", "os.resched", 0.5),
    R(ST_BOUND_OTHER, "other", "unattributed", NULL, 0.5),
};

const bounds_resource_t *bounds_resources(size_t *n)
{
    *n = ST_BOUND_COUNT;
    return resources;
}

const char *bounds_relax_key(const bounds_resource_t *r, uint64_t page_bytes)
{
    if (r->key)
        return r->key;
    if (page_bytes >= (1ull << 30))
        return "os.fault_1g";
    return page_bytes >= (2ull << 20) ? "os.fault_2m" : "os.fault_4k";
}

/* busy / (capacity x cycles), when both are known. */
static bool occ(double busy, double capacity, double cycles, double *out)
{
    if (!(capacity > 0) || !(cycles > 0))
        return false;
    *out = busy / (capacity * cycles);
    return true;
}

static bool occupancy(stats_event_t ev, const stats_t *st, const machine_t *m, double *out)
{
    const uint64_t *c = st->count;
    double cyc = (double)c[ST_CYCLES];
    double line = m->l1.line_bytes ? m->l1.line_bytes : 64;
    switch (ev) {
    case ST_BOUND_STORE_ISSUE:
        return occ((double)c[ST_STORES], m->stores_per_cycle, cyc, out);
    case ST_BOUND_FRONT_END:
        return occ((double)c[ST_INSTRUCTIONS], m->insns_per_cycle, cyc, out);
    case ST_BOUND_STRING_ENGINE:
        return occ((double)st->bytes[ST_STRING_OPS], m->string_bpc, cyc, out);
    case ST_BOUND_STRING_STARTUP:
        return occ((double)c[ST_STRING_STARTUP_CYCLES], 1, cyc, out);
    case ST_BOUND_L1_FILL_BUFFERS:
        return occ((double)c[ST_BUSY_L1_FILL_BUFFERS], m->l1.mshrs, cyc, out);
    case ST_BOUND_L2_MISS_SLOTS_DRAM:
    case ST_BOUND_L2_MISS_SLOTS_L3:
        return occ((double)c[ST_BUSY_L2_MISS_SLOTS], m->l2.mshrs, cyc, out);
    case ST_BOUND_L2_FILL_BANDWIDTH:
        if (!(m->l2.fill_bpc > 0))
            return false;
        return occ((double)(c[ST_L1_FILLS_DEMAND] + c[ST_L1_FILLS_RFO] + c[ST_L1_PREFETCH]) * line /
                       m->l2.fill_bpc,
                   1, cyc, out);
    case ST_BOUND_WC_BUFFERS:
        return occ((double)c[ST_BUSY_WC_BUFFERS], m->wc_buffers, cyc, out);
    case ST_BOUND_MEM_READ_LINK:
        return occ((double)c[ST_DRAM_READS] * line, m->mem_read_bpc, cyc, out);
    case ST_BOUND_MEM_WRITE_LINK:
        return occ((double)c[ST_DRAM_WRITES] * line, m->mem_write_bpc, cyc, out);
    case ST_BOUND_MEM_BUS:
        return occ((double)(c[ST_DRAM_READS] + c[ST_DRAM_WRITES]) * line, m->mem_combined_bpc, cyc,
                   out);
    case ST_BOUND_TLB_WALKS:
        return occ((double)(c[ST_TLB_LOAD_MISSES] + c[ST_TLB_STORE_MISSES]) * m->tlb_walk_cycles, 1,
                   cyc, out);
    case ST_BOUND_HOST_MISSES:
        return occ((double)c[ST_BUSY_HOST_MISSES], 1, cyc, out);
    case ST_BOUND_FAULTS:
        return occ((double)c[ST_FAULT_CYCLES], 1, cyc, out);
    case ST_BOUND_CALLS:
        return occ((double)c[ST_CALLS] * m->call_cycles, 1, cyc, out);
    case ST_BOUND_RESCHEDS:
        return occ((double)c[ST_RESCHEDS] * m->resched_ns * m->freq_ghz, 1, cyc, out);
    default:
        return false; /* latencies and lines-in-flight limits */
    }
}

size_t bounds_breakdown(const stats_t *st, const machine_t *m, bounds_entry_t *out)
{
    uint64_t sum = 0;
    for (int i = 0; i < ST_BOUND_COUNT; i++)
        sum += st->count[ST_BOUND_STORE_ISSUE + i];
    size_t n = 0;
    for (int i = 0; i < ST_BOUND_COUNT && sum > 0; i++) {
        uint64_t cyc = st->count[ST_BOUND_STORE_ISSUE + i];
        if (cyc == 0)
            continue;
        bounds_entry_t e = {.res = &resources[i], .cycles = cyc};
        e.share = (double)cyc / (double)sum;
        e.has_occupancy = occupancy(resources[i].event, st, m, &e.occupancy);
        size_t k = n++; /* insertion by cycles, stable */
        while (k > 0 && out[k - 1].cycles < cyc) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = e;
    }
    return n;
}

bool bounds_top(const stats_t *st, const bounds_resource_t **res, double *share)
{
    uint64_t sum = 0, best = 0;
    int bi = -1;
    for (int i = 0; i < ST_BOUND_COUNT; i++) {
        uint64_t c = st->count[ST_BOUND_STORE_ISSUE + i];
        sum += c;
        if (c > best) {
            best = c;
            bi = i;
        }
    }
    *res = bi >= 0 ? &resources[bi] : NULL;
    *share = bi >= 0 ? (double)best / (double)sum : 0;
    return bi >= 0;
}
