/*
 * stats.c - names and arithmetic of the model's internal events.
 *
 * Notes
 *  - Names are stable: machine files refer to them in their pmu: section.
 */
#include "models/stats.h"

#include <stddef.h>
#include <string.h>

static const char *const event_names[ST_EVENT_COUNT] = {
    [ST_CYCLES] = "cycles",
    [ST_INSTRUCTIONS] = "instructions",
    [ST_LOADS] = "loads",
    [ST_STORES] = "stores",
    [ST_L1_ACCESSES] = "l1.accesses",
    [ST_L1_HITS] = "l1.hits",
    [ST_L1_MISSES] = "l1.misses",
    [ST_L1_FILLS_DEMAND] = "l1.fills_demand",
    [ST_L1_FILLS_RFO] = "l1.fills_rfo",
    [ST_L1_FILLS_NOREAD] = "l1.fills_noread",
    [ST_L1_WRITEBACKS] = "l1.writebacks",
    [ST_L1_NOALLOC] = "l1.noalloc",
    [ST_L2_HITS] = "l2.hits",
    [ST_L2_MISSES] = "l2.misses",
    [ST_L2_FILLS] = "l2.fills",
    [ST_L2_WRITEBACKS] = "l2.writebacks",
    [ST_L2_PREFETCH] = "l2.prefetches",
    [ST_L2_PREFETCH_USEFUL] = "l2.prefetches_useful",
    [ST_L1_PREFETCH] = "l1.prefetches",
    [ST_L3_HITS] = "l3.hits",
    [ST_L3_MISSES] = "l3.misses",
    [ST_L3_FILLS] = "l3.fills",
    [ST_L3_WRITEBACKS] = "l3.writebacks",
    [ST_RFO] = "rfo",
    [ST_WC_LINES] = "wc.lines",
    [ST_WC_PARTIAL] = "wc.partial",
    [ST_DRAM_READS] = "dram.reads",
    [ST_DRAM_WRITES] = "dram.writes",
    [ST_FENCES] = "fences",
    [ST_FENCE_STALL_CYCLES] = "fence_stall_cycles",
    [ST_STRING_OPS] = "string.ops",
    [ST_STRING_ELIDED_LINES] = "string.elided_lines",
    [ST_STRING_STARTUP_CYCLES] = "string.startup_cycles",
    [ST_CALLS] = "calls",
    [ST_RESCHEDS] = "rescheds",
    [ST_FAULTS] = "faults",
    [ST_FAULT_CYCLES] = "fault_cycles",
    [ST_TLB_LOAD_MISSES] = "tlb.load_misses",
    [ST_TLB_STORE_MISSES] = "tlb.store_misses",
    [ST_TLB_HOST_MISSES] = "tlb.host_misses",
    [ST_WS_ENTRIES] = "ws.entries",
    [ST_WS_EXITS] = "ws.exits",
    [ST_BOUND_STORE_ISSUE] = "bound.store_issue",
    [ST_BOUND_NT_STORE_ISSUE] = "bound.nt_store_issue",
    [ST_BOUND_FRONT_END] = "bound.front_end",
    [ST_BOUND_STRING_ENGINE] = "bound.string_engine",
    [ST_BOUND_STRING_STARTUP] = "bound.string_startup",
    [ST_BOUND_STORE_BUFFER] = "bound.store_buffer",
    [ST_BOUND_STRING_LOOKAHEAD] = "bound.string_lookahead",
    [ST_BOUND_L1_FILL_BUFFERS] = "bound.l1_fill_buffers",
    [ST_BOUND_L1_PREFETCH_DISTANCE] = "bound.l1_prefetch_distance",
    [ST_BOUND_L2_PREFETCH_DISTANCE] = "bound.l2_prefetch_distance",
    [ST_BOUND_L2_MISS_SLOTS_DRAM] = "bound.l2_miss_slots_dram",
    [ST_BOUND_L2_MISS_SLOTS_L3] = "bound.l2_miss_slots_l3",
    [ST_BOUND_L1_LATENCY] = "bound.l1_latency",
    [ST_BOUND_L2_LATENCY] = "bound.l2_latency",
    [ST_BOUND_L3_LATENCY] = "bound.l3_latency",
    [ST_BOUND_DRAM_LATENCY] = "bound.dram_latency",
    [ST_BOUND_L2_FILL_BANDWIDTH] = "bound.l2_fill_bandwidth",
    [ST_BOUND_L3_FILL_BANDWIDTH] = "bound.l3_fill_bandwidth",
    [ST_BOUND_WC_BUFFERS] = "bound.wc_buffers",
    [ST_BOUND_MEM_READ_LINK] = "bound.mem_read_link",
    [ST_BOUND_MEM_WRITE_LINK] = "bound.mem_write_link",
    [ST_BOUND_MEM_BUS] = "bound.mem_bus",
    [ST_BOUND_TLB_WALKS] = "bound.tlb_walks",
    [ST_BOUND_HOST_MISSES] = "bound.host_misses",
    [ST_BOUND_FAULTS] = "bound.faults",
    [ST_BOUND_CALLS] = "bound.calls",
    [ST_BOUND_RESCHEDS] = "bound.rescheds",
    [ST_BOUND_OTHER] = "bound.other",
    [ST_BUSY_L1_FILL_BUFFERS] = "busy.l1_fill_buffers",
    [ST_BUSY_L2_MISS_SLOTS] = "busy.l2_miss_slots",
    [ST_BUSY_WC_BUFFERS] = "busy.wc_buffers",
    [ST_BUSY_HOST_MISSES] = "busy.host_misses",
};

const char *stats_event_name(stats_event_t e)
{
    return (unsigned)e < ST_EVENT_COUNT ? event_names[e] : NULL;
}

int stats_event_lookup(const char *name)
{
    for (int i = 0; i < ST_EVENT_COUNT; i++)
        if (event_names[i] && strcmp(event_names[i], name) == 0)
            return i;
    return -1;
}

void stats_sub(stats_t *out, const stats_t *a, const stats_t *b)
{
    for (int i = 0; i < ST_EVENT_COUNT; i++) {
        out->count[i] = a->count[i] - b->count[i];
        out->bytes[i] = a->bytes[i] - b->bytes[i];
    }
}

void stats_add(stats_t *out, const stats_t *a)
{
    for (int i = 0; i < ST_EVENT_COUNT; i++) {
        out->count[i] += a->count[i];
        out->bytes[i] += a->bytes[i];
    }
}
