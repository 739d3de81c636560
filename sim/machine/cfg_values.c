/*
 * cfg_values.c - machine files, stage 2b: each key's value parsed into
 * machine_t with its unit and bounds (the pipeline: cfg_load.c).
 *
 * Notes
 *  - Keys are parsed in table order with core.freq first (cfg_load.c), since
 *    ns <-> cycles and GB/s -> B/cycle conversions need the clock; a clock
 *    override (cfg_machine_load_at_clock) replaces the file's value here.
 *  - Every error goes through cfg_i_fail: "file:line:col: key: value: rule".
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "models/stats.h"
#include "models/base/errbuf.h"
#include "sim/machine/cfg_impl.h"
#include "sim/machine/units.h"

/* ---- features --------------------------------------------------------------- */

static const char *const feature_names[] = {
    "erms", "fsrm",  "clzero", "avx2", "avx512f", "rep_good",
    "mops", "dczva", "sse2",   "fzrm", "fsrs",
};
#define N_FEATURES (sizeof(feature_names) / sizeof(feature_names[0]))
#define FEAT_X86_ONLY                                                                              \
    (MACHINE_FEAT_ERMS | MACHINE_FEAT_FSRM | MACHINE_FEAT_CLZERO | MACHINE_FEAT_AVX2 |             \
     MACHINE_FEAT_AVX512 | MACHINE_FEAT_REP_GOOD | MACHINE_FEAT_SSE2 | MACHINE_FEAT_FZRM |         \
     MACHINE_FEAT_FSRS)
#define FEAT_ARM_ONLY (MACHINE_FEAT_MOPS | MACHINE_FEAT_DCZVA)

const char *cfg_feature_name(unsigned bit)
{
    return bit < N_FEATURES ? feature_names[bit] : NULL;
}

uint64_t cfg_i_d2u(double d)
{
    if (d <= 0)
        return 0;
    return d >= U64MAX_D ? UINT64_MAX : (uint64_t)d;
}

void cfg_i_store_uint(void *dst, size_t size, uint64_t v)
{
    if (size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(dst, &x, sizeof(x));
    } else {
        memcpy(dst, &v, sizeof(v));
    }
}

uint64_t cfg_i_load_uint(const void *src, size_t size)
{
    if (size == sizeof(uint32_t)) {
        uint32_t x;
        memcpy(&x, src, sizeof(x));
        return x;
    }
    uint64_t v;
    memcpy(&v, src, sizeof(v));
    return v;
}

static int check_bounds(cfg_ctx_t *c, const cfg_key_t *k, double v, yaml_mark_t mk,
                        const char *path, const char *text, const char *conv)
{
    if (v >= k->min && v <= k->max)
        return 0;
    char lo[48], hi[48];
    cfg_key_format(k, k->min, CFG_FMT_TEXT, lo, sizeof(lo));
    cfg_key_format(k, k->max, CFG_FMT_TEXT, hi, sizeof(hi));
    if (k->max >= U64MAX_D)
        return cfg_i_fail(c, mk, path, text, "%smust be at least %s", conv, lo);
    return cfg_i_fail(c, mk, path, text, "%smust be between %s and %s", conv, lo, hi);
}

static double freq_ghz(const cfg_ctx_t *c)
{
    return c->m->freq_ghz;
}

/* Parse the scalar text of key k (from the file, or its default) into the machine. */
static int parse_text(cfg_ctx_t *c, const cfg_key_t *k, const char *s, yaml_mark_t mk,
                      const char *text)
{
    void *dst = (char *)c->m + k->offset;
    char why[256], conv[96] = "";
    switch (k->type) {
    case CFG_T_STRING: {
        size_t n = strlen(s);
        if (n >= k->size)
            return cfg_i_fail(c, mk, k->path, text, "longer than %zu characters", k->size - 1);
        memcpy(dst, s, n + 1);
        return 0;
    }
    case CFG_T_BOOL: {
        bool b;
        if (strcmp(s, "true") == 0)
            b = true;
        else if (strcmp(s, "false") == 0)
            b = false;
        else
            return cfg_i_fail(c, mk, k->path, text, "must be true or false");
        memcpy(dst, &b, sizeof(b));
        return 0;
    }
    case CFG_T_ENUM: {
        const char *e = k->enums;
        for (int idx = 0; e && *e; idx++) {
            size_t n = strcspn(e, "|");
            if (strlen(s) == n && strncmp(s, e, n) == 0) {
                memcpy(dst, &idx, sizeof(idx));
                return 0;
            }
            e += n + (e[n] == '|');
        }
        char list[128];
        snprintf(list, sizeof(list), "%s", k->enums);
        for (char *p = list; *p; p++)
            if (*p == '|')
                *p = ',';
        return cfg_i_fail(c, mk, k->path, text, "must be one of: %s", list);
    }
    case CFG_T_U32:
    case CFG_T_U64: {
        uint64_t v;
        if (unit_parse_u64(s, &v, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        if (check_bounds(c, k, (double)v, mk, k->path, text, "") < 0)
            return -1;
        cfg_i_store_uint(dst, k->size, v);
        return 0;
    }
    case CFG_T_SIZE: {
        uint64_t v;
        if (unit_parse_size(s, &v, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        if (v < cfg_i_d2u(k->min) || v > cfg_i_d2u(k->max) || (k->size == 4 && v > UINT32_MAX)) {
            char lo[32], hi[32];
            unit_format_size(cfg_i_d2u(k->min), lo, sizeof(lo));
            unit_format_size(cfg_i_d2u(k->max), hi, sizeof(hi));
            return cfg_i_fail(c, mk, k->path, text, "must be between %s and %s", lo, hi);
        }
        cfg_i_store_uint(dst, k->size, v);
        return 0;
    }
    case CFG_T_DOUBLE: {
        double v;
        if (unit_parse_double(s, &v, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        if (check_bounds(c, k, v, mk, k->path, text, "") < 0)
            return -1;
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_NS: {
        unit_time_t t;
        if (unit_parse_time(s, &t, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        double v = t.value;
        if (k->type == CFG_T_TIME_CYCLES && !t.cycles) {
            v = t.value * freq_ghz(c);
            snprintf(conv, sizeof(conv), "%g cycles at %g GHz; ", v, freq_ghz(c));
        } else if (k->type == CFG_T_TIME_NS && t.cycles) {
            v = t.value / freq_ghz(c);
            snprintf(conv, sizeof(conv), "%g ns at %g GHz; ", v, freq_ghz(c));
        }
        if (check_bounds(c, k, v, mk, k->path, text, conv) < 0)
            return -1;
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    case CFG_T_FREQ: {
        double v;
        if (unit_parse_freq(s, &v, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        if (check_bounds(c, k, v, mk, k->path, text, "") < 0)
            return -1;
        if (c->clock_ghz > 0 && dst == (void *)&c->m->freq_ghz) {
            v = c->clock_ghz; /* the caller's measured clock replaces the file's */
            if (check_bounds(c, k, v, mk, k->path, "(clock override)", "") < 0)
                return -1;
        }
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    case CFG_T_BW: {
        unit_bw_t b;
        if (unit_parse_bw(s, &b, why, sizeof(why)) < 0)
            return cfg_i_fail(c, mk, k->path, text, "%s", why);
        double v = b.value;
        if (!b.per_cycle) {
            v = b.value / (freq_ghz(c) * 1e9);
            snprintf(conv, sizeof(conv), "%g B/cycle at %g GHz; ", v, freq_ghz(c));
        }
        if (check_bounds(c, k, v, mk, k->path, text, conv) < 0)
            return -1;
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    default:
        return cfg_i_fail(c, mk, k->path, text, "internal error: key type %d is not a scalar",
                          (int)k->type);
    }
}

static int parse_features(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    char tb[64];
    if (v->type != YAML_SEQUENCE_NODE)
        return cfg_i_fail(
            c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
            "expected a sequence of feature names such as [erms, fsrm] ([] for none)");
    uint32_t f = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        yaml_node_t *n = yaml_document_get_node(c->doc, *it);
        if (!n || n->type != YAML_SCALAR_NODE)
            return cfg_i_fail(c, n ? n->start_mark : v->start_mark, k->path,
                              cfg_i_node_text(n, tb, sizeof(tb)),
                              "each feature must be a name, not %s", cfg_i_node_kind(n));
        unsigned bit = 0;
        while (bit < N_FEATURES && strcmp(feature_names[bit], cfg_i_scalar(n)) != 0)
            bit++;
        if (bit == N_FEATURES) {
            char sb[32], hint[64] = "";
            if (cfg_i_suggest(cfg_i_scalar(n), feature_names, N_FEATURES, sb, sizeof(sb)))
                snprintf(hint, sizeof(hint), "did you mean '%s'? ", sb);
            return cfg_i_fail(
                c, n->start_mark, k->path, cfg_i_node_text(n, tb, sizeof(tb)),
                "unknown feature '%s'; %sknown: erms, fsrm, fzrm, fsrs, clzero, avx2, "
                "avx512f, rep_good, sse2, mops, dczva",
                cfg_i_scalar(n), hint);
        }
        if (f & (1u << bit))
            return cfg_i_fail(c, n->start_mark, k->path, cfg_i_scalar(n), "feature listed twice");
        uint32_t mask = 1u << bit;
        if (c->m->isa == MACHINE_ISA_X86_64 && (mask & FEAT_ARM_ONLY))
            return cfg_i_fail(c, n->start_mark, k->path, cfg_i_scalar(n),
                              "an arm64 feature on an x86_64 machine (isa: x86_64)");
        if (c->m->isa == MACHINE_ISA_ARM64 && (mask & FEAT_X86_ONLY))
            return cfg_i_fail(c, n->start_mark, k->path, cfg_i_scalar(n),
                              "an x86_64 feature on an arm64 machine (isa: arm64)");
        f |= mask;
    }
    c->m->features = f;
    return 0;
}

static int parse_startup(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    char tb[64], path[CFG_PATH_MAX], why[256];
    if (v->type != YAML_SEQUENCE_NODE)
        return cfg_i_fail(c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "expected a sequence of {len: SIZE, cost: TIME} entries, got %s",
                          cfg_i_node_kind(v));
    uint32_t n = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++, n++) {
        yaml_node_t *e = yaml_document_get_node(c->doc, *it);
        snprintf(path, sizeof(path), "%s[%u]", k->path, n);
        if (n == MACHINE_STARTUP_MAX)
            return cfg_i_fail(c, e ? e->start_mark : v->start_mark, path,
                              cfg_i_node_text(e, tb, sizeof(tb)), "more than %d startup points",
                              MACHINE_STARTUP_MAX);
        if (!e || e->type != YAML_MAPPING_NODE)
            return cfg_i_fail(
                c, e ? e->start_mark : v->start_mark, path, cfg_i_node_text(e, tb, sizeof(tb)),
                "each entry must be a mapping {len: SIZE, cost: TIME}, not %s", cfg_i_node_kind(e));
        yaml_node_t *len = NULL, *cost = NULL;
        for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top;
             p++) {
            yaml_node_t *pk = yaml_document_get_node(c->doc, p->key);
            yaml_node_t *pv = yaml_document_get_node(c->doc, p->value);
            if (!pk || pk->type != YAML_SCALAR_NODE)
                return cfg_i_fail(c, pk ? pk->start_mark : e->start_mark, path, "(complex key)",
                                  "keys must be plain names");
            snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, cfg_i_scalar(pk));
            yaml_node_t **slot = strcmp(cfg_i_scalar(pk), "len") == 0    ? &len
                                 : strcmp(cfg_i_scalar(pk), "cost") == 0 ? &cost
                                                                         : NULL;
            if (!slot)
                return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                                  "unknown key '%s'; each entry is {len: SIZE, cost: TIME}",
                                  cfg_i_scalar(pk));
            if (*slot)
                return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                                  "duplicate key");
            if (!pv || pv->type != YAML_SCALAR_NODE || cfg_i_node_is_null(pv))
                return cfg_i_fail(c, pv ? pv->start_mark : pk->start_mark, path,
                                  cfg_i_node_text(pv, tb, sizeof(tb)), "expected a %s",
                                  slot == &len ? "size such as 4KiB"
                                               : "time such as 35cycles or 12ns");
            *slot = pv;
        }
        for (int which = 0; which < 2; which++) {
            if ((which == 0 ? len : cost) == NULL) {
                snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, which == 0 ? "len" : "cost");
                return cfg_i_fail(c, e->start_mark, path, "(missing)", "required key not given");
            }
        }
        machine_point_t *pt = &c->m->startup[n];
        snprintf(path, sizeof(path), "%s[%u].len", k->path, n);
        if (unit_parse_size(cfg_i_scalar(len), &pt->len_bytes, why, sizeof(why)) < 0)
            return cfg_i_fail(c, len->start_mark, path, cfg_i_node_text(len, tb, sizeof(tb)), "%s",
                              why);
        if (pt->len_bytes > (UINT64_C(1) << 40))
            return cfg_i_fail(c, len->start_mark, path, cfg_i_node_text(len, tb, sizeof(tb)),
                              "must be at most 1TiB");
        if (n > 0 && pt->len_bytes <= c->m->startup[n - 1].len_bytes) {
            char prev[32];
            unit_format_size(c->m->startup[n - 1].len_bytes, prev, sizeof(prev));
            return cfg_i_fail(
                c, len->start_mark, path, cfg_i_node_text(len, tb, sizeof(tb)),
                "entries must be sorted by len, strictly increasing (previous len %s)", prev);
        }
        snprintf(path, sizeof(path), "%s[%u].cost", k->path, n);
        unit_time_t t;
        if (unit_parse_time(cfg_i_scalar(cost), &t, why, sizeof(why)) < 0)
            return cfg_i_fail(c, cost->start_mark, path, cfg_i_node_text(cost, tb, sizeof(tb)),
                              "%s", why);
        char conv[96] = "";
        pt->cycles = t.value;
        if (!t.cycles) {
            pt->cycles = t.value * freq_ghz(c);
            snprintf(conv, sizeof(conv), "%g cycles at %g GHz; ", pt->cycles, freq_ghz(c));
        }
        if (check_bounds(c, k, pt->cycles, cost->start_mark, path,
                         cfg_i_node_text(cost, tb, sizeof(tb)), conv) < 0)
            return -1;
    }
    c->m->n_startup = n;
    return 0;
}

/* One linear expression over internal event names: [+-] [coef [*]] name [* coef] ... */
static int pmu_expr(const char *s, machine_pmu_map_t *pm, char *why, size_t whylen)
{
    const char *p = s;
    pm->n_terms = 0;
    for (bool first = true;; first = false) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0') {
            if (first)
                errbuf_set(why, whylen, "empty expression");
            else
                break;
            return -1;
        }
        double sign = 1;
        if (*p == '+' || *p == '-') {
            sign = *p == '-' ? -1 : 1;
            p++;
            while (isspace((unsigned char)*p))
                p++;
        } else if (!first) {
            errbuf_set(why, whylen, "expected '+' or '-' before '%s'", p);
            return -1;
        }
        double coef = 1;
        char tok[64];
        if (isdigit((unsigned char)*p) || *p == '.') {
            size_t n = 0;
            while (
                (isalnum((unsigned char)p[n]) || p[n] == '.' ||
                 ((p[n] == '+' || p[n] == '-') && n > 0 && (p[n - 1] == 'e' || p[n - 1] == 'E'))) &&
                n + 1 < sizeof(tok)) {
                tok[n] = p[n];
                n++;
            }
            tok[n] = '\0';
            char w[160];
            if (unit_parse_double(tok, &coef, w, sizeof(w)) < 0) {
                errbuf_set(why, whylen, "bad coefficient '%s': %s", tok, w);
                return -1;
            }
            p += n;
            while (isspace((unsigned char)*p))
                p++;
            if (*p == '*')
                p++;
            while (isspace((unsigned char)*p))
                p++;
        }
        size_t n = 0;
        while ((isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.') &&
               n + 1 < sizeof(tok)) {
            tok[n] = p[n];
            n++;
        }
        tok[n] = '\0';
        if (n == 0) {
            if (*p == '\0')
                errbuf_set(why, whylen, "expected an internal event name at the end");
            else
                errbuf_set(why, whylen, "expected an internal event name at '%s'", p);
            return -1;
        }
        p += n;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '*') {
            p++;
            while (isspace((unsigned char)*p))
                p++;
            char num[64];
            size_t m = 0;
            while ((isalnum((unsigned char)p[m]) || p[m] == '.') && m + 1 < sizeof(num)) {
                num[m] = p[m];
                m++;
            }
            num[m] = '\0';
            double c2;
            char w[160];
            if (unit_parse_double(num, &c2, w, sizeof(w)) < 0) {
                errbuf_set(why, whylen, "bad coefficient '%s' after '%s': %s", num, tok, w);
                return -1;
            }
            coef *= c2;
            p += m;
        }
        int ev = stats_event_lookup(tok);
        if (ev < 0) {
            const char *names[ST_EVENT_COUNT];
            for (int i = 0; i < ST_EVENT_COUNT; i++)
                names[i] = stats_event_name((stats_event_t)i);
            char sb[64], hint[96] = "";
            if (cfg_i_suggest(tok, names, ST_EVENT_COUNT, sb, sizeof(sb)))
                snprintf(hint, sizeof(hint), "did you mean '%s'? ", sb);
            errbuf_set(why, whylen,
                       "unknown internal event '%s'; %sthe names are stats_event_name() in "
                       "models/stats.c (enum stats_event_t in models/stats.h)",
                       tok, hint);
            return -1;
        }
        coef *= sign;
        if (coef == 0) {
            errbuf_set(why, whylen, "coefficient of '%s' is zero", tok);
            return -1;
        }
        uint32_t t = 0;
        while (t < pm->n_terms && pm->terms[t].event != ev)
            t++;
        if (t < pm->n_terms) {
            pm->terms[t].coef += coef;
            continue;
        }
        if (pm->n_terms == MACHINE_PMU_TERMS_MAX) {
            errbuf_set(why, whylen, "more than %d terms", MACHINE_PMU_TERMS_MAX);
            return -1;
        }
        pm->terms[pm->n_terms].coef = coef;
        pm->terms[pm->n_terms].event = ev;
        pm->n_terms++;
    }
    return 0;
}

static int parse_pmu(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    char tb[64], path[CFG_PATH_MAX], why[384];
    if (v->type != YAML_MAPPING_NODE)
        return cfg_i_fail(c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "expected a mapping of perf event name -> expression or null, got %s",
                          cfg_i_node_kind(v));
    uint32_t n = 0;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *pk = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *pv = yaml_document_get_node(c->doc, p->value);
        if (!pk || pk->type != YAML_SCALAR_NODE)
            return cfg_i_fail(c, pk ? pk->start_mark : v->start_mark, k->path, "(complex key)",
                              "perf event names must be plain names");
        const char *name = cfg_i_scalar(pk);
        snprintf(path, sizeof(path), "%s.%s", k->path, name);
        size_t nl = strlen(name);
        if (nl == 0 || nl >= MACHINE_NAME_MAX)
            return cfg_i_fail(c, pk->start_mark, path, "(key)",
                              "a perf event name must have 1 to %d characters",
                              MACHINE_NAME_MAX - 1);
        for (size_t i = 0; i < nl; i++)
            if (!isalnum((unsigned char)name[i]) && !strchr("_.:/=,-", name[i]))
                return cfg_i_fail(c, pk->start_mark, path, "(key)",
                                  "character '%c' not allowed in a perf event name", name[i]);
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(c->m->pmu[i].name, name) == 0)
                return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                                  "duplicate key");
        if (n == MACHINE_PMU_MAX)
            return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                              "more than %d perf events", MACHINE_PMU_MAX);
        machine_pmu_map_t *pm = &c->m->pmu[n];
        memcpy(pm->name, name, nl + 1);
        if (!pv || cfg_i_node_is_null(pv)) {
            pm->supported = false;
        } else if (pv->type != YAML_SCALAR_NODE) {
            return cfg_i_fail(
                c, pv->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                "expected null or an expression such as '2*l1.fills_rfo + l1.misses', "
                "got %s",
                cfg_i_node_kind(pv));
        } else {
            pm->supported = true;
            if (pmu_expr(cfg_i_scalar(pv), pm, why, sizeof(why)) < 0)
                return cfg_i_fail(c, pv->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                                  "%s", why);
        }
        n++;
    }
    c->m->n_pmu = n;
    return 0;
}

/* microbench.figures: a sequence of mappings, one figure each. */
static int mb_text(cfg_ctx_t *c, yaml_node_t *v, const char *path, char *dst, size_t len)
{
    char tb[64];
    if (!v || v->type != YAML_SCALAR_NODE || cfg_i_node_is_null(v) || !cfg_i_scalar(v)[0])
        return cfg_i_fail(c, v ? v->start_mark : c->root_mark, path,
                          cfg_i_node_text(v, tb, sizeof(tb)), "expected a text");
    if (strlen(cfg_i_scalar(v)) >= len)
        return cfg_i_fail(c, v->start_mark, path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "longer than %zu characters", len - 1);
    snprintf(dst, len, "%s", cfg_i_scalar(v));
    return 0;
}

static int mb_size(cfg_ctx_t *c, yaml_node_t *v, const char *path, uint64_t *out)
{
    char tb[64], why[256];
    if (!v || v->type != YAML_SCALAR_NODE ||
        unit_parse_size(cfg_i_scalar(v), out, why, sizeof(why)) < 0)
        return cfg_i_fail(c, v ? v->start_mark : c->root_mark, path,
                          cfg_i_node_text(v, tb, sizeof(tb)), "%s",
                          v && v->type == YAML_SCALAR_NODE ? why : "expected a size");
    if (*out == 0 || *out > (UINT64_C(1) << 40))
        return cfg_i_fail(c, v->start_mark, path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "must be between 1B and 1TiB");
    return 0;
}

static int mb_number(cfg_ctx_t *c, yaml_node_t *v, const char *path, double lo, double hi,
                     double *out)
{
    char tb[64], why[256];
    if (!v || v->type != YAML_SCALAR_NODE ||
        unit_parse_double(cfg_i_scalar(v), out, why, sizeof(why)) < 0)
        return cfg_i_fail(c, v ? v->start_mark : c->root_mark, path,
                          cfg_i_node_text(v, tb, sizeof(tb)), "expected a number");
    if (!(*out >= lo && *out <= hi))
        return cfg_i_fail(c, v->start_mark, path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "must be between %g and %g", lo, hi);
    return 0;
}

/* The values of mapping e (entry n of the sequence at k) by name into val[]
 * (names NULL-terminated, val as long): an unknown name (with the nearest
 * one) or a name given twice is an error at its mark. */
static int mb_fields(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *e, uint32_t n,
                     const char *const *names, yaml_node_t **val)
{
    char tb[64], path[CFG_PATH_MAX];
    size_t count = 0;
    while (names[count])
        count++;
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
        yaml_node_t *pk = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *pv = yaml_document_get_node(c->doc, p->value);
        if (!pk || pk->type != YAML_SCALAR_NODE)
            return cfg_i_fail(c, pk ? pk->start_mark : e->start_mark, k->path, "(complex key)",
                              "keys must be plain names");
        snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, cfg_i_scalar(pk));
        size_t i = 0;
        while (i < count && strcmp(names[i], cfg_i_scalar(pk)) != 0)
            i++;
        if (i == count) {
            char hint[CFG_PATH_MAX + 32], sb[CFG_PATH_MAX];
            snprintf(hint, sizeof hint, "%s", "");
            if (cfg_i_suggest(cfg_i_scalar(pk), names, count, sb, sizeof sb))
                snprintf(hint, sizeof hint, " (did you mean '%s'?)", sb);
            return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                              "unknown key '%s'%s", cfg_i_scalar(pk), hint);
        }
        if (val[i])
            return cfg_i_fail(c, pk->start_mark, path, cfg_i_node_text(pv, tb, sizeof(tb)),
                              "duplicate key");
        val[i] = pv;
    }
    return 0;
}

/* Each mapping of sequence v through parse (entry, index); the count in *n.
 * what: what an entry is, for the messages. */
static int mb_sequence(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v, uint32_t max,
                       const char *what,
                       int (*parse)(cfg_ctx_t *, const cfg_key_t *, yaml_node_t *, uint32_t),
                       uint32_t *count)
{
    char tb[64];
    if (v->type != YAML_SEQUENCE_NODE)
        return cfg_i_fail(c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "expected a sequence of %s, got %s", what, cfg_i_node_kind(v));
    uint32_t n = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++, n++) {
        yaml_node_t *e = yaml_document_get_node(c->doc, *it);
        char path[CFG_PATH_MAX];
        snprintf(path, sizeof(path), "%s[%u]", k->path, n);
        if (n == max)
            return cfg_i_fail(c, e ? e->start_mark : v->start_mark, path,
                              cfg_i_node_text(e, tb, sizeof(tb)), "more than %u entries", max);
        if (!e || e->type != YAML_MAPPING_NODE)
            return cfg_i_fail(c, e ? e->start_mark : v->start_mark, path,
                              cfg_i_node_text(e, tb, sizeof(tb)),
                              "each entry must be a mapping %s, not %s", what, cfg_i_node_kind(e));
        if (parse(c, k, e, n))
            return -1;
    }
    *count = n;
    return 0;
}

static int parse_mb_entry(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *e, uint32_t n)
{
    static const char *const names[] = {
        "id",   "workload",    "size",   "function", "chunk",     "page",  "fill", "loops",
        "gbps", "ns_per_load", "source", "fault",    "tolerance", "stage", NULL};
    char path[CFG_PATH_MAX];
    machine_mb_t *f = &c->m->mb[n];
    memset(f, 0, sizeof *f);
    f->line = (uint32_t)e->start_mark.line + 1;
    yaml_node_t *val[14] = {NULL};
    if (mb_fields(c, k, e, n, names, val))
        return -1;
#define MBP(name) (snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, name), path)
    for (int i = 0; i < 3; i++)
        if (!val[i])
            return cfg_i_fail(c, e->start_mark, MBP(names[i]), "(missing)",
                              "required key not given");
    if (!val[10])
        return cfg_i_fail(c, e->start_mark, MBP("source"), "(missing)",
                          "required key not given: every figure names its source (a tag and "
                          "the SKU, or measured: ...)");
    if ((val[8] != NULL) == (val[9] != NULL))
        return cfg_i_fail(c, e->start_mark, MBP("gbps"), val[8] ? "(both)" : "(missing)",
                          "give exactly one of gbps and ns_per_load");
    double d;
    if (mb_text(c, val[0], MBP("id"), f->id, sizeof f->id) ||
        mb_text(c, val[1], MBP("workload"), f->workload, sizeof f->workload) ||
        mb_size(c, val[2], MBP("size"), &f->size_bytes) ||
        (val[3] && mb_text(c, val[3], MBP("function"), f->function, sizeof f->function)) ||
        (val[4] && mb_size(c, val[4], MBP("chunk"), &f->chunk_bytes)) ||
        (val[5] && mb_size(c, val[5], MBP("page"), &f->page_bytes)) ||
        mb_text(c, val[10], MBP("source"), f->source, sizeof f->source) ||
        (val[11] && mb_text(c, val[11], MBP("fault"), f->fault, sizeof f->fault)))
        return -1;
    if (val[6]) {
        if (mb_number(c, val[6], MBP("fill"), 0, 255, &d))
            return -1;
        f->fill = (uint32_t)d;
    }
    if (val[7]) {
        if (mb_number(c, val[7], MBP("loops"), 1, 1e9, &d))
            return -1;
        f->loops = (uint32_t)d;
    }
    if (val[12] && mb_number(c, val[12], MBP("tolerance"), 0.001, 1, &f->tolerance))
        return -1;
    if (val[13]) {
        if (mb_number(c, val[13], MBP("stage"), 1, MACHINE_MB_STAGES, &d) ||
            (d != floor(d) && cfg_i_fail(c, val[13]->start_mark, path, cfg_i_scalar(val[13]),
                                         "expected a whole number")))
            return -1;
        f->stage = (uint32_t)d;
    }
    f->metric = val[8] ? MACHINE_MB_GBPS : MACHINE_MB_NS_PER_LOAD;
    if (mb_number(c, val[8] ? val[8] : val[9], MBP(val[8] ? "gbps" : "ns_per_load"), 1e-6, 1e6,
                  &f->value))
        return -1;
    for (uint32_t j = 0; j < n; j++)
        if (strcmp(c->m->mb[j].id, f->id) == 0)
            return cfg_i_fail(c, val[0]->start_mark, MBP("id"), f->id,
                              "duplicate id (first at line %u)", c->m->mb[j].line);
#undef MBP
    return 0;
}

static int parse_microbench(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    return mb_sequence(c, k, v, MACHINE_MB_MAX,
                       "figures {id, workload, size, gbps | ns_per_load, source}", parse_mb_entry,
                       &c->m->n_mb);
}

/* microbench.fit: a sequence of {key, stage, range}. */
static int parse_mb_fit_entry(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *e, uint32_t n)
{
    static const char *const names[] = {"key", "stage", "range", NULL};
    char path[CFG_PATH_MAX];
    machine_mb_fit_t *f = &c->m->mb_fit[n];
    memset(f, 0, sizeof *f);
    f->line = (uint32_t)e->start_mark.line + 1;
    yaml_node_t *val[3] = {NULL};
    if (mb_fields(c, k, e, n, names, val))
        return -1;
#define FTP(name) (snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, name), path)
    for (int i = 0; i < 2; i++)
        if (!val[i])
            return cfg_i_fail(c, e->start_mark, FTP(names[i]), "(missing)",
                              "required key not given");
    if (mb_text(c, val[0], FTP("key"), f->key, sizeof f->key))
        return -1;
    const cfg_key_t *fk = cfg_key_find(f->key);
    if (!fk || !fk->fittable)
        return cfg_i_fail(c, val[0]->start_mark, path, f->key,
                          fk ? "not a fittable key (configs/README.md, column fit)"
                             : "unknown key");
    double d;
    if (mb_number(c, val[1], FTP("stage"), 1, MACHINE_MB_STAGES, &d))
        return -1;
    if (d != floor(d))
        return cfg_i_fail(c, val[1]->start_mark, path, cfg_i_scalar(val[1]),
                          "expected a whole number");
    f->stage = (uint32_t)d;
    f->range = 16;
    if (val[2] && mb_number(c, val[2], FTP("range"), 1.01, 1000, &f->range))
        return -1;
    for (uint32_t j = 0; j < n; j++)
        if (strcmp(c->m->mb_fit[j].key, f->key) == 0)
            return cfg_i_fail(c, val[0]->start_mark, FTP("key"), f->key,
                              "duplicate key (first at line %u)", c->m->mb_fit[j].line);
#undef FTP
    return 0;
}

static int parse_mb_fit(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    return mb_sequence(c, k, v, MACHINE_MB_FIT_MAX, "{key, stage, range}", parse_mb_fit_entry,
                       &c->m->n_mb_fit);
}

static const char *type_expect(const cfg_key_t *k)
{
    switch (k->type) {
    case CFG_T_STRING:
        return "a string";
    case CFG_T_BOOL:
        return "true or false";
    case CFG_T_U32:
    case CFG_T_U64:
        return "a whole number";
    case CFG_T_DOUBLE:
        return "a number";
    case CFG_T_SIZE:
        return "a size such as 32KiB";
    case CFG_T_TIME_NS:
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
        return "a time such as 4cycles or 80ns";
    case CFG_T_FREQ:
        return "a frequency such as 2.6GHz";
    case CFG_T_BW:
        return "a bandwidth such as 20GB/s or 32B/cycle";
    case CFG_T_ENUM:
        return "one of its names";
    default:
        return "a value";
    }
}

int cfg_i_parse_key(cfg_ctx_t *c, size_t i)
{
    const cfg_key_t *k = &c->keys[i];
    yaml_node_t *v = c->val[i];
    char tb[64];
    if (!v) {
        if (strncmp(k->path, "l3.", 3) == 0 && !c->l3_given)
            return 0;
        if (k->required)
            return cfg_i_fail(c, cfg_i_parent_mark(c, k->path), k->path, "(missing)",
                              "required key not given");
        if (k->deflt) {
            char text[96];
            snprintf(text, sizeof(text), "%s (default)", k->deflt[0] ? k->deflt : "\"\"");
            return parse_text(c, k, k->deflt, cfg_i_parent_mark(c, k->path), text);
        }
        return 0;
    }
    switch (k->type) {
    case CFG_T_FEATURES:
        return parse_features(c, k, v);
    case CFG_T_STARTUP:
        return parse_startup(c, k, v);
    case CFG_T_PMU:
        return parse_pmu(c, k, v);
    case CFG_T_MICROBENCH:
        return parse_microbench(c, k, v);
    case CFG_T_MBFIT:
        return parse_mb_fit(c, k, v);
    default:
        break;
    }
    if (v->type != YAML_SCALAR_NODE)
        return cfg_i_fail(c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "expected %s, got %s", type_expect(k), cfg_i_node_kind(v));
    if (cfg_i_node_is_null(v))
        return cfg_i_fail(c, v->start_mark, k->path, cfg_i_node_text(v, tb, sizeof(tb)),
                          "a value is required (expected %s)", type_expect(k));
    return parse_text(c, k, cfg_i_scalar(v), v->start_mark, cfg_i_node_text(v, tb, sizeof(tb)));
}
