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
