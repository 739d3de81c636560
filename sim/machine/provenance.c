/*
 * provenance.c - each value of a machine file with where it comes from (see
 * provenance.h).
 *
 * Notes
 *  - The file is read through infile (regular files only, capped, YAML
 *    bounded) and parsed into a libyaml document; its scalars' marks give the
 *    lines whose comments are then read from the text.
 *  - A '#' starts the comment only outside quotes, so a quoted value that
 *    holds one is not taken for a comment.
 */
#include "sim/machine/provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"

struct prov {
    prov_entry_t *e;
    size_t n, cap;
    /* the file's lines */
    const char **line;
    size_t n_lines;
    /* keys of the calibration header */
    char (*fitted)[128];
    size_t n_fitted;
};

static const char *const kind_names[PROV_KIND_COUNT] = {
    "measured", "sourced", "fitted", "derived", "inherited", "detected", "unsourced"};

const char *prov_kind_name(prov_kind_t k)
{
    return k < PROV_KIND_COUNT ? kind_names[k] : "?";
}

/* The comment of line l (1-based) without "#" and leading blanks, or "". */
static void line_comment(const prov_t *p, unsigned l, char *buf, size_t len)
{
    buf[0] = '\0';
    if (l == 0 || l > p->n_lines)
        return;
    const char *s = p->line[l - 1];
    char quote = 0;
    for (; *s && *s != '\n'; s++) {
        if (quote) {
            quote = *s == quote ? 0 : quote;
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        } else if (*s == '#') {
            s++;
            while (*s == ' ' || *s == '\t')
                s++;
            size_t n = strcspn(s, "\n");
            snprintf(buf, len, "%.*s", (int)n, s);
            return;
        }
    }
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Classify one comment; from gets the tag, file or text. */
static prov_kind_t classify(const char *c, char *from, size_t len)
{
    static const struct {
        const char *prefix;
        prov_kind_t kind;
    } tags[] = {{"measured:", PROV_MEASURED}, {"fitted:", PROV_FITTED},
                {"derived:", PROV_DERIVED},   {"shared:", PROV_INHERITED},
                {"detected:", PROV_DETECTED}, {"measured ", PROV_MEASURED}};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        if (starts(c, tags[i].prefix)) {
            const char *rest = c + strlen(tags[i].prefix);
            while (*rest == ' ')
                rest++;
            snprintf(from, len, "%s", rest);
            return tags[i].kind;
        }
    snprintf(from, len, "%s", c);
    /* no comment, or one that says there is no source */
    if (!c[0] || starts(c, "unsourced") || starts(c, "no source") || starts(c, "unknown"))
        return PROV_UNSOURCED;
    return PROV_SOURCED; /* a source tag ([AIDA]) or a source named in words */
}

/* The comment lines just above line l (1-based), joined, when l has none of
 * its own: a value's source may be written on the lines before it. */
static void block_above(const prov_t *p, unsigned l, char *buf, size_t len)
{
    buf[0] = '\0';
    unsigned first = l;
    while (first > 1) {
        const char *s = p->line[first - 2];
        s += strspn(s, " \t");
        if (*s != '#')
            break;
        first--;
    }
    size_t at = 0;
    for (unsigned i = first; i < l && at + 1 < len; i++) {
        char c[512];
        line_comment(p, i, c, sizeof c);
        int w = snprintf(buf + at, len - at, "%s%s", at ? " " : "", c);
        at = w < 0 ? len : at + (size_t)w;
    }
}

static bool is_fitted(const prov_t *p, const char *key)
{
    for (size_t i = 0; i < p->n_fitted; i++)
        if (strcmp(p->fitted[i], key) == 0)
            return true;
    return false;
}

static int add(prov_t *p, const char *key, const char *value, unsigned line, char *err,
               size_t errlen)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 128;
        prov_entry_t *ne = realloc(p->e, nc * sizeof *ne);
        if (!ne)
            return errbuf_set(err, errlen, "out of memory");
        p->e = ne;
        p->cap = nc;
    }
    prov_entry_t *e = &p->e[p->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->value, sizeof e->value, "%s", value);
    e->line = line;
    char c[512];
    line_comment(p, line, c, sizeof c);
    if (!c[0])
        block_above(p, line, c, sizeof c);
    e->kind = classify(c, e->from, sizeof e->from);
    if (is_fitted(p, key)) {
        e->kind = PROV_FITTED;
        snprintf(e->from, sizeof e->from, "clearsim calibrate (the file's calibration header)");
    }
    return 0;
}

/* Walk the mapping node n under prefix. */
static int walk(prov_t *p, yaml_document_t *d, yaml_node_t *n, const char *prefix, int depth,
                char *err, size_t errlen)
{
    if (!n || n->type != YAML_MAPPING_NODE || depth > 16)
        return 0;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < n->data.mapping.pairs.top; q++) {
        yaml_node_t *k = yaml_document_get_node(d, q->key);
        yaml_node_t *v = yaml_document_get_node(d, q->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE)
            continue;
        char key[128];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "",
                 (const char *)k->data.scalar.value);
        if (strcmp(key, "microbench") == 0 || strcmp(key, "name") == 0 ||
            strcmp(key, "description") == 0)
            continue; /* the figures (each with its own source) and the file's names */
        int rc = 0;
        if (v->type == YAML_MAPPING_NODE)
            rc = walk(p, d, v, key, depth + 1, err, errlen);
        else if (v->type == YAML_SCALAR_NODE)
            rc = add(p, key, (const char *)v->data.scalar.value, (unsigned)k->start_mark.line + 1,
                     err, errlen);
        else
            rc = add(p, key, "[...]", (unsigned)k->start_mark.line + 1, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* The keys of calibrate's header: "#   KEY   OLD -> NEW (+/- ...)" after "# Fit:". */
static int read_header(prov_t *p, char *err, size_t errlen)
{
    bool in_fit = false;
    for (size_t i = 0; i < p->n_lines && p->line[i][0] == '#'; i++) {
        const char *s = p->line[i];
        if (starts(s, "# Fit:")) {
            in_fit = true;
            continue;
        }
        if (!in_fit || !starts(s, "#   ") || !strstr(s, "->"))
            continue;
        const char *k = s + 4;
        size_t n = strcspn(k, " \t\n");
        if (n == 0 || n >= 128)
            continue;
        char(*nf)[128] = realloc(p->fitted, (p->n_fitted + 1) * sizeof *nf);
        if (!nf)
            return errbuf_set(err, errlen, "out of memory");
        p->fitted = nf;
        snprintf(p->fitted[p->n_fitted++], 128, "%.*s", (int)n, k);
    }
    return 0;
}

prov_t *prov_read(const char *path, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    if (infile_read(path, INFILE_MAX_MACHINE_BYTES, NULL, &buf, &len, err, errlen) != 0)
        return NULL;
    prov_t *p = calloc(1, sizeof *p);
    yaml_parser_t yp;
    yaml_document_t doc;
    bool parser = false, have_doc = false;
    int rc = -1;
    if (!p) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (infile_yaml_bounds(buf, len, path, err, errlen) != 0)
        goto out;
    for (size_t i = 0; i < len; i++)
        p->n_lines += buf[i] == '\n';
    p->n_lines += len && buf[len - 1] != '\n';
    p->line = calloc(p->n_lines ? p->n_lines : 1, sizeof *p->line);
    if (!p->line) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0, l = 0; i < len && l < p->n_lines; l++) {
        p->line[l] = buf + i;
        const char *nl = memchr(buf + i, '\n', len - i);
        i = nl ? (size_t)(nl - buf) + 1 : len;
    }
    if (read_header(p, err, errlen) != 0)
        goto out;
    if (!yaml_parser_initialize(&yp)) {
        errbuf_set(err, errlen, "out of memory (yaml)");
        goto out;
    }
    parser = true;
    yaml_parser_set_input_string(&yp, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&yp, &doc)) {
        errbuf_set(err, errlen, "%s:%zu:%zu: %s", path, yp.problem_mark.line + 1,
                   yp.problem_mark.column + 1, yp.problem ? yp.problem : "YAML error");
        goto out;
    }
    have_doc = true;
    rc = walk(p, &doc, yaml_document_get_root_node(&doc), "", 0, err, errlen);
out:
    if (have_doc)
        yaml_document_delete(&doc);
    if (parser)
        yaml_parser_delete(&yp);
    if (p) { /* the lines point into buf */
        free(p->line);
        p->line = NULL;
        p->n_lines = 0;
    }
    free(buf);
    if (rc != 0) {
        prov_destroy(p);
        return NULL;
    }
    return p;
}

void prov_destroy(prov_t *p)
{
    if (!p)
        return;
    free(p->e);
    free(p->line);
    free(p->fitted);
    free(p);
}

size_t prov_count(const prov_t *p)
{
    return p ? p->n : 0;
}

const prov_entry_t *prov_entry(const prov_t *p, size_t i)
{
    return p && i < p->n ? &p->e[i] : NULL;
}
