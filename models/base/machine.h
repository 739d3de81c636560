/*
 * machine.h - the parameters of one machine, as loaded from a YAML machine file.
 *
 * Notes
 *  - This is plain data: sim/machine/cfg_load.c fills it from YAML (one declarative key
 *    table), computes the derived fields marked "derived", and cross-checks
 *    it. Model code only reads it.
 *  - Units are in the field names. Times given in ns in the YAML are kept in
 *    ns here; the model converts them through freq_ghz.
 *  - Bandwidths are bytes per core cycle (`_bpc`); the YAML may give them in
 *    GiB/s (binary, like perf's GB/sec) and the loader converts them.
 *  - The YAML key path of each field is given in its comment.
 */
#ifndef CLEARSIM_MACHINE_H
#define CLEARSIM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#define MACHINE_NAME_MAX      64
#define MACHINE_TEXT_MAX      256
#define MACHINE_STARTUP_MAX   16
#define MACHINE_PMU_MAX       24
#define MACHINE_MB_MAX        64
#define MACHINE_MB_FIT_MAX    24
#define MACHINE_MB_STAGES     12 /* fit stages of `calibrate --microbench` (CAL_STAGES) */
#define MACHINE_PMU_TERMS_MAX 6
#define MACHINE_SET_MAX       16  /* key overrides of one load (--set) */
#define MACHINE_SET_ARG_MAX   160 /* one override, "KEY=VALUE" */

typedef enum machine_isa { MACHINE_ISA_X86_64 = 0, MACHINE_ISA_ARM64 = 1 } machine_isa_t;

/* The isa's name as machine files and the JSON contract spell it. */
static inline const char *machine_isa_name(machine_isa_t isa)
{
    return isa == MACHINE_ISA_ARM64 ? "arm64" : isa == MACHINE_ISA_X86_64 ? "x86_64" : "?";
}

/* CPU features a kernel may need (features: [list] in YAML). */
typedef enum machine_feature {
    MACHINE_FEAT_ERMS = 1u << 0,
    MACHINE_FEAT_FSRM = 1u << 1,
    MACHINE_FEAT_CLZERO = 1u << 2,
    MACHINE_FEAT_AVX2 = 1u << 3,
    MACHINE_FEAT_AVX512 = 1u << 4, /* avx512f */
    MACHINE_FEAT_REP_GOOD = 1u << 5,
    MACHINE_FEAT_MOPS = 1u << 6,
    MACHINE_FEAT_DCZVA = 1u << 7, /* DC ZVA permitted (DCZID_EL0.DZP = 0) */
    MACHINE_FEAT_SSE2 = 1u << 8,
    MACHINE_FEAT_FZRM = 1u << 9,
    MACHINE_FEAT_FSRS = 1u << 10,
} machine_feature_t;

typedef enum machine_repl {
    MACHINE_REPL_LRU = 0,
    MACHINE_REPL_PLRU,
    MACHINE_REPL_RANDOM
} machine_repl_t;

/* How a level relates to the level above it (only meaningful for L3). */
typedef enum machine_inclusion {
    MACHINE_INCL_INCLUSIVE = 0, /* fills go into both levels; an eviction here back-invalidates */
    MACHINE_INCL_NINE, /* non-inclusive, non-exclusive: fills go into both, no back-invalidation */
    MACHINE_INCL_VICTIM, /* exclusive victim cache: filled only by evictions from above */
} machine_inclusion_t;

/* What carries L1 write-backs into L2 (l2.writeback_link). */
typedef enum machine_link {
    MACHINE_LINK_SEPARATE = 0, /* a path of their own, not bounded (the fills' link is free) */
    MACHINE_LINK_SHARED,       /* the L2<->L1 link: a write-back takes a line's l2.bandwidth */
} machine_link_t;

/* What bounds how many lines ahead temporal stores ask for ownership
 * (core.rfo_window). */
typedef enum machine_rfo_window {
    MACHINE_RFO_STORE_BUFFER = 0, /* a store waits in the store buffer until its line is owned */
    MACHINE_RFO_FILL_BUFFERS,     /* a store that misses L1 waits in its line's fill buffer */
} machine_rfo_window_t;

/* Stream prefetcher attached to a cache level (lN.prefetch.*). */
typedef struct machine_prefetch {
    bool enabled;            /* lN.prefetch.enabled */
    uint32_t train_lines;    /* lN.prefetch.train: sequential accesses before it issues */
    uint32_t degree_lines;   /* lN.prefetch.degree: lines issued per triggering access */
    uint32_t distance_lines; /* lN.prefetch.distance: how far ahead of the demand stream */
    uint64_t boundary_bytes; /* lN.prefetch.boundary: streams never cross this (4 KiB) */
    bool next_page;          /* lN.prefetch.next_page: a stream that reaches a boundary
                              * continues on the adjacent page when the demand stream
                              * enters it (no retraining); it still never prefetches
                              * across the boundary ahead of demand */
    bool stores;             /* lN.prefetch.stores: stores (their RFOs) train and trigger it;
                              * false: loads (and, at L2, the L1's prefetches) only */
} machine_prefetch_t;

typedef struct machine_cache {
    bool present;                /* l3 may be absent */
    uint64_t size_bytes;         /* lN.size */
    uint32_t ways;               /* lN.ways */
    uint32_t line_bytes;         /* lN.line */
    machine_repl_t repl;         /* lN.replacement: lru | plru | random */
    machine_inclusion_t incl;    /* lN.inclusion (l3 only; l1/l2 are inclusive of l1) */
    double latency_cycles;       /* lN.latency: load-to-use latency of a hit here */
    uint32_t mshrs;              /* lN.mshrs: misses this level can have outstanding
                                  * (L1 fill buffers, L2/L3 miss queues) */
    double fill_bpc;             /* lN.bandwidth: bytes/cycle this level delivers upward */
    machine_prefetch_t prefetch; /* lN.prefetch */
    uint32_t sets;               /* derived: size / (ways * line) */
} machine_cache_t;

/* One microbenchmark figure of the machine (microbench.figures): what a
 * public or native microbenchmark measured on it, which `clearsim check`
 * reproduces with the model. The workload and the run options are the ones
 * of `clearsim run` (sim/engine/point.h); 0 / "" means the option's default. */
typedef enum machine_mb_metric {
    MACHINE_MB_GBPS = 0,    /* bytes per second / 2^30 (GB/sec as perf prints) */
    MACHINE_MB_NS_PER_LOAD, /* ns per dependent load (the latency workload) */
} machine_mb_metric_t;

typedef struct machine_mb {
    char id[48];          /* unique within the file */
    char workload[16];    /* load | latency | store | copy | ntstore | ... */
    char function[32];    /* -f, "" for the workload's default kernel */
    uint64_t size_bytes;  /* -s */
    uint64_t chunk_bytes; /* -k, 0 for the default */
    uint64_t page_bytes;  /* -p, 0 for the default */
    uint32_t fill;        /* --fill */
    uint32_t loops;       /* -l, 0 for a loop count of the check's choosing */
    char fault[12];       /* --fault (the fault workload), "" for the default */
    double tolerance;     /* this figure's own check tolerance, 0: microbench.tolerance */
    machine_mb_metric_t metric;
    double value;     /* in the metric's unit */
    char source[256]; /* where the figure comes from: a tag and the SKU, or "measured: ..." */
    uint32_t stage;   /* `calibrate --microbench`: the fit stage it is a target of, 0: none */
    uint32_t line;    /* 1-based line of the figure in the file (messages) */
} machine_mb_t;

/* A key `calibrate --microbench` fits to the figures of its stage
 * (microbench.fit: [{key, stage, range}]). */
typedef struct machine_mb_fit {
    char key[64];   /* a fittable key's dotted path */
    uint32_t stage; /* fitted to the figures of this stage */
    double range;   /* bounds: start / range .. start x range (within the key's own) */
    uint32_t line;  /* 1-based line in the file (messages) */
} machine_mb_fit_t;

typedef enum machine_boost {
    MACHINE_BOOST_UNKNOWN = 0, /* the source does not say */
    MACHINE_BOOST_ON,
    MACHINE_BOOST_OFF,
} machine_boost_t;

/* One point of the string-op startup table (string.startup: [{len, cost}]). */
typedef struct machine_point {
    uint64_t len_bytes;
    double cycles;
} machine_point_t;

typedef enum machine_elide_mode {
    MACHINE_ELIDE_LENGTH = 0, /* the whole op is no-allocate when its length >= threshold */
    MACHINE_ELIDE_REMAINING,  /* each line is no-allocate while the bytes remaining in the
                               * op (including the line) are >= threshold */
} machine_elide_mode_t;

typedef enum machine_line_zero_policy {
    MACHINE_LZ_ALLOCATE = 0, /* allocate the line in L1 without reading it */
    MACHINE_LZ_MEMORY,       /* write-combine straight to memory, invalidating cached copies */
} machine_line_zero_policy_t;

typedef enum machine_nt_partial {
    MACHINE_NT_PARTIAL_MASKED = 0, /* a partial WC line is written with a byte mask, no read */
    MACHINE_NT_PARTIAL_RMW,        /* a partial WC line costs a read of the line first */
} machine_nt_partial_t;

/* string.end_wait: with string.ordered_end, what the op's end waits for. */
typedef enum machine_end_wait {
    MACHINE_END_WAIT_COMMIT = 0, /* every line of the op committed (its data arrived) */
    MACHINE_END_WAIT_ANSWER,     /* every line answered: committed, or one memory latency
                                  * after its request, whichever is sooner (the link's
                                  * backlog of its data is not waited for) */
} machine_end_wait_t;

/* perf event -> linear combination of internal events (pmu: section). */
typedef struct machine_pmu_term {
    double coef;
    int event; /* stats_event_t */
} machine_pmu_term_t;

typedef struct machine_pmu_map {
    char name[MACHINE_NAME_MAX]; /* perf event name, e.g. "L1-dcache-loads" */
    bool supported;              /* false: `null` in YAML, prints as not supported */
    uint32_t n_terms;
    machine_pmu_term_t terms[MACHINE_PMU_TERMS_MAX];
} machine_pmu_map_t;

typedef struct machine {
    /* identity */
    char name[MACHINE_NAME_MAX];        /* name (must match the file's base name) */
    char description[MACHINE_TEXT_MAX]; /* description */
    machine_isa_t isa;                  /* isa: x86_64 | arm64 */
    char vendor[MACHINE_NAME_MAX];      /* identity.vendor: amd | intel | arm | ampere | ... */
    uint32_t family;                    /* identity.family (x86 cpuid family; arm: implementer) */
    uint32_t model;                     /* identity.model  (x86 cpuid model; arm: part number) */
    char model_name[MACHINE_TEXT_MAX];  /* identity.model_name (for host matching and reports) */
    bool guest;                         /* identity.guest: describes a virtual-machine guest */
    uint32_t features; /* features: [erms, fsrm, clzero, ...] -> machine_feature_t */

    /* core (core.*) */
    double freq_ghz;               /* core.freq: the clock the core runs at while clearing */
    double stores_per_cycle;       /* core.stores_per_cycle: temporal store issue rate */
    double load_bpc;               /* core.load_bandwidth: bytes/cycle of loads from L1 (0: the
                                    * front end's rate) */
    double store_bpc;              /* core.store_bandwidth: bytes/cycle the L1 write port
                                    * commits (0: only the store slots bound it) */
    uint32_t store_width_bytes;    /* core.store_width: widest store the L1 accepts per op */
    uint32_t store_buffer_entries; /* core.store_buffer: entries (one per store instruction) */
    double nt_store_cycles;        /* core.nt_store_cycles: issue cost of one NT store instr */
    double line_zero_cycles;       /* core.line_zero_cycles: issue cost of CLZERO / DC ZVA */
    double insns_per_cycle;        /* core.insns_per_cycle: rate for non-memory instructions */
    double call_cycles;            /* core.call_cycles: call + return + prologue per kernel call */

    machine_rfo_window_t rfo_window; /* core.rfo_window: what holds a store waiting for its line */

    /* string engine (string.*): rep stos*, MOPS */
    machine_point_t startup[MACHINE_STARTUP_MAX]; /* string.startup: piecewise-linear in length */
    uint32_t n_startup;
    double string_bpc;                  /* string.bytes_per_cycle: steady-state store rate */
    uint64_t string_lookahead_bytes;    /* string.lookahead: how far ahead (within the op) the
                                         * engine requests ownership of lines */
    bool string_ordered_end;            /* string.ordered_end: the op completes only when all
                                         * its lines are committed (its stores are unordered
                                         * among themselves only) */
    machine_end_wait_t string_end_wait; /* string.end_wait: commit | answer */
    bool string_rfo;                    /* string.rfo: allocating string stores read the line
                                         * first (false: ownership without a read, the SDM's
                                         * fast-string model) */
    bool string_l1_slots;               /* string.l1_fill_buffers: the engine's line requests
                                         * hold L1 miss slots as ordinary stores do (false:
                                         * they are tracked by the L2's miss slots only) */
    bool elide_enabled;                 /* string.elide.enabled */
    machine_elide_mode_t elide_mode;    /* string.elide.mode: length | remaining */
    uint64_t elide_threshold_bytes;     /* string.elide.threshold: bytes, or derived from
                                         * string.elide.threshold_fraction x level size */
    double elide_threshold_fraction;    /* string.elide.threshold_fraction (0 = use bytes) */
    int elide_threshold_level;          /* string.elide.threshold_level: 1, 2 or 3 */
    bool elide_zero_only;               /* string.elide.zero_fill_only */

    /* non-temporal and line-zeroing writes */
    uint32_t wc_buffers;                  /* wc.buffers: write-combining buffers (lines) */
    machine_nt_partial_t nt_partial;      /* wc.partial: masked | rmw */
    machine_line_zero_policy_t lz_policy; /* line_zero.policy: allocate | memory */
    uint32_t zva_block_bytes;             /* line_zero.block: CLZERO line / DC ZVA block size */
    uint32_t lz_buffers;                  /* line_zero.buffers: lines in flight to memory (0:
                                           * the WC buffers) */

    /* arm64 write streaming (write_streaming.*) */
    bool ws_enabled;         /* write_streaming.enabled */
    uint32_t ws_enter_lines; /* write_streaming.enter_lines: the Nth consecutive
                              * full-line write miss is the first not to allocate in L1 */
    uint64_t ws_l2_bytes;    /* write_streaming.l2: bytes of the run, counted from its
                              * first line, before L2 stops allocating (0 = never) */
    double l3_foreign_bpc;   /* l3.foreign_fills: other cores' fills into this L3, bytes/cycle */
    uint64_t ws_l3_bytes;    /* write_streaming.l3: ... before L3 stops allocating */

    machine_cache_t l1, l2, l3; /* l1: l2: l3: */
    machine_link_t l2_wb_link;  /* l2.writeback_link: what carries L1 write-backs into L2 */

    /* memory path from the core's last private level to DRAM (memory.*) */
    double mem_latency_ns;          /* memory.latency: idle load-to-use latency */
    double mem_write_latency_ns;    /* memory.write_latency: time until a posted line write
                                     * is accepted (frees its WC buffer / queue slot) */
    double mem_read_bpc;            /* memory.read_bandwidth: one core's reachable read rate */
    double mem_write_bpc;           /* memory.write_bandwidth */
    double mem_combined_bpc;        /* memory.combined_bandwidth: reads + writes together */
    double mem_turnaround_ns;       /* memory.turnaround: read<->write bus turnaround */
    uint32_t mem_write_queue;       /* memory.write_queue: writes batched per turnaround */
    double mem_zero_write_fraction; /* memory.zero_write_fraction: cost of an all-zero line
                                     * write relative to a data write (1 = same) */
    double mem_zero_data_fraction;  /* memory.zero_data_fraction: cost of a full line of zero
                                     * data from non-temporal stores (1 = as any data) */
    uint32_t mem_zero_data_stores;  /* memory.zero_data_stores: the most non-temporal stores
                                     * a line of zeros may be written with and still cost
                                     * memory.zero_data_fraction (0: any number) */
    /* memory.zero_writeback_fraction: cost of the write-back of a cached line of
     * zeros (1 = as data) */
    double mem_zero_writeback_fraction;

    /* TLB (tlb.*) */
    uint32_t tlb_entries_4k; /* tlb.entries_4k */
    uint32_t tlb_entries_2m; /* tlb.entries_2m */
    uint32_t tlb_entries_1g; /* tlb.entries_1g */
    double tlb_walk_cycles;  /* tlb.walk: page-walk cost of a miss */
    /* A guest's memory as its host backs it (docs/MODEL.md section 13): */
    uint64_t tlb_host_page_bytes; /* tlb.host_page: 0 = no host below (bare metal) */
    uint32_t tlb_host_entries;    /* tlb.host_entries: translations of host pages kept */
    double tlb_host_nt_line_ns;   /* tlb.host_miss.nt_line: a whole-line NT store's miss */
    double tlb_host_nt_narrow_ns; /* tlb.host_miss.nt_narrow: a narrower NT store's */
    double tlb_host_string_ns;    /* tlb.host_miss.string: a string op's line's */
    double tlb_host_line_zero_ns; /* tlb.host_miss.line_zero: a line-zeroing command's */

    /* OS costs (os.*) */
    double fault_4k_ns;       /* os.fault_4k: trap + allocation + PTE, excluding clearing */
    double fault_2m_ns;       /* os.fault_2m */
    double fault_1g_ns;       /* os.fault_1g */
    double populate_fraction; /* os.populate_fraction: cost of a MAP_POPULATE fault
                               * relative to a demand fault (no trap) */
    double resched_ns;        /* os.resched: cost of a cond_resched() that does not
                               * switch */
    uint32_t max_order_pages; /* os.max_order_pages: folios above this many 4 KiB pages
                               * are "gigantic" and cleared in ascending order */

    /* C library memset dispatch (libc.memset.*) */
    char libc_name[32];          /* libc.name: the C library the libc.memset keys describe */
    uint32_t memset_vec_bytes;   /* libc.memset.vector: 16 | 32 | 64 (arm64: 16 = STP) */
    uint64_t memset_stosb_bytes; /* libc.memset.rep_stosb_threshold (0 = never) */
    uint64_t memset_nt_bytes;    /* libc.memset.nt_threshold (0 = never) */
    uint64_t memset_zva_bytes;   /* libc.memset.zva_threshold (arm64, zero fill; 0 = never) */
    bool memset_mops;            /* libc.memset.mops: use SET* when FEAT_MOPS */

    /* microbenchmark figures (microbench.*) */
    double mb_clock_ghz; /* microbench.clock: the core clock the figures hold at (0: core.freq) */
    double mb_tolerance; /* microbench.tolerance: relative error `clearsim check` allows */
    machine_boost_t mb_boost; /* microbench.boost: whether the figures ran with boost on */
    double mb_adds_per_cycle; /* microbench.adds_per_cycle: the core's share the figures ran at
                                 (independent adds per cycle; 0: not measured) */
    uint32_t n_mb;
    machine_mb_t mb[MACHINE_MB_MAX];
    uint32_t n_mb_fit;
    machine_mb_fit_t mb_fit[MACHINE_MB_FIT_MAX];

    /* perf event mapping (pmu:) */
    uint32_t n_pmu;
    machine_pmu_map_t pmu[MACHINE_PMU_MAX];

    /* where it came from */
    char path[MACHINE_TEXT_MAX]; /* derived: the file it was loaded from */
    char file_sha256[65];        /* derived: SHA-256 of that file's bytes, in hex ("" when
                                  * the machine was not read from a file) */
    /* the overrides applied after the file was read (--set KEY=VALUE), in
     * the order given; the values above already hold them */
    uint32_t n_set;
    char set[MACHINE_SET_MAX][MACHINE_SET_ARG_MAX];
} machine_t;

#endif
