/*
 * cfg_checks.c - machine files, stages 3 and 4 (the pipeline: cfg_load.c):
 * the derived values (cache sets, l3.present, the elide threshold from its
 * fraction) and the cross-checks between keys (geometry, ordering, isa
 * against features, ...).
 *
 * Notes
 *  - Every error goes through cfg_i_fail: "file:line:col: key: value: rule",
 *    at the key's value, or at its parent section when it took its default.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg_impl.h"
#include "sim/machine/units.h"

/* ---- stages 3 and 4: derived values and cross-checks ---------------------- */

/* Fail at key `path` (its value if given, else its parent section). */
static int failk(cfg_ctx_t *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int failk(cfg_ctx_t *c, const char *path, const char *fmt, ...)
{
    char rule[384], tb[64], text[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof(rule), fmt, ap);
    va_end(ap);
    int i = cfg_i_key_index(c, path);
    if (i >= 0 && c->val[i])
        return cfg_i_fail(c, c->val[i]->start_mark, path,
                          cfg_i_node_text(c->val[i], tb, sizeof(tb)), "%s", rule);
    const char *d = i >= 0 ? c->keys[i].deflt : NULL;
    snprintf(text, sizeof(text), "%s (default)", d ? d : "(none)");
    return cfg_i_fail(c, cfg_i_parent_mark(c, path), path, text, "%s", rule);
}

static bool is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static int check_cache(cfg_ctx_t *c, const char *lv, machine_cache_t *cc)
{
    char p[CFG_PATH_MAX], s[32];
#define KP(suffix) (snprintf(p, sizeof(p), "%s.%s", lv, suffix), p)
    if (!is_pow2(cc->line_bytes))
        return failk(c, KP("line"), "must be a power of two");
    if (cc->size_bytes % cc->line_bytes != 0)
        return failk(c, KP("size"), "must be a multiple of the line size (%u B)", cc->line_bytes);
    uint64_t lines = cc->size_bytes / cc->line_bytes;
    unit_format_size(cc->size_bytes, s, sizeof(s));
    if (cc->ways > lines)
        return failk(c, KP("ways"), "more ways than lines (%s holds %" PRIu64 " lines of %u B)", s,
                     lines, cc->line_bytes);
    uint64_t way_bytes = (uint64_t)cc->ways * cc->line_bytes;
    if (cc->size_bytes % way_bytes != 0)
        return failk(c, KP("size"),
                     "not a whole number of sets: size / (ways x line) = %s / (%u x %u B) = %.4g",
                     s, cc->ways, cc->line_bytes, (double)cc->size_bytes / (double)way_bytes);
    uint64_t sets = cc->size_bytes / way_bytes;
    if (!is_pow2(sets))
        return failk(c, KP("size"),
                     "gives %" PRIu64 " sets (size / (ways x line) = %s / (%u x %u B)); the set "
                     "count must be a power of two",
                     sets, s, cc->ways, cc->line_bytes);
    if (sets > UINT32_MAX)
        return failk(c, KP("size"), "gives %" PRIu64 " sets; at most 2^32-1", sets);
    cc->sets = (uint32_t)sets;
    const machine_prefetch_t *pf = &cc->prefetch;
    if (!is_pow2(pf->boundary_bytes) || pf->boundary_bytes < cc->line_bytes)
        return failk(c, KP("prefetch.boundary"),
                     "must be a power of two of at least one line (%u B)", cc->line_bytes);
    if (pf->enabled && pf->distance_lines == 0)
        return failk(c, KP("prefetch.distance"),
                     "must be at least 1 when the prefetcher is enabled");
#undef KP
    return 0;
}

/* The figure of `workload` and metric with the largest size, when that size
 * is at DRAM scale (at least 4x the last cache level), else NULL. */
static const machine_mb_t *dram_figure(const machine_t *m, const char *workload,
                                       machine_mb_metric_t metric)
{
    uint64_t last = m->l3.present ? m->l3.size_bytes : m->l2.size_bytes;
    const machine_mb_t *best = NULL;
    for (uint32_t i = 0; i < m->n_mb; i++) {
        const machine_mb_t *f = &m->mb[i];
        if (strcmp(f->workload, workload) == 0 && f->metric == metric &&
            f->size_bytes >= 4 * last && (!best || f->size_bytes > best->size_bytes))
            best = f;
    }
    return best;
}

/* Little's law: one core's bandwidth to memory times the memory latency is
 * the lines it keeps in flight, and the L2 miss queue must hold them. The
 * file's own figures give both; a miss queue too short to carry them is an
 * error that names both. */
static int check_littles_law(cfg_ctx_t *c)
{
    const machine_t *m = c->m;
    const machine_mb_t *bw = dram_figure(m, "load", MACHINE_MB_GBPS);
    const machine_mb_t *lat = dram_figure(m, "latency", MACHINE_MB_NS_PER_LOAD);
    if (!bw || !lat || m->l2.line_bytes == 0)
        return 0;
    double bytes_per_ns = bw->value * 1073741824.0 / 1e9;
    double need = bytes_per_ns * lat->value / m->l2.line_bytes;
    double carry = (double)m->l2.mshrs * m->l2.line_bytes / lat->value * 1e9 / 1073741824.0;
    double tol = m->mb_tolerance > 0 ? m->mb_tolerance : 0.10;
    if ((double)m->l2.mshrs >= need * (1 - tol))
        return 0;
    return failk(c, "l2.mshrs",
                 "%u L2 miss slots carry at most %.1f GiB/s at the %.1f ns of figure '%s' "
                 "(Little's law: lines in flight = bandwidth x latency / %u B), but figure '%s' "
                 "gives %.1f GiB/s, which needs %.0f lines in flight",
                 m->l2.mshrs, carry, lat->value, lat->id, m->l2.line_bytes, bw->id, bw->value,
                 need);
}

/* calibrate --microbench: every fit key's stage has a figure to fit it to,
 * and every figure with a stage has a key that the stage fits. */
static int check_mb_stages(cfg_ctx_t *c)
{
    const machine_t *m = c->m;
    for (uint32_t i = 0; i < m->n_mb_fit; i++) {
        const machine_mb_fit_t *k = &m->mb_fit[i];
        uint32_t n = 0;
        for (uint32_t j = 0; j < m->n_mb; j++)
            n += m->mb[j].stage == k->stage;
        if (n == 0)
            return failk(c, "microbench.fit",
                         "key '%s' (line %u) is fitted in stage %u, but no figure has stage: %u",
                         k->key, k->line, k->stage, k->stage);
    }
    for (uint32_t j = 0; j < m->n_mb; j++) {
        const machine_mb_t *f = &m->mb[j];
        bool any = false;
        for (uint32_t i = 0; i < m->n_mb_fit && !any; i++)
            any = m->mb_fit[i].stage == f->stage;
        if (f->stage && !any)
            return failk(c, "microbench.figures",
                         "figure '%s' (line %u) has stage: %u, but microbench.fit fits no key "
                         "in stage %u",
                         f->id, f->line, f->stage, f->stage);
    }
    return 0;
}

int cfg_i_derive_and_check(cfg_ctx_t *c)
{
    machine_t *m = c->m;
    char a[32], b[32];

    /* identity */
    if (m->name[0] && !catalog_valid_name(m->name))
        return failk(c, "name", "may contain only letters, digits, '-', '_' and '.'");
    char base[MACHINE_TEXT_MAX];
    catalog_base_name(c->file, base, sizeof(base));
    if (strcmp(base, m->name) != 0)
        return failk(c, "name", "must equal the file's base name '%s'", base);

    /* caches: presence, geometry, one line size, sizes and latencies ordered */
    m->l1.present = true;
    m->l2.present = true;
    m->l3.present = c->l3_given;
    if (check_cache(c, "l1", &m->l1) < 0 || check_cache(c, "l2", &m->l2) < 0)
        return -1;
    if (m->l3.present && check_cache(c, "l3", &m->l3) < 0)
        return -1;
    if (m->l2.line_bytes != m->l1.line_bytes)
        return failk(c, "l2.line", "must equal l1.line (%u B): one line size for all levels",
                     m->l1.line_bytes);
    if (m->l3.present && m->l3.line_bytes != m->l1.line_bytes)
        return failk(c, "l3.line", "must equal l1.line (%u B): one line size for all levels",
                     m->l1.line_bytes);
    unit_format_size(m->l1.size_bytes, a, sizeof(a));
    if (m->l2.size_bytes <= m->l1.size_bytes)
        return failk(c, "l2.size", "must be larger than l1.size (%s)", a);
    unit_format_size(m->l2.size_bytes, b, sizeof(b));
    if (m->l3.present && m->l3.size_bytes <= m->l2.size_bytes)
        return failk(c, "l3.size", "must be larger than l2.size (%s)", b);
    if (m->l2.latency_cycles <= m->l1.latency_cycles)
        return failk(c, "l2.latency", "must be larger than l1.latency (%g cycles)",
                     m->l1.latency_cycles);
    if (m->l3.present && m->l3.latency_cycles <= m->l2.latency_cycles)
        return failk(c, "l3.latency", "must be larger than l2.latency (%g cycles)",
                     m->l2.latency_cycles);
    const machine_cache_t *last = m->l3.present ? &m->l3 : &m->l2;
    if (m->mem_latency_ns * m->freq_ghz <= last->latency_cycles)
        return failk(c, "memory.latency",
                     "= %g cycles at %g GHz; must be larger than the last cache level's "
                     "latency (%g cycles)",
                     m->mem_latency_ns * m->freq_ghz, m->freq_ghz, last->latency_cycles);

    /* core */
    if (!is_pow2(m->store_width_bytes) || m->store_width_bytes > m->l1.line_bytes)
        return failk(c, "core.store_width", "must be a power of two of at most one line (%u B)",
                     m->l1.line_bytes);
    if (!is_pow2(m->zva_block_bytes))
        return failk(c, "line_zero.block", "must be a power of two");

    /* string engine */
    if ((m->features & (MACHINE_FEAT_ERMS | MACHINE_FEAT_REP_GOOD | MACHINE_FEAT_MOPS)) != 0) {
        if (!(m->string_bpc > 0))
            return failk(c, "string.bytes_per_cycle",
                         "required (> 0) when features include erms, rep_good or mops");
        if (m->n_startup == 0)
            return failk(c, "string.startup",
                         "required (at least one point) when features include erms, rep_good "
                         "or mops");
    }
    if (m->elide_threshold_bytes != 0 && m->elide_threshold_fraction != 0)
        return failk(c, "string.elide.threshold_fraction",
                     "give string.elide.threshold or string.elide.threshold_fraction, not both");
    if (m->elide_threshold_fraction > 0) {
        int lvl = m->elide_threshold_level;
        const machine_cache_t *cl = lvl == 1 ? &m->l1 : lvl == 2 ? &m->l2 : &m->l3;
        if (!cl->present)
            return failk(c, "string.elide.threshold_level", "names l3, which is not present");
        double t = floor(m->elide_threshold_fraction * (double)cl->size_bytes + 0.5);
        m->elide_threshold_bytes = cfg_i_d2u(t);
    }
    if (m->elide_enabled) {
        const char *tk = m->elide_threshold_fraction > 0 ? "string.elide.threshold_fraction"
                                                         : "string.elide.threshold";
        if (m->elide_threshold_bytes == 0)
            return failk(c, "string.elide.enabled",
                         "needs string.elide.threshold or string.elide.threshold_fraction");
        unit_format_size(m->elide_threshold_bytes, a, sizeof(a));
        if (m->elide_threshold_bytes < 4096)
            return failk(c, tk,
                         "gives an elide threshold of %s; below one 4KiB page is not "
                         "plausible",
                         a);
        if (m->elide_threshold_bytes > (UINT64_C(1) << 40))
            return failk(c, tk, "gives an elide threshold of %s; above 1TiB is not plausible", a);
    }

    /* the host's pages below a guest */
    if (m->tlb_host_page_bytes != 0 &&
        (!is_pow2(m->tlb_host_page_bytes) || m->tlb_host_page_bytes < 4096))
        return failk(c, "tlb.host_page", "must be 0 or a power of two of at least 4KiB");
    if (m->tlb_host_page_bytes != 0 && !is_pow2(m->tlb_host_entries))
        return failk(c, "tlb.host_entries",
                     "must be a power of two (at least 1) when tlb.host_page is set");
    if (m->tlb_host_entries != 0 && !is_pow2(m->tlb_host_entries))
        return failk(c, "tlb.host_entries", "must be a power of two");

    /* write streaming */
    if (m->ws_enabled && m->ws_enter_lines == 0)
        return failk(c, "write_streaming.enter_lines",
                     "must be at least 1 when write_streaming.enabled is true");

    /* libc memset */
    if (m->memset_vec_bytes != 16 && m->memset_vec_bytes != 32 && m->memset_vec_bytes != 64)
        return failk(c, "libc.memset.vector", "must be 16, 32 or 64");
    if (m->isa == MACHINE_ISA_X86_64 && m->memset_zva_bytes != 0)
        return failk(c, "libc.memset.zva_threshold", "only for arm64 machines (isa: x86_64)");
    if (m->isa == MACHINE_ISA_X86_64 && m->memset_mops)
        return failk(c, "libc.memset.mops", "only for arm64 machines (isa: x86_64)");
    if (m->isa == MACHINE_ISA_ARM64 && m->memset_stosb_bytes != 0)
        return failk(c, "libc.memset.rep_stosb_threshold", "only for x86_64 machines (isa: arm64)");

    /* os */
    if (!is_pow2(m->max_order_pages))
        return failk(c, "os.max_order_pages", "must be a power of two");
    if (check_mb_stages(c))
        return -1;
    return check_littles_law(c);
}
