/*
 * cfg_tree.c - machine files, stages 1 and 2a: libyaml's node tree and its
 * walk against the key table; the error line every stage reports through,
 * the node helpers and the key look-ups (with "did you mean") that the later
 * stages use.
 *
 * Notes
 *  1. libyaml's yaml_parser_load() builds a node tree; every node keeps its
 *     start mark, so every error can name line:column. A file is one YAML
 *     document whose top level is a mapping.
 *  2. The tree is walked against the key table (cfg_keys.c): a mapping whose
 *     dotted path is a prefix of some key is a section and is walked; a path
 *     in the table is a leaf; anything else is an unknown key (with a "did
 *     you mean" when a key is within two edits). Duplicate keys are errors.
 *  - Every error is one line, "file:line:col: key.path: value: rule broken"
 *    (line and column 1-based), and loading stops at the first.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg_impl.h"
#include "sim/machine/suggest.h"

/* "file:line:col: path: value: rule" */
int cfg_i_fail(cfg_ctx_t *c, yaml_mark_t mk, const char *path, const char *value, const char *fmt,
               ...)
{
    char rule[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof(rule), fmt, ap);
    va_end(ap);
    if (mk.index >= CFG_SET_MARK && mk.index - CFG_SET_MARK < c->n_set)
        errbuf_set(c->err, c->errlen, "--set %s: %s: %s: %s", c->set[mk.index - CFG_SET_MARK], path,
                   value, rule);
    else
        errbuf_set(c->err, c->errlen, "%s:%zu:%zu: %s: %s: %s", c->file, mk.line + 1, mk.column + 1,
                   path, value, rule);
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

/* The closest known key or section to an unknown path, or NULL
 * (sim/machine/suggest.h). */
const char *cfg_i_suggest(const char *path, const char *const *names, size_t n, char *buf,
                          size_t len)
{
    suggest_t s;
    suggest_init(&s, path);
    for (size_t i = 0; i < n; i++)
        suggest_offer(&s, names[i]);
    return suggest_copy(&s, buf, len);
}

static const char *suggest_key(const cfg_ctx_t *c, const char *path, char *buf, size_t len)
{
    char best[CFG_PATH_MAX];
    suggest_t s;
    suggest_init(&s, path);
    best[0] = '\0';
    for (size_t i = 0; i < c->nkeys; i++) {
        /* the key itself and each of its sections */
        char p[CFG_PATH_MAX];
        snprintf(p, sizeof(p), "%s", c->keys[i].path);
        for (;;) {
            if (suggest_offer(&s, p))
                suggest_keep(&s, best, sizeof best); /* p is reused */
            char *dot = strrchr(p, '.');
            if (!dot)
                break;
            *dot = '\0';
        }
    }
    return suggest_copy(&s, buf, len);
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

int cfg_i_walk(cfg_ctx_t *c, yaml_node_t *map, const char *prefix)
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
            if (cfg_i_walk(c, v, full) < 0)
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

void cfg_i_yaml_fail(cfg_ctx_t *c, const yaml_parser_t *p, const char *yaml, size_t len)
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

/* ---- overrides (--set KEY=VALUE) ------------------------------------------ */

static bool set_scalar_type(cfg_type_t t)
{
    return t != CFG_T_FEATURES && t != CFG_T_STARTUP && t != CFG_T_PMU && t != CFG_T_MICROBENCH &&
           t != CFG_T_MBFIT;
}

/* Split "KEY=VALUE"; the key into key (len bytes). Returns the value, or NULL. */
static const char *set_split(const char *arg, char *key, size_t len)
{
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || (size_t)(eq - arg) >= len)
        return NULL;
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = '\0';
    return eq + 1;
}

int cfg_set_check(const char *arg, char *err, size_t errlen)
{
    char key[CFG_PATH_MAX];
    if (!arg || strlen(arg) >= MACHINE_SET_ARG_MAX)
        return errbuf_set(err, errlen, "--set: an override is at most %d characters",
                          MACHINE_SET_ARG_MAX - 1);
    const char *v = set_split(arg, key, sizeof key);
    if (!v || !key[0])
        return errbuf_set(err, errlen, "--set '%s': expected KEY=VALUE (e.g. l2.mshrs=64)", arg);
    if (!v[0])
        return errbuf_set(err, errlen, "--set '%s': no value for %s", arg, key);
    const cfg_key_t *k = cfg_key_find(key);
    if (!k) {
        size_t n = 0;
        const cfg_key_t *all = cfg_keys(&n);
        const char *names[CFG_KEYS_MAX];
        for (size_t i = 0; i < n && i < CFG_KEYS_MAX; i++)
            names[i] = all[i].path;
        char sb[CFG_PATH_MAX];
        const char *hit =
            cfg_i_suggest(key, names, n < CFG_KEYS_MAX ? n : CFG_KEYS_MAX, sb, sizeof sb);
        return errbuf_set(err, errlen,
                          "--set '%s': unknown machine key '%s'%s%s%s (see configs/README.md)", arg,
                          key, hit ? " (did you mean '" : "", hit ? hit : "", hit ? "'?)" : "");
    }
    if (!set_scalar_type(k->type))
        return errbuf_set(err, errlen,
                          "--set '%s': %s is a list or a section; --set takes keys of one value",
                          arg, key);
    return 0;
}

int cfg_i_set_add_nodes(cfg_ctx_t *c)
{
    if (c->n_set > MACHINE_SET_MAX)
        return errbuf_set(c->err, c->errlen, "--set: at most %d overrides", MACHINE_SET_MAX);
    for (size_t j = 0; j < c->n_set; j++) {
        if (cfg_set_check(c->set[j], c->err, c->errlen))
            return -1;
        const char *v = strchr(c->set[j], '=') + 1;
        int id = yaml_document_add_scalar(c->doc, NULL, (yaml_char_t *)(uintptr_t)v, (int)strlen(v),
                                          YAML_PLAIN_SCALAR_STYLE);
        if (!id)
            return errbuf_set(c->err, c->errlen, "--set %s: out of memory", c->set[j]);
        yaml_node_t *n = yaml_document_get_node(c->doc, id);
        n->start_mark.index = n->end_mark.index = CFG_SET_MARK + j;
        c->set_node[j] = id;
    }
    return 0;
}

int cfg_i_set_apply(cfg_ctx_t *c)
{
    for (size_t j = 0; j < c->n_set; j++) {
        char key[CFG_PATH_MAX];
        set_split(c->set[j], key, sizeof key); /* checked by cfg_i_set_add_nodes */
        int i = cfg_i_key_index(c, key);
        if (i < 0)
            return errbuf_set(c->err, c->errlen, "--set %s: unknown machine key", c->set[j]);
        c->val[i] = yaml_document_get_node(c->doc, c->set_node[j]);
        if (strncmp(key, "l3.", 3) == 0)
            c->l3_given = true;
    }
    return 0;
}
