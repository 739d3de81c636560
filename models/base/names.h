/*
 * names.h - the {name, value} table that stands beside each enum whose
 * values users type or read (workload kinds, callers, preemption models,
 * output formats, ...): one table gives both directions and the list a
 * message offers.
 *
 * Notes
 *  - A table ends with {NULL, 0}. Names are compared exactly (case matters).
 */
#ifndef CLEARSIM_NAMES_H
#define CLEARSIM_NAMES_H

#include <stddef.h>

typedef struct name_value {
    const char *name;
    int value;
} name_value_t;

/* The name of value v in t, or "?" when t has none. */
const char *name_of(const name_value_t *t, int v);
/* The value named s in t: 0 with *out set, or -1. */
int name_parse(const name_value_t *t, const char *s, int *out);
/* "a, b, c": every name of t, into buf; returns buf. */
const char *name_list(const name_value_t *t, char *buf, size_t len);

#endif
