/*
 * cfg_impl.h - private to the machine-file loader: the load context of the
 * pipeline (cfg_load.c) and what each stage offers the later ones, in stage
 * order (cfg_tree.c, cfg_values.c, cfg_checks.c). Not part of the cfg_ API.
 */
#ifndef CLEARSIM_CFG_IMPL_H
#define CLEARSIM_CFG_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "sim/machine/cfg.h"

#define CFG_KEYS_MAX 192
#define CFG_SECS_MAX 64
#define CFG_PATH_MAX 160
#define U64MAX_D     18446744073709551615.0

typedef struct cfg_sec {
    char path[CFG_PATH_MAX];
    yaml_mark_t mark; /* of the section's key */
} cfg_sec_t;

typedef struct cfg_ctx {
    const char *file; /* name used in messages */
    yaml_document_t *doc;
    char *err; /* the one-line reason, errlen bytes */
    size_t errlen;
    machine_t *m;
    const cfg_key_t *keys;
    size_t nkeys;
    yaml_node_t *val[CFG_KEYS_MAX]; /* value node of each key, NULL if absent */
    cfg_sec_t sec[CFG_SECS_MAX];
    size_t nsec;
    yaml_mark_t root_mark;
    bool l3_given;
    double clock_ghz;       /* > 0: core.freq is this, not the file's (cfg_machine_load_at_clock) */
    const char *const *set; /* the overrides ("KEY=VALUE"), n_set of them */
    size_t n_set;
    int set_node[MACHINE_SET_MAX]; /* the document node of each override's value */
} cfg_ctx_t;

/* An override's value node carries this mark index plus its number, so that
 * an error at that node names the option, not a line of the file. */
#define CFG_SET_MARK ((size_t)-1 - MACHINE_SET_MAX)

/* ---- cfg_tree.c: errors, nodes, the key table, stages 1-2a ---- */

/* Set the load error "file:line:col: path: value: rule"; returns -1. */
int cfg_i_fail(cfg_ctx_t *c, yaml_mark_t mk, const char *path, const char *value, const char *fmt,
               ...) __attribute__((format(printf, 5, 6)));
const char *cfg_i_node_kind(const yaml_node_t *n);
const char *cfg_i_node_text(const yaml_node_t *n, char *buf, size_t len);
bool cfg_i_node_is_null(const yaml_node_t *n);
const char *cfg_i_scalar(const yaml_node_t *n);
int cfg_i_key_index(const cfg_ctx_t *c, const char *path);
yaml_mark_t cfg_i_parent_mark(const cfg_ctx_t *c, const char *path);
const char *cfg_i_suggest(const char *path, const char *const *names, size_t n, char *buf,
                          size_t len);
/* libyaml's failure to parse, as a located error. */
void cfg_i_yaml_fail(cfg_ctx_t *c, const yaml_parser_t *p, const char *yaml, size_t len);
/* Stage 2a: walk mapping `map` at dotted `prefix` ("" at the top) against
 * the key table, recording each key's value node. Returns 0, or -1. */
int cfg_i_walk(cfg_ctx_t *c, yaml_node_t *map, const char *prefix);
/* Overrides: before the walk, add a value node for each (the document's
 * node stack may move, so no node pointer is kept across it); after the
 * walk, make each the value of its key. Both return 0, or -1. */
int cfg_i_set_add_nodes(cfg_ctx_t *c);
int cfg_i_set_apply(cfg_ctx_t *c);

/* ---- cfg_values.c: stage 2b, and the stored-number helpers ---- */

int cfg_i_parse_key(cfg_ctx_t *c, size_t i);
uint64_t cfg_i_d2u(double d);
void cfg_i_store_uint(void *dst, size_t size, uint64_t v);
uint64_t cfg_i_load_uint(const void *src, size_t size);

/* ---- cfg_checks.c: stages 3-4 ---- */

int cfg_i_derive_and_check(cfg_ctx_t *c);

#endif
