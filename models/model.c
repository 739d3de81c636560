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
 *      for ownership (RFO) while it waits for older lines;
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
 *    - a TLB per page size (tlb.*): a miss stalls issue for tlb.walk;
 *    - kernel calls, reschedule points and page faults as fixed costs.
 *  - Stores are assembled into lines here, so results do not depend on
 *    whether the trace coalesced them.
 *  - Fast-forward inside long operations is models/model_ff.c; the state
 *    both share is models/model_impl.h.
 *  - What it ignores: loads' dependence chains (a load never stalls issue
 *    except for a free fill buffer), memory disambiguation, SMT.
 *  - Units: time in core cycles (double internally); counters uint64_t.
 */
#include "models/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/model_impl.h"
#include "models/string_op.h"

/* ceil(x), inline for the positive values below 2^52 that the per-line
 * paths pass (there the conversion to an integer is exact); everything else
 * (zeros, negatives, huge values, NaN) goes to libm, so the result is
 * always ceil's. */
static inline double model_ceil(double x)
{
    if (x > 0 && x < 4503599627370496.0) {
        double i = (double)(int64_t)x;
        return i < x ? i + 1 : i;
    }
    return ceil(x);
}

static inline void bump(model_t *md, stats_event_t e, uint64_t n, uint64_t bytes)
{
    md->st.count[e] += n;
    md->st.bytes[e] += bytes;
}

static int tlb_setup(model_t *md, uint64_t page_bytes, char *err, size_t errlen)
{
    const cfg_machine_t *m = md->m;
    uint32_t entries = m->tlb_entries_4k;
    if (page_bytes >= (1ull << 30))
        entries = m->tlb_entries_1g;
    else if (page_bytes >= (2ull << 20))
        entries = m->tlb_entries_2m;
    cache_destroy(md->tlb);
    md->tlb = NULL;
    md->tlb_page_bytes = page_bytes;
    md->tlb_page_shift =
        page_bytes && (page_bytes & (page_bytes - 1)) == 0 ? __builtin_ctzll(page_bytes) : -1;
    md->tlb_last_valid = false;
    if (entries == 0)
        return 0; /* no TLB modelled for this page size */
    /* LRU; fully associative up to 256 entries, else the fewest ways (at
     * least 8) that leave a power-of-two set count. */
    uint32_t ways = entries;
    if (ways > 256) {
        ways = 0;
        for (uint32_t w = 8; w <= 256 && !ways; w++)
            if (entries % w == 0 && ((entries / w) & (entries / w - 1)) == 0)
                ways = w;
        if (!ways) {
            snprintf(err, errlen, "tlb: %u entries cannot be arranged in power-of-two sets",
                     entries);
            return -1;
        }
    }
    cfg_cache_t g = {.present = true,
                     .size_bytes = (uint64_t)entries * page_bytes,
                     .ways = ways,
                     .line_bytes = (uint32_t)(page_bytes > UINT32_MAX ? 0 : page_bytes),
                     .repl = CFG_REPL_LRU};
    if (g.line_bytes == 0) {
        snprintf(err, errlen, "tlb: page size %llu too large", (unsigned long long)page_bytes);
        return -1;
    }
    char why[200];
    md->tlb = cache_create(&g, 1, why, sizeof(why));
    if (!md->tlb) {
        snprintf(err, errlen, "tlb: %s", why);
        return -1;
    }
    return 0;
}

model_t *model_create(const cfg_machine_t *m, uint64_t seed, char *err, size_t errlen)
{
    model_t *md = calloc(1, sizeof(*md));
    if (!md) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    md->m = m;
    md->line_bytes = m->l1.line_bytes;
    md->cyc_per_ns = m->freq_ghz;
    md->h = hier_create(m, seed, &md->st, err, errlen);
    if (!md->h)
        goto fail;
    md->wc = mshr_create(m->wc_buffers ? m->wc_buffers : 1);
    if (!md->wc) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (tlb_setup(md, 4096, err, errlen))
        goto fail;
    uint64_t cap = m->l1.size_bytes + m->l2.size_bytes + (m->l3.present ? m->l3.size_bytes : 0);
    /* The tail refills every level (so the final cache contents are the
     * op's own last lines) and covers the last bytes of an operation whose
     * elision depends on the bytes remaining. */
    uint64_t tail = cap + cap / 4;
    if (m->elide_enabled && m->elide_mode == CFG_ELIDE_REMAINING &&
        m->elide_threshold_bytes < UINT64_MAX / 2 && m->elide_threshold_bytes + cap > tail)
        tail = m->elide_threshold_bytes + cap;
    md->ff_tail_lines = tail / (md->line_bytes ? md->line_bytes : 64);
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
    mshr_destroy(md->wc);
    cache_destroy(md->tlb);
    free(md);
}

void model_set_mapping(model_t *md, uint64_t tlb_page_bytes, uint64_t contig_bytes)
{
    char err[256];
    if (tlb_page_bytes != md->tlb_page_bytes && tlb_setup(md, tlb_page_bytes, err, sizeof(err)))
        tlb_setup(md, 4096, err, sizeof(err)); /* 4 KiB always fits */
    hier_set_contig(md->h, contig_bytes);
}

/* ---- core helpers ----------------------------------------------------- */

/* Translate addr; returns the stall in cycles. */
static double tlb_access(model_t *md, uint64_t addr, bool store)
{
    if (!md->tlb)
        return 0;
    uint64_t page =
        md->tlb_page_shift >= 0 ? addr >> md->tlb_page_shift : addr / md->tlb_page_bytes;
    if (md->tlb_last_valid && page == md->tlb_last_page)
        return 0;
    md->tlb_last_page = page;
    md->tlb_last_valid = true;
    uint64_t a = page * md->tlb_page_bytes;
    if (cache_lookup(md->tlb, a, true))
        return 0;
    cache_meta_t meta = {0};
    cache_victim_t v;
    cache_insert(md->tlb, a, &meta, &v);
    bump(md, store ? ST_TLB_STORE_MISSES : ST_TLB_LOAD_MISSES, 1, 0);
    return md->m->tlb_walk_cycles;
}

static inline uint64_t dbits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Front end issues n instructions; returns when the last one issues. The
 * quotient of the last n is kept (keyed by n's bits: the same value), as
 * every line of a run issues the same count. */
static inline double front(model_t *md, double n)
{
    if (md->m->insns_per_cycle > 0) {
        uint64_t bits = dbits(n);
        if (!md->front_memo_valid || bits != md->front_memo_bits) {
            md->front_memo_valid = true;
            md->front_memo_bits = bits;
            md->front_memo_cycles = n / md->m->insns_per_cycle;
        }
        md->t_front += md->front_memo_cycles;
    }
    return md->t_front;
}

/* Commit time of the line `back` lines before the next one. */
static inline double window(const model_t *md, uint64_t back)
{
    if (back == 0 || md->seq < back)
        return 0;
    if (back > RING_LINES)
        back = RING_LINES;
    return md->ring[(md->seq - back) % RING_LINES];
}

static inline void commit(model_t *md, double t)
{
    md->ring[md->seq % RING_LINES] = t;
    md->seq++;
    md->t_commit_last = t;
}

/* A line leaves through a write-combining buffer at t; returns when the
 * buffer was obtained (the issuing side waits for that). */
static double wc_line(model_t *md, uint64_t line, uint32_t bytes, bool zero, double t)
{
    double t_buf = mshr_acquire(md->wc, t);
    double done = hier_write_around(md->h, line, t_buf, bytes, zero);
    mshr_commit(md->wc, done);
    md->t_wc_last = max2(md->t_wc_last, done);
    bump(md, ST_WC_LINES, 1, bytes);
    if (bytes < md->line_bytes)
        bump(md, ST_WC_PARTIAL, 1, bytes);
    bump(md, ST_L1_NOALLOC, 1, bytes);
    return t_buf;
}

/* Write streaming ends the run: the next full-line miss starts counting
 * again from its first line. */
static void ws_break(model_t *md)
{
    if (md->ws_active) {
        md->ws_active = false;
        bump(md, ST_WS_EXITS, 1, 0);
    }
    md->ws_run = 0;
}

/* Write streaming: should this full-line store miss bypass L1? Returns the
 * level it allocates in, or 0 for a normal (allocating) store. A DC ZVA
 * (zva) enters the mode at once, a store after enter_lines lines. Every
 * threshold counts the run's bytes from its first line (the lines that still
 * allocated included): the line that takes the run past write_streaming.l2
 * bytes is the first to skip L2 as well, past .l3 the first to skip L3. */
static int ws_level(model_t *md, uint64_t line, bool full, bool zva)
{
    const cfg_machine_t *m = md->m;
    if (!m->ws_enabled)
        return 0;
    if (!full || hier_in_l1(md->h, line)) {
        ws_break(md);
        return 0;
    }
    if (!md->ws_active) {
        if (++md->ws_run < m->ws_enter_lines && !zva)
            return 0;
        md->ws_active = true;
        md->ws_bytes = (uint64_t)(md->ws_run - 1) * md->line_bytes;
        bump(md, ST_WS_ENTRIES, 1, 0);
    }
    md->ws_bytes += md->line_bytes;
    if (m->ws_l3_bytes && md->ws_bytes > m->ws_l3_bytes)
        return HIER_MEM;
    if (m->ws_l2_bytes && md->ws_bytes > m->ws_l2_bytes)
        return HIER_L3;
    return HIER_L2;
}

/* Commit cost of a line: the L1 write port takes store_width bytes per
 * store slot. */
static inline double port_cycles(const model_t *md, uint32_t bytes, double stores)
{
    const cfg_machine_t *m = md->m;
    double w = m->store_width_bytes ? m->store_width_bytes : 8;
    double slots = model_ceil(bytes / w);
    if (stores > slots)
        slots = stores;
    return m->stores_per_cycle > 0 ? slots / m->stores_per_cycle : slots;
}

/* ---- line processing ---------------------------------------------------- */

static void store_line(model_t *md, const pending_line_t *pl)
{
    const cfg_machine_t *m = md->m;
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
        md->slm.la = la ? la : 1;
        double accesses =
            model_ceil(pl->bytes / (double)(m->store_width_bytes ? m->store_width_bytes : 8));
        if (pl->stores > accesses)
            accesses = pl->stores;
        md->slm.accesses = (uint64_t)accesses;
        md->slm.port_cycles = port_cycles(md, pl->bytes, pl->stores);
    }
    double issue = md->t_issue + md->slm.issue_cycles;
    if (m->insns_per_cycle > 0) /* front(md, stores + insns) */
        md->t_front += md->slm.front_cycles;
    double t = max2(issue, md->t_front);
    t += tlb_access(md, pl->line, true);
    t = max2(t, window(md, md->slm.la));
    md->t_issue = t;

    bump(md, ST_L1_ACCESSES, md->slm.accesses, pl->bytes);

    double ready;
    int lvl = ws_level(md, pl->line, full, false);
    if (lvl)
        ready = hier_stream_store(md->h, pl->line, t, (hier_level_t)lvl, pl->fill == 0);
    else {
        bool hit;
        ready = hier_store(md->h, pl->line, t, HIER_RFO, &hit);
    }
    commit(md, max2(ready, md->t_commit_last) + md->slm.port_cycles);
}

static void nt_line(model_t *md, const pending_line_t *pl)
{
    const cfg_machine_t *m = md->m;
    double issue = md->t_issue + pl->stores * m->nt_store_cycles;
    double t = max2(issue, front(md, pl->stores + pl->insns));
    t += tlb_access(md, pl->line, true);
    md->t_issue = wc_line(md, pl->line, pl->bytes, pl->fill == 0, t);
    md->t_issue = max2(md->t_issue, t);
}

static void load_line(model_t *md, const pending_line_t *pl)
{
    double t = max2(md->t_issue, front(md, pl->stores + pl->insns));
    t += tlb_access(md, pl->line, false);
    bump(md, ST_L1_ACCESSES, (uint64_t)model_ceil(pl->stores), pl->bytes);
    bool hit;
    hier_load(md->h, pl->line, t, &hit);
    md->t_issue = t;
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

/* Split a store/load run into line pieces and assemble them. A full line
 * inside the run is processed at once (nothing can join it), which lets
 * fast-forward act between lines. */
static void run_op(model_t *md, const trace_op_t *op, line_kind_t kind)
{
    uint64_t lb = md->line_bytes;
    uint64_t a = op->addr, end = op->addr + op->bytes;
    double per_byte_stores = op->bytes ? (double)op->count / (double)op->bytes : 0;
    md->ff_op_lines = 0;
    /* Loop-control instructions a kernel announced before its stores (one
     * TRACE_INSNS per call) are spread over the run they control. */
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
        }
        pl->bytes += (uint32_t)piece;
        pl->stores += per_byte_stores * (double)piece;
        pl->insns += per_byte_insns * (double)piece;
        a += piece;
        if (pl->bytes == lb && a < end) {
            flush_line(md);
            uint64_t skip = model_i_ff_after_line(md, end - a);
            if (skip) {
                /* the skipped lines' instructions were added with the counters */
                a += skip;
            }
        }
    }
}

static void string_op(model_t *md, const trace_op_t *op)
{
    const cfg_machine_t *m = md->m;
    uint64_t lb = md->line_bytes;
    double startup = string_startup_cycles(m, op->bytes);
    bump(md, ST_STRING_OPS, 1, op->bytes);
    bump(md, ST_STRING_STARTUP_CYCLES, (uint64_t)llround(startup), 0);
    double t = max2(md->t_issue, front(md, 1)) + startup;
    double bpc = m->string_bpc > 0 ? m->string_bpc : 1;
    uint64_t la = m->string_lookahead_bytes / lb;
    if (la == 0)
        la = 1;
    bool nt = (op->flags & TRACE_F_NT) != 0;
    md->ff_op_lines = 0;
    double w = m->store_width_bytes ? m->store_width_bytes : 8;
    /* A full line's engine time and store count, computed once: the same
     * divisions the loop would do for piece == lb. */
    const double lb_cycles = (double)lb / bpc;
    const double lb_stores = model_ceil((double)lb / w);
    uint64_t a = op->addr, end = op->addr + op->bytes;
    while (a < end) {
        uint64_t line = a & ~(lb - 1);
        uint64_t piece = line + lb - a;
        if (piece > end - a)
            piece = end - a;
        bool full = piece == lb;
        double piece_cycles = full ? lb_cycles : (double)piece / bpc;
        t += piece_cycles;
        t += tlb_access(md, a, true);
        t = max2(t, window(md, la));
        double stores = full ? lb_stores : model_ceil((double)piece / w);
        bump(md, ST_STORES, (uint64_t)stores, piece);
        if (full && string_elides(m, op->bytes, end - a, op->fill, nt)) {
            bump(md, ST_STRING_ELIDED_LINES, 1, piece);
            t = max2(t, wc_line(md, line, (uint32_t)piece, op->fill == 0, t));
            commit(md, max2(t, md->t_commit_last));
        } else {
            bump(md, ST_L1_ACCESSES, (uint64_t)stores, piece);
            int lvl = ws_level(md, line, full, false);
            double ready;
            if (lvl) {
                ready = hier_stream_store(md->h, line, t, (hier_level_t)lvl, op->fill == 0);
            } else {
                bool hit;
                hier_own_t how = (full && !m->string_rfo) ? HIER_NOREAD : HIER_RFO;
                ready = m->string_l1_slots ? hier_store(md->h, line, t, how, &hit)
                                           : hier_store_l2_tracked(md->h, line, t, how, &hit);
            }
            commit(md, max2(ready, md->t_commit_last) + piece_cycles);
        }
        a += piece;
        if (a < end) {
            md->t_issue = t;
            uint64_t skip = model_i_ff_after_line(md, end - a);
            if (skip) {
                a += skip;
                t = md->t_issue;
            }
        }
    }
    /* An ordered end: nothing after the op issues until its lines are
     * committed (the window then restarts empty at the next op). */
    if (m->string_ordered_end)
        t = max2(t, md->t_commit_last);
    md->t_issue = t;
    /* The microcode sequencer holds the front end until the op has issued. */
    md->t_front = max2(md->t_front, t);
}

static void line_zero_op(model_t *md, const trace_op_t *op)
{
    const cfg_machine_t *m = md->m;
    uint64_t lb = md->line_bytes;
    uint64_t nlines = (op->bytes + lb - 1) / lb;
    double per_line = nlines ? (double)op->count / (double)nlines : 0;
    double insns_line = nlines ? ((double)op->insns + md->loose_insns) / (double)nlines : 0;
    md->loose_insns = 0;
    double t = max2(md->t_issue, md->t_front);
    uint64_t la = m->store_buffer_entries ? m->store_buffer_entries : 1;
    uint64_t end = op->addr + op->bytes;
    md->ff_op_lines = 0;
    for (uint64_t a = op->addr & ~(lb - 1); a < end;) {
        t += m->line_zero_cycles * per_line;
        t = max2(t, front(md, per_line + insns_line));
        t += tlb_access(md, a, true);
        if (m->lz_policy == CFG_LZ_MEMORY) {
            t = max2(t, wc_line(md, a, (uint32_t)lb, true, t));
        } else {
            t = max2(t, window(md, la));
            int lvl = ws_level(md, a, true, true);
            double ready;
            if (lvl) {
                ready = hier_stream_store(md->h, a, t, (hier_level_t)lvl, true);
            } else {
                bool hit;
                ready = hier_store(md->h, a, t, HIER_NOREAD, &hit);
            }
            bump(md, ST_L1_ACCESSES, 1, lb);
            commit(md, max2(ready, md->t_commit_last) + port_cycles(md, (uint32_t)lb, 1));
        }
        a += lb;
        if (a < end) {
            md->t_issue = t;
            uint64_t skip = model_i_ff_after_line(md, end - a);
            if (skip) {
                a += skip;
                t = md->t_issue;
            }
        }
    }
    md->t_issue = t;
}

static void fence_op(model_t *md)
{
    double now = max2(md->t_issue, md->t_front);
    double done = max2(now, max2(mshr_drain_time(md->wc), md->t_commit_last));
    bump(md, ST_FENCES, 1, 0);
    bump(md, ST_FENCE_STALL_CYCLES, (uint64_t)llround(done - now), 0);
    md->t_issue = md->t_front = done;
}

/* A serialising event of `cycles` (fault, reschedule): the core does no
 * other work meanwhile. */
static void stall_op(model_t *md, double cycles)
{
    double t = max2(md->t_issue, md->t_front) + cycles;
    md->t_issue = md->t_front = t;
}

int model_op(void *ctx, const trace_op_t *op)
{
    model_t *md = ctx;
    const cfg_machine_t *m = md->m;
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
        ws_break(md); /* the caller's own stores end write streaming */
        bump(md, ST_CALLS, 1, op->bytes);
        bump(md, ST_INSTRUCTIONS, 2, 0); /* call + ret */
        front(md, 0);
        md->t_front += m->call_cycles;
        break;
    case TRACE_CALL_END:
        break;
    case TRACE_RESCHED:
        bump(md, ST_RESCHEDS, 1, 0);
        stall_op(md, m->resched_ns * md->cyc_per_ns);
        break;
    case TRACE_FAULT: {
        ws_break(md); /* so do the fault handler's */
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
        stall_op(md, cyc);
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
    double t = max2(md->t_issue, md->t_front);
    t = max2(t, md->t_commit_last);
    t = max2(t, mshr_drain_time(md->wc));
    t = hier_drain(md->h, t);
    md->t_issue = md->t_front = t;
}

void model_stats(model_t *md, stats_t *out)
{
    *out = md->st;
    double now = max2(md->t_issue, max2(md->t_front, md->t_commit_last));
    out->count[ST_CYCLES] = (uint64_t)llround(now);
}
