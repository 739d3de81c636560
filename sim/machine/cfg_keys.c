/*
 * cfg_keys.c - the one declarative table of machine-file keys.
 *
 * Notes
 *  - Every field of machine_t that a machine file sets has exactly one row
 *    here: dotted YAML path, type (which fixes the accepted units), the field's
 *    offset and size, required or default (as YAML text, parsed by the same
 *    code as the file), bounds in the stored unit, whether `clearsim
 *    calibrate` may fit it, enum values and a one-line doc naming the
 *    mechanism that uses it. Derived fields (sets, l3.present, the elide
 *    threshold from its fraction, path) have no row.
 *  - Stored units: sizes in bytes, *_cycles keys in core cycles, *_ns keys in
 *    ns, frequencies in GHz, bandwidths in bytes per core cycle.
 *  - configs/README.md's key reference is generated from this table
 *    (cfg_keys_markdown) and tests/test_cfg.c checks that they agree.
 *  - Fittable: timing parameters (latencies, bandwidths, issue rates, startup
 *    and fault costs, queue depths such as MSHRs and WC buffers, prefetch and
 *    lookahead distances, elide and write-streaming thresholds). Not fittable:
 *    identity, geometry, features, policies and library thresholds.
 *  - l3.* keys are required only when the l3: section is present (an absent
 *    section means no L3; arm64 system-level caches are described as l3).
 */
#include <stddef.h>

#include "sim/machine/cfg.h"

/* KEY() expands REQ/DEF()/OPT (two arguments each) before KEY_ counts them. */
#define KEY(...) KEY_(__VA_ARGS__)
#define KEY_(p, t, f, req, def, lo, hi, fit, en, d)                                                \
    {                                                                                              \
        .path = (p), .type = (t), .offset = offsetof(machine_t, f), .required = (req),             \
        .deflt = (def), .min = (lo), .max = (hi), .fittable = (fit), .enums = (en), .doc = (d),    \
        .size = sizeof(((machine_t *)0)->f)                                                        \
    }

#define REQ    true, NULL
#define DEF(x) false, (x)
#define OPT    false, NULL
#define FIT    true
#define FIX    false

#define KiB    1024.0
#define GiB    (1024.0 * 1024.0 * 1024.0)
#define TiB    (1024.0 * GiB)
#define U32MAX 4294967295.0

/* The keys of one cache level; lv is l1, l2 or l3. */
#define CACHE_KEYS(lv, what)                                                                       \
    KEY(#lv ".size", CFG_T_SIZE, lv.size_bytes, REQ, 1 * KiB, 1 * TiB, FIX, NULL,                  \
        what " capacity; cache model (models/cache.c) geometry"),                                  \
        KEY(#lv ".ways", CFG_T_U32, lv.ways, REQ, 1, 64, FIX, NULL,                                \
            what " associativity; cache model geometry"),                                          \
        KEY(#lv ".line", CFG_T_SIZE, lv.line_bytes, REQ, 16, 512, FIX, NULL,                       \
            what " line size (equal at every level); cache model geometry"),                       \
        KEY(#lv ".replacement", CFG_T_ENUM, lv.repl, DEF("lru"), 0, 0, FIX, "lru|plru|random",     \
            what " replacement policy (models/repl_*.c)"),                                         \
        KEY(#lv ".latency", CFG_T_TIME_CYCLES, lv.latency_cycles, REQ, 0.5, 2000, FIT, NULL,       \
            what " load-to-use latency of a hit; fill timing in the hierarchy"),                   \
        KEY(#lv ".mshrs", CFG_T_U32, lv.mshrs, REQ, 1, 1024, FIT, NULL,                            \
            what " misses outstanding at once (fill buffers / miss queue; models/mshr.c)"),        \
        KEY(#lv ".bandwidth", CFG_T_BW, lv.fill_bpc, REQ, 0.1, 1024, FIT, NULL,                    \
            what " bytes per cycle to the level above: its fills (an L3 also takes L2 victims "    \
                 "over it, an L2 L1 victims with l2.writeback_link shared)"),                      \
        KEY(#lv ".prefetch.enabled", CFG_T_BOOL, lv.prefetch.enabled, DEF("false"), 0, 0, FIX,     \
            NULL, what " stream prefetcher on (models/prefetch.c)"),                               \
        KEY(#lv ".prefetch.train", CFG_T_U32, lv.prefetch.train_lines, DEF("2"), 1, 64, FIT, NULL, \
            what " prefetcher: sequential line accesses before it issues"),                        \
        KEY(#lv ".prefetch.degree", CFG_T_U32, lv.prefetch.degree_lines, DEF("1"), 1, 64, FIT,     \
            NULL, what " prefetcher: lines issued per triggering access"),                         \
        KEY(#lv ".prefetch.distance", CFG_T_U32, lv.prefetch.distance_lines, DEF("8"), 0, 1024,    \
            FIT, NULL, what " prefetcher: lines ahead of the demand stream"),                      \
        KEY(#lv ".prefetch.boundary", CFG_T_SIZE, lv.prefetch.boundary_bytes, DEF("4KiB"), 64,     \
            1 * GiB, FIX, NULL, what " prefetcher: streams never cross this boundary"),            \
        KEY(#lv ".prefetch.next_page", CFG_T_BOOL, lv.prefetch.next_page, DEF("false"), 0, 0, FIX, \
            NULL, what " prefetcher: continue on the next page once demand enters it"),            \
        KEY(#lv ".prefetch.stores", CFG_T_BOOL, lv.prefetch.stores, DEF("true"), 0, 0, FIX, NULL,  \
            what " prefetcher: stores train and trigger it (false: loads only)")

static const cfg_key_t keys[] = {
    /* identity */
    KEY("name", CFG_T_STRING, name, REQ, 0, 0, FIX, NULL,
        "machine name; must equal the file's base name (--machine NAME)"),
    KEY("description", CFG_T_STRING, description, DEF(""), 0, 0, FIX, NULL,
        "one line for `clearsim machines` and reports"),
    KEY("isa", CFG_T_ENUM, isa, REQ, 0, 0, FIX, "x86_64|arm64",
        "instruction set; selects the kernels (kernels/) that can run"),
    KEY("identity.vendor", CFG_T_STRING, vendor, REQ, 0, 0, FIX, NULL,
        "vendor (amd, intel, arm, ampere, ...); host matching and reports"),
    KEY("identity.family", CFG_T_U32, family, REQ, 0, U32MAX, FIX, NULL,
        "x86 CPUID family (arm64: MIDR implementer); host matching"),
    KEY("identity.model", CFG_T_U32, model, REQ, 0, U32MAX, FIX, NULL,
        "x86 CPUID model (arm64: MIDR part number); host matching"),
    KEY("identity.model_name", CFG_T_STRING, model_name, REQ, 0, 0, FIX, NULL,
        "model name as the OS reports it; host matching and reports"),
    KEY("identity.guest", CFG_T_BOOL, guest, DEF("false"), 0, 0, FIX, NULL,
        "the file describes a virtual-machine guest, not bare metal; --machine host on a guest "
        "prefers such files"),
    KEY("features", CFG_T_FEATURES, features, OPT, 0, 0, FIX, NULL,
        "CPU features the kernels may use: erms fsrm fzrm fsrs clzero avx2 avx512f rep_good "
        "sse2 mops dczva"),

    /* core */
    KEY("core.freq", CFG_T_FREQ, freq_ghz, REQ, 0.1, 10, FIX, NULL,
        "core clock while clearing; converts ns <-> cycles and GB/s <-> B/cycle"),
    KEY("core.stores_per_cycle", CFG_T_DOUBLE, stores_per_cycle, REQ, 0.1, 16, FIT, NULL,
        "temporal store instructions issued per cycle; core store pipe"),
    KEY("core.load_bandwidth", CFG_T_BW, load_bpc, DEF("0B/cycle"), 0, 1024, FIT, NULL,
        "bytes per cycle the load pipes take from L1 (0: only core.insns_per_cycle bounds "
        "loads); the load and copy microbenchmarks, a consumer's reads"),
    KEY("core.store_bandwidth", CFG_T_BW, store_bpc, DEF("0B/cycle"), 0, 1024, FIT, NULL,
        "bytes per cycle the L1 write port commits (0: only core.stores_per_cycle and "
        "core.store_width bound it); wide stores into L1"),
    KEY("core.store_width", CFG_T_SIZE, store_width_bytes, REQ, 1, 128, FIX, NULL,
        "widest store the L1 accepts per access; counts l1.accesses"),
    KEY("core.store_buffer", CFG_T_U32, store_buffer_entries, REQ, 1, 1024, FIX, NULL,
        "store buffer entries (one per store instruction); core store pipe"),
    KEY("core.rfo_window", CFG_T_ENUM, rfo_window, DEF("store_buffer"), 0, 0, FIX,
        "store_buffer|fill_buffers",
        "what bounds how many lines ahead temporal stores ask for ownership: the store buffer "
        "(store_buffer: core.store_buffer / stores per line) or the L1 fill buffers "
        "(fill_buffers: a store that misses L1 waits in its line's fill buffer, so l1.mshrs "
        "lines whatever the store width); models/model.c"),
    KEY("core.nt_store_cycles", CFG_T_TIME_CYCLES, nt_store_cycles, REQ, 0.01, 1000, FIT, NULL,
        "issue cost of one non-temporal store instruction (MOVNTI, STNP)"),
    KEY("core.line_zero_cycles", CFG_T_TIME_CYCLES, line_zero_cycles, DEF("1cycles"), 0.01, 1000,
        FIT, NULL, "issue cost of one CLZERO / DC ZVA"),
    KEY("core.insns_per_cycle", CFG_T_DOUBLE, insns_per_cycle, REQ, 0.1, 16, FIT, NULL,
        "issue rate of non-memory instructions (loop overhead)"),
    KEY("core.call_cycles", CFG_T_TIME_CYCLES, call_cycles, REQ, 0, 100000, FIT, NULL,
        "call + return + prologue of one kernel call; callers (page-at-a-time vs extent)"),

    /* string engine */
    KEY("string.startup", CFG_T_STARTUP, startup, OPT, 0, 100000, FIX, NULL,
        "rep stos / MOPS startup cost: [{len: SIZE, cost: TIME}], piecewise-linear in length "
        "(models/string_op.c)"),
    KEY("string.bytes_per_cycle", CFG_T_BW, string_bpc, DEF("0B/cycle"), 0, 1024, FIT, NULL,
        "string engine steady-state store rate; required with erms, rep_good or mops"),
    KEY("string.lookahead", CFG_T_SIZE, string_lookahead_bytes, DEF("0"), 0, 1 * GiB, FIT, NULL,
        "how far ahead within the op the string engine requests line ownership"),
    KEY("string.ordered_end", CFG_T_BOOL, string_ordered_end, DEF("false"), 0, 0, FIX, NULL,
        "a string op completes only when its lines are committed (fast-string stores are "
        "unordered within the op, ordered with later stores); string engine"),
    KEY("string.end_wait", CFG_T_ENUM, string_end_wait, DEF("commit"), 0, 0, FIX, "commit|answer",
        "with string.ordered_end: the op ends when its lines are committed, or answered (the "
        "sooner of the commit and one memory.latency after the line's request)"),
    KEY("string.rfo", CFG_T_BOOL, string_rfo, DEF("true"), 0, 0, FIX, NULL,
        "allocating string stores read the line first (false: ownership without a read)"),
    KEY("string.l1_fill_buffers", CFG_T_BOOL, string_l1_slots, DEF("true"), 0, 0, FIX, NULL,
        "the string engine's line requests hold L1 fill buffers (l1.mshrs) as ordinary stores "
        "do; false: only the L2's miss slots (l2.mshrs) bound them"),
    KEY("string.elide.enabled", CFG_T_BOOL, elide_enabled, DEF("false"), 0, 0, FIX, NULL,
        "string ops above a threshold write lines without allocating them (AMD Zen)"),
    KEY("string.elide.mode", CFG_T_ENUM, elide_mode, DEF("length"), 0, 0, FIX, "length|remaining",
        "length: the whole op when its length >= threshold; remaining: while bytes left >= it"),
    KEY("string.elide.threshold", CFG_T_SIZE, elide_threshold_bytes, DEF("0"), 0, 1 * TiB, FIT,
        NULL, "elide threshold in bytes (give this or threshold_fraction)"),
    KEY("string.elide.threshold_fraction", CFG_T_DOUBLE, elide_threshold_fraction, DEF("0"), 0, 16,
        FIT, NULL, "elide threshold as a fraction of threshold_level's size (0 = use threshold)"),
    KEY("string.elide.threshold_level", CFG_T_U32, elide_threshold_level, DEF("3"), 1, 3, FIX, NULL,
        "cache level (1, 2 or 3) whose size threshold_fraction multiplies"),
    KEY("string.elide.zero_fill_only", CFG_T_BOOL, elide_zero_only, DEF("false"), 0, 0, FIX, NULL,
        "elision applies only when the fill value is zero"),

    /* non-temporal and line-zeroing writes */
    KEY("wc.buffers", CFG_T_U32, wc_buffers, REQ, 1, 256, FIT, NULL,
        "write-combining buffers (lines) for NT stores and CLZERO (models/mshr.c pool)"),
    KEY("wc.partial", CFG_T_ENUM, nt_partial, DEF("masked"), 0, 0, FIX, "masked|rmw",
        "a partially filled WC line is written with a byte mask, or costs a read first"),
    KEY("line_zero.policy", CFG_T_ENUM, lz_policy, DEF("allocate"), 0, 0, FIX, "allocate|memory",
        "CLZERO / DC ZVA: allocate the line in L1 without a read, or write-combine to memory"),
    KEY("line_zero.block", CFG_T_SIZE, zva_block_bytes, DEF("64"), 16, 4096, FIX, NULL,
        "bytes zeroed by one CLZERO / DC ZVA (4 << DCZID_EL0.BS on arm64)"),
    KEY("line_zero.buffers", CFG_T_U32, lz_buffers, DEF("0"), 0, 256, FIT, NULL,
        "line_zero.policy memory: lines CLZERO / DC ZVA keep in flight to memory (0: they share "
        "the wc.buffers of non-temporal stores); models/mshr.c pool"),

    /* arm64 write streaming */
    KEY("write_streaming.enabled", CFG_T_BOOL, ws_enabled, DEF("false"), 0, 0, FIX, NULL,
        "runs of full-line writes stop allocating (arm64 write streaming mode)"),
    KEY("write_streaming.enter_lines", CFG_T_U32, ws_enter_lines, DEF("0"), 0, 1000000, FIT, NULL,
        "the Nth consecutive full-line write miss is the first not to allocate in L1"),
    KEY("write_streaming.l2", CFG_T_SIZE, ws_l2_bytes, DEF("0"), 0, 1 * TiB, FIT, NULL,
        "streaming-run bytes (from its first line) before L2 stops allocating (0 = never)"),
    KEY("write_streaming.l3", CFG_T_SIZE, ws_l3_bytes, DEF("0"), 0, 1 * TiB, FIT, NULL,
        "streaming-run bytes (from its first line) before L3 stops allocating (0 = never)"),

    /* caches */
    CACHE_KEYS(l1, "L1D"),
    CACHE_KEYS(l2, "L2"),
    CACHE_KEYS(l3, "L3 / system cache"),
    KEY("l2.writeback_link", CFG_T_ENUM, l2_wb_link, DEF("separate"), 0, 0, FIX, "separate|shared",
        "what carries L1 write-backs into L2: a path of their own (separate, not bounded) or the "
        "link the fills use (shared: each dirty L1 victim takes one line's l2.bandwidth); "
        "models/hierarchy.c"),
    KEY("l3.inclusion", CFG_T_ENUM, l3.incl, REQ, 0, 0, FIX, "inclusive|nine|victim",
        "how L3 relates to L2: inclusive, non-inclusive non-exclusive, or victim (exclusive)"),
    KEY("l3.foreign_fills", CFG_T_BW, l3_foreign_bpc, DEF("0B/cycle"), 0, 4096, FIT, NULL,
        "bytes of lines other cores (a guest's co-tenants) fill into this L3 per second: they age "
        "this core's lines, so a workload keeps a share that grows with its own fill rate (0: the "
        "L3 is this core's alone); models/hierarchy.c"),

    /* memory */
    KEY("memory.latency", CFG_T_TIME_NS, mem_latency_ns, REQ, 10, 5000, FIT, NULL,
        "idle load-to-use latency of DRAM (models/dram.c)"),
    KEY("memory.write_latency", CFG_T_TIME_NS, mem_write_latency_ns, DEF("0ns"), 0, 5000, FIT, NULL,
        "time until memory acknowledges a posted line write, which holds its WC buffer until "
        "then (0: as soon as the write link takes it); memory path (models/dram.c)"),
    KEY("memory.read_bandwidth", CFG_T_BW, mem_read_bpc, REQ, 0.01, 4096, FIT, NULL,
        "read bandwidth one core can reach (models/dram.c)"),
    KEY("memory.write_bandwidth", CFG_T_BW, mem_write_bpc, REQ, 0.01, 4096, FIT, NULL,
        "write bandwidth one core can reach (models/dram.c)"),
    KEY("memory.combined_bandwidth", CFG_T_BW, mem_combined_bpc, REQ, 0.01, 4096, FIT, NULL,
        "reads + writes together, e.g. RFO + writeback clearing (models/dram.c)"),
    KEY("memory.turnaround", CFG_T_TIME_NS, mem_turnaround_ns, DEF("0ns"), 0, 1000, FIT, NULL,
        "read <-> write bus turnaround (models/dram.c)"),
    KEY("memory.write_queue", CFG_T_U32, mem_write_queue, DEF("1"), 1, 4096, FIT, NULL,
        "writes batched per turnaround (models/dram.c)"),
    KEY("memory.zero_write_fraction", CFG_T_DOUBLE, mem_zero_write_fraction, DEF("1"), 0, 1, FIT,
        NULL,
        "time on the write link and bus of a line a zeroing operation writes (CLZERO, DC ZVA, an "
        "elided string store of zeros) relative to a data line (1 = same); stores of zero data "
        "cost as data unless memory.zero_data_fraction says otherwise"),
    KEY("memory.zero_data_fraction", CFG_T_DOUBLE, mem_zero_data_fraction, DEF("1"), 0.02, 1, FIT,
        NULL,
        "time on the write link and bus of a full line of zero data that non-temporal stores send "
        "to memory, relative to a line of other data (1 = the data does not matter)"),
    KEY("memory.zero_writeback_fraction", CFG_T_DOUBLE, mem_zero_writeback_fraction, DEF("1"), 0.02,
        1, FIT, NULL,
        "time on the write link and bus of the write-back of a cached line that holds zeros (a "
        "temporal clear's lines), relative to a line of data (1 = the data does not matter)"),
    KEY("memory.zero_data_stores", CFG_T_U32, mem_zero_data_stores, DEF("0"), 0, 64, FIX, NULL,
        "the most non-temporal stores a full line of zeros may be written with and still cost "
        "memory.zero_data_fraction (1: one full-line store, as a 64-byte VMOVNTDQ; a line of "
        "eight MOVNTI then costs as data); 0: any"),

    /* TLB */
    KEY("tlb.entries_4k", CFG_T_U32, tlb_entries_4k, REQ, 1, 1000000, FIX, NULL,
        "data TLB entries for 4 KiB pages (largest level); TLB model"),
    KEY("tlb.entries_2m", CFG_T_U32, tlb_entries_2m, REQ, 0, 1000000, FIX, NULL,
        "data TLB entries for 2 MiB pages; TLB model"),
    KEY("tlb.entries_1g", CFG_T_U32, tlb_entries_1g, DEF("0"), 0, 1000000, FIX, NULL,
        "data TLB entries for 1 GiB pages; TLB model"),
    KEY("tlb.walk", CFG_T_TIME_CYCLES, tlb_walk_cycles, REQ, 0, 10000, FIT, NULL,
        "page-walk cost of a TLB miss"),
    KEY("tlb.host_page", CFG_T_SIZE, tlb_host_page_bytes, DEF("0"), 0, 1 * GiB, FIX, NULL,
        "the page a guest's host backs its memory with (0: bare metal); a translation is no "
        "larger (the TLB splinters), and one of the host's page size misses as the host's "
        "(tlb.host_miss.*); host-page TLB model"),
    KEY("tlb.host_entries", CFG_T_U32, tlb_host_entries, DEF("0"), 0, 16777216, FIT, NULL,
        "translations of host pages a store finds without cost (they replace the TLB entries "
        "of that page size); used when tlb.host_page is set; host-page TLB model"),
    KEY("tlb.host_miss.nt_line", CFG_T_TIME_NS, tlb_host_nt_line_ns, DEF("0ns"), 0, 100000, FIT,
        NULL,
        "what a line of one or two non-temporal stores (VMOVNTDQ zmm, ymm) that takes a host "
        "page's TLB miss costs: issue stalls this long (instead of tlb.walk) while the lines "
        "already buffered drain"),
    KEY("tlb.host_miss.nt_narrow", CFG_T_TIME_NS, tlb_host_nt_narrow_ns, DEF("0ns"), 0, 100000, FIT,
        NULL, "the same for a line of more than two non-temporal stores (MOVNTI, STNP)"),
    KEY("tlb.host_miss.string", CFG_T_TIME_NS, tlb_host_string_ns, DEF("0ns"), 0, 100000, FIT, NULL,
        "the same for a line of a string op (rep stos*, MOPS), elided or read for ownership; an "
        "op's first walk starts when the string op before it issued its last line"),
    KEY("tlb.host_miss.line_zero", CFG_T_TIME_NS, tlb_host_line_zero_ns, DEF("0ns"), 0, 100000, FIT,
        NULL,
        "the same for a line-zeroing command (CLZERO, DC ZVA) that goes to memory; a temporal "
        "store, a load and a line-zeroing command that allocates pay tlb.walk"),

    /* OS */
    KEY("os.fault_4k", CFG_T_TIME_NS, fault_4k_ns, REQ, 0, 1e9, FIT, NULL,
        "4 KiB fault: trap + allocation + PTE, excluding clearing (mmap workload)"),
    KEY("os.fault_2m", CFG_T_TIME_NS, fault_2m_ns, REQ, 0, 1e9, FIT, NULL,
        "2 MiB fault, excluding clearing (mmap workload)"),
    KEY("os.fault_1g", CFG_T_TIME_NS, fault_1g_ns, REQ, 0, 1e9, FIT, NULL,
        "1 GiB fault, excluding clearing (mmap workload)"),
    KEY("os.populate_fraction", CFG_T_DOUBLE, populate_fraction, DEF("1"), 0, 1, FIT, NULL,
        "MAP_POPULATE fault cost relative to a demand fault (no trap)"),
    KEY("os.resched", CFG_T_TIME_NS, resched_ns, DEF("0ns"), 0, 1e6, FIT, NULL,
        "cost of a cond_resched() that does not switch (extent callers)"),
    KEY("os.max_order_pages", CFG_T_U32, max_order_pages, DEF("1024"), 1, 1048576, FIX, NULL,
        "folios above this many 4 KiB pages are gigantic: cleared in ascending order"),

    /* libc memset dispatch */
    KEY("libc.name", CFG_T_STRING, libc_name, DEF(""), 0, 0, FIX, NULL,
        "the C library and version whose memset the libc.memset keys describe (glibc-2.36; "
        "documentation: --libc NAME-VERSION sets it with the keys from its table, "
        "sim/machine/libc.c)"),
    KEY("libc.memset.vector", CFG_T_SIZE, memset_vec_bytes, REQ, 16, 64, FIX, NULL,
        "memset vector store width: 16, 32 or 64 (arm64: 16 = STP); memset kernel"),
    KEY("libc.memset.rep_stosb_threshold", CFG_T_SIZE, memset_stosb_bytes, DEF("0"), 0,
        18446744073709551615.0, FIX, NULL, "memset uses rep stosb from this size (0 = never)"),
    KEY("libc.memset.nt_threshold", CFG_T_SIZE, memset_nt_bytes, DEF("0"), 0,
        18446744073709551615.0, FIX, NULL,
        "memset uses non-temporal stores from this size (0 = never)"),
    KEY("libc.memset.zva_threshold", CFG_T_SIZE, memset_zva_bytes, DEF("0"), 0,
        18446744073709551615.0, FIX, NULL,
        "arm64: zero-fill memset uses DC ZVA from this size (0 = never)"),
    KEY("libc.memset.mops", CFG_T_BOOL, memset_mops, DEF("false"), 0, 0, FIX, NULL,
        "arm64: memset uses SETP/SETM/SETE when the mops feature is present"),

    /* perf event mapping */
    /* microbenchmark figures */
    KEY("microbench.clock", CFG_T_FREQ, mb_clock_ghz, OPT, 0.1, 10, FIX, NULL,
        "the core clock the microbenchmark figures hold at (default core.freq); `clearsim "
        "check` predicts them there"),
    KEY("microbench.tolerance", CFG_T_DOUBLE, mb_tolerance, DEF("0.10"), 0.001, 1, FIX, NULL,
        "relative error `clearsim check` allows between a figure and the model"),
    KEY("microbench.boost", CFG_T_ENUM, mb_boost, DEF("unknown"), 0, 0, FIX, "unknown|on|off",
        "whether the figures were measured with boost (turbo) on; with on, microbench.clock "
        "is the clock the core held under it"),
    KEY("microbench.adds_per_cycle", CFG_T_DOUBLE, mb_adds_per_cycle, OPT, 0.05, 16, FIX, NULL,
        "the core's share the figures were measured at: independent register adds per cycle "
        "(detect --measure; about the ALU count on a core to itself, less when another thread "
        "shares it); crosscheck says when its own runs meet another"),
    KEY("microbench.fit", CFG_T_MBFIT, mb_fit, OPT, 0, 0, FIX, NULL,
        "keys `clearsim calibrate --microbench` fits to the figures: [{key, stage, range}]; "
        "stage N takes the figures with stage: N (docs/ADDING-A-MACHINE.md)"),
    KEY("microbench.figures", CFG_T_MICROBENCH, mb, OPT, 0, 0, FIX, NULL,
        "the machine's microbenchmark figures: [{id, workload, size, gbps | ns_per_load, "
        "source, ...}] (docs/MICROBENCH.md); `clearsim check` reproduces them"),
    KEY("pmu", CFG_T_PMU, pmu, OPT, 0, 0, FIX, NULL,
        "perf event name -> null (not supported) or a linear expression of internal events "
        "(models/stats.c names); sim/engine/run.c"),
};

const cfg_key_t *cfg_keys(size_t *count)
{
    if (count)
        *count = sizeof(keys) / sizeof(keys[0]);
    return keys;
}
