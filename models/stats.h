/*
 * stats.h - the model's internal events.
 *
 * Notes
 *  - Every event is a uint64_t count; events that move data also count bytes
 *    (stats_t.bytes[e]). Nothing here is a double.
 *  - Collection is separate from printing: sim/output/report_row.c prints; models only add.
 *  - stats_sub() subtracts a snapshot, so warm-up stays out of the measured
 *    region (ChampSim style).
 *  - The names in stats_event_name() are what the pmu: section of a machine
 *    file refers to.
 */
#ifndef CLEARSIM_STATS_H
#define CLEARSIM_STATS_H

#include <stdint.h>

typedef enum stats_event {
    ST_CYCLES = 0,      /* core cycles elapsed */
    ST_INSTRUCTIONS,    /* instructions retired */
    ST_LOADS,           /* load instructions */
    ST_STORES,          /* store instructions (rep stos counts its element stores) */
    ST_L1_ACCESSES,     /* L1D accesses by the store/load pipes, in store_width units */
    ST_L1_HITS,         /* line-granular L1 lookups that hit */
    ST_L1_MISSES,       /* line-granular L1 lookups that missed (demand) */
    ST_L1_FILLS_DEMAND, /* L1 fills for a load miss */
    ST_L1_FILLS_RFO,    /* L1 fills for a store miss that read the line (RFO) */
    ST_L1_FILLS_NOREAD, /* L1 allocations without a read (ownership only, CLZERO/DC ZVA) */
    ST_L1_WRITEBACKS,   /* dirty L1 evictions */
    ST_L1_NOALLOC,      /* lines written without allocating in L1 (NT, elided, streaming) */
    ST_L2_HITS,
    ST_L2_MISSES,
    ST_L2_FILLS,
    ST_L2_WRITEBACKS,      /* dirty L2 evictions (to L3 or memory) */
    ST_L2_PREFETCH,        /* prefetches issued by the L2 prefetcher */
    ST_L2_PREFETCH_USEFUL, /* prefetched lines later hit by demand */
    ST_L1_PREFETCH,        /* prefetches issued by the L1 prefetcher */
    ST_L3_HITS,
    ST_L3_MISSES,
    ST_L3_FILLS,
    ST_L3_WRITEBACKS, /* dirty L3 evictions to memory */
    ST_RFO,           /* read-for-ownership requests that read data */
    ST_WC_LINES,      /* lines written through write-combining buffers */
    ST_WC_PARTIAL,    /* WC lines flushed partially filled */
    ST_DRAM_READS,    /* line reads from memory */
    ST_DRAM_WRITES,   /* line writes to memory */
    ST_FENCES,
    ST_FENCE_STALL_CYCLES,  /* cycles fences waited for the WC buffers */
    ST_STRING_OPS,          /* rep stos / MOPS operations */
    ST_STRING_ELIDED_LINES, /* string-op lines written without allocation */
    ST_STRING_STARTUP_CYCLES,
    ST_CALLS,    /* kernel calls */
    ST_RESCHEDS, /* cond_resched points */
    ST_FAULTS,   /* page faults */
    ST_FAULT_CYCLES,
    ST_TLB_LOAD_MISSES,
    ST_TLB_STORE_MISSES,
    ST_TLB_HOST_MISSES, /* of them, writes that paid a host page's miss (tlb.host_miss.*) */
    ST_WS_ENTRIES,      /* times write streaming was entered */
    ST_WS_EXITS,
    /* Bottleneck attribution (docs/MODEL.md "Bottleneck attribution"): the
     * measured cycles, each counted once under the resource that bounded
     * the model's time when it advanced; they sum to ST_CYCLES (within a
     * few cycles of fast-forward rounding). Kept in the order of
     * stats_bound_t. */
    ST_BOUND_STORE_ISSUE,
    ST_BOUND_NT_STORE_ISSUE,
    ST_BOUND_FRONT_END,
    ST_BOUND_STRING_ENGINE,
    ST_BOUND_STRING_STARTUP,
    ST_BOUND_STORE_BUFFER,
    ST_BOUND_STRING_LOOKAHEAD,
    ST_BOUND_L1_FILL_BUFFERS,
    ST_BOUND_L1_PREFETCH_DISTANCE,
    ST_BOUND_L2_PREFETCH_DISTANCE,
    ST_BOUND_L2_MISS_SLOTS_DRAM,
    ST_BOUND_L2_MISS_SLOTS_L3,
    ST_BOUND_L1_LATENCY,
    ST_BOUND_L2_LATENCY,
    ST_BOUND_L3_LATENCY,
    ST_BOUND_DRAM_LATENCY,
    ST_BOUND_L2_FILL_BANDWIDTH,
    ST_BOUND_L3_FILL_BANDWIDTH,
    ST_BOUND_WC_BUFFERS,
    ST_BOUND_MEM_READ_LINK,
    ST_BOUND_MEM_WRITE_LINK,
    ST_BOUND_MEM_BUS,
    ST_BOUND_TLB_WALKS,
    ST_BOUND_HOST_MISSES, /* a host page's TLB miss (tlb.host_miss.*) */
    ST_BOUND_FAULTS,
    ST_BOUND_CALLS,
    ST_BOUND_RESCHEDS,
    ST_BOUND_OTHER, /* time no mechanism claimed (none should be; a test checks) */
    /* Occupancy: busy slot-cycles of the pools (each interval in whole
     * cycles), for explain's occupancy column. */
    ST_BUSY_L1_FILL_BUFFERS,
    ST_BUSY_L2_MISS_SLOTS,
    ST_BUSY_WC_BUFFERS,
    ST_BUSY_HOST_MISSES, /* the host misses' costs, each in whole cycles */
    ST_EVENT_COUNT
} stats_event_t;

/* The first attribution event: fast-forward judges steadiness on the
 * events before it only (attribution may move between resources of equal
 * time without the timing changing). */
#define ST_EXPLAIN_FIRST ST_BOUND_STORE_ISSUE
#define ST_BOUND_COUNT   (ST_BOUND_OTHER - ST_BOUND_STORE_ISSUE + 1)

/* A resource that can bound the model's time: index i is event
 * ST_BOUND_STORE_ISSUE + i. STATS_BOUND_NONE: "the time asked for" (a
 * mechanism that added no wait of its own; models only). */
typedef uint8_t stats_bound_t;
#define STATS_BOUND_NONE ((stats_bound_t)0xFF)
#define STATS_BOUND(ev)  ((stats_bound_t)((ev)-ST_BOUND_STORE_ISSUE))

typedef struct stats {
    uint64_t count[ST_EVENT_COUNT];
    uint64_t bytes[ST_EVENT_COUNT];
} stats_t;

/* Name used in YAML pmu: expressions, e.g. "l1.fills_rfo". NULL if out of range. */
const char *stats_event_name(stats_event_t e);
/* Look a name up; returns -1 if unknown. */
int stats_event_lookup(const char *name);
/* out = a - b, element-wise. a must not be behind b. */
void stats_sub(stats_t *out, const stats_t *a, const stats_t *b);
/* out += a */
void stats_add(stats_t *out, const stats_t *a);

#endif
