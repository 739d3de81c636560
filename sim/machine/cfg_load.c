/*
 * cfg_load.c - machine files: YAML (libyaml) -> machine_t, the pipeline of
 * the four stages: the node tree and its walk (cfg_tree.c), each key's value
 * (cfg_values.c), the derived values and cross-checks (cfg_checks.c).
 *
 * Notes
 *  - Keys are parsed in table order with core.freq first, since ns <-> cycles
 *    and GB/s -> B/cycle conversions need the clock.
 *  - Deliberately not supported: YAML merge keys (<<), multiple documents,
 *    booleans other than true/false, numbers with units for counts.
 *  - Overrides (--set) are value nodes added to the document before the
 *    walk and made their keys' values after it (cfg_tree.c), so that every
 *    later stage treats them as the file's own.
 *  - A file is read whole through sim/machine/infile.c (a regular file of at
 *    most CFG_FILE_MAX bytes), and its YAML nesting and anchors are bounded
 *    before libyaml loads it. Only a file that cannot be read has no
 *    position in its error ("file: cannot read: ...").
 *  - Units of the stored fields: see models/base/machine.h and cfg_keys.c.
 */
#include "sim/machine/cfg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>
#include <yaml.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg_impl.h"
#include "sim/machine/infile.h"

#define CFG_FILE_MAX INFILE_MAX_MACHINE_BYTES /* a machine file is a few KiB */

_Static_assert(sizeof(int) == sizeof(uint32_t), "enum and int fields are stored as 32 bits");

static machine_t *load_string(const char *yaml, size_t len, const char *name, double clock_ghz,
                              const char *const *set, size_t n_set, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    cfg_ctx_t *c = calloc(1, sizeof(*c));
    machine_t *m = calloc(1, sizeof(*m));
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    bool parser_ok = false, doc_ok = false;
    if (!c || !m) {
        errbuf_set(err, errlen, "%s: out of memory", name ? name : "(machine)");
        goto fail;
    }
    c->file = name ? name : "(machine)";
    c->err = err;
    c->errlen = errlen;
    c->m = m;
    c->clock_ghz = clock_ghz;
    c->set = set;
    c->n_set = n_set;
    c->keys = cfg_keys(&c->nkeys);
    if (c->nkeys > CFG_KEYS_MAX) {
        errbuf_set(err, errlen, "%s: internal error: key table larger than %d", c->file,
                   CFG_KEYS_MAX);
        goto fail;
    }
    if (!yaml || len > CFG_FILE_MAX) {
        errbuf_set(err, errlen, "%s: not a machine file (larger than %llu bytes)", c->file,
                   (unsigned long long)CFG_FILE_MAX);
        goto fail;
    }
    if (strlen(c->file) >= sizeof(m->path)) {
        errbuf_set(err, errlen, "%s: path longer than %zu characters", c->file,
                   sizeof(m->path) - 1);
        goto fail;
    }
    if (infile_yaml_bounds(yaml, len, c->file, err, errlen) != 0)
        goto fail;
    if (!yaml_parser_initialize(&parser)) {
        errbuf_set(err, errlen, "%s: out of memory", c->file);
        goto fail;
    }
    parser_ok = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    if (!yaml_parser_load(&parser, &doc)) {
        cfg_i_yaml_fail(c, &parser, yaml, len);
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
        cfg_i_yaml_fail(c, &parser, yaml, len);
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
    if (cfg_i_set_add_nodes(c) < 0)
        goto fail;
    root = yaml_document_get_root_node(&doc); /* the node stack may have moved */
    if (cfg_i_walk(c, root, "") < 0 || cfg_i_set_apply(c) < 0)
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
    m->n_set = (uint32_t)n_set;
    for (size_t j = 0; j < n_set; j++)
        snprintf(m->set[j], sizeof m->set[j], "%s", set[j]);

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

machine_t *cfg_machine_load_string(const char *yaml, size_t len, const char *name, char *err,
                                   size_t errlen)
{
    return load_string(yaml, len, name, 0, NULL, 0, err, errlen);
}

machine_t *cfg_machine_load(const char *path, char *err, size_t errlen)
{
    return cfg_machine_load_at_clock(path, 0, err, errlen);
}

machine_t *cfg_machine_load_at_clock(const char *path, double clock_ghz, char *err, size_t errlen)
{
    return cfg_machine_load_set(path, clock_ghz, NULL, 0, err, errlen);
}

machine_t *cfg_machine_load_set(const char *path, double clock_ghz, const char *const *set,
                                size_t n_set, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !path[0]) {
        errbuf_set(err, errlen, "(machine): no file name given");
        return NULL;
    }
    char *buf;
    size_t n;
    if (infile_read(path, CFG_FILE_MAX, NULL, &buf, &n, err, errlen) != 0)
        return NULL;
    machine_t *m = load_string(buf, n, path, clock_ghz, set, n_set, err, errlen);
    if (m) {
        struct sha256_ctx h;
        uint8_t d[SHA256_DIGEST_SIZE];
        sha256_init(&h);
        sha256_update(&h, n, (const uint8_t *)buf);
        sha256_digest(&h, sizeof d, d);
        for (size_t i = 0; i < sizeof d; i++)
            snprintf(m->file_sha256 + 2 * i, 3, "%02x", d[i]);
    }
    free(buf);
    return m;
}

machine_t *cfg_machine_reload(const machine_t *m, double clock_ghz, char *err, size_t errlen)
{
    const char *set[MACHINE_SET_MAX];
    size_t n = m->n_set < MACHINE_SET_MAX ? m->n_set : MACHINE_SET_MAX;
    for (size_t j = 0; j < n; j++)
        set[j] = m->set[j];
    return cfg_machine_load_set(m->path, clock_ghz, set, n, err, errlen);
}

const char *cfg_machine_set_text(const machine_t *m, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (uint32_t j = 0; j < m->n_set && j < MACHINE_SET_MAX && at < len; j++) {
        int w = snprintf(buf + at, len - at, "%s%s", j ? " " : "", m->set[j]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    return buf;
}

int cfg_machine_apply_set(machine_t **m, const char *const *set, size_t n_set, char *err,
                          size_t errlen)
{
    if (n_set == 0)
        return 0;
    machine_t *o = cfg_machine_load_set((*m)->path, 0, set, n_set, err, errlen);
    if (!o)
        return -1;
    cfg_machine_destroy(*m);
    *m = o;
    return 0;
}

void cfg_machine_destroy(machine_t *m)
{
    free(m);
}
