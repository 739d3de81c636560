/*
 * trace.c - op sink with optional coalescing of contiguous stores.
 *
 * Notes
 *  - Only TRACE_STORE, TRACE_STORE_NT, TRACE_LOAD and TRACE_LINE_ZERO ops
 *    coalesce, and only
 *    with an op of the same kind, width and fill that starts where the
 *    pending one ends. TRACE_INSNS ops merge with each other.
 *  - Coalescing never reorders memory ops; TRACE_INSNS that follow a pending
 *    store/load run are folded into its `insns` (see trace.h).
 */
#include "models/base/trace.h"

#include <stdlib.h>

struct trace {
    trace_head_t h; /* first: trace_emit() in trace.h merges runs through it */
    trace_sink_fn sink;
    void *ctx;
};

trace_t *trace_create(trace_sink_fn sink, void *ctx, bool coalesce)
{
    trace_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->sink = sink;
    t->ctx = ctx;
    t->h.coalesce = coalesce;
    return t;
}

void trace_destroy(trace_t *t)
{
    free(t);
}

static void deliver(trace_t *t, const trace_op_t *op)
{
    t->h.delivered++;
    if (t->h.error)
        return;
    int rc = t->sink(t->ctx, op);
    if (rc)
        t->h.error = rc;
}

/* Keep run_key / run_end in step with the pending op (see trace.h). */
static void rekey(trace_t *t)
{
    const trace_op_t *p = &t->h.pending;
    bool run = t->h.coalesce && t->h.have_pending &&
               (p->kind == TRACE_STORE || p->kind == TRACE_STORE_NT || p->kind == TRACE_LINE_ZERO);
    t->h.run_key = run ? trace_run_key_(p->kind, p->width, p->fill, p->flags) : 0;
    t->h.run_end = p->addr + p->bytes;
}

void trace_flush(trace_t *t)
{
    if (t->h.have_pending) {
        t->h.have_pending = false;
        t->h.run_key = 0;
        deliver(t, &t->h.pending);
    }
}

static bool mergeable(const trace_op_t *p, const trace_op_t *op)
{
    if (p->kind != op->kind || p->flags != op->flags || (op->flags & TRACE_F_DEP))
        return false;
    if (op->kind == TRACE_INSNS)
        return true;
    if (op->kind != TRACE_STORE && op->kind != TRACE_STORE_NT && op->kind != TRACE_LOAD &&
        op->kind != TRACE_LINE_ZERO)
        return false;
    return p->width == op->width && p->fill == op->fill && p->addr + p->bytes == op->addr;
}

void trace_emit_slow(trace_t *t, const trace_op_t *op)
{
    if (!t->h.coalesce) {
        deliver(t, op);
        return;
    }
    if (op->kind == TRACE_INSNS && t->h.have_pending &&
        (t->h.pending.kind == TRACE_STORE || t->h.pending.kind == TRACE_STORE_NT ||
         t->h.pending.kind == TRACE_LOAD || t->h.pending.kind == TRACE_LINE_ZERO) &&
        t->h.pending.insns < (UINT32_MAX >> 1)) {
        t->h.pending.insns += op->count;
        return;
    }
    if (t->h.have_pending && mergeable(&t->h.pending, op)) {
        t->h.pending.bytes += op->bytes;
        t->h.pending.count += op->count;
        t->h.pending.insns += op->insns;
        t->h.run_end = t->h.pending.addr + t->h.pending.bytes;
        /* Keep the count bounded; deliver before it could wrap. */
        if (t->h.pending.count >= (UINT32_MAX >> 1))
            trace_flush(t);
        return;
    }
    trace_flush(t);
    t->h.pending = *op;
    t->h.have_pending = true;
    rekey(t);
}

uint64_t trace_repeat(trace_t *t, const trace_mark_t *m, uint64_t step_bytes, uint64_t more)
{
    trace_head_t *h = &t->h;
    trace_op_t *p = &h->pending;
    if (!h->coalesce || !h->have_pending || !m->pending || more == 0 ||
        h->delivered != m->delivered || p->addr != m->addr || p->kind != m->kind ||
        (p->kind != TRACE_STORE && p->kind != TRACE_STORE_NT && p->kind != TRACE_LOAD &&
         p->kind != TRACE_LINE_ZERO) ||
        p->bytes - m->bytes != step_bytes || p->count <= m->count)
        return 0;
    /* One iteration's instructions; every op of an applied iteration must
     * merge as it would have alone: its count and insns stay below the
     * bound (UINT32_MAX >> 1) at which trace_emit_slow() and the inline
     * merges stop, even counting one more iteration after the last applied. */
    const uint64_t bound = UINT32_MAX >> 1;
    const uint64_t dc = p->count - m->count, di = p->insns - m->insns;
    uint64_t r = more;
    if (p->count + 2 * dc >= bound)
        return 0;
    if ((bound - p->count) / dc - 2 < r)
        r = (bound - p->count) / dc - 2;
    if (di) {
        if (p->insns + 2 * di >= bound)
            return 0;
        if ((bound - p->insns) / di - 2 < r)
            r = (bound - p->insns) / di - 2;
    }
    if (r == 0)
        return 0;
    p->bytes += r * step_bytes;
    p->count += (uint32_t)(r * dc);
    p->insns += (uint32_t)(r * di);
    h->run_end = p->addr + p->bytes;
    return r;
}

int trace_error(const trace_t *t)
{
    return t->h.error;
}

const char *trace_kind_name(trace_kind_t k)
{
    static const char *const names[TRACE_KIND_COUNT] = {
        [TRACE_STORE] = "store",         [TRACE_STORE_NT] = "store_nt",
        [TRACE_LINE_ZERO] = "line_zero", [TRACE_STRING] = "string",
        [TRACE_FENCE] = "fence",         [TRACE_LOAD] = "load",
        [TRACE_INSNS] = "insns",         [TRACE_CALL_BEGIN] = "call_begin",
        [TRACE_CALL_END] = "call_end",   [TRACE_RESCHED] = "resched",
        [TRACE_FAULT] = "fault",
    };
    return (unsigned)k < TRACE_KIND_COUNT ? names[k] : "?";
}
