/*
 * predictions_write.c - the Markdown of docs/PREDICTIONS.md from the runs of
 * predictions.c (see predictions.h for what it holds).
 *
 * Notes
 *  - Numbers: GB/s is bytes per second / 2^30, printed with two decimals;
 *    gains are new / baseline - 1 in percent with one decimal and a sign
 *    (never "-0.0%").
 *  - Milan (zen3-epyc-7j13) gets its published figures next to the
 *    predictions, marked as calibration data for that machine only.
 *  - Nothing written depends on the clock, the host or the number of
 *    threads: the same tree gives the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "models/base/errbuf.h"
#include "sim/study/predictions_impl.h"
#include "sim/machine/units.h"

/* Published figures, Milan only: calibration data (data/calibration/). */
#define PUB_MACHINE "zen3-epyc-7j13"

typedef struct md_pub_fault {
    const char *page, *preempt; /* the rows they sit next to */
    const char *label;
    double page_gbps, extent_gbps, change_pct;
    const char *source;
} md_pub_fault_t;

static const md_pub_fault_t pub_faults[] = {
    {"2MB", "none", "2 MiB pages, any preemption model", 11.82, 16.48, 39.4, "[AR25b]"},
    {"1GB", "voluntary", "1 GiB pages, none / voluntary (8 MiB extents)", 17.14, 17.42, 1.6,
     "[AR25b]"},
    {"1GB", "full", "1 GiB pages, full / lazy (one 1 GiB extent)", 17.51, 43.23, 146.8, "[AR25b]"},
};

typedef struct md_pub_kernel {
    const char *function;
    double lo, hi; /* GB/s; a range when the source gives one */
    const char *note;
} md_pub_kernel_t;

static const md_pub_kernel_t pub_kernels[] = {
    {"rep_stosb", 14.8, 14.8, "2 MiB chunks"},
    {"movnti", 17.8, 18.6, "flat across chunk sizes"},
    {"clzero", 38.9, 46.0, "chunk size not stated per value"},
};

#define N_PUB_FAULTS  (sizeof pub_faults / sizeof pub_faults[0])
#define N_PUB_KERNELS (sizeof pub_kernels / sizeof pub_kernels[0])

static const md_run_t *find_fault(const predmd_t *r, const md_machine_t *mm, size_t page,
                                  size_t preempt, size_t caller)
{
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_FAULT && u->a == page && u->b == preempt && u->c == caller)
            return u;
    }
    return NULL;
}

static const md_run_t *find_kernel(const predmd_t *r, const md_machine_t *mm, const char *fn)
{
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_KERNEL && strcmp(u->function, fn) == 0)
            return u;
    }
    return NULL;
}

static size_t index_of(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return n;
}

static size_t page_index(const char *page)
{
    for (size_t i = 0; i < N_FAULT_PAGES; i++)
        if (strcmp(fault_pages[i].page, page) == 0)
            return i;
    return N_FAULT_PAGES;
}

/* "+39.4%" / "-7.5%" of new against base. */
static const char *gain(double new_gbps, double base_gbps, char *buf, size_t len)
{
    if (!(base_gbps > 0)) {
        snprintf(buf, len, "-");
        return buf;
    }
    double g = (new_gbps / base_gbps - 1.0) * 100.0;
    /* no "-0.0%" */
    if (g > -0.05 && g < 0.05)
        g = 0.0;
    snprintf(buf, len, "%+.1f%%", g);
    return buf;
}

/* The fault-row options without the trailing " --caller X". */
static void fault_base(const md_run_t *u, char *buf, size_t len)
{
    snprintf(buf, len, "%s", u->options);
    char *c = strstr(buf, " --caller ");
    if (c)
        *c = '\0';
}

static void write_features(FILE *out, const machine_t *m)
{
    bool any = false;
    for (unsigned b = 0; b < 32; b++) {
        const char *name = (m->features >> b & 1u) ? cfg_feature_name(b) : NULL;
        if (!name)
            continue;
        fprintf(out, "%s%s", any ? ", " : "", name);
        any = true;
    }
    if (!any)
        fputs("none", out);
}

static void size_or_never(uint64_t bytes, char *buf, size_t len)
{
    if (bytes == 0)
        snprintf(buf, len, "never");
    else {
        char s[32];
        unit_format_size(bytes, s, sizeof s);
        snprintf(buf, len, "from %s", s);
    }
}

static void write_memset_policy(FILE *out, const machine_t *m)
{
    char a[48], b[48];
    if (m->isa == MACHINE_ISA_ARM64) {
        size_or_never(m->memset_zva_bytes, a, sizeof a);
        fprintf(out, "%u-byte stores%s; DC ZVA for zero fills %s", (unsigned)m->memset_vec_bytes,
                m->memset_vec_bytes == 16 ? " (STP)" : "", a);
        if (m->memset_zva_bytes && !(m->features & MACHINE_FEAT_DCZVA))
            fputs(" (but DC ZVA is not permitted)", out);
        fprintf(out, "; MOPS %s",
                m->memset_mops && (m->features & MACHINE_FEAT_MOPS) ? "used" : "not used");
    } else {
        size_or_never(m->memset_stosb_bytes, a, sizeof a);
        size_or_never(m->memset_nt_bytes, b, sizeof b);
        fprintf(out, "%u-byte vector stores; rep stosb %s; non-temporal stores %s",
                (unsigned)m->memset_vec_bytes, a, b);
    }
}

static void write_header(const predmd_t *r, FILE *out, uint64_t fp)
{
    bool all = strcmp(r->machines_arg, "all") == 0;
    fputs("<!-- Generated by 'clearsim report'. Do not edit by hand: regenerate it. -->\n", out);
    fputs("# Predictions for the bundled machines\n\n", out);
    if (all)
        fputs("This file is generated by `clearsim report --machines all --output "
              "docs/PREDICTIONS.md`.\n",
              out);
    else
        fprintf(out, "This file is generated by `clearsim report --machines %s`.\n",
                r->machines_arg);
    fputs("Do not edit it by hand: change the machine files or the model, then run that command\n"
          "again.\n\n",
          out);
    fprintf(out, PREDMD_FINGERPRINT_PREFIX "%016llx\n\n", (unsigned long long)fp);
    fputs("The fingerprint is a 64-bit FNV-1a hash of the report's case list (" PREDMD_VERSION
          "),\n"
          "the machine names and every input that can change a prediction: `configs/*.yaml`\n"
          "and every `.c`, `.h` and `.inc` file under `models/`, `kernels/` and `sim/`, whole\n"
          "folders. `clearsim report --check docs/PREDICTIONS.md` recomputes it\n"
          "without running anything and fails when this file is out of date; the test\n"
          "`cli_predictions` runs that check.\n\n",
          out);
    fputs("Every figure below is a **prediction of the model**, not a measurement, except where\n"
          "a table says *published*. GB/s is 2^30 bytes per second, as `perf bench` prints\n"
          "GB/sec. A gain is new / baseline - 1. Each row gives the options of the\n"
          "`clearsim run --machine NAME` command it comes from, so it can be reproduced; the\n"
          "runs use the model's steady-state fast-forward (no `--exact`) and seed 1.\n\n",
          out);
}

static void write_summary(const predmd_t *r, FILE *out)
{
    size_t p2m = page_index("2MB"), p1g = page_index("1GB");
    size_t none = index_of(fault_preempts, N_FAULT_PREEMPTS, "none");
    size_t vol = index_of(fault_preempts, N_FAULT_PREEMPTS, "voluntary");
    size_t full = index_of(fault_preempts, N_FAULT_PREEMPTS, "full");
    fputs("## Summary\n\n"
          "Demand faults (`--workload mmap`): the gain of clearing each folio as extents\n"
          "(`clear_pages`) over page-at-a-time (`clear_page` per 4 KiB subpage). User space: the\n"
          "fastest kernel in " KERNEL_WHAT ". Details and commands are in\n"
          "each machine's section.\n\n"
          "| machine | ISA | clear function | 2 MiB pages, none | 1 GiB pages, voluntary | 1 GiB "
          "pages, full | fastest user-space clear |\n"
          "|---|---|---|---:|---:|---:|---|\n",
          out);
    for (size_t i = 0; i < r->n_machines; i++) {
        const md_machine_t *mm = &r->machines[i];
        char g1[32], g2[32], g3[32];
        const md_run_t *a = find_fault(r, mm, p2m, none, 0), *b = find_fault(r, mm, p2m, none, 1);
        const md_run_t *c = find_fault(r, mm, p1g, vol, 0), *d = find_fault(r, mm, p1g, vol, 1);
        const md_run_t *e = find_fault(r, mm, p1g, full, 0), *f = find_fault(r, mm, p1g, full, 1);
        const md_run_t *best = NULL;
        for (size_t k = mm->first_run; k < mm->first_run + mm->n_runs; k++) {
            const md_run_t *u = &r->runs[k];
            if (u->kind == MD_KERNEL && (!best || u->gbps > best->gbps))
                best = u;
        }
        fprintf(out, "| [%s](#%s) | %s | `%s` | %s | %s | %s | `%s` %.2f GB/s |\n", mm->name,
                mm->name, mm->m->isa == MACHINE_ISA_ARM64 ? "arm64" : "x86_64", mm->function,
                a && b ? gain(b->gbps, a->gbps, g1, sizeof g1) : "-",
                c && d ? gain(d->gbps, c->gbps, g2, sizeof g2) : "-",
                e && f ? gain(f->gbps, e->gbps, g3, sizeof g3) : "-", best ? best->function : "-",
                best ? best->gbps : 0.0);
    }
    fputs("\n", out);
}

static void write_faults(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fprintf(out,
            "### Demand faults: extent against page-at-a-time\n\n"
            "`perf bench mem mmap -f demand`: every fault clears one folio with `%s`, either\n"
            "page-at-a-time or as extents (capped at 8 MiB under `none` and `voluntary`). The\n"
            "command of a row is `clearsim run --machine %s OPTIONS --caller page` (or\n"
            "`--caller extent`). In the model the preemption model only sets the extent cap,\n"
            "and rows for which the callers make the same calls share one prediction: the\n"
            "page-at-a-time column does not depend on it, nor does a 2 MiB folio, which is\n"
            "below the cap.\n\n"
            "| page | preemption | page-at-a-time GB/s | extent GB/s | gain | OPTIONS |\n"
            "|---|---|---:|---:|---:|---|\n",
            mm->function, mm->name);
    for (size_t p = 0; p < N_FAULT_PAGES; p++)
        for (size_t q = 0; q < N_FAULT_PREEMPTS; q++) {
            const md_run_t *pg = find_fault(r, mm, p, q, 0), *ex = find_fault(r, mm, p, q, 1);
            if (!pg || !ex)
                continue;
            char base[RUN_OPTIONS_MAX], g[32];
            fault_base(pg, base, sizeof base);
            fprintf(out, "| %s | %s | %.2f | %.2f | %s | `%s` |\n", fault_pages[p].label,
                    fault_preempts[q], pg->gbps, ex->gbps, gain(ex->gbps, pg->gbps, g, sizeof g),
                    base);
        }
    fputs("\n", out);
}

static void write_kernels(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    const md_run_t *base = find_kernel(r, mm, mm->baseline);
    fprintf(out,
            "### Clearing kernels in user space\n\n"
            "`perf bench mem memset -f KERNEL` in " KERNEL_WHAT " on 4 KiB pages, next to\n"
            "the temporal baseline `%s`. The command of a row is\n"
            "`clearsim run --machine %s OPTIONS`.\n\n"
            "| kernel | GB/s | gain over `%s` | OPTIONS |\n"
            "|---|---:|---:|---|\n",
            mm->baseline, mm->name, mm->baseline);
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind != MD_KERNEL)
            continue;
        char g[32];
        bool is_base = u == base;
        fprintf(out, "| `%s`%s | %.2f | %s | `%s` |\n", u->function, is_base ? " (baseline)" : "",
                u->gbps, is_base || !base ? "-" : gain(u->gbps, base->gbps, g, sizeof g),
                u->options);
    }
    if (mm->missing[0])
        fprintf(out, "\nNot on this machine: %s.\n", mm->missing);
    fputs("\n", out);
}

static void write_memset(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fputs("### memset by chunk size\n\n"
          "`perf bench mem memset -f memset` on 4 KiB pages: the C library's memset, with the\n"
          "dispatch the machine file gives it:\n",
          out);
    write_memset_policy(out, mm->m);
    fprintf(out,
            ".\nThe command of a row is `clearsim run --machine %s OPTIONS`.\n\n"
            "| chunk | GB/s | OPTIONS |\n"
            "|---|---:|---|\n",
            mm->name);
    for (size_t i = mm->first_run; i < mm->first_run + mm->n_runs; i++) {
        const md_run_t *u = &r->runs[i];
        if (u->kind == MD_MEMSET)
            fprintf(out, "| %s | %.2f | `%s` |\n", memset_chunks[u->a].label, u->gbps, u->options);
    }
    fputs("\n", out);
}

/* The fault run a published figure sits next to, for caller c (0 page, 1 extent). */
static const md_run_t *pub_fault_run(const predmd_t *r, const md_machine_t *mm,
                                     const md_pub_fault_t *pf, size_t c)
{
    return find_fault(r, mm, page_index(pf->page),
                      index_of(fault_preempts, N_FAULT_PREEMPTS, pf->preempt), c);
}

static void write_published(const predmd_t *r, const md_machine_t *mm, FILE *out)
{
    fputs("### Published measurements (calibration data for this machine only)\n\n"
          "These are measurements, not predictions. They were used to calibrate this machine\n"
          "file (`data/calibration/" PUB_MACHINE ".yaml`, `clearsim calibrate`), so agreement\n"
          "here shows the fit, not the model's accuracy on other machines. The published runs\n"
          "clear more memory than the rows above (5 x 64 GiB of demand faults [AR25b], a 4 GB\n"
          "buffer [AR22]); the model is in steady state at the sizes used here.\n\n"
          "| case | row | predicted GB/s | published GB/s | difference | source |\n"
          "|---|---|---:|---:|---:|---|\n",
          out);
    for (size_t i = 0; i < N_PUB_FAULTS; i++) {
        const md_pub_fault_t *pf = &pub_faults[i];
        for (size_t c = 0; c < N_FAULT_CALLERS; c++) {
            const md_run_t *u = pub_fault_run(r, mm, pf, c);
            double pub = c == 0 ? pf->page_gbps : pf->extent_gbps;
            if (!u)
                continue;
            char g[32];
            fprintf(out, "| %s, %s | `%s` | %.2f | %.2f | %s | %s |\n", pf->label,
                    c == 0 ? "page-at-a-time" : "extent", u->options, u->gbps, pub,
                    gain(u->gbps, pub, g, sizeof g), pf->source);
        }
    }
    for (size_t i = 0; i < N_PUB_KERNELS; i++) {
        const md_pub_kernel_t *pk = &pub_kernels[i];
        const md_run_t *u = find_kernel(r, mm, pk->function);
        if (!u)
            continue;
        char pub[48], g[32];
        double mid = (pk->lo + pk->hi) / 2;
        if (pk->lo == pk->hi)
            snprintf(pub, sizeof pub, "%.2f", pk->lo);
        else
            snprintf(pub, sizeof pub, "%.2f-%.2f", pk->lo, pk->hi);
        fprintf(out, "| `%s`, %s | `%s` | %.2f | %s | %s%s | [AR22] |\n", pk->function, pk->note,
                u->options, u->gbps, pub, gain(u->gbps, mid, g, sizeof g),
                pk->lo == pk->hi ? "" : " (from the midpoint)");
    }
    fputs("\n| change from page-at-a-time to extent | predicted | published | difference "
          "(points) |\n|---|---:|---:|---:|\n",
          out);
    for (size_t i = 0; i < N_PUB_FAULTS; i++) {
        const md_pub_fault_t *pf = &pub_faults[i];
        const md_run_t *pg = pub_fault_run(r, mm, pf, 0), *ex = pub_fault_run(r, mm, pf, 1);
        if (!pg || !ex || !(pg->gbps > 0))
            continue;
        char g[32];
        double pred = (ex->gbps / pg->gbps - 1.0) * 100.0;
        fprintf(out, "| %s (`--preempt %s` rows) | %s | %+.1f%% | %+.1f |\n", pf->label,
                pf->preempt, gain(ex->gbps, pg->gbps, g, sizeof g), pf->change_pct,
                pred - pf->change_pct);
    }
    fputs(
        "\nSources: [AR25b] A. Arora, LKML, Oct-Dec 2025, \"x86/clear_pages: Support clearing "
        "of\npage-extents\" (v5 cover letter): `perf bench mem map -p PG -f demand -s 64GB -l 5`, "
        "one\nthread, boost off. [AR22] A. Arora, LKML, 2022-06-06, \"[PATCH v3 00/21] huge page "
        "clearing\noptimizations\": one thread, a 4 GB buffer on 4 KiB pages, boost off.\n\n",
        out);
}

int predmd_write(const predmd_t *r, FILE *out, uint64_t fingerprint, char *err, size_t errlen)
{
    write_header(r, out, fingerprint);
    write_summary(r, out);
    for (size_t i = 0; i < r->n_machines; i++) {
        const md_machine_t *mm = &r->machines[i];
        fprintf(out, "## %s\n\n", mm->name);
        if (mm->m->description[0])
            fprintf(out, "%s.\n\n", mm->m->description);
        fprintf(out, "ISA `%s`; features: ", mm->m->isa == MACHINE_ISA_ARM64 ? "arm64" : "x86_64");
        write_features(out, mm->m);
        fprintf(out,
                ".\nClear function: `%s`, what `clearsim run` uses without `-f` (as Linux's\n"
                "`clear_page` does on this machine).\n\n",
                mm->function);
        write_faults(r, mm, out);
        write_kernels(r, mm, out);
        write_memset(r, mm, out);
        if (strcmp(mm->name, PUB_MACHINE) == 0)
            write_published(r, mm, out);
    }
    if (fflush(out) != 0 || ferror(out))
        return errbuf_set(err, errlen, "write error");
    return 0;
}
