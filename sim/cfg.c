/*
 * cfg.c - machine files: YAML (libyaml) -> cfg_machine_t, in four stages.
 *
 * Notes
 *  1. libyaml's yaml_parser_load() builds a node tree; every node keeps its
 *     start mark, so every error can name line:column. A file is one YAML
 *     document whose top level is a mapping.
 *  2. The tree is walked against the key table (cfg_keys.c): a mapping whose
 *     dotted path is a prefix of some key is a section and is walked; a path in
 *     the table is a leaf; anything else is an unknown key (with a "did you
 *     mean" when a key is within two edits). Duplicate keys are errors. Then
 *     every key is parsed in table order (core.freq first, since ns <-> cycles
 *     and GB/s -> B/cycle conversions need it), with its default when absent
 *     and an error when required and absent (pointing at the parent section).
 *  3. Derived values: l3.present, cache sets, the elide threshold from its
 *     fraction, the path.
 *  4. Cross-checks between keys (geometry, ordering, isa vs features, ...).
 *  - Every error is one line in err->msg, "file:line:col: key.path: value:
 *    rule broken" (line and column 1-based), and loading stops at the first.
 *    Only a file that cannot be read has no position ("file: cannot read: ...").
 *  - Deliberately not supported: YAML merge keys (<<), multiple documents,
 *    booleans other than true/false, numbers with units for counts.
 *  - Units of the stored fields: see models/machine.h and cfg_keys.c.
 */
#include "sim/cfg.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "models/stats.h"
#include "sim/units.h"

#ifndef CLEARSIM_SOURCE_DIR
#define CLEARSIM_SOURCE_DIR "."
#endif

#define CFG_KEYS_MAX 192
#define CFG_SECS_MAX 64
#define CFG_PATH_MAX 160
#define CFG_FILE_MAX (4u << 20) /* a machine file is a few KiB; refuse huge inputs */
#define U64MAX_D     18446744073709551615.0

_Static_assert(sizeof(int) == sizeof(uint32_t), "enum and int fields are stored as 32 bits");

/* ---- features --------------------------------------------------------------- */

static const char *const feature_names[] = {
    "erms", "fsrm",  "clzero", "avx2", "avx512f", "rep_good",
    "mops", "dczva", "sse2",   "fzrm", "fsrs",
};
#define N_FEATURES (sizeof(feature_names) / sizeof(feature_names[0]))
#define FEAT_X86_ONLY                                                                              \
    (CFG_FEAT_ERMS | CFG_FEAT_FSRM | CFG_FEAT_CLZERO | CFG_FEAT_AVX2 | CFG_FEAT_AVX512 |           \
     CFG_FEAT_REP_GOOD | CFG_FEAT_SSE2 | CFG_FEAT_FZRM | CFG_FEAT_FSRS)
#define FEAT_ARM_ONLY (CFG_FEAT_MOPS | CFG_FEAT_DCZVA)

const char *cfg_feature_name(unsigned bit)
{
    return bit < N_FEATURES ? feature_names[bit] : NULL;
}

/* ---- load context and errors ---------------------------------------------- */

typedef struct cfg_sec {
    char path[CFG_PATH_MAX];
    yaml_mark_t mark; /* of the section's key */
} cfg_sec_t;

typedef struct cfg_ctx {
    const char *file; /* name used in messages */
    yaml_document_t *doc;
    cfg_error_t *err;
    cfg_machine_t *m;
    const cfg_key_t *keys;
    size_t nkeys;
    yaml_node_t *val[CFG_KEYS_MAX]; /* value node of each key, NULL if absent */
    cfg_sec_t sec[CFG_SECS_MAX];
    size_t nsec;
    yaml_mark_t root_mark;
    bool l3_given;
    double clock_ghz; /* > 0: core.freq is this, not the file's (cfg_machine_load_at_clock) */
} cfg_ctx_t;

static void err_set(cfg_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_set(cfg_error_t *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    /* one printable line, whatever the input held (quoted "\r", control bytes) */
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

/* "file:line:col: path: value: rule" */
static int fail(cfg_ctx_t *c, yaml_mark_t mk, const char *path, const char *value, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
static int fail(cfg_ctx_t *c, yaml_mark_t mk, const char *path, const char *value, const char *fmt,
                ...)
{
    char rule[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof(rule), fmt, ap);
    va_end(ap);
    err_set(c->err, "%s:%zu:%zu: %s: %s: %s", c->file, mk.line + 1, mk.column + 1, path, value,
            rule);
    return -1;
}

static const char *node_kind(const yaml_node_t *n)
{
    switch (n ? n->type : YAML_NO_NODE) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

/* A node as it appears in messages: scalars as written (shortened), others by kind. */
static const char *node_text(const yaml_node_t *n, char *buf, size_t len)
{
    if (!n)
        return "(missing)";
    if (n->type == YAML_MAPPING_NODE)
        return "(mapping)";
    if (n->type == YAML_SEQUENCE_NODE)
        return "(sequence)";
    if (n->type != YAML_SCALAR_NODE)
        return "(?)";
    const char *s = (const char *)n->data.scalar.value;
    if (s[0] == '\0')
        return "(empty)";
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 5 < len; i++) {
        if (i >= 48) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        buf[o++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
    }
    buf[o] = '\0';
    return buf;
}

static bool node_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* ---- key table look-ups --------------------------------------------------- */

static int key_index(const cfg_ctx_t *c, const char *path)
{
    for (size_t i = 0; i < c->nkeys; i++)
        if (strcmp(c->keys[i].path, path) == 0)
            return (int)i;
    return -1;
}

static bool is_section(const cfg_ctx_t *c, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < c->nkeys; i++)
        if (strncmp(c->keys[i].path, path, n) == 0 && c->keys[i].path[n] == '.')
            return true;
    return false;
}

const cfg_key_t *cfg_key_find(const char *path)
{
    size_t n = 0;
    const cfg_key_t *k = cfg_keys(&n);
    for (size_t i = 0; path && i < n; i++)
        if (strcmp(k[i].path, path) == 0)
            return &k[i];
    return NULL;
}

/* Levenshtein distance, for "did you mean". */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= CFG_PATH_MAX || lb >= CFG_PATH_MAX)
        return SIZE_MAX;
    size_t prev[CFG_PATH_MAX], cur[CFG_PATH_MAX];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t best = del < ins ? del : ins;
            cur[j] = sub < best ? sub : best;
        }
        memcpy(prev, cur, (lb + 1) * sizeof(size_t));
    }
    return prev[lb];
}

/* The closest known key or section to an unknown path, or NULL. */
static const char *suggest(const char *path, const char *const *names, size_t n, char *buf,
                           size_t len)
{
    size_t best = 3;
    const char *hit = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(path, names[i]);
        if (d < best) {
            best = d;
            hit = names[i];
        }
    }
    if (!hit)
        return NULL;
    snprintf(buf, len, "%s", hit);
    return buf;
}

static const char *suggest_key(const cfg_ctx_t *c, const char *path, char *buf, size_t len)
{
    size_t best = 3;
    buf[0] = '\0';
    for (size_t i = 0; i < c->nkeys; i++) {
        /* the key itself and each of its sections */
        char p[CFG_PATH_MAX];
        snprintf(p, sizeof(p), "%s", c->keys[i].path);
        for (;;) {
            size_t d = edit_distance(path, p);
            if (d < best) {
                best = d;
                snprintf(buf, len, "%s", p);
            }
            char *dot = strrchr(p, '.');
            if (!dot)
                break;
            *dot = '\0';
        }
    }
    return buf[0] ? buf : NULL;
}

/* ---- stage 2a: walk the tree ---------------------------------------------- */

static yaml_mark_t parent_mark(const cfg_ctx_t *c, const char *path)
{
    char p[CFG_PATH_MAX];
    snprintf(p, sizeof(p), "%s", path);
    for (;;) {
        char *dot = strrchr(p, '.');
        if (!dot)
            return c->root_mark;
        *dot = '\0';
        for (size_t i = 0; i < c->nsec; i++)
            if (strcmp(c->sec[i].path, p) == 0)
                return c->sec[i].mark;
    }
}

static int walk_map(cfg_ctx_t *c, yaml_node_t *map, const char *prefix)
{
    char tb[64];
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *where = prefix[0] ? prefix : "(top level)";
        if (!k || k->type != YAML_SCALAR_NODE)
            return fail(c, k ? k->start_mark : map->start_mark, where, node_text(k, tb, sizeof(tb)),
                        "keys must be plain names, not %s", node_kind(k));
        const char *kn = scalar(k);
        char full[CFG_PATH_MAX];
        if (strlen(kn) + strlen(prefix) + 2 > sizeof(full))
            return fail(c, k->start_mark, where, node_text(k, tb, sizeof(tb)), "unknown key");
        size_t lp = strlen(prefix), lk = strlen(kn);
        if (lp) { /* lengths checked above */
            memcpy(full, prefix, lp);
            full[lp] = '.';
            memcpy(full + lp + 1, kn, lk + 1);
        } else {
            memcpy(full, kn, lk + 1);
        }
        if (strchr(kn, '.'))
            return fail(c, k->start_mark, full, node_text(v, tb, sizeof(tb)),
                        "unknown key '%s'; keys are single names (write nested mappings)", full);
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *kq = yaml_document_get_node(c->doc, q->key);
            if (kq && kq->type == YAML_SCALAR_NODE && strcmp(scalar(kq), kn) == 0)
                return fail(c, k->start_mark, full, node_text(v, tb, sizeof(tb)),
                            "duplicate key (first given at line %zu:%zu)", kq->start_mark.line + 1,
                            kq->start_mark.column + 1);
        }
        int i = key_index(c, full);
        if (i >= 0) {
            c->val[i] = v;
            continue;
        }
        if (is_section(c, full)) {
            if (!v || v->type != YAML_MAPPING_NODE)
                return fail(c, v ? v->start_mark : k->start_mark, full,
                            node_text(v, tb, sizeof(tb)),
                            "expected a mapping of keys under '%s', got %s", full, node_kind(v));
            if (c->nsec == CFG_SECS_MAX)
                return fail(c, k->start_mark, full, "(mapping)", "too many sections");
            snprintf(c->sec[c->nsec].path, sizeof(c->sec[c->nsec].path), "%s", full);
            c->sec[c->nsec].mark = k->start_mark;
            c->nsec++;
            if (strcmp(full, "l3") == 0)
                c->l3_given = true;
            if (walk_map(c, v, full) < 0)
                return -1;
            continue;
        }
        char sb[CFG_PATH_MAX], hint[CFG_PATH_MAX + 32] = "";
        if (suggest_key(c, full, sb, sizeof(sb)))
            snprintf(hint, sizeof(hint), " (did you mean '%s'?)", sb);
        return fail(c, k->start_mark, full, node_text(v, tb, sizeof(tb)), "unknown key '%s'%s",
                    full, hint);
    }
    return 0;
}

/* ---- stage 2b: parse values ----------------------------------------------- */

static uint64_t d2u(double d)
{
    if (d <= 0)
        return 0;
    return d >= U64MAX_D ? UINT64_MAX : (uint64_t)d;
}

static void store_uint(void *dst, size_t size, uint64_t v)
{
    if (size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(dst, &x, sizeof(x));
    } else {
        memcpy(dst, &v, sizeof(v));
    }
}

static uint64_t load_uint(const void *src, size_t size)
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

/* A bound of key k in its stored unit, for messages. */
static const char *fmt_value(const cfg_key_t *k, double v, char *buf, size_t len)
{
    switch (k->type) {
    case CFG_T_SIZE:
        unit_format_size(d2u(v), buf, len);
        break;
    case CFG_T_U32:
    case CFG_T_U64:
        snprintf(buf, len, "%.0f", v);
        break;
    case CFG_T_TIME_CYCLES:
    case CFG_T_STARTUP:
        snprintf(buf, len, "%g cycles", v);
        break;
    case CFG_T_TIME_NS:
        snprintf(buf, len, "%g ns", v);
        break;
    case CFG_T_FREQ:
        snprintf(buf, len, "%g GHz", v);
        break;
    case CFG_T_BW:
        snprintf(buf, len, "%g B/cycle", v);
        break;
    default:
        snprintf(buf, len, "%g", v);
        break;
    }
    return buf;
}

static int check_bounds(cfg_ctx_t *c, const cfg_key_t *k, double v, yaml_mark_t mk,
                        const char *path, const char *text, const char *conv)
{
    if (v >= k->min && v <= k->max)
        return 0;
    char lo[48], hi[48];
    fmt_value(k, k->min, lo, sizeof(lo));
    fmt_value(k, k->max, hi, sizeof(hi));
    if (k->max >= U64MAX_D)
        return fail(c, mk, path, text, "%smust be at least %s", conv, lo);
    return fail(c, mk, path, text, "%smust be between %s and %s", conv, lo, hi);
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
            return fail(c, mk, k->path, text, "longer than %zu characters", k->size - 1);
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
            return fail(c, mk, k->path, text, "must be true or false");
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
        return fail(c, mk, k->path, text, "must be one of: %s", list);
    }
    case CFG_T_U32:
    case CFG_T_U64: {
        uint64_t v;
        if (unit_parse_u64(s, &v, why, sizeof(why)) < 0)
            return fail(c, mk, k->path, text, "%s", why);
        if (check_bounds(c, k, (double)v, mk, k->path, text, "") < 0)
            return -1;
        store_uint(dst, k->size, v);
        return 0;
    }
    case CFG_T_SIZE: {
        uint64_t v;
        if (unit_parse_size(s, &v, why, sizeof(why)) < 0)
            return fail(c, mk, k->path, text, "%s", why);
        if (v < d2u(k->min) || v > d2u(k->max) || (k->size == 4 && v > UINT32_MAX)) {
            char lo[32], hi[32];
            unit_format_size(d2u(k->min), lo, sizeof(lo));
            unit_format_size(d2u(k->max), hi, sizeof(hi));
            return fail(c, mk, k->path, text, "must be between %s and %s", lo, hi);
        }
        store_uint(dst, k->size, v);
        return 0;
    }
    case CFG_T_DOUBLE: {
        double v;
        if (unit_parse_double(s, &v, why, sizeof(why)) < 0)
            return fail(c, mk, k->path, text, "%s", why);
        if (check_bounds(c, k, v, mk, k->path, text, "") < 0)
            return -1;
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_NS: {
        unit_time_t t;
        if (unit_parse_time(s, &t, why, sizeof(why)) < 0)
            return fail(c, mk, k->path, text, "%s", why);
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
            return fail(c, mk, k->path, text, "%s", why);
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
            return fail(c, mk, k->path, text, "%s", why);
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
        return fail(c, mk, k->path, text, "internal error: key type %d is not a scalar",
                    (int)k->type);
    }
}

static int parse_features(cfg_ctx_t *c, const cfg_key_t *k, yaml_node_t *v)
{
    char tb[64];
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, v->start_mark, k->path, node_text(v, tb, sizeof(tb)),
                    "expected a sequence of feature names such as [erms, fsrm] ([] for none)");
    uint32_t f = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        yaml_node_t *n = yaml_document_get_node(c->doc, *it);
        if (!n || n->type != YAML_SCALAR_NODE)
            return fail(c, n ? n->start_mark : v->start_mark, k->path, node_text(n, tb, sizeof(tb)),
                        "each feature must be a name, not %s", node_kind(n));
        unsigned bit = 0;
        while (bit < N_FEATURES && strcmp(feature_names[bit], scalar(n)) != 0)
            bit++;
        if (bit == N_FEATURES) {
            char sb[32], hint[64] = "";
            if (suggest(scalar(n), feature_names, N_FEATURES, sb, sizeof(sb)))
                snprintf(hint, sizeof(hint), "did you mean '%s'? ", sb);
            return fail(c, n->start_mark, k->path, node_text(n, tb, sizeof(tb)),
                        "unknown feature '%s'; %sknown: erms, fsrm, fzrm, fsrs, clzero, avx2, "
                        "avx512f, rep_good, sse2, mops, dczva",
                        scalar(n), hint);
        }
        if (f & (1u << bit))
            return fail(c, n->start_mark, k->path, scalar(n), "feature listed twice");
        uint32_t mask = 1u << bit;
        if (c->m->isa == CFG_ISA_X86_64 && (mask & FEAT_ARM_ONLY))
            return fail(c, n->start_mark, k->path, scalar(n),
                        "an arm64 feature on an x86_64 machine (isa: x86_64)");
        if (c->m->isa == CFG_ISA_ARM64 && (mask & FEAT_X86_ONLY))
            return fail(c, n->start_mark, k->path, scalar(n),
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
        return fail(c, v->start_mark, k->path, node_text(v, tb, sizeof(tb)),
                    "expected a sequence of {len: SIZE, cost: TIME} entries, got %s", node_kind(v));
    uint32_t n = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++, n++) {
        yaml_node_t *e = yaml_document_get_node(c->doc, *it);
        snprintf(path, sizeof(path), "%s[%u]", k->path, n);
        if (n == CFG_STARTUP_MAX)
            return fail(c, e ? e->start_mark : v->start_mark, path, node_text(e, tb, sizeof(tb)),
                        "more than %d startup points", CFG_STARTUP_MAX);
        if (!e || e->type != YAML_MAPPING_NODE)
            return fail(c, e ? e->start_mark : v->start_mark, path, node_text(e, tb, sizeof(tb)),
                        "each entry must be a mapping {len: SIZE, cost: TIME}, not %s",
                        node_kind(e));
        yaml_node_t *len = NULL, *cost = NULL;
        for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top;
             p++) {
            yaml_node_t *pk = yaml_document_get_node(c->doc, p->key);
            yaml_node_t *pv = yaml_document_get_node(c->doc, p->value);
            if (!pk || pk->type != YAML_SCALAR_NODE)
                return fail(c, pk ? pk->start_mark : e->start_mark, path, "(complex key)",
                            "keys must be plain names");
            snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, scalar(pk));
            yaml_node_t **slot = strcmp(scalar(pk), "len") == 0    ? &len
                                 : strcmp(scalar(pk), "cost") == 0 ? &cost
                                                                   : NULL;
            if (!slot)
                return fail(c, pk->start_mark, path, node_text(pv, tb, sizeof(tb)),
                            "unknown key '%s'; each entry is {len: SIZE, cost: TIME}", scalar(pk));
            if (*slot)
                return fail(c, pk->start_mark, path, node_text(pv, tb, sizeof(tb)),
                            "duplicate key");
            if (!pv || pv->type != YAML_SCALAR_NODE || node_is_null(pv))
                return fail(c, pv ? pv->start_mark : pk->start_mark, path,
                            node_text(pv, tb, sizeof(tb)), "expected a %s",
                            slot == &len ? "size such as 4KiB" : "time such as 35cycles or 12ns");
            *slot = pv;
        }
        for (int which = 0; which < 2; which++) {
            if ((which == 0 ? len : cost) == NULL) {
                snprintf(path, sizeof(path), "%s[%u].%s", k->path, n, which == 0 ? "len" : "cost");
                return fail(c, e->start_mark, path, "(missing)", "required key not given");
            }
        }
        cfg_point_t *pt = &c->m->startup[n];
        snprintf(path, sizeof(path), "%s[%u].len", k->path, n);
        if (unit_parse_size(scalar(len), &pt->len_bytes, why, sizeof(why)) < 0)
            return fail(c, len->start_mark, path, node_text(len, tb, sizeof(tb)), "%s", why);
        if (pt->len_bytes > (UINT64_C(1) << 40))
            return fail(c, len->start_mark, path, node_text(len, tb, sizeof(tb)),
                        "must be at most 1TiB");
        if (n > 0 && pt->len_bytes <= c->m->startup[n - 1].len_bytes) {
            char prev[32];
            unit_format_size(c->m->startup[n - 1].len_bytes, prev, sizeof(prev));
            return fail(c, len->start_mark, path, node_text(len, tb, sizeof(tb)),
                        "entries must be sorted by len, strictly increasing (previous len %s)",
                        prev);
        }
        snprintf(path, sizeof(path), "%s[%u].cost", k->path, n);
        unit_time_t t;
        if (unit_parse_time(scalar(cost), &t, why, sizeof(why)) < 0)
            return fail(c, cost->start_mark, path, node_text(cost, tb, sizeof(tb)), "%s", why);
        char conv[96] = "";
        pt->cycles = t.value;
        if (!t.cycles) {
            pt->cycles = t.value * freq_ghz(c);
            snprintf(conv, sizeof(conv), "%g cycles at %g GHz; ", pt->cycles, freq_ghz(c));
        }
        if (check_bounds(c, k, pt->cycles, cost->start_mark, path, node_text(cost, tb, sizeof(tb)),
                         conv) < 0)
            return -1;
    }
    c->m->n_startup = n;
    return 0;
}

/* One linear expression over internal event names: [+-] [coef [*]] name [* coef] ... */
static int pmu_expr(const char *s, cfg_pmu_map_t *pm, char *why, size_t whylen)
{
    const char *p = s;
    pm->n_terms = 0;
    for (bool first = true;; first = false) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0') {
            if (first)
                snprintf(why, whylen, "empty expression");
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
            snprintf(why, whylen, "expected '+' or '-' before '%s'", p);
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
                snprintf(why, whylen, "bad coefficient '%s': %s", tok, w);
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
                snprintf(why, whylen, "expected an internal event name at the end");
            else
                snprintf(why, whylen, "expected an internal event name at '%s'", p);
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
                snprintf(why, whylen, "bad coefficient '%s' after '%s': %s", num, tok, w);
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
            if (suggest(tok, names, ST_EVENT_COUNT, sb, sizeof(sb)))
                snprintf(hint, sizeof(hint), "did you mean '%s'? ", sb);
            snprintf(why, whylen,
                     "unknown internal event '%s'; %sthe names are stats_event_name() in "
                     "models/stats.c (enum stats_event_t in models/stats.h)",
                     tok, hint);
            return -1;
        }
        coef *= sign;
        if (coef == 0) {
            snprintf(why, whylen, "coefficient of '%s' is zero", tok);
            return -1;
        }
        uint32_t t = 0;
        while (t < pm->n_terms && pm->terms[t].event != ev)
            t++;
        if (t < pm->n_terms) {
            pm->terms[t].coef += coef;
            continue;
        }
        if (pm->n_terms == CFG_PMU_TERMS_MAX) {
            snprintf(why, whylen, "more than %d terms", CFG_PMU_TERMS_MAX);
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
        return fail(c, v->start_mark, k->path, node_text(v, tb, sizeof(tb)),
                    "expected a mapping of perf event name -> expression or null, got %s",
                    node_kind(v));
    uint32_t n = 0;
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *pk = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *pv = yaml_document_get_node(c->doc, p->value);
        if (!pk || pk->type != YAML_SCALAR_NODE)
            return fail(c, pk ? pk->start_mark : v->start_mark, k->path, "(complex key)",
                        "perf event names must be plain names");
        const char *name = scalar(pk);
        snprintf(path, sizeof(path), "%s.%s", k->path, name);
        size_t nl = strlen(name);
        if (nl == 0 || nl >= CFG_NAME_MAX)
            return fail(c, pk->start_mark, path, "(key)",
                        "a perf event name must have 1 to %d characters", CFG_NAME_MAX - 1);
        for (size_t i = 0; i < nl; i++)
            if (!isalnum((unsigned char)name[i]) && !strchr("_.:/=,-", name[i]))
                return fail(c, pk->start_mark, path, "(key)",
                            "character '%c' not allowed in a perf event name", name[i]);
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(c->m->pmu[i].name, name) == 0)
                return fail(c, pk->start_mark, path, node_text(pv, tb, sizeof(tb)),
                            "duplicate key");
        if (n == CFG_PMU_MAX)
            return fail(c, pk->start_mark, path, node_text(pv, tb, sizeof(tb)),
                        "more than %d perf events", CFG_PMU_MAX);
        cfg_pmu_map_t *pm = &c->m->pmu[n];
        memcpy(pm->name, name, nl + 1);
        if (!pv || node_is_null(pv)) {
            pm->supported = false;
        } else if (pv->type != YAML_SCALAR_NODE) {
            return fail(c, pv->start_mark, path, node_text(pv, tb, sizeof(tb)),
                        "expected null or an expression such as '2*l1.fills_rfo + l1.misses', "
                        "got %s",
                        node_kind(pv));
        } else {
            pm->supported = true;
            if (pmu_expr(scalar(pv), pm, why, sizeof(why)) < 0)
                return fail(c, pv->start_mark, path, node_text(pv, tb, sizeof(tb)), "%s", why);
        }
        n++;
    }
    c->m->n_pmu = n;
    return 0;
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

static int parse_key(cfg_ctx_t *c, size_t i)
{
    const cfg_key_t *k = &c->keys[i];
    yaml_node_t *v = c->val[i];
    char tb[64];
    if (!v) {
        if (strncmp(k->path, "l3.", 3) == 0 && !c->l3_given)
            return 0;
        if (k->required)
            return fail(c, parent_mark(c, k->path), k->path, "(missing)", "required key not given");
        if (k->deflt) {
            char text[96];
            snprintf(text, sizeof(text), "%s (default)", k->deflt[0] ? k->deflt : "\"\"");
            return parse_text(c, k, k->deflt, parent_mark(c, k->path), text);
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
    default:
        break;
    }
    if (v->type != YAML_SCALAR_NODE)
        return fail(c, v->start_mark, k->path, node_text(v, tb, sizeof(tb)), "expected %s, got %s",
                    type_expect(k), node_kind(v));
    if (node_is_null(v))
        return fail(c, v->start_mark, k->path, node_text(v, tb, sizeof(tb)),
                    "a value is required (expected %s)", type_expect(k));
    return parse_text(c, k, scalar(v), v->start_mark, node_text(v, tb, sizeof(tb)));
}

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
    int i = key_index(c, path);
    if (i >= 0 && c->val[i])
        return fail(c, c->val[i]->start_mark, path, node_text(c->val[i], tb, sizeof(tb)), "%s",
                    rule);
    const char *d = i >= 0 ? c->keys[i].deflt : NULL;
    snprintf(text, sizeof(text), "%s (default)", d ? d : "(none)");
    return fail(c, parent_mark(c, path), path, text, "%s", rule);
}

static bool is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static int check_cache(cfg_ctx_t *c, const char *lv, cfg_cache_t *cc)
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
    const cfg_prefetch_t *pf = &cc->prefetch;
    if (!is_pow2(pf->boundary_bytes) || pf->boundary_bytes < cc->line_bytes)
        return failk(c, KP("prefetch.boundary"),
                     "must be a power of two of at least one line (%u B)", cc->line_bytes);
    if (pf->enabled && pf->distance_lines == 0)
        return failk(c, KP("prefetch.distance"),
                     "must be at least 1 when the prefetcher is enabled");
#undef KP
    return 0;
}

static const char *base_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(buf, len, "%s", b);
    size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
        buf[n - 5] = '\0';
    else if (n > 4 && strcmp(buf + n - 4, ".yml") == 0)
        buf[n - 4] = '\0';
    return buf;
}

static int derive_and_check(cfg_ctx_t *c)
{
    cfg_machine_t *m = c->m;
    char a[32], b[32];

    /* identity */
    for (const char *p = m->name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return failk(c, "name", "may contain only letters, digits, '-', '_' and '.'");
    char base[CFG_TEXT_MAX];
    base_name(c->file, base, sizeof(base));
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
    const cfg_cache_t *last = m->l3.present ? &m->l3 : &m->l2;
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
    if ((m->features & (CFG_FEAT_ERMS | CFG_FEAT_REP_GOOD | CFG_FEAT_MOPS)) != 0) {
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
        const cfg_cache_t *cl = lvl == 1 ? &m->l1 : lvl == 2 ? &m->l2 : &m->l3;
        if (!cl->present)
            return failk(c, "string.elide.threshold_level", "names l3, which is not present");
        double t = floor(m->elide_threshold_fraction * (double)cl->size_bytes + 0.5);
        m->elide_threshold_bytes = d2u(t);
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

    /* write streaming */
    if (m->ws_enabled && m->ws_enter_lines == 0)
        return failk(c, "write_streaming.enter_lines",
                     "must be at least 1 when write_streaming.enabled is true");

    /* libc memset */
    if (m->memset_vec_bytes != 16 && m->memset_vec_bytes != 32 && m->memset_vec_bytes != 64)
        return failk(c, "libc.memset.vector", "must be 16, 32 or 64");
    if (m->isa == CFG_ISA_X86_64 && m->memset_zva_bytes != 0)
        return failk(c, "libc.memset.zva_threshold", "only for arm64 machines (isa: x86_64)");
    if (m->isa == CFG_ISA_X86_64 && m->memset_mops)
        return failk(c, "libc.memset.mops", "only for arm64 machines (isa: x86_64)");
    if (m->isa == CFG_ISA_ARM64 && m->memset_stosb_bytes != 0)
        return failk(c, "libc.memset.rep_stosb_threshold", "only for x86_64 machines (isa: arm64)");

    /* os */
    if (!is_pow2(m->max_order_pages))
        return failk(c, "os.max_order_pages", "must be a power of two");
    return 0;
}

/* ---- loading ------------------------------------------------------------- */

/* Line and column (0-based) of a byte offset, for reader errors without a mark. */
static yaml_mark_t mark_of_offset(const char *s, size_t len, size_t off)
{
    yaml_mark_t mk = {0, 0, 0};
    for (size_t i = 0; i < off && i < len; i++) {
        if (s[i] == '\n') {
            mk.line++;
            mk.column = 0;
        } else {
            mk.column++;
        }
    }
    mk.index = off;
    return mk;
}

static void yaml_fail(cfg_ctx_t *c, const yaml_parser_t *p, const char *yaml, size_t len)
{
    yaml_mark_t mk = p->problem_mark;
    if (p->error == YAML_READER_ERROR)
        mk = mark_of_offset(yaml, len, p->problem_offset);
    const char *problem = p->problem ? p->problem : "unknown YAML error";
    if (p->error == YAML_MEMORY_ERROR)
        problem = "out of memory while parsing";
    if (p->context)
        fail(c, mk, "(yaml)", "(not YAML)", "%s %s (line %zu:%zu)", problem, p->context,
             p->context_mark.line + 1, p->context_mark.column + 1);
    else
        fail(c, mk, "(yaml)", "(not YAML)", "%s", problem);
}

static cfg_machine_t *load_string(const char *yaml, size_t len, const char *name, double clock_ghz,
                                  cfg_error_t *err)
{
    if (err)
        err->msg[0] = '\0';
    cfg_ctx_t *c = calloc(1, sizeof(*c));
    cfg_machine_t *m = calloc(1, sizeof(*m));
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    bool parser_ok = false, doc_ok = false;
    if (!c || !m) {
        err_set(err, "%s: out of memory", name ? name : "(machine)");
        goto fail;
    }
    c->file = name ? name : "(machine)";
    c->err = err;
    c->m = m;
    c->clock_ghz = clock_ghz;
    c->keys = cfg_keys(&c->nkeys);
    if (c->nkeys > CFG_KEYS_MAX) {
        err_set(err, "%s: internal error: key table larger than %d", c->file, CFG_KEYS_MAX);
        goto fail;
    }
    if (!yaml || len > CFG_FILE_MAX) {
        err_set(err, "%s: not a machine file (larger than %u bytes)", c->file, CFG_FILE_MAX);
        goto fail;
    }
    if (strlen(c->file) >= sizeof(m->path)) {
        err_set(err, "%s: path longer than %zu characters", c->file, sizeof(m->path) - 1);
        goto fail;
    }
    if (!yaml_parser_initialize(&parser)) {
        err_set(err, "%s: out of memory", c->file);
        goto fail;
    }
    parser_ok = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_fail(c, &parser, yaml, len);
        goto fail;
    }
    doc_ok = true;
    c->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_mark_t top = {0, 0, 0};
    if (!root) {
        fail(c, top, "(top level)", "(empty)",
             "empty file; a machine file is a mapping of keys (see configs/README.md)");
        goto fail;
    }
    if (root->type != YAML_MAPPING_NODE) {
        char tb[64];
        fail(c, root->start_mark, "(top level)", node_text(root, tb, sizeof(tb)),
             "expected a mapping of machine keys, got %s", node_kind(root));
        goto fail;
    }
    /* one document only */
    if (!yaml_parser_load(&parser, &extra)) {
        yaml_fail(c, &parser, yaml, len);
        goto fail;
    }
    yaml_node_t *extra_root = yaml_document_get_root_node(&extra);
    if (extra_root) {
        fail(c, extra.start_mark, "(top level)", "---", "more than one YAML document");
        yaml_document_delete(&extra);
        goto fail;
    }
    yaml_document_delete(&extra);

    c->root_mark = root->start_mark;
    if (walk_map(c, root, "") < 0)
        goto fail;
    int fi = key_index(c, "core.freq");
    if (fi < 0 || parse_key(c, (size_t)fi) < 0)
        goto fail;
    for (size_t i = 0; i < c->nkeys; i++)
        if ((int)i != fi && parse_key(c, i) < 0)
            goto fail;
    if (derive_and_check(c) < 0)
        goto fail;
    snprintf(m->path, sizeof(m->path), "%s", c->file);

    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    free(c);
    return m;

fail:
    if (doc_ok)
        yaml_document_delete(&doc);
    if (parser_ok)
        yaml_parser_delete(&parser);
    free(c);
    free(m);
    return NULL;
}

cfg_machine_t *cfg_machine_load_string(const char *yaml, size_t len, const char *name,
                                       cfg_error_t *err)
{
    return load_string(yaml, len, name, 0, err);
}

cfg_machine_t *cfg_machine_load(const char *path, cfg_error_t *err)
{
    return cfg_machine_load_at_clock(path, 0, err);
}

cfg_machine_t *cfg_machine_load_at_clock(const char *path, double clock_ghz, cfg_error_t *err)
{
    if (err)
        err->msg[0] = '\0';
    if (!path || !path[0]) {
        err_set(err, "(machine): no file name given");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(CFG_FILE_MAX + 1);
    if (!buf) {
        fclose(f);
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(buf, 1, CFG_FILE_MAX + 1, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        err_set(err, "%s: cannot read: read error (is it a directory?)", path);
        return NULL;
    }
    if (n > CFG_FILE_MAX) {
        free(buf);
        err_set(err, "%s: not a machine file (larger than %u bytes)", path, CFG_FILE_MAX);
        return NULL;
    }
    cfg_machine_t *m = load_string(buf, n, path, clock_ghz, err);
    free(buf);
    return m;
}

void cfg_machine_destroy(cfg_machine_t *m)
{
    free(m);
}

/* ---- finding machine files ------------------------------------------------ */

const char *cfg_configs_dir(void)
{
    const char *e = getenv("CLEARSIM_CONFIGS");
    if (e && e[0])
        return e;
    return CLEARSIM_SOURCE_DIR "/configs";
}

int cfg_machine_resolve(const char *arg, char *path, size_t pathlen, cfg_error_t *err)
{
    if (err)
        err->msg[0] = '\0';
    if (!arg || !arg[0]) {
        err_set(err, "--machine: no machine given (run `clearsim machines` to list them)");
        return -1;
    }
    size_t n = strlen(arg);
    bool is_path = strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
                   (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
    if (!is_path && strcmp(arg, "host") == 0) {
        err_set(err, "--machine host: host detection is provided by sim/host.c");
        return -1;
    }
    if (is_path) {
        if (n >= pathlen) {
            err_set(err, "--machine %s: path too long", arg);
            return -1;
        }
        memcpy(path, arg, n + 1);
        return 0;
    }
    for (const char *p = arg; *p; p++) {
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') {
            err_set(err, "--machine %s: not a machine name (run `clearsim machines` to list them)",
                    arg);
            return -1;
        }
    }
    const char *dir = cfg_configs_dir();
    int w = snprintf(path, pathlen, "%s/%s.yaml", dir, arg);
    if (w < 0 || (size_t)w >= pathlen) {
        err_set(err, "--machine %s: path too long", arg);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        err_set(err, "--machine %s: no machine file %s (run `clearsim machines` to list them)", arg,
                path);
        return -1;
    }
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int cfg_machine_list(char names[][CFG_NAME_MAX], size_t max, size_t *count, cfg_error_t *err)
{
    if (err)
        err->msg[0] = '\0';
    *count = 0;
    const char *dir = cfg_configs_dir();
    DIR *d = opendir(dir);
    if (!d) {
        err_set(err, "%s: cannot list machine files: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    size_t n = 0;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        if (l - 5 >= CFG_NAME_MAX)
            continue; /* cannot be a valid name: name must equal the base name */
        if (n == max) {
            err_set(err, "%s: more than %zu machine files", dir, max);
            rc = -1;
            break;
        }
        memcpy(names[n], e->d_name, l - 5);
        names[n][l - 5] = '\0';
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_names);
    *count = n;
    return rc;
}

/* ---- key access for calibrate ----------------------------------------------- */

int cfg_key_get(const cfg_machine_t *m, const cfg_key_t *k, double *out)
{
    const void *src = (const char *)m + k->offset;
    switch (k->type) {
    case CFG_T_BOOL: {
        bool b;
        memcpy(&b, src, sizeof(b));
        *out = b ? 1 : 0;
        return 0;
    }
    case CFG_T_ENUM: {
        int v;
        memcpy(&v, src, sizeof(v));
        *out = v;
        return 0;
    }
    case CFG_T_U32:
    case CFG_T_U64:
    case CFG_T_SIZE:
        *out = (double)load_uint(src, k->size);
        return 0;
    case CFG_T_DOUBLE:
    case CFG_T_TIME_NS:
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
    case CFG_T_FREQ:
    case CFG_T_BW:
        memcpy(out, src, sizeof(*out));
        return 0;
    default:
        return -1;
    }
}

int cfg_key_set(cfg_machine_t *m, const cfg_key_t *k, double v, cfg_error_t *err)
{
    void *dst = (char *)m + k->offset;
    if (!isfinite(v) || v < k->min || v > k->max) {
        err_set(err, "%s: %g: must be between %g and %g", k->path, v, k->min, k->max);
        return -1;
    }
    switch (k->type) {
    case CFG_T_U32:
    case CFG_T_U64:
    case CFG_T_SIZE:
        store_uint(dst, k->size, d2u(floor(v + 0.5)));
        break;
    case CFG_T_DOUBLE:
    case CFG_T_TIME_NS:
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
    case CFG_T_FREQ:
    case CFG_T_BW:
        memcpy(dst, &v, sizeof(v));
        break;
    default:
        err_set(err, "%s: not a numeric key", k->path);
        return -1;
    }
    if (strcmp(k->path, "string.elide.threshold_fraction") == 0 && v > 0) {
        int lvl = m->elide_threshold_level;
        const cfg_cache_t *cl = lvl == 1 ? &m->l1 : lvl == 2 ? &m->l2 : &m->l3;
        m->elide_threshold_bytes = d2u(floor(v * (double)cl->size_bytes + 0.5));
    }
    return 0;
}

/* ---- documentation ----------------------------------------------------------- */

static const char *type_unit(const cfg_key_t *k)
{
    switch (k->type) {
    case CFG_T_STRING:
        return "string";
    case CFG_T_BOOL:
        return "bool";
    case CFG_T_U32:
    case CFG_T_U64:
        return "integer";
    case CFG_T_DOUBLE:
        return "number";
    case CFG_T_SIZE:
        return "size (bytes)";
    case CFG_T_TIME_NS:
        return "time (ns; cycles via core.freq)";
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
        return "time (cycles; ns via core.freq)";
    case CFG_T_FREQ:
        return "frequency (GHz)";
    case CFG_T_BW:
        return "bandwidth (B/cycle; GB/s via core.freq)";
    case CFG_T_ENUM:
        return "enum";
    case CFG_T_FEATURES:
        return "list of names";
    case CFG_T_STARTUP:
        return "list of {len: size, cost: time}";
    case CFG_T_PMU:
        return "mapping";
    }
    return "?";
}

int cfg_keys_markdown(FILE *out)
{
    size_t n = 0;
    const cfg_key_t *keys = cfg_keys(&n);
    fprintf(out, "| key | type (stored unit) | default | range | fit | meaning |\n");
    fprintf(out, "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const cfg_key_t *k = &keys[i];
        char def[96], range[160], lo[48], hi[48];
        bool l3 = strncmp(k->path, "l3.", 3) == 0;
        if (k->required)
            snprintf(def, sizeof(def), "%s", l3 ? "required if `l3:` is given" : "required");
        else if (k->deflt && k->deflt[0])
            snprintf(def, sizeof(def), "`%s`", k->deflt);
        else if (k->deflt)
            snprintf(def, sizeof(def), "empty");
        else
            snprintf(def, sizeof(def), "none");
        switch (k->type) {
        case CFG_T_ENUM:
            snprintf(range, sizeof(range), "%s", k->enums);
            for (char *p = range; *p; p++)
                if (*p == '|')
                    *p = ',';
            break;
        case CFG_T_BOOL:
            snprintf(range, sizeof(range), "true, false");
            break;
        case CFG_T_STRING:
        case CFG_T_FEATURES:
        case CFG_T_PMU:
            snprintf(range, sizeof(range), "-");
            break;
        default:
            fmt_value(k, k->min, lo, sizeof(lo));
            if (k->max >= U64MAX_D)
                snprintf(range, sizeof(range), ">= %s", lo);
            else
                snprintf(range, sizeof(range), "%s .. %s", lo,
                         fmt_value(k, k->max, hi, sizeof(hi)));
            if (k->type == CFG_T_STARTUP)
                snprintf(range, sizeof(range), "cost %s .. %s, len <= 1TiB, sorted", lo, hi);
            break;
        }
        if (fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", k->path, type_unit(k), def, range,
                    k->fittable ? "yes" : "no", k->doc) < 0)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}
