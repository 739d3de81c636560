/*
 * report_text.c - the text form of a run result, simulated or native, in the
 * layout of `perf bench mem` and `perf stat` (see report.h).
 *
 * Notes
 *  - It walks the row report_collect() / report_collect_native() build, as
 *    the csv and json printers do (report.c), so all three show the same
 *    values under the same names.
 *  - A native result swaps the simulated model and traffic lines for the
 *    run statistics (mean, stddev, 95% interval).
 *  - Counters print with grouped digits, "<not supported>" when null; a
 *    ratio with a zero denominator prints "-".
 */
#include "sim/output/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/host/native_run.h"
#include "sim/machine/units.h"

#define TEXT_VALUE_WIDTH 18

/* A counter value as text: grouped digits or "<not supported>". */
static const char *text_count(const report_field_t *f, char *buf, size_t len)
{
    if (!f || f->kind != REPORT_V_U64)
        return "<not supported>";
    return report_group_digits(f->u, buf, len);
}

static const report_field_t *top(const report_row_t *row, const char *key)
{
    return report_row_find(row, key, NULL, NULL);
}

static uint64_t top_u64(const report_row_t *row, const char *key)
{
    const report_field_t *f = top(row, key);
    return f && f->kind == REPORT_V_U64 ? f->u : 0;
}

static const char *top_str(const report_row_t *row, const char *key)
{
    const report_field_t *f = top(row, key);
    return f && f->kind == REPORT_V_STR ? f->s : "?";
}

/* Both counters supported? Then a ratio, or "-" with a zero denominator. */
static bool counter_ratio(const report_row_t *row, const char *num, const char *den, double scale,
                          const char *fmt, char *buf, size_t len)
{
    const report_field_t *n = report_row_find(row, "counters", num, NULL);
    const report_field_t *d = report_row_find(row, "counters", den, NULL);
    if (!n || !d || n->kind != REPORT_V_U64 || d->kind != REPORT_V_U64)
        return false;
    if (d->u == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, scale * (double)n->u / (double)d->u);
    return true;
}

static void text_counter_line(FILE *out, const report_row_t *row, const report_field_t *f)
{
    char num[32], ratio[48], comment[96] = "";
    const char *name = f->path[1];
    if (strcmp(name, "instructions") == 0 &&
        counter_ratio(row, "instructions", "cycles", 1.0, "%.2f", ratio, sizeof ratio))
        snprintf(comment, sizeof comment, "#  %8s  insn per cycle", ratio);
    else if (strcmp(name, "L1-dcache-load-misses") == 0 &&
             counter_ratio(row, "L1-dcache-load-misses", "L1-dcache-loads", 100.0, "%.2f%%", ratio,
                           sizeof ratio))
        snprintf(comment, sizeof comment, "#  %8s  of all L1-dcache accesses", ratio);
    else if (strcmp(name, "LLC-load-misses") == 0 &&
             counter_ratio(row, "LLC-load-misses", "LLC-loads", 100.0, "%.2f%%", ratio,
                           sizeof ratio))
        snprintf(comment, sizeof comment, "#  %8s  of all LL-cache accesses", ratio);
    if (comment[0])
        fprintf(out, "%*s      %-26s%s\n", TEXT_VALUE_WIDTH, text_count(f, num, sizeof num), name,
                comment);
    else
        fprintf(out, "%*s      %s\n", TEXT_VALUE_WIDTH, text_count(f, num, sizeof num), name);
}

static void text_size(uint64_t bytes, char *buf, size_t len)
{
    unit_format_size(bytes, buf, len);
}

/* A real as text with 9 decimals, or "-" when null. */
static const char *text_real(const report_field_t *f, const char *fmt, char *buf, size_t len)
{
    if (!f || f->kind != REPORT_V_DOUBLE)
        return "-";
    snprintf(buf, len, fmt, f->d);
    return buf;
}

/* What the workload does to its bytes, for the header line. */
static const char *text_verb(wl_kind_t kind)
{
    switch (kind) {
    case WL_LOAD:
    case WL_LATENCY:
        return "Reading";
    case WL_COPY:
        return "Copying";
    default:
        return "Clearing";
    }
}

/* The latency workload's headline: ns per dependent load, before the
 * (then secondary) throughput. */
static void text_latency(FILE *out, const report_row_t *row)
{
    const report_field_t *f = top(row, "ns_per_load");
    if (f && f->kind == REPORT_V_DOUBLE)
        fprintf(out, "%15f ns per dependent load\n", f->d);
}

/* The measured part of a native result: throughput with its statistics,
 * measured counters (or why there are none), time. */
static void text_native_body(FILE *out, const report_row_t *row, const native_result_t *n)
{
    char a[64], b[64], c[64];
    text_latency(out, row);
    const report_field_t *bps = report_row_find(row, "native", "bytes_per_sec", "mean");
    const report_field_t *bsd = report_row_find(row, "native", "bytes_per_sec", "stddev");
    const report_field_t *bci = report_row_find(row, "native", "bytes_per_sec", "ci95");
    if (bps && bps->kind == REPORT_V_DOUBLE) {
        fprintf(out, "%15f GB/sec  (GB = 2^30 bytes; mean of %" PRIu32 " run%s",
                bps->d / 1073741824.0, n->repeat, n->repeat == 1 ? "" : "s");
        if (bci && bci->kind == REPORT_V_DOUBLE && bsd && bsd->kind == REPORT_V_DOUBLE)
            fprintf(out, ", +- %f 95%% CI, stddev %f", bci->d / 1073741824.0,
                    bsd->d / 1073741824.0);
        fprintf(out, ")\n%15.0f bytes/sec\n", bps->d);
        if (bci && bci->kind == REPORT_V_DOUBLE && bci->d > 0.2 * bps->d)
            fprintf(out,
                    " # warning: the 95%% interval is %s the mean (%.0f%%): the runs disagree "
                    "(a shared or throttled host?); take more runs with --repeat\n",
                    bci->d >= bps->d ? "larger than" : "a large part of", 100.0 * bci->d / bps->d);
    } else {
        fprintf(out, "%15s GB/sec\n%15s bytes/sec\n", "-", "-");
    }

    fprintf(out, "\n Performance counter stats (native, CPU %" PRIu32 ", mean per run):\n\n",
            n->cpu);
    for (size_t i = 0; i < row->n; i++) {
        const report_field_t *f = &row->f[i];
        if (strcmp(f->path[0], "counters") != 0)
            continue;
        if (f->kind == REPORT_V_NULL)
            fprintf(out, "%*s      %s\n", TEXT_VALUE_WIDTH, "<not supported>", f->path[1]);
        else
            text_counter_line(out, row, f);
    }
    if (n->counters_reason[0])
        fprintf(out, "\n # counters: %s\n", n->counters_reason);
    fputc('\n', out);

    const report_field_t *sec = report_row_find(row, "native", "seconds", "mean");
    fprintf(out, "%*s      seconds per run (mean; +- %s 95%% CI, stddev %s)\n", TEXT_VALUE_WIDTH,
            text_real(sec, "%.9f", a, sizeof a),
            text_real(report_row_find(row, "native", "seconds", "ci95"), "%.9f", b, sizeof b),
            text_real(report_row_find(row, "native", "seconds", "stddev"), "%.9f", c, sizeof c));
    fprintf(out, "%*s      bytes cleared per run\n", TEXT_VALUE_WIDTH,
            report_group_digits(top_u64(row, "bytes"), a, sizeof a));
}

int report_text(FILE *out, const run_result_t *r, const native_result_t *n, char *err,
                size_t errlen)
{
    report_row_t *row = malloc(sizeof *row);
    if (!row) {
        errbuf_set(err, errlen, "report: out of memory");
        return -1;
    }
    if ((n ? report_collect_native(n, row, err, errlen) : report_collect(r, row, err, errlen)) !=
        0) {
        free(row);
        return -1;
    }
    char a[64], b[64], c[64];
    const char *workload = top_str(row, "workload");
    const char *function = top_str(row, "function");
    const kern_info_t *k = kern_find(function);

    fprintf(out, "# Running 'mem/%s' benchmark:\n", workload);
    if (k && k->description)
        fprintf(out, "# function '%s' (%s)\n", function, k->description);
    else
        fprintf(out, "# function '%s'\n", function);
    if (n) {
        text_size(n->huge_bytes, b, sizeof b);
        fprintf(out, "# host '%s' (native; CPU %" PRIu32 ", warm-up + %" PRIu32 " timed run%s)\n",
                n->host_model[0] ? n->host_model : "?", n->cpu, n->repeat,
                n->repeat == 1 ? "" : "s");
        fprintf(out, "# pages: %s (%s); %s in huge pages\n", native_page_mode_name(n->page_mode),
                n->page_how, b);
        text_size(n->base_page_bytes, c, sizeof c);
        fprintf(out, "# host kernel: base page %s, transparent_hugepage %s\n", c,
                n->thp_enabled[0] ? n->thp_enabled : "unknown");
        if (n->clock_ghz_before > 0 && n->clock_ghz_after > 0)
            fprintf(out, "# measured %s, core clock %.2f GHz before, %.2f after\n",
                    n->date_utc[0] ? n->date_utc : "?", n->clock_ghz_before, n->clock_ghz_after);
        else
            fprintf(out, "# measured %s\n", n->date_utc[0] ? n->date_utc : "?");
    } else {
        const char *set = top_str(row, "set");
        if (set && set[0])
            fprintf(out, "# machine '%s' (simulated; --set %s)\n", top_str(row, "machine"), set);
        else
            fprintf(out, "# machine '%s' (simulated)\n", top_str(row, "machine"));
    }
    text_size(top_u64(row, "size_bytes"), a, sizeof a);
    uint64_t loops = top_u64(row, "loops");
    if (r->spec.kind == WL_MMAP) {
        text_size(top_u64(row, "page_bytes"), b, sizeof b);
        text_size(top_u64(row, "extent_cap_bytes"), c, sizeof c);
        fprintf(out, "# Mapping %s bytes in %s pages, %s faults, %" PRIu64 " loop%s ...\n", a, b,
                top_str(row, "fault"), loops, loops == 1 ? "" : "s");
        if (r->spec.thp != WL_THP_NEVER || r->spec.base_page_bytes != 4096) {
            char d[64];
            text_size(r->spec.base_page_bytes, d, sizeof d);
            fprintf(out, "# base page %s, transparent_hugepage %s%s\n", d, wl_thp_name(r->spec.thp),
                    r->spec.thp == WL_THP_ALWAYS && r->spec.page_bytes == r->spec.base_page_bytes
                        ? " (PMD-sized folios where the mapping holds them)"
                        : "");
        }
        fprintf(out, "# caller '%s', preempt '%s', extent cap %s\n", top_str(row, "caller"),
                top_str(row, "preempt"), c);
        if (n)
            fprintf(out,
                    "# (those describe the simulated kernel; here Linux %s clears the pages, "
                    "preemption '%s' from %s)\n",
                    n->kernel_release, n->kernel_preempt, n->preempt_source);
    } else if (r->spec.caller == WL_CALLER_PAGE || r->spec.caller == WL_CALLER_EXTENT) {
        /* the kernel's folio callers over the prefaulted buffer */
        text_size(r->spec.page_bytes, b, sizeof b);
        text_size(r->spec.extent_cap_bytes, c, sizeof c);
        fprintf(out, "# %s %s bytes folio by folio (%s folios), %" PRIu64 " loop%s ...\n",
                text_verb(r->spec.kind), a, b, loops, loops == 1 ? "" : "s");
        if (r->spec.caller == WL_CALLER_PAGE)
            fprintf(out,
                    "# caller 'page': 4 KiB calls in process_huge_page order, fault at subpage "
                    "%" PRIu64 "\n",
                    r->spec.fault_subpage);
        else
            fprintf(out, "# caller 'extent', preempt '%s', extent cap %s\n",
                    top_str(row, "preempt"), c);
    } else {
        uint64_t chunk = top_u64(row, "chunk_bytes");
        if (chunk == 0)
            snprintf(b, sizeof b, "one call");
        else
            text_size(chunk, b, sizeof b);
        fprintf(out, "# %s %s bytes in %s%s, %" PRIu64 " loop%s, fill 0x%02" PRIx64 " ...\n",
                text_verb(r->spec.kind), a, b, chunk == 0 ? "" : " chunks", loops,
                loops == 1 ? "" : "s", top_u64(row, "fill"));
        fprintf(out, "# caller '%s'\n", top_str(row, "caller"));
    }
    if (n) {
        fputc('\n', out);
        text_native_body(out, row, n);
        free(row);
        if (ferror(out)) {
            errbuf_set(err, errlen, "report: cannot write output");
            return -1;
        }
        return 0;
    }
    const report_field_t *eb = top(row, "error_bound");
    if (r->extrapolated) {
        if (eb && eb->kind == REPORT_V_DOUBLE)
            fprintf(out, "# extrapolated from a steady state (error bound %.3g%%)\n",
                    eb->d * 100.0);
        else
            fprintf(out, "# extrapolated from a steady state (error bound -)\n");
    } else {
        fprintf(out, "# simulated exactly (no extrapolation)\n");
    }
    const report_field_t *bl = top(row, "bulk_lines");
    if (bl && bl->kind == REPORT_V_U64 && bl->u > 0)
        fprintf(out, "# %" PRIu64 " lines stepped in bulk over proven periods (exact)\n", bl->u);
    fputc('\n', out);

    text_latency(out, row);
    const report_field_t *bps = top(row, "bytes_per_sec");
    if (bps && bps->kind == REPORT_V_DOUBLE) {
        fprintf(out, "%15f GB/sec  (GB = 2^30 bytes)\n", bps->d / 1073741824.0);
        fprintf(out, "%15.0f bytes/sec\n", bps->d);
    } else {
        fprintf(out, "%15s GB/sec\n%15s bytes/sec\n", "-", "-");
    }

    fprintf(out, "\n Performance counter stats (simulated, '%s'):\n\n", top_str(row, "machine"));
    for (size_t i = 0; i < row->n; i++)
        if (strcmp(row->f[i].path[0], "counters") == 0)
            text_counter_line(out, row, &row->f[i]);
    fputc('\n', out);

    const report_field_t *sec = top(row, "seconds");
    uint64_t cycles = top_u64(row, "cycles");
    if (sec && sec->kind == REPORT_V_DOUBLE) {
        if (sec->d > 0)
            snprintf(c, sizeof c, "%.3f", (double)cycles / sec->d / 1e9);
        else
            snprintf(c, sizeof c, "-");
        fprintf(out, "%*.9f      seconds simulated\n", TEXT_VALUE_WIDTH, sec->d);
    } else {
        snprintf(c, sizeof c, "-");
        fprintf(out, "%*s      seconds simulated\n", TEXT_VALUE_WIDTH, "-");
    }
    fprintf(out, "%*s      %-26s#  %8s GHz\n", TEXT_VALUE_WIDTH,
            report_group_digits(cycles, a, sizeof a), "model cycles", c);
    fprintf(out, "%*s      bytes cleared\n", TEXT_VALUE_WIDTH,
            report_group_digits(top_u64(row, "bytes"), a, sizeof a));

    fprintf(out, "\n Traffic (simulated; lines, DRAM in bytes):\n\n");
    fprintf(out, "        %*s  %*s  %*s\n", TEXT_VALUE_WIDTH, "hits", TEXT_VALUE_WIDTH, "misses",
            TEXT_VALUE_WIDTH, "writebacks");
    static const char *const lv[] = {"l1", "l2", "l3"};
    static const char *const lv_upper[] = {"L1", "L2", "L3"};
    for (size_t i = 0; i < 3; i++) {
        const report_field_t *h = report_row_find(row, "traffic", lv[i], "hits");
        const report_field_t *m = report_row_find(row, "traffic", lv[i], "misses");
        const report_field_t *w = report_row_find(row, "traffic", lv[i], "writebacks");
        fprintf(out, "  %-4s  %*s  %*s  %*s\n", lv_upper[i], TEXT_VALUE_WIDTH,
                text_count(h, a, sizeof a), TEXT_VALUE_WIDTH, text_count(m, b, sizeof b),
                TEXT_VALUE_WIDTH, text_count(w, c, sizeof c));
    }
    fprintf(out, "  DRAM  %*s  bytes read\n", TEXT_VALUE_WIDTH,
            text_count(report_row_find(row, "traffic", "dram_read_bytes", NULL), a, sizeof a));
    fprintf(out, "  DRAM  %*s  bytes written\n", TEXT_VALUE_WIDTH,
            text_count(report_row_find(row, "traffic", "dram_write_bytes", NULL), a, sizeof a));
    char bound[128];
    fprintf(out, "\nbound by: %s  (clearsim explain: the breakdown)\n",
            report_bound_by_text(&r->stats, bound, sizeof bound));
    free(row);
    if (ferror(out)) {
        errbuf_set(err, errlen, "report: cannot write output");
        return -1;
    }
    return 0;
}
