/*
 * model.c - the core's side of clearing: issue, the store buffer, the string
 * engine, write-combining, fences, write streaming, TLB, calls and faults.
 *
 * Notes
 *  - What it models:
 *    - a front end that issues core.insns_per_cycle instructions per cycle
 *      and core.stores_per_cycle stores per cycle;
 *    - a store buffer of core.store_buffer entries: a line's stores can
 *      enter only when the line `entries / stores-per-line` lines back has
 *      committed, so the buffer bounds how many lines ahead the core asks
 *      for ownership (RFO) while it waits for older lines; with
 *      core.rfo_window fill_buffers a store that misses L1 waits in its
 *      line's fill buffer instead, and l1.mshrs lines (at least) are in
 *      flight whatever the store width;
 *    - stores commit to L1 in order once their line is owned;
 *    - the string engine (rep stos*, MOPS): a startup cost from the
 *      machine's table, string.bytes_per_cycle, and a lookahead of
 *      string.lookahead bytes *within the operation*: it asks for lines that
 *      far ahead of the oldest uncommitted one, across page boundaries but
 *      never past the operation's end. Per line it allocates, or (elision)
 *      writes the line around the caches;
 *    - write-combining buffers (wc.buffers): each non-temporal, elided or
 *      CLZERO line holds one until memory accepts it; a fence waits for all;
 *    - arm64 write streaming: from the write_streaming.enter_lines-th
 *      consecutive full-line write that misses L1 (from the first DC ZVA),
 *      misses stop allocating in L1, and once the run (counted from its
 *      first line) passes the l2 / l3 byte thresholds, in L2 / L3 too; a
 *      partial line, a store that hits L1, a kernel call or a fault (the
 *      caller's and the fault handler's own stores) ends the run;
 *    - a TLB per page size (tlb.*): a store's miss stalls issue for tlb.walk;
 *      a streaming load's holds its request and the page's next access
 *      (models/model_xlate.h), one walk in flight at a time;
 *    - kernel calls, reschedule points and page faults as fixed costs.
 *  - Stores are assembled into lines here, so results do not depend on
 *    whether the trace coalesced them.
 *  - Fast-forward inside long operations: models/model_ff.c judges the
 *    block history and plans a skip; this file applies it (counters, time,
 *    write streaming).
 *  - What it ignores: loads' dependence chains (a load never stalls issue
 *    except for a free fill buffer), memory disambiguation, SMT.
 *  - The model's state and the helpers the stages share (the commit ring,
 *    the window, bottleneck attribution) are in models/model_impl.h.
 *  - Units: time in core cycles (double internally); counters uint64_t.
 */
#include "models/model.h"
#include "models/base/errbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cache.h"
#include "models/hierarchy.h"
#include "models/model_ff.h"
#include "models/mshr.h"
#include "models/mshr_impl.h"
#include "models/string_op.h"
#include "models/timing.h"
#include "models/tlb.h"
#include "models/write_stream.h"
#include "models/model_impl.h"
#include "models/model_xlate.h"

model_t *model_create(const machine_t *m, uint64_t seed, char *err, size_t errlen)
{
    model_t *md = calloc(1, sizeof(*md));
    if (!md) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    md->m = m;
    md->line_bytes = m->l1.line_bytes;
    md->cyc_per_ns = m->freq_ghz;
    md->h = hier_create(m, seed, &md->st, err, errlen);
    if (!md->h)
        goto fail;
    md->bulk = model_bulk_create(md);
    md->bulk_due = UINT64_MAX;
    if (!md->bulk) {
        errbuf_set(err, errlen, "out of memory");
        goto fail;
    }
    ws_init(&md->ws, m, md->h, &md->st);
    md->hwhy = hier_why_at(md->h);
    md->wc = mshr_create(m->wc_buffers ? m->wc_buffers : 1);
    md->lzq = m->lz_buffers ? mshr_create(m->lz_buffers) : md->wc;
    if (!md->wc || !md->lzq) {
        errbuf_set(err, errlen, "out of memory");
        goto fail;
    }
    if (tlb_setup(&md->tlb, m, &md->st, tlb_page_for(m, 4096), err, errlen))
        goto fail;
    uint64_t cap = m->l1.size_bytes + m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0);
    /* The tail refills every level (so the final cache contents are the
     * op's own last lines) and covers the last bytes of an operation whose
     * elision depends on the bytes remaining. */
    uint64_t tail = cap + cap / 4;
    if (m->elide_enabled && m->elide_mode == MACHINE_ELIDE_REMAINING &&
        m->elide_threshold_bytes < UINT64_MAX / 2 && m->elide_threshold_bytes + cap > tail)
        tail = m->elide_threshold_bytes + cap;
    md->ff.tail_lines = tail / (md->line_bytes ? md->line_bytes : 64);
    md->tag_front = B(ST_BOUND_FRONT_END);
    md->tag_issue = md->tag_commit = md->tag_dep = md->tag_load = B(ST_BOUND_STORE_ISSUE);
    md->tag_pool = B(ST_BOUND_WC_BUFFERS);
    return md;
fail:
    model_destroy(md);
    return NULL;
}

void model_destroy(model_t *md)
{
    if (!md)
        return;
    hier_destroy(md->h);
    model_bulk_destroy(md->bulk);
    if (md->lzq != md->wc)
        mshr_destroy(md->lzq);
    mshr_destroy(md->wc);
    tlb_release(&md->tlb);
    free(md);
}

void model_set_mapping(model_t *md, uint64_t tlb_page_bytes, uint64_t contig_bytes)
{
    char err[256];
    tlb_page_bytes = tlb_page_for(md->m, tlb_page_bytes);
    if (tlb_page_bytes != md->tlb.page_bytes &&
        tlb_setup(&md->tlb, md->m, &md->st, tlb_page_bytes, err, sizeof(err)))
        tlb_setup(&md->tlb, md->m, &md->st, tlb_page_for(md->m, 4096), err,
                  sizeof(err)); /* 4 KiB (or the host's page) always fits */
    md->walk_pending = false;
    hier_set_contig(md->h, contig_bytes);
}

/* ---- core helpers ----------------------------------------------------- */

/* Front end issues n instructions; returns when the last one issues. The
 * quotient of the last n is kept (keyed by n's bits: the same value), as
 * every line of a run issues the same count. The front end cannot bank the
 * time a stall gave it: it starts no earlier than the last issue (behind a
 * stalled store the window is full), so a line takes the longer of its
 * front-end and its issue time, not their sum and not less. */
static inline double front(model_t *md, double n)
{
    if (md->m->insns_per_cycle > 0) {
        if (md->t_issue > md->t_front)
            md->tag_front = md->tag_issue;
        md->t_front = timing_max(md->t_front, md->t_issue);
        uint64_t bits = dbits(n);
        if (!md->front_memo_valid || bits != md->front_memo_bits) {
            md->front_memo_valid = true;
            md->front_memo_bits = bits;
            md->front_memo_cycles = n / md->m->insns_per_cycle;
        }
        md->t_front += md->front_memo_cycles;
        if (md->front_memo_cycles > 0)
            md->tag_front = B(ST_BOUND_FRONT_END);
    }
    return md->t_front;
}

/* A line leaves through a buffer of pool q (the write-combining buffers, or
 * line zeroing's own) at t; returns when the buffer was obtained (the
 * issuing side waits for that). */
static inline double pool_line(model_t *md, mshr_t *q, uint64_t line, uint32_t bytes,
                               dram_line_t what, double t)
{
    double t_buf = mshr_i_acquire(q, t);
    double done = hier_write_around(md->h, line, t_buf, bytes, what);
    stats_bound_t w = (*md->hwhy);
    md->tag_pool = w == STATS_BOUND_NONE ? B(ST_BOUND_WC_BUFFERS) : w;
    md->st.count[ST_BUSY_WC_BUFFERS] += (uint64_t)(int64_t)(done - t_buf); /* whole cycles */
    mshr_i_commit(q, done);
    md->t_wc_last = timing_max(md->t_wc_last, done);
    bump(md, ST_WC_LINES, 1, bytes);
    if (bytes < md->line_bytes)
        bump(md, ST_WC_PARTIAL, 1, bytes);
    bump(md, ST_L1_NOALLOC, 1, bytes);
    return t_buf;
}

static inline double wc_line(model_t *md, uint64_t line, uint32_t bytes, dram_line_t what, double t)
{
    return pool_line(md, md->wc, line, bytes, what, t);
}

/* Commit cost of a line: the L1 write port takes store_width bytes per
 * store slot, and at most core.store_bandwidth bytes per cycle. */
static inline double port_cycles(const model_t *md, uint32_t bytes, double stores)
{
    const machine_t *m = md->m;
    double w = m->store_width_bytes ? m->store_width_bytes : 8;
    double slots = model_ceil(bytes / w);
    if (stores > slots)
        slots = stores;
    double c = m->stores_per_cycle > 0 ? slots / m->stores_per_cycle : slots;
    if (m->store_bpc > 0 && bytes / m->store_bpc > c)
        c = bytes / m->store_bpc;
    return c;
}

/* ---- line processing ---------------------------------------------------- */

/* What a store of `fill` over the whole line (full) or part of it writes. */
static inline hier_content_t hier_content(uint8_t fill, bool full)
{
    return fill != 0 ? HIER_DATA : full ? HIER_ZEROS_LINE : HIER_ZEROS_PART;
}

static void store_line(model_t *md, const pending_line_t *pl)
{
    const machine_t *m = md->m;
    bool full = pl->bytes >= md->line_bytes;
    uint64_t sbits = dbits(pl->stores), ibits = dbits(pl->insns);
    if (!md->slm.valid || md->slm.bytes != pl->bytes || md->slm.stores_bits != sbits ||
        md->slm.insns_bits != ibits) {
        md->slm.valid = true;
        md->slm.bytes = pl->bytes;
        md->slm.stores_bits = sbits;
        md->slm.insns_bits = ibits;
        md->slm.issue_cycles = m->stores_per_cycle > 0 ? pl->stores / m->stores_per_cycle : 0;
        md->slm.front_cycles =
            m->insns_per_cycle > 0 ? (pl->stores + pl->insns) / m->insns_per_cycle : 0;
        uint64_t per_line = pl->stores > 0 ? (uint64_t)model_ceil(pl->stores) : 1;
        uint64_t la = m->store_buffer_entries / per_line;
        /* core.rfo_window fill_buffers: a store that misses L1 leaves the
         * store buffer for its line's fill buffer, so the fill buffers (which
         * hier_store's miss slots already bound) hold the lines in flight */
        if (m->rfo_window == MACHINE_RFO_FILL_BUFFERS && la < m->l1.mshrs)
            la = m->l1.mshrs;
        md->slm.la = la ? la : 1;
        double accesses =
            model_ceil(pl->bytes / (double)(m->store_width_bytes ? m->store_width_bytes : 8));
        if (pl->stores > accesses)
            accesses = pl->stores;
        md->slm.accesses = (uint64_t)accesses;
        md->slm.port_cycles = port_cycles(md, pl->bytes, pl->stores);
    }
    double issue = md->t_issue + md->slm.issue_cycles;
    stats_bound_t why = md->slm.issue_cycles > 0 ? B(ST_BOUND_STORE_ISSUE) : md->tag_issue;
    if (m->insns_per_cycle > 0) { /* front(md, stores + insns) */
        md->t_front += md->slm.front_cycles;
        if (md->slm.front_cycles > 0)
            md->tag_front = B(ST_BOUND_FRONT_END);
    }
    if (md->t_front > issue)
        why = md->tag_front;
    double t = timing_max(issue, md->t_front);
    t = model_xl_stall(md, pl->line, t, true, &why);
    double w = window(md, md->slm.la);
    if (w > t)
        why = hier_after_wait(B(ST_BOUND_STORE_BUFFER), window_why(md, md->slm.la));
    t = timing_max(t, w);
    md->t_issue = t;
    md->tag_issue = why;

    bump(md, ST_L1_ACCESSES, md->slm.accesses, pl->bytes);

    double ready;
    int lvl = m->ws_enabled ? ws_level(&md->ws, pl->line, full, false) : 0; /* 0 when off */
    if (lvl)
        ready = hier_stream_store(md->h, pl->line, t, (hier_level_t)lvl, DRAM_LINE_DATA);
    else {
        bool hit;
        ready = hier_store(md->h, pl->line, t, HIER_RFO, hier_content(pl->fill, full), &hit);
    }
    commit_after(md, ready, hier_after_wait(why, (*md->hwhy)), md->slm.port_cycles,
                 B(ST_BOUND_STORE_ISSUE));
    advance(md);
}

static void nt_line(model_t *md, const pending_line_t *pl)
{
    const machine_t *m = md->m;
    double issue = md->t_issue + pl->stores * m->nt_store_cycles;
    stats_bound_t why = issue > md->t_issue ? B(ST_BOUND_NT_STORE_ISSUE) : md->tag_issue;
    double f = front(md, pl->stores + pl->insns);
    if (f > issue)
        why = md->tag_front;
    double t = timing_max(issue, f);
    /* a line of one or two stores (VMOVNTDQ zmm, ymm) misses as a whole line's, a line
     * of eight MOVNTI as a narrow one's (tlb.host_miss.nt_narrow) */
    t = model_xl_write(md, pl->line, t,
                       pl->stores > 2 + 1e-9 ? m->tlb_host_nt_narrow_ns : m->tlb_host_nt_line_ns, t,
                       &why);
    /* stores of data, even of zeros, are not a zeroing operation (memory.zero_write_fraction);
     * a full line of zeros may still cost less at the memory (memory.zero_data_fraction),
     * when written with at most memory.zero_data_stores stores */
    stats_bound_t pool_why = md->tag_pool; /* the bound of a wait for a buffer */
    const uint32_t most = m->mem_zero_data_stores;
    dram_line_t what = pl->fill == 0 && pl->bytes >= md->line_bytes &&
                               (most == 0 || pl->stores <= (double)most + 1e-9)
                           ? DRAM_LINE_ZEROS
                           : DRAM_LINE_DATA;
    md->t_issue = wc_line(md, pl->line, pl->bytes, what, t);
    if (md->t_issue > t)
        why = pool_why;
    md->t_issue = timing_max(md->t_issue, t);
    md->tag_issue = why;
    advance(md);
}

/* A line of streaming loads: they issue behind the front end, their bytes
 * at core.load_bandwidth; a miss waits for an L1 miss slot (fill buffer), and the loads
 * behind it wait with it (what bounds a stream to l1.mshrs lines in
 * flight); its data arrives when the hierarchy delivers it. A TLB miss's
 * walk delays the line's request, and every later access to the page,
 * but not the issue of other work; one walk is in flight at a time. */
static void load_line(model_t *md, const pending_line_t *pl)
{
    const machine_t *m = md->m;
    double issue = md->t_issue + (m->load_bpc > 0 ? pl->bytes / m->load_bpc : 0);
    stats_bound_t why = issue > md->t_issue ? B(ST_BOUND_STORE_ISSUE) : md->tag_issue;
    double f = front(md, pl->stores + pl->insns);
    if (f > issue)
        why = md->tag_front;
    double t = timing_max(issue, f);
    stats_bound_t rwhy;
    const double req = model_xl_load(md, pl->line, &t, &why, &rwhy);
    bump(md, ST_L1_ACCESSES, (uint64_t)model_ceil(pl->stores), pl->bytes);
    bool hit;
    double issued;
    double data = hier_load(md->h, pl->line, req, &hit, &issued);
    stats_bound_t dwhy = hier_after_wait(rwhy, (*md->hwhy));
    /* a wait for a miss slot holds issue (the loads behind it wait with it) */
    const double slot_wait = issued > req ? issued - req : 0;
    md->t_issue = t + slot_wait;
    md->tag_issue = slot_wait > 0 ? dwhy : why;
    if (data > md->t_load_done)
        md->tag_load = dwhy;
    md->t_load_done = timing_max(md->t_load_done, data);
    advance(md);
}

static void flush_line(model_t *md)
{
    pending_line_t *pl = &md->pl;
    if (!pl->valid)
        return;
    pl->insns += md->loose_insns;
    md->loose_insns = 0;
    switch (pl->kind) {
    case LK_STORE:
        store_line(md, pl);
        break;
    case LK_NT:
        nt_line(md, pl);
        break;
    case LK_LOAD:
        load_line(md, pl);
        break;
    }
    pl->valid = false;
}

static inline double now_cycles(const model_t *md)
{
    return model_now(md);
}

void model_set_fast_forward(model_t *md, bool on)
{
    md->ff.on = on;
    md->ff.n = 0;
    md->ff.lines = 0;
}

void model_ff_report(const model_t *md, uint64_t *skipped_lines, uint64_t *total_lines,
                     double *error_bound)
{
    *skipped_lines = md->ff.skipped_lines;
    *total_lines = md->ff.total_lines;
    *error_bound = md->ff.err;
}

void model_shift_time(model_t *md, double dt)
{
    model_i_shift_core_time(md, dt);
    hier_shift_time(md->h, dt);
}

void model_add_stats(model_t *md, const stats_t *delta, uint64_t n)
{
    model_i_add_stats(md, delta, n);
}

/* ff_after_line() with fast-forward on. */
static uint64_t ff_judge(model_t *md, uint64_t remaining_bytes)
{
    stats_t add;
    double shift = 0;
    uint64_t lines =
        model_ff_after_line(&md->ff, &md->st, now_cycles(md), remaining_bytes / md->line_bytes,
                            ws_ff_max_lines(&md->ws), &add, &shift);
    if (lines == 0)
        return 0;
    model_i_add_stats(md, &add, 1);
    model_shift_time(md, shift);
    md->walk_pending = false; /* the skipped lines took their pages' walks */
    ws_ff_skip(&md->ws, lines);
    model_ff_resume(&md->ff, &md->st, now_cycles(md));
    return lines * md->line_bytes;
}

/* After a line of a long operation, with its next line at next_addr and
 * remaining_bytes left in it: exact bulk stepping when the state has been
 * proven to repeat (models/model_bulk.c); else, with fast-forward on, when
 * the blocks repeat, add what the skipped lines would have counted and move
 * time past them. Returns the bytes the caller skips. With fast-forward
 * off, model_ff_after_line() only counts the line: that is done here,
 * inline on the per-line path. */
static inline uint64_t ff_after_line(model_t *md, uint64_t next_addr, uint64_t remaining_bytes)
{
    uint64_t bulk = model_bulk_after_line(md, next_addr, remaining_bytes);
    if (bulk)
        return bulk;
    if (!md->ff.on) {
        md->ff.total_lines++;
        md->ff.op_lines++;
        return 0;
    }
    return ff_judge(md, remaining_bytes);
}

/* A load whose address is the data of the dependent load before it (a
 * chase): it issues only when that data has arrived, and its own data
 * arrives when the hierarchy delivers the line. */
static void dep_load(model_t *md, const trace_op_t *op)
{
    flush_line(md);
    double insns = (double)op->insns + md->loose_insns;
    md->loose_insns = 0;
    double f = front(md, op->count + insns);
    stats_bound_t why = md->t_dep > md->t_issue ? md->tag_dep : md->tag_issue;
    double t = timing_max(md->t_issue, md->t_dep);
    if (f > t)
        why = md->tag_front;
    t = timing_max(t, f);
    uint64_t line = op->addr & ~(uint64_t)(md->line_bytes - 1);
    t = model_xl_stall(md, line, t, false, &why);
    bump(md, ST_L1_ACCESSES, op->count, op->bytes);
    bool hit;
    double issued;
    md->t_dep = hier_load(md->h, line, t, &hit, &issued);
    md->tag_dep = hier_after_wait(why, (*md->hwhy));
    md->t_issue = t;
    md->tag_issue = why;
    advance(md);
}

/* Split a store/load run into line pieces and assemble them. A full line
 * inside the run is processed at once (nothing can join it), which lets
 * fast-forward act between lines. */
static void run_op(model_t *md, const trace_op_t *op, line_kind_t kind)
{
    uint64_t lb = md->line_bytes;
    uint64_t a = op->addr, end = op->addr + op->bytes;
    double per_byte_stores = op->bytes ? (double)op->count / (double)op->bytes : 0;
    md->ff.op_lines = 0;
    model_bulk_op_begin(md, op->addr, end, false);
    /* Loop-control instructions a kernel announced before its stores (one
     * TRACE_INSNS per call) are spread over the run that follows: the run
     * they control, where a loop's body is one run. A kernel whose loop
     * body holds more (kernels/clear_x86.inc, the _ahead kernels)
     * announces them per iteration instead. */
    double insns = (double)op->insns;
    if (!md->pl.valid && md->loose_insns > 0) {
        insns += md->loose_insns;
        md->loose_insns = 0;
    }
    double per_byte_insns = op->bytes ? insns / (double)op->bytes : 0;
    while (a < end) {
        uint64_t line = a & ~(lb - 1);
        uint64_t piece = line + lb - a;
        if (piece > end - a)
            piece = end - a;
        pending_line_t *pl = &md->pl;
        if (!pl->valid || pl->line != line || pl->kind != kind) {
            flush_line(md);
            *pl = (pending_line_t){.valid = true, .kind = kind, .line = line, .fill = op->fill};
        } else if (op->fill != 0) {
            pl->fill = op->fill; /* data over any part of the line: the line holds data */
        }
        pl->bytes += (uint32_t)piece;
        pl->stores += per_byte_stores * (double)piece;
        pl->insns += per_byte_insns * (double)piece;
        a += piece;
        if (pl->bytes == lb && a < end) {
            flush_line(md);
            uint64_t skip = ff_after_line(md, a, end - a);
            if (skip) {
                /* the skipped lines' instructions were added with the counters */
                a += skip;
            }
        }
    }
}

static void string_op(model_t *md, const trace_op_t *op)
{
    const machine_t *m = md->m;
    uint64_t lb = md->line_bytes;
    double startup = string_startup_cycles(m, op->bytes);
    bump(md, ST_STRING_OPS, 1, op->bytes);
    bump(md, ST_STRING_STARTUP_CYCLES, (uint64_t)llround(startup), 0);
    double f = front(md, 1);
    stats_bound_t why = f > md->t_issue ? md->tag_front : md->tag_issue;
    if (startup > 0)
        why = B(ST_BOUND_STRING_STARTUP);
    double t = timing_max(md->t_issue, f) + startup;
    double bpc = m->string_bpc > 0 ? m->string_bpc : 1;
    uint64_t la = m->string_lookahead_bytes / lb;
    if (la == 0)
        la = 1;
    bool nt = (op->flags & TRACE_F_NT) != 0;
    md->ff.op_lines = 0;
    model_bulk_op_begin(md, op->addr, op->addr + op->bytes, true);
    double w = m->store_width_bytes ? m->store_width_bytes : 8;
    /* A full line's engine time and store count, computed once: the same
     * divisions the loop would do for piece == lb. */
    const double lb_cycles = (double)lb / bpc;
    const double lb_stores = model_ceil((double)lb / w);
    uint64_t a = op->addr, end = op->addr + op->bytes;
    /* string.end_wait answer: the latest time a line of the op was answered */
    const bool answer = m->string_ordered_end && m->string_end_wait == MACHINE_END_WAIT_ANSWER;
    const double mem_cycles = m->mem_latency_ns * md->cyc_per_ns;
    double t_answered = t;
    /* The op's first translation may have started when the string op before
     * it had issued its last line (it waited for that op's end meanwhile). */
    double walk_from = md->str_pending ? md->t_str_issued : t;
    md->str_pending = false;
    while (a < end) {
        uint64_t line = a & ~(lb - 1);
        uint64_t piece = line + lb - a;
        if (piece > end - a)
            piece = end - a;
        bool full = piece == lb;
        double piece_cycles = full ? lb_cycles : (double)piece / bpc;
        t += piece_cycles;
        if (piece_cycles > 0)
            why = B(ST_BOUND_STRING_ENGINE);
        const bool elided = full && string_elides(m, op->bytes, end - a, op->fill, nt);
        t = model_xl_write(md, a, t, m->tlb_host_string_ns, walk_from, &why);
        walk_from = HUGE_VAL; /* after the op's first line, a walk starts when it is met */
        double w = window(md, la);
        if (w > t)
            why = hier_after_wait(B(ST_BOUND_STRING_LOOKAHEAD), window_why(md, la));
        t = timing_max(t, w);
        double stores = full ? lb_stores : model_ceil((double)piece / w);
        bump(md, ST_STORES, (uint64_t)stores, piece);
        if (elided) {
            bump(md, ST_STRING_ELIDED_LINES, 1, piece);
            stats_bound_t pool_why = md->tag_pool;
            double t_buf = wc_line(md, line, (uint32_t)piece,
                                   op->fill == 0 ? DRAM_LINE_ZEROING : DRAM_LINE_DATA, t);
            if (t_buf > t)
                why = pool_why;
            t = timing_max(t, t_buf);
            commit_after(md, t, why, 0, why);
        } else {
            bump(md, ST_L1_ACCESSES, (uint64_t)stores, piece);
            int lvl = m->ws_enabled ? ws_level(&md->ws, line, full, false) : 0; /* 0 when off */
            double ready;
            if (lvl) {
                ready = hier_stream_store(md->h, line, t, (hier_level_t)lvl,
                                          op->fill == 0 ? DRAM_LINE_ZEROING : DRAM_LINE_DATA);
            } else {
                bool hit;
                hier_own_t how = (full && !m->string_rfo) ? HIER_NOREAD : HIER_RFO;
                const hier_content_t what = hier_content(op->fill, full);
                ready = m->string_l1_slots ? hier_store(md->h, line, t, how, what, &hit)
                                           : hier_store_l2_tracked(md->h, line, t, how, what, &hit);
            }
            if (answer)
                t_answered = timing_max(t_answered, timing_min(ready, t + mem_cycles));
            commit_after(md, ready, hier_after_wait(why, (*md->hwhy)), piece_cycles,
                         B(ST_BOUND_STRING_ENGINE));
        }
        a += piece;
        if (a < end) {
            md->t_issue = t;
            md->tag_issue = why;
            advance(md);
            uint64_t skip = ff_after_line(md, a, end - a);
            if (skip) {
                a += skip;
                t = md->t_issue;
                t_answered = timing_max(t_answered, md->t_commit_last);
            }
        }
    }
    md->t_str_issued = t;
    md->str_pending = true;
    /* An ordered end: nothing after the op issues until its lines are
     * committed, or with end_wait answer until each was answered (the
     * window then restarts empty at the next op). */
    if (m->string_ordered_end) {
        double done = answer ? timing_min(t_answered, md->t_commit_last) : md->t_commit_last;
        if (done > t)
            why = md->tag_commit;
        t = timing_max(t, done);
    }
    md->t_issue = t;
    md->tag_issue = why;
    /* The microcode sequencer holds the front end until the op has issued. */
    if (t > md->t_front)
        md->tag_front = why;
    md->t_front = timing_max(md->t_front, t);
    advance(md);
}

static void line_zero_op(model_t *md, const trace_op_t *op)
{
    const machine_t *m = md->m;
    uint64_t lb = md->line_bytes;
    uint64_t nlines = (op->bytes + lb - 1) / lb;
    double per_line = nlines ? (double)op->count / (double)nlines : 0;
    double insns_line = nlines ? ((double)op->insns + md->loose_insns) / (double)nlines : 0;
    md->loose_insns = 0;
    stats_bound_t why = md->t_front > md->t_issue ? md->tag_front : md->tag_issue;
    double t = timing_max(md->t_issue, md->t_front);
    uint64_t la = m->store_buffer_entries ? m->store_buffer_entries : 1;
    uint64_t end = op->addr + op->bytes;
    md->ff.op_lines = 0;
    model_bulk_op_begin(md, op->addr & ~(lb - 1), end, false);
    for (uint64_t a = op->addr & ~(lb - 1); a < end;) {
        t += m->line_zero_cycles * per_line;
        if (m->line_zero_cycles * per_line > 0)
            why = B(ST_BOUND_STORE_ISSUE);
        double f = front(md, per_line + insns_line);
        if (f > t)
            why = md->tag_front;
        t = timing_max(t, f);
        /* a command that allocates its line pays tlb.walk (host_ns 0) */
        t = model_xl_write(
            md, a, t, m->lz_policy == MACHINE_LZ_MEMORY ? m->tlb_host_line_zero_ns : 0, t, &why);
        if (m->lz_policy == MACHINE_LZ_MEMORY) {
            stats_bound_t pool_why = md->tag_pool;
            double t_buf = pool_line(md, md->lzq, a, (uint32_t)lb, DRAM_LINE_ZEROING, t);
            if (t_buf > t)
                why = pool_why;
            t = timing_max(t, t_buf);
        } else {
            double w = window(md, la);
            if (w > t)
                why = hier_after_wait(B(ST_BOUND_STORE_BUFFER), window_why(md, la));
            t = timing_max(t, w);
            int lvl = ws_level(&md->ws, a, true, true);
            double ready;
            if (lvl) {
                ready = hier_stream_store(md->h, a, t, (hier_level_t)lvl, DRAM_LINE_ZEROING);
            } else {
                bool hit;
                ready = hier_store(md->h, a, t, HIER_NOREAD, HIER_ZEROS_LINE, &hit);
            }
            bump(md, ST_L1_ACCESSES, 1, lb);
            commit_after(md, ready, hier_after_wait(why, (*md->hwhy)),
                         port_cycles(md, (uint32_t)lb, 1), B(ST_BOUND_STORE_ISSUE));
        }
        a += lb;
        md->tag_issue = why;
        if (a < end) {
            md->t_issue = t;
            advance(md);
            uint64_t skip = ff_after_line(md, a, end - a);
            if (skip) {
                a += skip;
                t = md->t_issue;
            }
        }
    }
    md->t_issue = t;
    advance(md);
}

static void fence_op(model_t *md)
{
    double now = timing_max(md->t_issue, md->t_front);
    stats_bound_t why = md->t_front > md->t_issue ? md->tag_front : md->tag_issue;
    double drain = timing_max(mshr_drain_time(md->wc), mshr_drain_time(md->lzq));
    if (md->t_commit_last > now && md->t_commit_last >= drain)
        why = md->tag_commit;
    else if (drain > now)
        why = md->tag_pool;
    double done = timing_max(now, timing_max(mshr_drain_time(md->wc), md->t_commit_last));
    done = timing_max(done, mshr_drain_time(md->lzq));
    bump(md, ST_FENCES, 1, 0);
    bump(md, ST_FENCE_STALL_CYCLES, (uint64_t)llround(done - now), 0);
    md->t_issue = md->t_front = done;
    md->tag_issue = md->tag_front = why;
    advance(md);
}

/* A serialising event of `cycles` (fault, reschedule), bounded by `why`:
 * the core does no other work meanwhile. */
static void stall_op(model_t *md, double cycles, stats_bound_t why)
{
    double t = timing_max(md->t_issue, md->t_front) + cycles;
    if (!(cycles > 0))
        why = md->t_front > md->t_issue ? md->tag_front : md->tag_issue;
    md->t_issue = md->t_front = t;
    md->tag_issue = md->tag_front = why;
    advance(md);
}

int model_op(void *ctx, const trace_op_t *op)
{
    model_t *md = ctx;
    const machine_t *m = md->m;
    /* A string op's next translation starts early only across calls and
     * loop control (string_op), not across other memory work or a stall. */
    if (op->kind != TRACE_STRING && op->kind != TRACE_INSNS && op->kind != TRACE_CALL_BEGIN &&
        op->kind != TRACE_CALL_END)
        md->str_pending = false;
    switch ((trace_kind_t)op->kind) {
    case TRACE_STORE:
        bump(md, ST_STORES, op->count, op->bytes);
        bump(md, ST_INSTRUCTIONS, (uint64_t)op->count + op->insns, 0);
        run_op(md, op, LK_STORE);
        return 0;
    case TRACE_STORE_NT:
        bump(md, ST_STORES, op->count, op->bytes);
        bump(md, ST_INSTRUCTIONS, (uint64_t)op->count + op->insns, 0);
        run_op(md, op, LK_NT);
        return 0;
    case TRACE_LOAD:
        bump(md, ST_LOADS, op->count, op->bytes);
        bump(md, ST_INSTRUCTIONS, (uint64_t)op->count + op->insns, 0);
        if (op->flags & TRACE_F_DEP)
            dep_load(md, op);
        else
            run_op(md, op, LK_LOAD);
        return 0;
    case TRACE_INSNS:
        bump(md, ST_INSTRUCTIONS, op->count, 0);
        if (md->pl.valid)
            md->pl.insns += op->count;
        else
            md->loose_insns += op->count;
        return 0;
    default:
        break;
    }
    flush_line(md);
    /* Loop control announced before a line-zeroing run is spread over it
     * (line_zero_op); before anything else it is issued now. */
    if (md->loose_insns > 0 && op->kind != TRACE_LINE_ZERO) {
        front(md, md->loose_insns);
        md->loose_insns = 0;
    }
    switch ((trace_kind_t)op->kind) {
    case TRACE_STRING:
        bump(md, ST_INSTRUCTIONS, 1, 0);
        string_op(md, op);
        break;
    case TRACE_LINE_ZERO:
        bump(md, ST_INSTRUCTIONS, op->count, 0);
        bump(md, ST_STORES, op->count, op->bytes);
        line_zero_op(md, op);
        break;
    case TRACE_FENCE:
        bump(md, ST_INSTRUCTIONS, 1, 0);
        fence_op(md);
        break;
    case TRACE_CALL_BEGIN:
        ws_break(&md->ws); /* the caller's own stores end write streaming */
        bump(md, ST_CALLS, 1, op->bytes);
        bump(md, ST_INSTRUCTIONS, 2, 0); /* call + ret */
        front(md, 0);
        md->t_front += m->call_cycles;
        if (m->call_cycles > 0)
            md->tag_front = B(ST_BOUND_CALLS);
        advance(md);
        break;
    case TRACE_CALL_END:
        break;
    case TRACE_RESCHED:
        bump(md, ST_RESCHEDS, 1, 0);
        stall_op(md, m->resched_ns * md->cyc_per_ns, B(ST_BOUND_RESCHEDS));
        break;
    case TRACE_FAULT: {
        ws_break(&md->ws); /* so do the fault handler's */
        double ns = m->fault_4k_ns;
        if (op->bytes >= (1ull << 30))
            ns = m->fault_1g_ns;
        else if (op->bytes >= (2ull << 20))
            ns = m->fault_2m_ns;
        if (op->flags & TRACE_F_POPULATE)
            ns *= m->populate_fraction;
        double cyc = ns * md->cyc_per_ns;
        bump(md, ST_FAULTS, 1, op->bytes);
        bump(md, ST_FAULT_CYCLES, (uint64_t)llround(cyc), 0);
        stall_op(md, cyc, B(ST_BOUND_FAULTS));
        break;
    }
    default:
        break;
    }
    return 0;
}

void model_drain(model_t *md)
{
    flush_line(md);
    if (md->loose_insns > 0) {
        front(md, md->loose_insns);
        md->loose_insns = 0;
    }
    advance(md); /* the timelines' own lead first */
    double t = timing_max(timing_max(md->t_issue, md->t_dep), md->t_front);
    t = timing_max(t, md->t_commit_last);
    stats_bound_t why = md->tag_issue;
    if (md->t_load_done > t) { /* the last streaming load's data (model_bound_now) */
        t = md->t_load_done;
        why = md->tag_load;
        md->t_issue = t; /* counted under its own tag before any pool's wait */
        md->tag_issue = why;
        advance(md);
    }
    double pools = timing_max(mshr_drain_time(md->wc), mshr_drain_time(md->lzq));
    if (pools > t)
        why = md->tag_pool;
    t = timing_max(t, pools);
    stats_bound_t hw = hier_drain_why(md->h, t);
    t = hier_drain(md->h, t);
    if (hw != STATS_BOUND_NONE)
        why = hw;
    md->t_issue = md->t_front = t;
    md->tag_issue = md->tag_front = why;
    advance(md);
}

void model_stats(model_t *md, stats_t *out)
{
    advance(md);
    *out = md->st;
    double now = now_cycles(md);
    out->count[ST_CYCLES] = (uint64_t)llround(now);
}
