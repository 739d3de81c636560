/*
 * detect.c - write a machine file for this host (see detect.h).
 *
 * Notes
 *  - The base machine file is parsed with libyaml into a node tree and written
 *    out again in document order: a key this host detects gets the detected
 *    value and a "# detected: <source>" comment; every other leaf keeps the
 *    base's value with "# not measured: from <base>". The base's own comments
 *    (its sources) do not apply to this host and are dropped.
 *  - Detected: name (given), description, isa, identity.{vendor, family,
 *    model, model_name}, features, l1/l2/l3.{size, ways, line} (the data or
 *    unified cache of cpu0 in sysfs), line_zero.block (CLZERO line / DC ZVA
 *    block, when the host has one), core.freq (measured by `detect`, see
 *    host_measure_core_ghz). A detected key the base lacks is appended
 *    (top level only); a cache level the host lacks keeps the base's values.
 *  - Output style: block mappings, two-space indent; sequences of scalars
 *    and mappings inside sequences in flow style ([a, b], {len: 0, cost: 1});
 *    plain scalars as written in the base, others double-quoted.
 *  - Deliberately not done: anchors, aliases, tags and multi-line scalars in
 *    the base are not reproduced (the bundled files use none).
 */
#include "sim/host/detect.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "kernels/kernels.h"
#include "sim/host/host_libc.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/infile.h"
#include "models/base/errbuf.h"
#include "sim/machine/units.h"

#ifndef CLEARSIM_VERSION
#define CLEARSIM_VERSION "unknown"
#endif

#define COMMENT_COL 44
#define TEXT_MAX    1024

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

bool detect_fit_cache(uint64_t size, uint32_t ways, uint32_t line, uint64_t *size_out,
                      uint32_t *ways_out)
{
    *size_out = size;
    *ways_out = ways;
    if (!line || !ways || !size)
        return false;
    if (ways <= 64 && size % ((uint64_t)ways * line) == 0 &&
        is_pow2(size / ((uint64_t)ways * line)))
        return false;
    uint64_t best_size = 0, best_diff = UINT64_MAX;
    uint32_t best_ways = 0, best_wd = UINT32_MAX;
    for (uint32_t w = 1; w <= 64; w++) {
        uint64_t way_bytes = (uint64_t)w * line;
        uint64_t sets = size / way_bytes;
        uint64_t lo = 1;
        while (lo * 2 <= sets)
            lo *= 2;
        for (uint64_t s = lo; s <= lo * 2; s *= 2) {
            uint64_t cand = way_bytes * s;
            uint64_t diff = cand > size ? cand - size : size - cand;
            uint32_t wd = w > ways ? w - ways : ways - w;
            if (diff < best_diff || (diff == best_diff && wd < best_wd)) {
                best_diff = diff;
                best_wd = wd;
                best_size = cand;
                best_ways = w;
            }
        }
    }
    *size_out = best_size;
    *ways_out = best_ways;
    return true;
}

/* ------------------------------------------------------------ nearest base */

int detect_nearest(const host_info_t *h, char *path, size_t pathlen, char *why, size_t whylen,
                   char *err, size_t errlen)
{
    catalog_t *cat = catalog_load(err, errlen);
    if (!cat)
        return -1;
    int best = -1;
    uint32_t best_score[3] = {0, 0, 0}; /* vendor differs, family differs, model distance */
    char best_path[MACHINE_TEXT_MAX] = "";
    machine_isa_t best_isa = MACHINE_ISA_X86_64;
    char best_vendor[MACHINE_NAME_MAX] = "";
    uint32_t best_family = 0, best_model = 0;
    char best_name[MACHINE_NAME_MAX] = "";
    for (size_t i = 0; i < catalog_count(cat); i++) {
        const machine_t *m = catalog_machine(cat, i);
        const char *p = catalog_path(cat, i);
        if (m && m->isa == h->isa) {
            uint32_t s[3] = {
                strcasecmp(m->vendor, h->vendor) != 0,
                m->family != h->family,
                m->model > h->model ? m->model - h->model : h->model - m->model,
            };
            bool better =
                best < 0 || s[0] < best_score[0] ||
                (s[0] == best_score[0] &&
                 (s[1] < best_score[1] || (s[1] == best_score[1] && s[2] < best_score[2])));
            if (better) {
                best = (int)i;
                memcpy(best_score, s, sizeof s);
                snprintf(best_path, sizeof best_path, "%s", p);
                snprintf(best_name, sizeof best_name, "%s", catalog_name(cat, i));
                best_isa = m->isa;
                snprintf(best_vendor, sizeof best_vendor, "%s", m->vendor);
                best_family = m->family;
                best_model = m->model;
            }
        }
    }
    catalog_destroy(cat);
    if (best < 0) {
        errbuf_set(err, errlen, "no bundled machine has this host's ISA (%s) to copy timings from",
                   h->isa == MACHINE_ISA_ARM64 ? "arm64" : "x86_64");
        return -1;
    }
    (void)best_isa;
    int w = snprintf(path, pathlen, "%s", best_path);
    if (w < 0 || (size_t)w >= pathlen) {
        errbuf_set(err, errlen, "machine file path too long: %s", best_path);
        return -1;
    }
    if (best_score[0])
        errbuf_set(why, whylen,
                   "no bundled %s machine; %s (%s family 0x%x model 0x%x) is the nearest of the "
                   "same ISA",
                   h->vendor, best_name, best_vendor, best_family, best_model);
    else if (best_score[1])
        errbuf_set(why, whylen,
                   "no bundled %s family 0x%x machine; %s (family 0x%x model 0x%x) is the nearest",
                   h->vendor, h->family, best_name, best_family, best_model);
    else if (best_score[2])
        errbuf_set(why, whylen, "%s: same vendor and family, model 0x%x (this host: 0x%x)",
                   best_name, best_model, h->model);
    else
        errbuf_set(why, whylen, "%s: same vendor, family and model", best_name);
    return 0;
}

/* ------------------------------------------------------------- the writer */

typedef struct gen {
    FILE *f;
    yaml_document_t *doc;
    const host_info_t *h;
    const char *name;
    char base[MACHINE_NAME_MAX]; /* base machine name */
    char base_desc[MACHINE_TEXT_MAX];
    bool done_top[8]; /* detected top-level keys written (see top_keys) */
    const detect_extra_t *x;
    bool *used; /* x->values[i] written */
} gen_t;

static const char *const top_keys[] = {"name", "description", "isa", "features", NULL};

/* key: value, padded, # comment. */
static void line_out(gen_t *g, int indent, const char *text, const char *comment)
{
    int n = fprintf(g->f, "%*s%s", indent, "", text);
    if (comment && comment[0]) {
        int pad = n < COMMENT_COL ? COMMENT_COL - n : 1;
        fprintf(g->f, "%*s# %s", pad, "", comment);
    }
    fputc('\n', g->f);
}

/* A double-quoted YAML scalar. */
static void quote(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    if (len < 3) {
        if (len)
            buf[0] = '\0';
        return;
    }
    buf[o++] = '"';
    for (; *s && o + 6 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

static void append(char *buf, size_t len, const char *s)
{
    size_t o = strlen(buf);
    if (o < len)
        snprintf(buf + o, len - o, "%s", s);
}

/* A node in flow style. */
static void flow(gen_t *g, yaml_node_t *n, char *buf, size_t len)
{
    buf[0] = '\0';
    char item[TEXT_MAX];
    switch (n->type) {
    case YAML_SCALAR_NODE:
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            snprintf(buf, len, "%s", (const char *)n->data.scalar.value);
        else
            quote((const char *)n->data.scalar.value, buf, len);
        return;
    case YAML_SEQUENCE_NODE:
        append(buf, len, "[");
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            flow(g, yaml_document_get_node(g->doc, *it), item, sizeof item);
            if (it != n->data.sequence.items.start)
                append(buf, len, ", ");
            append(buf, len, item);
        }
        append(buf, len, "]");
        return;
    case YAML_MAPPING_NODE:
        append(buf, len, "{");
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            if (p != n->data.mapping.pairs.start)
                append(buf, len, ", ");
            flow(g, yaml_document_get_node(g->doc, p->key), item, sizeof item);
            append(buf, len, item);
            append(buf, len, ": ");
            flow(g, yaml_document_get_node(g->doc, p->value), item, sizeof item);
            append(buf, len, item);
        }
        append(buf, len, "}");
        return;
    default:
        snprintf(buf, len, "~");
        return;
    }
}

static const host_cache_t *host_cache(const host_info_t *h, uint32_t level, uint32_t *index)
{
    for (uint32_t i = 0; i < h->n_caches; i++)
        if (h->caches[i].level == level && strcmp(h->caches[i].type, "Instruction") != 0 &&
            h->caches[i].size_bytes && h->caches[i].ways && h->caches[i].line_bytes) {
            *index = i;
            return &h->caches[i];
        }
    return NULL;
}

/* The detected value and its source for a key path, or false. */
static bool detected(gen_t *g, const char *path, char *val, size_t vlen, char *src, size_t slen)
{
    const host_info_t *h = g->h;
    const bool x86 = h->isa == MACHINE_ISA_X86_64;
    char tmp[TEXT_MAX];
    if (strcmp(path, "name") == 0) {
        snprintf(val, vlen, "%s", g->name);
        snprintf(src, slen, "set by clearsim detect; must equal the file's base name");
        return true;
    }
    if (strcmp(path, "description") == 0) {
        snprintf(tmp, sizeof tmp, "%s (detected; timings from %s, not measured)",
                 h->model_name[0] ? h->model_name : h->vendor, g->base);
        quote(tmp, val, vlen);
        snprintf(src, slen, "detected: identity below");
        return true;
    }
    if (strcmp(path, "isa") == 0) {
        snprintf(val, vlen, "%s", x86 ? "x86_64" : "arm64");
        snprintf(src, slen, "detected: the ISA clearsim runs on here");
        return true;
    }
    if (strcmp(path, "identity.vendor") == 0) {
        snprintf(val, vlen, "%s", h->vendor);
        if (x86)
            snprintf(src, slen, "detected: CPUID leaf 0 vendor string '%s'", h->vendor_id);
        else
            snprintf(src, slen, "detected: MIDR_EL1 implementer 0x%02x", h->family);
        return true;
    }
    if (strcmp(path, "identity.family") == 0) {
        snprintf(val, vlen, "0x%x", h->family);
        snprintf(src, slen, "detected: %s",
                 x86 ? "CPUID leaf 1 EAX, base + extended family" : "MIDR_EL1 implementer");
        return true;
    }
    if (strcmp(path, "identity.model") == 0) {
        snprintf(val, vlen, "0x%x", h->model);
        snprintf(src, slen, "detected: %s",
                 x86 ? "CPUID leaf 1 EAX, extended model << 4 | model" : "MIDR_EL1 part number");
        return true;
    }
    if (strcmp(path, "identity.model_name") == 0) {
        quote(h->model_name[0] ? h->model_name : h->vendor, val, vlen);
        snprintf(src, slen, "detected: %s",
                 x86 ? "CPUID leaves 0x80000002-0x80000004 (brand string)"
                     : "clearsim's table of MIDR part numbers");
        return true;
    }
    if (strcmp(path, "features") == 0) {
        char list[512];
        host_features_format(h->features, list, sizeof list);
        snprintf(val, vlen, "[");
        for (char *p = list; *p; p++)
            if (*p == ',') {
                append(val, vlen, ", ");
            } else {
                char one[2] = {*p, '\0'};
                append(val, vlen, one);
            }
        append(val, vlen, "]");
        snprintf(src, slen, "detected: %s",
                 x86 ? "CPUID leaves 1, 7.0, 7.1, 0x80000008 + XGETBV; rep_good: /proc/cpuinfo"
                     : "AT_HWCAP2 (MOPS), DCZID_EL0 (DC ZVA)");
        return true;
    }
    if (strcmp(path, "core.freq") == 0 && h->core_ghz > 0) {
        snprintf(val, vlen, "%.2fGHz", h->core_ghz);
        snprintf(src, slen,
                 "detected: measured, a chain of dependent register adds (1 cycle each) timed "
                 "on this host (the clock while working, turbo included; not the TSC rate)");
        return true;
    }
    if (strcmp(path, "line_zero.block") == 0 && h->line_zero_bytes) {
        unit_format_size(h->line_zero_bytes, val, vlen);
        snprintf(src, slen, "detected: %s",
                 x86 ? "CPUID leaf 1 EBX[15:8] x 8 (CLFLUSH line; CLZERO clears one)"
                     : "DCZID_EL0: 4 << BS");
        return true;
    }
    uint32_t level;
    char field[16];
    if (sscanf(path, "l%u.%15s", &level, field) == 2 && level >= 1 && level <= 3 &&
        (strcmp(field, "size") == 0 || strcmp(field, "ways") == 0 || strcmp(field, "line") == 0)) {
        uint32_t idx = 0;
        const host_cache_t *c = host_cache(h, level, &idx);
        if (!c)
            return false;
        uint64_t size;
        uint32_t ways;
        bool changed = detect_fit_cache(c->size_bytes, c->ways, c->line_bytes, &size, &ways);
        char a[32], b[32];
        const char *dir = c->source; /* a sysfs directory or a CPUID leaf */
        if (strcmp(field, "line") == 0) {
            unit_format_size(c->line_bytes, val, vlen);
            snprintf(src, slen, "detected: %scoherency_line_size", dir);
        } else if (!changed) {
            if (strcmp(field, "size") == 0)
                unit_format_size(size, val, vlen);
            else
                snprintf(val, vlen, "%u", ways);
            snprintf(src, slen, "detected: %s%s", dir,
                     strcmp(field, "size") == 0 ? "size" : "ways_of_associativity");
        } else {
            unit_format_size(c->size_bytes, a, sizeof a);
            unit_format_size(size, b, sizeof b);
            if (strcmp(field, "ways") == 0) {
                snprintf(val, vlen, "%u", ways);
                snprintf(src, slen,
                         "detected: %sways_of_associativity says %u; %u here so that the set "
                         "count is a power of two (see size)",
                         dir, c->ways, ways);
                return true;
            }
            snprintf(val, vlen, "%s", b);
            snprintf(src, slen,
                     "detected: %s says %s, %u ways: %" PRIu64
                     " sets, not a power of two as the cache model needs; written as the "
                     "nearest it accepts, %u ways x %" PRIu64 " sets = %s",
                     dir, a, c->ways, c->size_bytes / ((uint64_t)c->ways * c->line_bytes), ways,
                     size / ((uint64_t)ways * c->line_bytes), b);
        }
        return true;
    }
    return false;
}

static void emit_map(gen_t *g, yaml_node_t *map, int indent, const char *prefix);

/* The caller's value for path, marked used, or NULL. */
static const detect_value_t *given(gen_t *g, const char *path)
{
    for (size_t i = 0; g->x && i < g->x->n_values; i++)
        if (strcmp(g->x->values[i].path, path) == 0) {
            g->used[i] = true;
            return &g->x->values[i];
        }
    return NULL;
}

static void emit_given(gen_t *g, int indent, const char *key, const detect_value_t *d)
{
    char text[TEXT_MAX];
    if (!d->value[0])
        return; /* dropped */
    snprintf(text, sizeof text, "%s: %s", key, d->value);
    line_out(g, indent, text, d->comment);
}

static void emit_pair(gen_t *g, const char *key, yaml_node_t *v, int indent, const char *prefix)
{
    char path[256], val[TEXT_MAX], src[TEXT_MAX], text[TEXT_MAX + 300], note[TEXT_MAX];
    snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", key);
    const cfg_key_t *ck = cfg_key_find(path);
    bool timing = ck && ck->fittable && ck->type != CFG_T_U32 && ck->type != CFG_T_U64 &&
                  ck->type != CFG_T_SIZE && ck->type != CFG_T_ENUM && ck->type != CFG_T_BOOL;
    if (g->x && g->x->base_note_timing && timing)
        snprintf(note, sizeof note, "%s", g->x->base_note_timing);
    else if (g->x && g->x->base_note)
        snprintf(note, sizeof note, "%s", g->x->base_note);
    else
        snprintf(note, sizeof note, "not measured: from %s", g->base);
    if (!prefix[0])
        for (int i = 0; top_keys[i]; i++)
            if (strcmp(key, top_keys[i]) == 0)
                g->done_top[i] = true;
    if (!prefix[0] && g->x && g->x->skip_top && strcmp(key, g->x->skip_top) == 0)
        return;
    const detect_value_t *d = given(g, path);
    if (d) {
        emit_given(g, indent, key, d);
        return;
    }
    if (detected(g, path, val, sizeof val, src, sizeof src)) {
        snprintf(text, sizeof text, "%s: %s", key, val);
        line_out(g, indent, text, src);
        return;
    }
    if (v->type == YAML_MAPPING_NODE && v->data.mapping.pairs.top > v->data.mapping.pairs.start) {
        snprintf(text, sizeof text, "%s:", key);
        line_out(g, indent, text, NULL);
        emit_map(g, v, indent + 2, path);
        return;
    }
    if (v->type == YAML_SEQUENCE_NODE &&
        v->data.sequence.items.top > v->data.sequence.items.start &&
        yaml_document_get_node(g->doc, *v->data.sequence.items.start)->type == YAML_MAPPING_NODE) {
        snprintf(text, sizeof text, "%s:", key);
        line_out(g, indent, text, note);
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
             it++) {
            flow(g, yaml_document_get_node(g->doc, *it), val, sizeof val);
            snprintf(text, sizeof text, "- %s", val);
            line_out(g, indent + 2, text, NULL);
        }
        return;
    }
    flow(g, v, val, sizeof val);
    snprintf(text, sizeof text, "%s: %s", key, val);
    line_out(g, indent, text, note);
}

/* Whether the base's mapping (NULL: none) has the key. */
static bool base_has(gen_t *g, yaml_node_t *map, const char *key, size_t keylen)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return false;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(g->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE &&
            strlen((const char *)k->data.scalar.value) == keylen &&
            strncmp((const char *)k->data.scalar.value, key, keylen) == 0)
            return true;
    }
    return false;
}

/* The caller's keys under prefix that the base's mapping there (map; NULL:
 * the base has none) lacks: its own leaves, then each mapping below it that
 * the base lacks too (tlb.host_miss in a base file without one), written out
 * with its keys; a mapping only when a value under it is written (a dropped
 * value, "", writes nothing). A key the base has is its emit_pair's. */
static void emit_missing(gen_t *g, yaml_node_t *map, int indent, const char *prefix)
{
    size_t plen = strlen(prefix);
    for (size_t i = 0; g->x && i < g->x->n_values; i++) {
        const char *p = g->x->values[i].path;
        if (g->used[i] || strncmp(p, prefix, plen) != 0 || (plen && p[plen] != '.'))
            continue;
        const char *leaf = p + plen + (plen ? 1 : 0);
        if (strchr(leaf, '.'))
            continue;
        g->used[i] = true;
        emit_given(g, indent, leaf, &g->x->values[i]);
    }
    for (size_t i = 0; g->x && i < g->x->n_values; i++) {
        const char *p = g->x->values[i].path;
        if (g->used[i] || strncmp(p, prefix, plen) != 0 || (plen && p[plen] != '.'))
            continue;
        const char *leaf = p + plen + (plen ? 1 : 0);
        const size_t seg = (size_t)(strchr(leaf, '.') - leaf); /* leaves were written above */
        char sub[sizeof g->x->values[i].path + 1];
        snprintf(sub, sizeof sub, "%.*s", (int)(plen + (plen ? 1 : 0) + seg), p);
        bool shown = false; /* a value under sub that writes a line */
        for (size_t j = i; j < g->x->n_values; j++)
            if (!g->used[j] && strncmp(g->x->values[j].path, sub, strlen(sub)) == 0 &&
                g->x->values[j].path[strlen(sub)] == '.') {
                if (g->x->values[j].value[0])
                    shown = true;
                else
                    g->used[j] = true; /* dropped */
            }
        if (!shown || base_has(g, map, leaf, seg))
            continue; /* nothing to write, or the base's key (its pair said what it holds) */
        char text[sizeof sub + 2];
        snprintf(text, sizeof text, "%.*s:", (int)seg, leaf);
        line_out(g, indent, text, NULL);
        emit_missing(g, NULL, indent + 2, sub); /* uses every value under sub */
    }
}

static void emit_map(gen_t *g, yaml_node_t *map, int indent, const char *prefix)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(g->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(g->doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE)
            continue;
        emit_pair(g, (const char *)k->data.scalar.value, v, indent, prefix);
    }
    emit_missing(g, map, indent, prefix);
}

static int load_doc(const char *path, yaml_document_t *doc, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (infile_read(path, INFILE_MAX_FIGURES_BYTES, NULL, &text, &len, err, errlen) != 0)
        return -1;
    if (infile_yaml_bounds(text, len, path, err, errlen) != 0) {
        free(text);
        return -1;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        free(text);
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&parser, doc);
    yaml_parser_delete(&parser);
    free(text);
    if (!ok) {
        errbuf_set(err, errlen, "%s: not valid YAML", path);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        yaml_document_delete(doc);
        errbuf_set(err, errlen, "%s: not a mapping at the top level", path);
        return -1;
    }
    return 0;
}

char *detect_machine_yaml(const host_info_t *h, const char *name, const char *base_path,
                          const char *base_why, char *err, size_t errlen)
{
    /* memset's thresholds are this host's C library's, not the base's */
    detect_value_t lv[HOST_LIBC_VALUES];
    detect_extra_t x = {.values = lv, .n_values = 0};
    char why[256];
    machine_t *base = cfg_machine_load(base_path, why, sizeof why);
    host_libc_t *lc = malloc(sizeof *lc);
    if (base && lc) {
        int n = host_libc_values(h, base, host_cache_bytes(h, 2), host_cache_bytes(h, 3), lc, lv,
                                 why, sizeof why);
        x.n_values = n > 0 ? (size_t)n : 0;
    }
    free(lc);
    cfg_machine_destroy(base);
    return detect_machine_yaml_ex(h, name, base_path, base_why, x.n_values ? &x : NULL, err,
                                  errlen);
}

char *detect_machine_yaml_ex(const host_info_t *h, const char *name, const char *base_path,
                             const char *base_why, const detect_extra_t *x, char *err,
                             size_t errlen)
{
    yaml_document_t doc;
    if (load_doc(base_path, &doc, err, errlen) != 0)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    gen_t g = {.doc = &doc, .h = h, .name = name, .x = x};
    g.used = calloc(x && x->n_values ? x->n_values : 1, sizeof *g.used);
    g.f = g.used ? open_memstream(&text, &len) : NULL;
    if (!g.f) {
        free(g.used);
        yaml_document_delete(&doc);
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    const char *b = strrchr(base_path, '/');
    snprintf(g.base, sizeof g.base, "%s", b ? b + 1 : base_path);
    size_t bl = strlen(g.base);
    if (bl > 5 && strcmp(g.base + bl - 5, ".yaml") == 0)
        g.base[bl - 5] = '\0';

    if (x && x->header) {
        fputs(x->header, g.f);
        goto body;
    }
    fprintf(g.f, "# Machine file for this host, written by 'clearsim detect' (clearsim %s).\n",
            CLEARSIM_VERSION);
    fprintf(g.f, "# Host: %s (%s family 0x%x model 0x%x stepping %u)%s%s%s.\n",
            h->model_name[0] ? h->model_name : "?", h->vendor, h->family, h->model, h->stepping,
            h->hypervisor ? ", a guest of hypervisor '" : "",
            h->hypervisor ? (h->hypervisor_vendor[0] ? h->hypervisor_vendor : "?") : "",
            h->hypervisor ? "'" : "");
    char kp[192];
    host_kernel_pages_comment(h, kp, sizeof kp);
    fputs(kp, g.f);
    fprintf(g.f, "# '# detected: <source>' marks a value read from this host.\n");
    fprintf(g.f, "# '# not measured: from %s' marks a value copied from the nearest bundled\n",
            g.base);
    if (base_why)
        fprintf(g.f, "# machine (%s);\n", base_why);
    else
        fprintf(g.f, "# machine;\n");
    fprintf(g.f, "# measure or calibrate those before trusting predictions.\n");
    fprintf(g.f, "# name: must equal this file's base name (clearsim detect --name NAME).\n");
body:
    emit_map(&g, yaml_document_get_root_node(&doc), 0, "");
    /* detected top-level keys the base does not have */
    for (int i = 0; top_keys[i]; i++) {
        if (g.done_top[i])
            continue;
        char val[TEXT_MAX], src[TEXT_MAX], line[TEXT_MAX + 64];
        if (detected(&g, top_keys[i], val, sizeof val, src, sizeof src)) {
            snprintf(line, sizeof line, "%s: %s", top_keys[i], val);
            line_out(&g, 0, line, src);
        }
    }
    uint32_t idx;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool base_l3 = false;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, "l3") == 0)
            base_l3 = true;
    }
    const host_cache_t *l3 = host_cache(h, 3, &idx);
    if (!base_l3 && l3)
        fprintf(g.f,
                "# this host has an L3 (%s) but %s has no l3: section to copy its timing "
                "from; add one\n",
                l3->source, g.base);
    if (x && x->tail)
        fputs(x->tail, g.f);
    yaml_document_delete(&doc);
    const char *lost = NULL;
    for (size_t i = 0; x && i < x->n_values && !lost; i++)
        if (!g.used[i])
            lost = x->values[i].path;
    free(g.used);
    if (fclose(g.f) != 0 || !text) {
        free(text);
        errbuf_set(err, errlen, "out of memory writing the machine file");
        return NULL;
    }
    if (lost) {
        errbuf_set(err, errlen, "%s: the base machine file has no mapping to put it in", lost);
        free(text);
        return NULL;
    }

    /* What detect prints must load. */
    char fname[MACHINE_NAME_MAX + 8];
    snprintf(fname, sizeof fname, "%s.yaml", name);
    char cerr[512] = "";
    machine_t *m = cfg_machine_load_string(text, len, fname, cerr, sizeof cerr);
    if (!m) {
        errbuf_set(err, errlen, "the generated machine file does not load: %s", cerr);
        free(text);
        return NULL;
    }
    cfg_machine_destroy(m);
    return text;
}
