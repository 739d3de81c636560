/*
 * yamlnode.c - typed values of libyaml document nodes (see yamlnode.h).
 */
#include "sim/machine/yamlnode.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"

int yamlnode_load(const char *path, uint64_t max_bytes, yaml_document_t *doc, char *err,
                  size_t errlen)
{
    char *text = NULL;
    size_t len;
    if (infile_read(path, max_bytes, NULL, &text, &len, err, errlen) != 0)
        return -1;
    if (infile_yaml_bounds(text, len, path, err, errlen) != 0) {
        free(text);
        return -1;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&parser, doc)) /* the document holds copies of its text */
        rc = errbuf_set(err, errlen, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
                        parser.problem_mark.column + 1,
                        parser.problem ? parser.problem : "YAML error");
    yaml_parser_delete(&parser);
    free(text);
    return rc;
}

bool yamlnode_key_repeated(yaml_document_t *doc, const yaml_node_t *map, const yaml_node_pair_t *p)
{
    const char *ks = yamlnode_scalar(yaml_document_get_node(doc, p->key));
    for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; ks && q < p; q++) {
        const char *qs = yamlnode_scalar(yaml_document_get_node(doc, q->key));
        if (qs && strcmp(qs, ks) == 0)
            return true;
    }
    return false;
}

int yamlnode_fail(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, const char *fmt,
                  ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->errlen, "%s:%zu:%zu: %s: %s", s->path, n ? n->start_mark.line + 1 : 0,
             n ? n->start_mark.column + 1 : 0, what, msg);
    return -1;
}

const char *yamlnode_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int yamlnode_string(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, char *dst,
                    size_t len)
{
    const char *v = yamlnode_scalar(n);
    if (!v)
        return yamlnode_fail(s, n, what, "expected a string");
    if (!v[0])
        return yamlnode_fail(s, n, what, "must not be empty");
    if (strlen(v) >= len)
        return yamlnode_fail(s, n, what, "'%.40s...' is longer than %zu characters", v, len - 1);
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

int yamlnode_bool(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, bool *out)
{
    const char *v = yamlnode_scalar(n);
    if (v && strcmp(v, "true") == 0)
        *out = true;
    else if (v && strcmp(v, "false") == 0)
        *out = false;
    else
        return yamlnode_fail(s, n, what, "'%s' is not true or false", v ? v : "(not a scalar)");
    return 0;
}

int yamlnode_double(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, double *out)
{
    const char *v = yamlnode_scalar(n);
    char *end;
    if (!v)
        return yamlnode_fail(s, n, what, "expected a number");
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d))
        return yamlnode_fail(s, n, what, "'%s' is not a number", v);
    *out = d;
    return 0;
}
