/*
 * trace.h - the operation vocabulary that kernels emit in trace mode.
 *
 * Notes
 *  - A kernel compiled in trace mode (kernels/kmode.h) never touches memory.
 *    Every instruction that matters to the memory model becomes one trace_op_t.
 *  - Addresses are simulated byte addresses (uint64_t); they are never
 *    dereferenced.
 *  - Consecutive stores (or line zeroings) of one kind and width to contiguous
 *    addresses may be
 *    coalesced into one op with `count` instructions and `bytes` total bytes.
 *    The model assembles lines itself, so its results do not depend on
 *    whether the sink coalesces (tests check this).
 *  - With coalescing, TRACE_INSNS ops that arrive while a store or load run
 *    is pending are folded into that run's `insns` field instead of being
 *    delivered on their own, so loop control between stores does not break a
 *    run. Without coalescing every op is delivered as emitted (insns = 0).
 *  - Units: `bytes` is bytes, `count` and `insns` are instructions.
 */
#ifndef CLEARSIM_TRACE_H
#define CLEARSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum trace_kind {
    TRACE_STORE = 0,  /* temporal store(s): addr, bytes, width, count, fill */
    TRACE_STORE_NT,   /* non-temporal store(s) (MOVNTI, VMOVNTDQ, STNP) */
    TRACE_LINE_ZERO,  /* whole-block zeroing (CLZERO, DC ZVA): addr, bytes = block */
    TRACE_STRING,     /* string op (rep stos*, MOPS SET*): addr, bytes = total length,
                       * width = element size (1 stosb, 8 stosq, 1 mops), fill,
                       * flags TRACE_F_NT for the non-temporal MOPS forms */
    TRACE_FENCE,      /* sfence / dmb: waits until write-combining buffers drain */
    TRACE_LOAD,       /* load(s): addr, bytes, width, count */
    TRACE_INSNS,      /* `count` other instructions (loop control, setup) */
    TRACE_CALL_BEGIN, /* a kernel call starts: addr, bytes = length */
    TRACE_CALL_END,   /* the kernel call returns */
    TRACE_RESCHED,    /* cond_resched() point between extents */
    TRACE_FAULT,      /* a page fault: addr = faulting address, bytes = page size,
                       * flags TRACE_F_POPULATE when taken by MAP_POPULATE */
    TRACE_KIND_COUNT
} trace_kind_t;

enum {
    TRACE_F_NT = 1u << 0,       /* non-temporal string op (MOPS SETPN/SETMN/SETEN) */
    TRACE_F_POPULATE = 1u << 1, /* fault taken while populating, not on access */
    TRACE_F_DEP = 1u << 2,      /* a load whose address is the data of the load before it: it
                                 * issues only once that load's data has arrived (a chase);
                                 * never coalesced */
};

typedef struct trace_op {
    uint64_t addr;  /* simulated address, bytes */
    uint64_t bytes; /* total bytes covered (or page size for faults) */
    uint32_t count; /* instructions this op stands for */
    uint32_t insns; /* other instructions (loop control) issued along with this run */
    uint16_t width; /* bytes per instruction (store width or string element) */
    uint8_t kind;   /* trace_kind_t */
    uint8_t fill;   /* byte value written (stores, strings) */
    uint32_t flags; /* TRACE_F_* */
} trace_op_t;

/* A sink receives ops in program order. Return 0 to continue, non-zero to stop
 * (the trace then ignores further ops and trace_error() reports the code). */
typedef int (*trace_sink_fn)(void *ctx, const trace_op_t *op);

typedef struct trace trace_t;

trace_t *trace_create(trace_sink_fn sink, void *ctx, bool coalesce);
void trace_destroy(trace_t *t);

/* Emit one op (coalescing where allowed). */
void trace_emit_slow(trace_t *t, const trace_op_t *op);

/* Private: the head of struct trace, exposed only so that trace_emit() can
 * merge the common case (the next store of a run) inline; kernels emit one
 * op per instruction, hundreds of millions per prediction. Use the
 * functions, never these fields.
 *
 * run_key is trace_run_key_() of the pending op when it is a run that the
 * next op of its kind may join (coalescing on, a TRACE_STORE, TRACE_STORE_NT
 * or TRACE_LINE_ZERO op pending), else 0; run_end = pending.addr +
 * pending.bytes. trace.c keeps both in step with `pending`. */
typedef struct trace_head_ {
    bool coalesce;
    bool have_pending;
    int error;
    uint64_t delivered; /* ops handed to the sink so far */
    uint64_t run_key;
    uint64_t run_end;
    trace_op_t pending;
} trace_head_t;

/* kind, width, fill and flags in one word; never 0 (kind + 1 is not). */
static inline uint64_t trace_run_key_(uint8_t kind, uint16_t width, uint8_t fill, uint32_t flags)
{
    return (uint64_t)flags << 32 | (uint64_t)width << 16 | (uint64_t)fill << 8 |
           (uint64_t)(uint8_t)(kind + 1);
}

/* The next store of the pending run: merge it (true), or false. */
static inline bool trace_merge_(trace_head_t *h, uint64_t key, uint64_t addr, uint64_t bytes,
                                uint32_t count, uint32_t insns)
{
    trace_op_t *p = &h->pending;
    if (key != h->run_key || addr != h->run_end || p->count >= (UINT32_MAX >> 1))
        return false;
    p->bytes += bytes;
    p->count += count;
    p->insns += insns;
    h->run_end += bytes;
    return true;
}

static inline void trace_emit(trace_t *t, const trace_op_t *op)
{
    trace_head_t *h = (trace_head_t *)t;
    if ((op->kind == TRACE_STORE || op->kind == TRACE_STORE_NT) &&
        trace_merge_(h, trace_run_key_(op->kind, op->width, op->fill, op->flags), op->addr,
                     op->bytes, op->count, op->insns))
        return;
    trace_emit_slow(t, op);
}

/* Hand any pending coalesced op to the sink. */
void trace_flush(trace_t *t);

/* The same as trace_emit() of an op with these fields (insns = 0), without
 * building the op first: the hot path of every kernel's store loop. A line
 * zeroing joins its run here too, exactly as trace_emit_slow() would merge
 * it (delivered as soon as its count reaches the bound). */
static inline void trace_emit_fields(trace_t *t, trace_kind_t kind, uint64_t addr, uint64_t bytes,
                                     uint32_t count, uint16_t width, uint8_t fill, uint32_t flags)
{
    trace_head_t *h = (trace_head_t *)t;
    if ((kind == TRACE_STORE || kind == TRACE_STORE_NT) &&
        trace_merge_(h, trace_run_key_((uint8_t)kind, width, fill, flags), addr, bytes, count, 0))
        return;
    if (kind == TRACE_LINE_ZERO &&
        trace_run_key_((uint8_t)kind, width, fill, flags) == h->run_key && addr == h->run_end) {
        h->pending.bytes += bytes;
        h->pending.count += count;
        h->run_end += bytes;
        if (h->pending.count >= (UINT32_MAX >> 1))
            trace_flush(t);
        return;
    }
    trace_op_t op = {.addr = addr,
                     .bytes = bytes,
                     .count = count,
                     .width = width,
                     .kind = (uint8_t)kind,
                     .fill = fill,
                     .flags = flags};
    trace_emit_slow(t, &op);
}

/* ---- repeating a uniform loop (kernels/kmode.h K_LOOP) ----
 *
 * A kernel loop whose every iteration emits the same ops moved on by the
 * loop's step (its body depends on the loop variable only through the
 * addresses) need not run each iteration in trace mode: once one whole
 * iteration has only extended the pending run, contiguously by exactly the
 * step and with nothing delivered, every later iteration would do the same.
 * trace_repeat() then adds up to `more` such iterations to the run at once,
 * as many as the run's count bound lets each of their ops merge exactly as
 * it would have one by one (the iterations it leaves run as before, so the
 * delivered ops are identical either way; tests compare the two). With
 * coalescing off it never applies. */
typedef struct trace_mark {
    uint64_t delivered, addr, bytes;
    uint32_t count, insns;
    uint8_t kind;
    bool pending;
} trace_mark_t;

/* The state an iteration starts from. */
static inline trace_mark_t trace_mark(const trace_t *t)
{
    const trace_head_t *h = (const trace_head_t *)t;
    trace_mark_t m = {.delivered = h->delivered,
                      .addr = h->pending.addr,
                      .bytes = h->pending.bytes,
                      .count = h->pending.count,
                      .insns = h->pending.insns,
                      .kind = h->pending.kind,
                      .pending = h->have_pending};
    return m;
}

/* The iteration since m covered step_bytes: apply up to `more` further
 * identical iterations to the pending run; returns how many it applied. */
uint64_t trace_repeat(trace_t *t, const trace_mark_t *m, uint64_t step_bytes, uint64_t more);

/* First non-zero code a sink returned, or 0. */
int trace_error(const trace_t *t);

const char *trace_kind_name(trace_kind_t k);

#endif
