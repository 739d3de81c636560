/*
 * workload.c - perf bench mem memset / mmap as trace generators (see
 * workload.h), and their validation.
 *
 * Notes
 *  - Kernel calls go through the kernels' trace functions with a kern_ctx_t
 *    whose trace is the given trace_t, in the order kernels/callers.c gives.
 *    Each call is bracketed by TRACE_CALL_BEGIN / TRACE_CALL_END (addr, bytes
 *    = len, count 0: the model charges core.call_cycles); reschedule points
 *    become TRACE_RESCHED under every preemption model: os.resched stands
 *    for the page-at-a-time loop's own work per subpage (cond_resched(),
 *    which is a no-op under full and lazy, and the folio_page / kmap /
 *    clear_user_highpage calls around clear_page()), as the calibrated
 *    files fitted it.
 *  - memset: warm-up = one call over the whole buffer with fill 0xff (perf
 *    bench prefaults the buffer this way; a zero-only kernel still writes
 *    zeros), then flush + WL_MARK_ROI_BEGIN, then `loops` passes of
 *    wl_memset_pass(): caller chunked = chunk-byte calls (the last may be
 *    shorter), caller repeat = one whole-buffer call, callers page and extent
 *    = the kernel's folio callers over each page_bytes folio, with no
 *    reschedule points (user space). WL_MARK_PERIOD after each call, WL_MARK_LOOP
 *    after each pass. With reuse_bytes, each measured call is followed
 *    (before its WL_MARK_PERIOD) by the consumer's touch of what it cleared:
 *    one 8-byte TRACE_LOAD at the start of each line of the first
 *    min(reuse_bytes, len) bytes, in ascending order. The warm-up has none.
 *    With delay_bytes, the touch is followed by that many bytes of other
 *    reads (one 8-byte load per line, through a ring far from the buffer,
 *    each call's right after the previous call's), and then by the touch of
 *    the next min(later_bytes, len - touched) bytes of the call: the faulting
 *    thread that touches its subpage at once and the rest later.
 *  - mmap: WL_MARK_ROI_BEGIN first (the whole run is measured). Per loop the
 *    same simulated range is mapped again (freed pages are usually reused
 *    hot; the model decides what that costs). Per folio (page_bytes):
 *      demand:   TRACE_INSNS 4 (the user's touch loop: address, increment,
 *                compare, branch), TRACE_FAULT (addr = folio start, bytes =
 *                page size), the clearing calls, then the user's 1-byte
 *                TRACE_STORE of 0 at the folio start;
 *      populate: TRACE_FAULT with TRACE_F_POPULATE, the clearing calls, no
 *                user access;
 *    then WL_MARK_PERIOD; WL_MARK_LOOP after each loop. The fault address is
 *    the folio start, so the page caller clears subpages N-1..0. The clear
 *    always writes zeros. mmap/munmap system calls themselves are not
 *    emitted (their cost belongs to the model's fault costs).
 *  - Every mark is preceded by trace_flush(), so ops before a mark are
 *    delivered before it.
 *  - When the sink stops the trace (trace_error() != 0), wl_trace() stops at
 *    the next call or folio boundary and returns 0: stopping is the sink's
 *    decision, and the caller reads trace_error().
 *  - Units: bytes; simulated addresses from base_addr (default 16 TiB, so
 *    every page size is aligned).
 */
#include "sim/engine/workload.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/engine/bench.h"
#include "sim/machine/units.h"

#define WL_DEFAULT_BASE_ADDR 0x100000000000ull
#define WL_TOUCH_INSNS       4u

void wl_spec_init(wl_spec_t *s)
{
    memset(s, 0, sizeof *s);
    s->kind = WL_MEMSET;
    snprintf(s->function, sizeof s->function, "%s", "memset");
    s->size_bytes = 1ull << 20;
    s->chunk_bytes = 0;
    s->loops = 1;
    s->fill = 0;
    s->caller = WL_CALLER_CHUNKED;
    s->fault = WL_FAULT_DEMAND;
    s->page_bytes = 4096;
    s->base_page_bytes = 4096;
    s->thp = WL_THP_NEVER;
    s->preempt = CALLER_PREEMPT_NONE;
    s->extent_cap_bytes = CALLER_DEFAULT_EXTENT_CAP_BYTES;
    s->base_addr = WL_DEFAULT_BASE_ADDR;
}

/* ------------------------------------------------------------ validation */

static bool page_size_ok(uint64_t p)
{
    return p == (4ull << 10) || p == (16ull << 10) || p == (64ull << 10) || p == (2ull << 20) ||
           p == (32ull << 20) || p == (512ull << 20) || p == (1ull << 30);
}

uint32_t wl_max_order_pages(const wl_spec_t *s, const machine_t *m)
{
    if (s->base_page_bytes == (16ull << 10))
        return 2048; /* arm64 16K: ARCH_FORCE_MAX_ORDER 11 */
    if (s->base_page_bytes == (64ull << 10))
        return 8192; /* arm64 64K: ARCH_FORCE_MAX_ORDER 13 */
    return m ? m->max_order_pages : 0;
}

uint64_t wl_pmd_bytes(uint64_t base_page_bytes)
{
    return base_page_bytes * (base_page_bytes / 8); /* a page of 8-byte PTEs maps one PMD */
}

/* The hugetlb sizes of each base page: its PMD (and PUD with 4 KiB pages). */
static bool huge_size_ok(uint64_t base, uint64_t page)
{
    return page == wl_pmd_bytes(base) || (base == (4ull << 10) && page == (1ull << 30));
}

uint64_t wl_folio_bytes(const wl_spec_t *s, uint64_t off)
{
    const uint64_t base = s->base_page_bytes ? s->base_page_bytes : 4096;
    if (s->page_bytes != base)
        return s->page_bytes;
    if (s->thp != WL_THP_ALWAYS)
        return base;
    const uint64_t pmd = wl_pmd_bytes(base);
    /* the mapping starts PMD-aligned (base_addr; Linux aligns an anonymous
     * mapping of at least a PMD); a PMD range past its end gets base pages */
    return off % pmd == 0 && s->size_bytes - off >= pmd ? pmd : base;
}

/* What a microbenchmark preset asks of its kernel and caller. */
/* Is k of the class the microbenchmark kind takes (any kernel for memset and
 * mmap)? */
static bool preset_class_ok(wl_kind_t kind, const kern_info_t *k)
{
    switch (kind) {
    case WL_STORE:
        return k->cls == KERN_CLASS_STORE;
    case WL_NTSTORE:
        return k->cls == KERN_CLASS_NT;
    case WL_LINEZERO:
        return k->cls == KERN_CLASS_LINEZERO;
    case WL_FENCE:
        return (k->cls == KERN_CLASS_NT || k->cls == KERN_CLASS_LINEZERO) && k->fences;
    case WL_STARTUP:
        return k->cls == KERN_CLASS_STRING;
    default:
        return true;
    }
}

bool wl_function_of(wl_kind_t kind, const char *function, const machine_t *m)
{
    char why[256];
    if (wl_uses_bench_kernel(kind)) {
        const kern_bench_t *b = kern_bench_find(function);
        return b && wl_bench_kernel_of(kind, b) &&
               (!m || kern_bench_check_machine(b, m, why, sizeof why) == 0);
    }
    const kern_info_t *k = kern_find(function);
    return k && preset_class_ok(kind, k) && (!m || kern_check_machine(k, m, why, sizeof why) == 0);
}

static int check_preset(const wl_spec_t *s, const kern_info_t *k, char *err, size_t errlen)
{
    static const struct {
        wl_kind_t kind;
        kern_class_t cls;
        bool fences;
        wl_caller_t caller;
        const char *what;
    } rules[] = {
        {WL_STORE, KERN_CLASS_STORE, false, WL_CALLER_REPEAT, "a temporal store kernel"},
        {WL_NTSTORE, KERN_CLASS_NT, false, WL_CALLER_REPEAT, "a non-temporal store kernel"},
        {WL_LINEZERO, KERN_CLASS_LINEZERO, false, WL_CALLER_REPEAT, "a line-zero kernel"},
        {WL_FENCE, KERN_CLASS_NT, true, WL_CALLER_CHUNKED, "a kernel that fences each call"},
        {WL_STARTUP, KERN_CLASS_STRING, false, WL_CALLER_CHUNKED, "a string kernel"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (rules[i].kind != s->kind)
            continue;
        if (!preset_class_ok(s->kind, k))
            return errbuf_set(err, errlen, "--function %s: the %s workload takes %s", k->name,
                              wl_kind_name(s->kind), rules[i].what);
        if (s->caller != rules[i].caller)
            return errbuf_set(err, errlen, "--caller %s: the %s workload calls %s",
                              wl_caller_name(s->caller), wl_kind_name(s->kind),
                              rules[i].caller == WL_CALLER_REPEAT ? "repeat" : "chunked");
    }
    return 0;
}

int wl_validate(const wl_spec_t *s, const machine_t *m, char *err, size_t errlen)
{
    char a[32], b[32], why[256];

    if (!strcmp(wl_kind_name(s->kind), "?"))
        return errbuf_set(err, errlen, "unknown workload");
    if (wl_uses_bench_kernel(s->kind))
        return wl_validate_bench(s, m, err, errlen);
    if (s->size_bytes == 0)
        return errbuf_set(err, errlen, "--size must be greater than 0");
    if (s->loops == 0)
        return errbuf_set(err, errlen, "--loops must be at least 1");
    if (s->fill > 255) {
        errbuf_set(err, errlen, "--fill %u is out of range 0..255", s->fill);
        return -1;
    }
    if (memchr(s->function, '\0', sizeof s->function) == NULL)
        return errbuf_set(err, errlen, "--function: name too long");
    const kern_info_t *k = kern_find(s->function);
    if (!k && kern_bench_find(s->function))
        return errbuf_set(
            err, errlen,
            "--function %s: a microbenchmark, not a clearing function for the %s workload",
            s->function, wl_kind_name(s->kind));
    if (!k)
        return errbuf_set(err, errlen, "--function %s: unknown function; see 'clearsim functions'",
                          s->function);
    if (m && kern_check_machine(k, m, why, sizeof why))
        return errbuf_set(err, errlen, "--function %s: %s", s->function, why);
    if (check_preset(s, k, err, errlen))
        return -1;
    const uint64_t base = s->base_page_bytes;
    if (base != (4ull << 10) && base != (16ull << 10) && base != (64ull << 10)) {
        unit_format_size(base, a, sizeof a);
        return errbuf_set(err, errlen, "--base-page %s: must be 4KB, 16KB or 64KB", a);
    }
    if (base != (4ull << 10) && m && m->isa != MACHINE_ISA_ARM64) {
        unit_format_size(base, a, sizeof a);
        return errbuf_set(err, errlen,
                          "--base-page %s: only arm64 kernels have 16 KiB and 64 KiB base pages "
                          "(machine '%s' is %s)",
                          a, m->name, machine_isa_name(m->isa));
    }
    if (!page_size_ok(s->page_bytes)) {
        unit_format_size(s->page_bytes, a, sizeof a);
        return errbuf_set(err, errlen, "--page %s: must be 4KB, 2MB or 1GB", a);
    }
    if (s->base_addr % s->page_bytes) {
        unit_format_size(s->page_bytes, a, sizeof a);
        errbuf_set(err, errlen, "base address 0x%llx is not aligned to the page size (%s)",
                   (unsigned long long)s->base_addr, a);
        return -1;
    }

    if (wl_base_kind(s->kind) == WL_MEMSET) {
        if (s->thp != WL_THP_NEVER || base != (4ull << 10))
            return errbuf_set(err, errlen,
                              "--thp and --base-page apply only to the mmap workload (memset's "
                              "buffer takes --page)");
        if (s->page_bytes != (4ull << 10) && s->page_bytes != (2ull << 20) &&
            s->page_bytes != (1ull << 30)) {
            unit_format_size(s->page_bytes, a, sizeof a);
            return errbuf_set(err, errlen, "--page %s: must be 4KB, 2MB or 1GB", a);
        }
        if ((s->caller == WL_CALLER_PAGE || s->caller == WL_CALLER_EXTENT) &&
            s->page_bytes == (4ull << 10))
            return errbuf_set(err, errlen,
                              "--caller %s clears the buffer folio by folio: give the folio with "
                              "--page 2MB or 1GB",
                              wl_caller_name(s->caller));
        if (s->caller == WL_CALLER_PAGE || s->caller == WL_CALLER_EXTENT) {
            if (s->size_bytes % s->page_bytes) {
                unit_format_size(s->size_bytes, a, sizeof a);
                unit_format_size(s->page_bytes, b, sizeof b);
                return errbuf_set(err, errlen,
                                  "--size %s is not a multiple of the folio (--page %s)", a, b);
            }
            if (s->chunk_bytes)
                return errbuf_set(err, errlen,
                                  "--chunk applies only to --caller chunked (--caller %s clears "
                                  "folio by folio)",
                                  wl_caller_name(s->caller));
        }
        if (s->fault_subpage && (s->caller != WL_CALLER_PAGE ||
                                 s->fault_subpage >= s->page_bytes / CALLER_SUBPAGE_BYTES)) {
            if (s->caller != WL_CALLER_PAGE)
                return errbuf_set(err, errlen, "--fault-subpage applies only to --caller page");
            unit_format_size(s->page_bytes, a, sizeof a);
            return errbuf_set(err, errlen, "--fault-subpage %llu: a %s folio has subpages 0..%llu",
                              (unsigned long long)s->fault_subpage, a,
                              (unsigned long long)(s->page_bytes / CALLER_SUBPAGE_BYTES - 1));
        }
        if ((s->caller == WL_CALLER_EXTENT) &&
            (s->extent_cap_bytes == 0 || s->extent_cap_bytes % CALLER_SUBPAGE_BYTES)) {
            unit_format_size(s->extent_cap_bytes, a, sizeof a);
            return errbuf_set(err, errlen,
                              "--extent-cap %s: must be a non-zero multiple of the base page "
                              "(4KiB)",
                              a);
        }
        if (s->chunk_bytes > s->size_bytes) {
            unit_format_size(s->chunk_bytes, a, sizeof a);
            unit_format_size(s->size_bytes, b, sizeof b);
            return errbuf_set(err, errlen, "--chunk (%s) is larger than --size (%s)", a, b);
        }
        if (s->caller == WL_CALLER_REPEAT && s->chunk_bytes && s->chunk_bytes != s->size_bytes)
            return errbuf_set(err, errlen,
                              "--chunk applies only to --caller chunked (repeat clears the whole "
                              "buffer per call)");
        if (s->reuse_bytes > s->size_bytes) {
            unit_format_size(s->reuse_bytes, a, sizeof a);
            unit_format_size(s->size_bytes, b, sizeof b);
            return errbuf_set(err, errlen, "reuse (%s) is larger than --size (%s)", a, b);
        }
        if (s->delay_bytes > WL_DELAY_RING_BYTES || s->later_bytes > s->size_bytes) {
            unit_format_size(s->delay_bytes > WL_DELAY_RING_BYTES ? s->delay_bytes : s->later_bytes,
                             a, sizeof a);
            return errbuf_set(err, errlen, "%s (%s) is larger than %s",
                              s->later_bytes > s->size_bytes ? "the later touch" : "the delay", a,
                              s->later_bytes > s->size_bytes ? "--size" : "512GiB");
        }
        if (kern_check_fill(k, s->fill, why, sizeof why)) {
            errbuf_set(err, errlen, "--fill %u: %s", s->fill, why);
            return -1;
        }
        unit_format_size(s->size_bytes, a, sizeof a);
        if (kern_check_len(k, m, s->size_bytes, why, sizeof why))
            return errbuf_set(err, errlen, "--size %s: %s", a, why);
        if (s->chunk_bytes && kern_check_len(k, m, s->chunk_bytes, why, sizeof why)) {
            unit_format_size(s->chunk_bytes, a, sizeof a);
            return errbuf_set(err, errlen, "--chunk %s: %s", a, why);
        }
        return 0;
    }

    /* mmap */
    if (s->caller != WL_CALLER_PAGE && s->caller != WL_CALLER_EXTENT)
        return errbuf_set(err, errlen,
                          "--caller %s is not valid for the mmap workload (use page or extent)",
                          wl_caller_name(s->caller));
    if (s->fault != WL_FAULT_DEMAND && s->fault != WL_FAULT_POPULATE)
        return errbuf_set(err, errlen, "--fault: unknown fault mode (use demand or populate)");
    if (s->preempt > CALLER_PREEMPT_LAZY)
        return errbuf_set(err, errlen,
                          "--preempt: unknown preemption model (use none, voluntary, full or "
                          "lazy)");
    if (s->page_bytes != base && !huge_size_ok(base, s->page_bytes)) {
        unit_format_size(s->page_bytes, a, sizeof a);
        unit_format_size(base, b, sizeof b);
        return errbuf_set(err, errlen,
                          "--page %s: with %s base pages, --page is the base page or a huge "
                          "page size of it (%s: %s)",
                          a, b, b,
                          base == (4ull << 10)    ? "4KB, 2MB or 1GB"
                          : base == (16ull << 10) ? "16KB or 32MB"
                                                  : "64KB or 512MB");
    }
    if (s->thp > WL_THP_ALWAYS)
        return errbuf_set(err, errlen, "--thp: unknown mode (use never, madvise or always)");
    if (s->thp != WL_THP_NEVER && s->page_bytes != base) {
        unit_format_size(s->page_bytes, a, sizeof a);
        return errbuf_set(err, errlen,
                          "--thp %s: applies to base pages; --page %s maps hugetlb pages",
                          wl_thp_name(s->thp), a);
    }
    if (s->size_bytes % s->page_bytes) {
        unit_format_size(s->size_bytes, a, sizeof a);
        unit_format_size(s->page_bytes, b, sizeof b);
        return errbuf_set(err, errlen, "--size %s is not a multiple of --page %s", a, b);
    }
    if (s->fill != 0) {
        errbuf_set(err, errlen,
                   "--fill %u: the mmap workload clears pages with zeros; --fill applies only to "
                   "memset",
                   s->fill);
        return -1;
    }
    if (s->chunk_bytes)
        return errbuf_set(err, errlen, "--chunk applies only to the memset workload");
    if (s->reuse_bytes || s->delay_bytes || s->later_bytes)
        return errbuf_set(err, errlen, "reuse applies only to the memset workload");
    if (s->extent_cap_bytes == 0 || s->extent_cap_bytes % base) {
        unit_format_size(s->extent_cap_bytes, a, sizeof a);
        unit_format_size(base, b, sizeof b);
        return errbuf_set(err, errlen,
                          "--extent-cap %s: must be a non-zero multiple of the base page (%s)", a,
                          b);
    }
    if (kern_check_len(k, m, base, why, sizeof why))
        return errbuf_set(err, errlen, "--function %s: %s", s->function, why);
    return 0;
}

/* ----------------------------------------------------------------- trace */

typedef struct wl_run {
    kern_ctx_t k;
    const kern_info_t *kern;
    uint8_t fill;
    bool period_per_call;
    wl_mark_fn mark;
    void *mark_ctx;
    uint64_t skip;        /* periods whose calls are still to skip (fast-forward) */
    uint64_t mute;        /* periods still to emit nothing for (exact bulk stepping) */
    uint64_t reuse_bytes; /* loads after each call (0 = none; set for the measured calls) */
    uint64_t delay_bytes, later_bytes; /* wl_spec_t's, set with reuse_bytes */
    uint64_t delay_off;                /* the next line of the delay's ring, from its start */
    uint64_t delay_base;
    uint32_t line_bytes; /* the consumer's load stride */
} wl_run_t;

static void emit(trace_t *t, trace_kind_t kind, uint64_t addr, uint64_t bytes, uint32_t count,
                 uint16_t width, uint32_t flags)
{
    trace_op_t op = {
        .addr = addr,
        .bytes = bytes,
        .count = count,
        .width = width,
        .kind = (uint8_t)kind,
        .fill = 0,
        .flags = flags,
    };
    trace_emit(t, &op);
}

static void mark(wl_run_t *r, wl_mark_t what)
{
    trace_flush(r->k.trace);
    if (r->mark) {
        uint64_t n = r->mark(r->mark_ctx, what);
        if (what == WL_MARK_PERIOD && (n & WL_SKIP_ALL))
            r->mute += n & ~WL_SKIP_ALL;
        else if (what == WL_MARK_PERIOD)
            r->skip += n;
    }
}

static void on_clear(void *ctx, uint64_t addr, uint64_t len)
{
    wl_run_t *r = ctx;
    if (trace_error(r->k.trace))
        return;
    if (r->period_per_call && r->mute) {
        r->mute--; /* stepped over: the runner has counted this period */
        return;
    }
    if (r->period_per_call && r->skip) {
        r->skip--; /* fast-forwarded: the runner has counted this call */
        return;
    }
    emit(r->k.trace, TRACE_CALL_BEGIN, addr, len, 0, 0, 0);
    r->kern->trace(&r->k, addr, len, r->fill);
    emit(r->k.trace, TRACE_CALL_END, addr, len, 0, 0, 0);
    const uint64_t touch = r->reuse_bytes < len ? r->reuse_bytes : len;
    for (uint64_t off = 0; off < touch; off += r->line_bytes)
        emit(r->k.trace, TRACE_LOAD, addr + off, 8, 1, 8, 0);
    for (uint64_t off = 0; off < r->delay_bytes; off += r->line_bytes) {
        emit(r->k.trace, TRACE_LOAD, r->delay_base + r->delay_off, 8, 1, 8, 0);
        r->delay_off = (r->delay_off + r->line_bytes) % WL_DELAY_RING_BYTES;
    }
    const uint64_t later = r->later_bytes < len - touch ? r->later_bytes : len - touch;
    for (uint64_t off = touch; off < touch + later; off += r->line_bytes)
        emit(r->k.trace, TRACE_LOAD, addr + off, 8, 1, 8, 0);
    if (r->period_per_call)
        mark(r, WL_MARK_PERIOD);
}

static void on_resched(void *ctx)
{
    wl_run_t *r = ctx;
    if (r->period_per_call && (r->skip || r->mute))
        return; /* between calls that are being skipped */
    emit(r->k.trace, TRACE_RESCHED, 0, 0, 0, 0, 0);
}

static void trace_memset(const wl_spec_t *s, const machine_t *m, wl_run_t *r, const caller_cb_t *cb)
{
    /* warm-up: prefault / warm the buffer as perf bench does */
    r->fill = 0xff;
    r->period_per_call = false;
    on_clear(r, s->base_addr, s->size_bytes);
    mark(r, WL_MARK_ROI_BEGIN);

    r->fill = (uint8_t)s->fill;
    r->period_per_call = true;
    r->reuse_bytes = s->reuse_bytes;
    r->delay_bytes = s->delay_bytes;
    r->later_bytes = s->later_bytes;
    r->delay_base = s->base_addr + WL_DELAY_ADDR_OFFSET;
    r->delay_off = 0;
    for (uint32_t l = 0; l < s->loops && !trace_error(r->k.trace); l++) {
        wl_memset_pass(s, m, s->base_addr, cb);
        mark(r, WL_MARK_LOOP);
    }
}

/* The fault's clear of one folio, through the run's caller, in base-page
 * subpages. */
static void clear_folio(const wl_spec_t *s, const machine_t *m, uint64_t folio,
                        uint64_t folio_bytes, const caller_cb_t *cb)
{
    if (s->caller == WL_CALLER_PAGE)
        caller_page(folio, folio_bytes, folio, s->base_page_bytes, wl_max_order_pages(s, m), cb);
    else
        caller_extent(folio, folio_bytes, s->preempt, s->extent_cap_bytes, cb);
}

void wl_memset_pass(const wl_spec_t *s, const machine_t *m, uint64_t addr, const caller_cb_t *cb)
{
    if (s->caller == WL_CALLER_REPEAT) {
        cb->clear(cb->ctx, addr, s->size_bytes);
        return;
    }
    if (s->caller == WL_CALLER_CHUNKED) {
        caller_chunked(addr, s->size_bytes, s->chunk_bytes, cb);
        return;
    }
    const caller_cb_t user = {.clear = cb->clear, .resched = NULL, .ctx = cb->ctx};
    for (uint64_t off = 0; off < s->size_bytes; off += s->page_bytes) {
        const uint64_t folio = addr + off;
        if (s->caller == WL_CALLER_PAGE)
            caller_page(folio, s->page_bytes, folio + s->fault_subpage * CALLER_SUBPAGE_BYTES,
                        CALLER_SUBPAGE_BYTES, wl_max_order_pages(s, m), &user);
        else
            caller_extent(folio, s->page_bytes, s->preempt, s->extent_cap_bytes, &user);
    }
}

static void count_call(void *ctx, uint64_t addr, uint64_t len)
{
    (void)addr;
    (void)len;
    (*(uint64_t *)ctx)++;
}

/* The caller's kernel calls for one folio of folio_bytes (the fault at its
 * start, the run's caller options). */
static uint64_t calls_per_folio(const wl_spec_t *s, const machine_t *m, uint64_t folio_bytes)
{
    uint64_t n = 0;
    caller_cb_t cc = {.clear = count_call, .resched = NULL, .ctx = &n};
    clear_folio(s, m, s->base_addr, folio_bytes, &cc);
    return n;
}

uint64_t wl_mmap_calls(const wl_spec_t *s, const machine_t *m)
{
    const uint64_t f0 = wl_folio_bytes(s, 0), base = s->base_page_bytes;
    if (!f0 || !base)
        return 0;
    /* whole folios of the first size, then (THP) a tail of base pages */
    uint64_t n0 = f0 == base ? s->size_bytes / base : s->size_bytes / f0;
    uint64_t tail = f0 == base ? 0 : (s->size_bytes - n0 * f0) / base;
    return n0 * calls_per_folio(s, m, f0) + tail * calls_per_folio(s, m, base);
}

static void trace_mmap(const wl_spec_t *s, const machine_t *m, wl_run_t *r, const caller_cb_t *cb)
{
    const bool demand = s->fault == WL_FAULT_DEMAND;
    /* at most two folio sizes per run (THP: PMD folios, then a tail of base pages) */
    const uint64_t f0 = wl_folio_bytes(s, 0);
    const uint64_t calls0 = calls_per_folio(s, m, f0);
    const uint64_t fb = s->base_page_bytes, callsb = calls_per_folio(s, m, fb);
    trace_t *t = r->k.trace;

    mark(r, WL_MARK_ROI_BEGIN);
    r->fill = 0;
    /* A period is one kernel call (a subpage, an extent or a whole folio):
     * the runner may skip calls; faults and touches are always emitted. */
    r->period_per_call = true;
    /* the whole folios of the first size, from the start of each loop */
    const uint64_t whole0 = f0 == fb ? s->size_bytes / fb * fb : s->size_bytes / f0 * f0;
    for (uint32_t l = 0; l < s->loops && !trace_error(t); l++) {
        for (uint64_t off = 0; off < s->size_bytes && !trace_error(t);) {
            /* Stepped over whole folios (and not the last period of the
             * stretch, after which this folio's touch is emitted): none of
             * their ops. */
            if (r->mute > calls0 && calls0 && off < whole0) {
                uint64_t k = (r->mute - 1) / calls0, left = (whole0 - off) / f0;
                k = k < left ? k : left;
                r->mute -= k * calls0;
                off += k * f0;
                continue;
            }
            const uint64_t folio = s->base_addr + off, fbytes = wl_folio_bytes(s, off);
            const uint64_t calls = fbytes == f0 ? calls0 : fbytes == fb ? callsb : 0;
            const bool muted = r->mute > 0; /* this folio's fault is stepped over */
            if (demand && !muted)
                emit(t, TRACE_INSNS, 0, 0, WL_TOUCH_INSNS, 0, 0);
            if (!muted)
                emit(t, TRACE_FAULT, folio, fbytes, 0, 0, demand ? 0 : TRACE_F_POPULATE);
            if (calls && r->skip >= calls && !r->mute)
                r->skip -= calls; /* every call of this folio fast-forwarded: not walked */
            else
                clear_folio(s, m, folio, fbytes, cb);
            if (demand && !r->mute) /* (unless its last call was not the stretch's last) */
                emit(t, TRACE_STORE, folio, 1, 1, 1, 0);
            off += fbytes;
        }
        mark(r, WL_MARK_LOOP);
    }
}

int wl_trace(const wl_spec_t *s, const machine_t *m, trace_t *t, wl_mark_fn mark_fn, void *mark_ctx,
             char *err, size_t errlen)
{
    if (wl_validate(s, m, err, errlen))
        return -1;
    wl_run_t r = {
        .k = {.trace = t, .machine = m},
        .kern = kern_find(s->function),
        .mark = mark_fn,
        .mark_ctx = mark_ctx,
        .line_bytes = m && m->l1.line_bytes ? m->l1.line_bytes : 64,
    };
    if (wl_uses_bench_kernel(s->kind))
        return wl_trace_bench(s, m, t, mark_fn, mark_ctx, err, errlen);
    caller_cb_t cb = {.clear = on_clear, .resched = on_resched, .ctx = &r};
    if (wl_base_kind(s->kind) == WL_MEMSET)
        trace_memset(s, m, &r, &cb);
    else
        trace_mmap(s, m, &r, &cb);
    trace_flush(t);
    return 0;
}

/* ----------------------------------------------------------------- names */

const name_value_t wl_kind_names[] = {
    {"memset", WL_MEMSET},   {"mmap", WL_MMAP},         {"load", WL_LOAD},
    {"copy", WL_COPY},       {"latency", WL_LATENCY},   {"store", WL_STORE},
    {"ntstore", WL_NTSTORE}, {"linezero", WL_LINEZERO}, {"fence", WL_FENCE},
    {"startup", WL_STARTUP}, {"fault", WL_FAULT},       {NULL, 0}};

wl_kind_t wl_base_kind(wl_kind_t k)
{
    switch (k) {
    case WL_STORE:
    case WL_NTSTORE:
    case WL_LINEZERO:
    case WL_FENCE:
    case WL_STARTUP:
        return WL_MEMSET;
    case WL_FAULT:
        return WL_MMAP;
    default:
        return k;
    }
}

bool wl_uses_bench_kernel(wl_kind_t k)
{
    return k == WL_LOAD || k == WL_COPY || k == WL_LATENCY;
}
const name_value_t wl_caller_names[] = {{"chunked", WL_CALLER_CHUNKED},
                                        {"repeat", WL_CALLER_REPEAT},
                                        {"page", WL_CALLER_PAGE},
                                        {"extent", WL_CALLER_EXTENT},
                                        {NULL, 0}};
const name_value_t wl_fault_names[] = {
    {"demand", WL_FAULT_DEMAND}, {"populate", WL_FAULT_POPULATE}, {NULL, 0}};
const name_value_t wl_thp_names[] = {
    {"never", WL_THP_NEVER}, {"madvise", WL_THP_MADVISE}, {"always", WL_THP_ALWAYS}, {NULL, 0}};

const char *wl_thp_name(wl_thp_t t)
{
    return name_of(wl_thp_names, (int)t);
}

const char *wl_kind_name(wl_kind_t k)
{
    return name_of(wl_kind_names, (int)k);
}

const char *wl_caller_name(wl_caller_t c)
{
    return name_of(wl_caller_names, (int)c);
}

const char *wl_fault_name(wl_fault_t f)
{
    return name_of(wl_fault_names, (int)f);
}

uint64_t wl_measured_bytes(const wl_spec_t *s)
{
    return (uint64_t)s->loops * s->size_bytes;
}

uint64_t wl_measured_loads(const wl_spec_t *s)
{
    return s->kind == WL_LATENCY ? (uint64_t)s->loops * (s->size_bytes / WL_LINE_BYTES) : 0;
}
