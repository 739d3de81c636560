/*
 * cfg.c - machine files: YAML (libyaml) -> cfg_machine_t, in four stages.
 * This file holds the pipeline, stages 1 and 2a, errors and the key table's
 * look-ups, finding files, key access and the key reference; stages 2b-4
 * (values, derived values, cross-checks) are in cfg_parse.c, and the load
 * context they share in cfg_impl.h.
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
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "sim/cfg_impl.h"
#include "sim/errbuf.h"
#include "sim/units.h"

#ifndef CLEARSIM_SOURCE_DIR
#define CLEARSIM_SOURCE_DIR "."
#endif

#define CFG_FILE_MAX (4u << 20) /* a machine file is a few KiB; refuse huge inputs */

_Static_assert(sizeof(int) == sizeof(uint32_t), "enum and int fields are stored as 32 bits");

/* ---- load context and errors ---------------------------------------------- */

static void err_set(cfg_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_set(cfg_error_t *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    errbuf_vset(err->msg, sizeof(err->msg), fmt, ap); /* one printable line, as every error */
    va_end(ap);
}

/* "file:line:col: path: value: rule" */
int cfg_i_fail(cfg_ctx_t *c, yaml_mark_t mk, const char *path, const char *value, const char *fmt,
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

const char *cfg_i_node_kind(const yaml_node_t *n)
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
const char *cfg_i_node_text(const yaml_node_t *n, char *buf, size_t len)
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

bool cfg_i_node_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

const char *cfg_i_scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* ---- key table look-ups --------------------------------------------------- */

int cfg_i_key_index(const cfg_ctx_t *c, const char *path)
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
const char *cfg_i_suggest(const char *path, const char *const *names, size_t n, char *buf,
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

yaml_mark_t cfg_i_parent_mark(const cfg_ctx_t *c, const char *path)
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
            return cfg_i_fail(c, k ? k->start_mark : map->start_mark, where,
                              cfg_i_node_text(k, tb, sizeof(tb)),
                              "keys must be plain names, not %s", cfg_i_node_kind(k));
        const char *kn = cfg_i_scalar(k);
        char full[CFG_PATH_MAX];
        if (strlen(kn) + strlen(prefix) + 2 > sizeof(full))
            return cfg_i_fail(c, k->start_mark, where, cfg_i_node_text(k, tb, sizeof(tb)),
                              "unknown key");
        size_t lp = strlen(prefix), lk = strlen(kn);
        if (lp) { /* lengths checked above */
            memcpy(full, prefix, lp);
            full[lp] = '.';
            memcpy(full + lp + 1, kn, lk + 1);
        } else {
            memcpy(full, kn, lk + 1);
        }
        if (strchr(kn, '.'))
            return cfg_i_fail(c, k->start_mark, full, cfg_i_node_text(v, tb, sizeof(tb)),
                              "unknown key '%s'; keys are single names (write nested mappings)",
                              full);
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *kq = yaml_document_get_node(c->doc, q->key);
            if (kq && kq->type == YAML_SCALAR_NODE && strcmp(cfg_i_scalar(kq), kn) == 0)
                return cfg_i_fail(c, k->start_mark, full, cfg_i_node_text(v, tb, sizeof(tb)),
                                  "duplicate key (first given at line %zu:%zu)",
                                  kq->start_mark.line + 1, kq->start_mark.column + 1);
        }
        int i = cfg_i_key_index(c, full);
        if (i >= 0) {
            c->val[i] = v;
            continue;
        }
        if (is_section(c, full)) {
            if (!v || v->type != YAML_MAPPING_NODE)
                return cfg_i_fail(
                    c, v ? v->start_mark : k->start_mark, full, cfg_i_node_text(v, tb, sizeof(tb)),
                    "expected a mapping of keys under '%s', got %s", full, cfg_i_node_kind(v));
            if (c->nsec == CFG_SECS_MAX)
                return cfg_i_fail(c, k->start_mark, full, "(mapping)", "too many sections");
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
        return cfg_i_fail(c, k->start_mark, full, cfg_i_node_text(v, tb, sizeof(tb)),
                          "unknown key '%s'%s", full, hint);
    }
    return 0;
}

/* ---- stage 2b: parse values ----------------------------------------------- */

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
        cfg_i_fail(c, mk, "(yaml)", "(not YAML)", "%s %s (line %zu:%zu)", problem, p->context,
                   p->context_mark.line + 1, p->context_mark.column + 1);
    else
        cfg_i_fail(c, mk, "(yaml)", "(not YAML)", "%s", problem);
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
        cfg_i_fail(c, top, "(top level)", "(empty)",
                   "empty file; a machine file is a mapping of keys (see configs/README.md)");
        goto fail;
    }
    if (root->type != YAML_MAPPING_NODE) {
        char tb[64];
        cfg_i_fail(c, root->start_mark, "(top level)", cfg_i_node_text(root, tb, sizeof(tb)),
                   "expected a mapping of machine keys, got %s", cfg_i_node_kind(root));
        goto fail;
    }
    /* one document only */
    if (!yaml_parser_load(&parser, &extra)) {
        yaml_fail(c, &parser, yaml, len);
        goto fail;
    }
    yaml_node_t *extra_root = yaml_document_get_root_node(&extra);
    if (extra_root) {
        cfg_i_fail(c, extra.start_mark, "(top level)", "---", "more than one YAML document");
        yaml_document_delete(&extra);
        goto fail;
    }
    yaml_document_delete(&extra);

    c->root_mark = root->start_mark;
    if (walk_map(c, root, "") < 0)
        goto fail;
    int fi = cfg_i_key_index(c, "core.freq");
    if (fi < 0 || cfg_i_parse_key(c, (size_t)fi) < 0)
        goto fail;
    for (size_t i = 0; i < c->nkeys; i++)
        if ((int)i != fi && cfg_i_parse_key(c, i) < 0)
            goto fail;
    if (cfg_i_derive_and_check(c) < 0)
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
        err_set(err, "--machine host: 'host' is not a machine file name here; give a machine "
                     "name or a path");
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
        *out = (double)cfg_i_load_uint(src, k->size);
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
        cfg_i_store_uint(dst, k->size, cfg_i_d2u(floor(v + 0.5)));
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
        m->elide_threshold_bytes = cfg_i_d2u(floor(v * (double)cl->size_bytes + 0.5));
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
            cfg_key_format(k, k->min, CFG_FMT_TEXT, lo, sizeof(lo));
            if (k->max >= U64MAX_D)
                snprintf(range, sizeof(range), ">= %s", lo);
            else
                snprintf(range, sizeof(range), "%s .. %s", lo,
                         cfg_key_format(k, k->max, CFG_FMT_TEXT, hi, sizeof(hi)));
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
