/*
 * kernels.h - the clearing kernels, each written once (kernels/clear_x86.inc,
 * kernels/clear_arm64.inc, kernels/clear_memset.inc) and compiled two ways:
 *
 *  - native mode (kernels/native_mode.c): real instructions on real memory, only
 *    where the host's ISA and CPU features allow it;
 *  - trace mode (kernels/trace_mode.c): the same source emits trace_op_t records
 *    into a trace_t, for any machine.
 *
 * Notes
 *  - A kernel clears `len` bytes at `addr` with byte value `fill`.
 *  - `len` must be a multiple of kern_info_t.granule_bytes (and, for
 *    dc_zva, of the machine's block size); callers check with kern_check_len().
 */
#ifndef CLEARSIM_KERNELS_H
#define CLEARSIM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/base/trace.h"

typedef enum kern_isa { KERN_ISA_X86_64 = 0, KERN_ISA_ARM64 = 1, KERN_ISA_ANY = 2 } kern_isa_t;

/* Trace-mode context: where ops go and the machine being modelled (memset
 * dispatch thresholds, DC ZVA block size). */
typedef struct kern_ctx {
    trace_t *trace;
    const machine_t *machine;
    /* the chase microbenchmark: line i of the buffer at chase_base is
     * followed by line chase_next[i] (kern_chase_order) */
    const uint32_t *chase_next;
    uint64_t chase_base;
    /* the copy microbenchmarks: the byte the source holds, so what their
     * stores write */
    uint8_t copy_fill;
} kern_ctx_t;

typedef void (*kern_trace_fn)(kern_ctx_t *k, uint64_t addr, uint64_t len, uint8_t fill);
typedef void (*kern_native_fn)(void *dst, size_t len, uint8_t fill);

/* What a kernel's instructions are: the microbenchmarks choose by it. */
typedef enum kern_class {
    KERN_CLASS_STRING = 0, /* rep stos*, MOPS SET*: the CPU sees the whole length */
    KERN_CLASS_STORE,      /* temporal stores in a loop */
    KERN_CLASS_NT,         /* non-temporal stores in a loop */
    KERN_CLASS_LINEZERO,   /* CLZERO / DC ZVA per block */
    KERN_CLASS_LIBC,       /* the C library's memset */
} kern_class_t;

typedef struct kern_info {
    const char *name;
    const char *description;
    kern_isa_t isa;
    uint32_t needs;         /* machine_feature_t bits the CPU must have */
    uint32_t granule_bytes; /* len must be a multiple of this */
    kern_trace_fn trace;
    kern_native_fn native; /* NULL when not built for this host's ISA */
    bool zero_only;        /* writes zeros whatever the fill (clzero, dc_zva) */
    kern_class_t cls;
    bool fences;          /* ends every call with a store fence (sfence) */
    uint32_t width_bytes; /* bytes per store instruction (0: a string op or memset) */
} kern_info_t;

/* NULL-terminated table, in display order. */
const kern_info_t *kern_table(void);
const kern_info_t *kern_find(const char *name);
/* The kernel perf bench mem memset calls perf_name ("default" the C
 * library's memset, "x86-64-stosq", "x86-64-stosb", "x86-64-unrolled",
 * "x86-64-movnt"), or NULL; and a kernel's perf name, or NULL when perf has
 * none. */
const kern_info_t *kern_find_perf(const char *perf_name);
const char *kern_perf_name(const kern_info_t *k);
const char *kern_isa_name(kern_isa_t isa);
/* Feature names for the needs list: fills `names` with up to max entries. */
size_t kern_needs_names(const kern_info_t *k, const char **names, size_t max);

/* Can this kernel run (trace mode) on machine m? Returns 0 or -1 with a reason. */
int kern_check_machine(const kern_info_t *k, const machine_t *m, char *err, size_t errlen);
/* Is len acceptable for this kernel on machine m (m may be NULL for native)? */
int kern_check_len(const kern_info_t *k, const machine_t *m, uint64_t len, char *err,
                   size_t errlen);
/* Can this kernel write byte value fill (zero-only kernels cannot write
 * non-zero)? Returns 0 or -1 with a reason. */
int kern_check_fill(const kern_info_t *k, uint32_t fill, char *err, size_t errlen);

/* The kernel of class cls (need_fence: one that fences each call) with the
 * widest stores that isa and features allow, the first of the table among
 * equals; NULL when there is none. */
const kern_info_t *kern_widest(kern_class_t cls, bool need_fence, machine_isa_t isa,
                               uint32_t features);

/* YAML name of one machine_feature_t bit ("erms", "avx512f", ...), or NULL. */
const char *kern_feature_name(uint32_t bit);

/* Does this kernel run natively on a host of instruction set isa with the
 * machine_feature_t bits `features` (its ISA built here, every needed
 * feature present)? host_name names the host in the reason. Returns true, or
 * false with the reason in why. */
bool kern_native_supported(const kern_info_t *k, machine_isa_t isa, uint32_t features,
                           const char *host_name, char *why, size_t whylen);
/* Bytes one native line-zero instruction clears on this host: the cache line
 * for CLZERO on x86-64, 4 << DCZID_EL0.BS on arm64 (0 when DC ZVA is
 * prohibited). */
uint32_t kern_native_block_bytes(void);

/* ---- microbenchmark kernels (kernels/bench_*.inc) ---- */

typedef enum kern_bench_kind {
    KERN_BENCH_LOAD = 0, /* n bytes read from src */
    KERN_BENCH_COPY,     /* n bytes from src to dst */
    KERN_BENCH_CHASE,    /* n dependent loads starting at src */
    KERN_BENCH_COPY_NT,  /* n bytes from src to dst with non-temporal stores, then a fence */
} kern_bench_kind_t;

typedef void (*kern_bench_trace_fn)(kern_ctx_t *k, uint64_t dst, uint64_t src, uint64_t n);
typedef uint64_t (*kern_bench_native_fn)(void *dst, const void *src, uint64_t n);

typedef struct kern_bench {
    const char *name;
    const char *description;
    kern_bench_kind_t kind;
    kern_isa_t isa;
    uint32_t needs;       /* machine_feature_t bits the CPU must have */
    uint32_t width_bytes; /* bytes per load (and store) */
    kern_bench_trace_fn trace;
    kern_bench_native_fn native; /* NULL when not built for this host's ISA */
} kern_bench_t;

/* NULL-terminated, in display order. */
const kern_bench_t *kern_bench_table(void);
const kern_bench_t *kern_bench_find(const char *name);
/* Can this kernel run on machine m / natively on this host? As the
 * clearing kernels' checks, with the reason. */
int kern_bench_check_machine(const kern_bench_t *b, const machine_t *m, char *err, size_t errlen);
bool kern_bench_native_supported(const kern_bench_t *b, machine_isa_t isa, uint32_t features,
                                 const char *host_name, char *why, size_t whylen);
/* The widest load kernel of `kind` (load or copy) that machine features allow
 * on isa ("load32" on an AVX2 x86-64, "load32" on arm64, ...). */
const kern_bench_t *kern_bench_widest(kern_bench_kind_t kind, machine_isa_t isa, uint32_t features);
/* The chase order: next[i] is the line after line i, a single cycle through
 * all n lines in an order drawn from seed (Sattolo's shuffle). */
void kern_chase_order(uint32_t *next, uint32_t n, uint64_t seed);

#endif
