/*
 * names.c - {name, value} tables (see names.h).
 */
#include "models/base/names.h"

#include <stdio.h>
#include <string.h>

const char *name_of(const name_value_t *t, int v)
{
    for (; t && t->name; t++)
        if (t->value == v)
            return t->name;
    return "?";
}

int name_parse(const name_value_t *t, const char *s, int *out)
{
    for (; t && t->name && s; t++) {
        if (strcmp(t->name, s) == 0) {
            *out = t->value;
            return 0;
        }
    }
    return -1;
}

const char *name_list(const name_value_t *t, char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; t && t[i].name && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", t[i].name);
        if (w < 0 || (size_t)w >= len - o)
            break;
        o += (size_t)w;
    }
    return buf;
}
