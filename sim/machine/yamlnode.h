/*
 * yamlnode.h - typed values of libyaml document nodes, with the one error
 * form of every YAML input clearsim reads besides machine files (which have
 * their key table: cfg_tree.c): "FILE:LINE:COL: WHAT: reason".
 *
 * Notes
 *  - The readers of calibration data (sim/study/calibrate_data.c) and of the
 *    corpus of published figures (sim/study/validate_load.c) share these, so
 *    a value is read and refused alike in both.
 *  - Library code: errors go into the source's buffer; nothing is printed.
 */
#ifndef CLEARSIM_YAMLNODE_H
#define CLEARSIM_YAMLNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

/* The file a document came from and where its errors go. */
typedef struct yamlnode_src {
    const char *path;
    char *err;
    size_t errlen;
} yamlnode_src_t;

/* The YAML document of the file at path, read through sim/machine/infile.c
 * (a regular file of at most max_bytes, nesting and anchors bounded) and
 * loaded by libyaml. Returns 0 (the caller deletes *doc), or -1 with
 * "path:line:col: problem" in err. */
int yamlnode_load(const char *path, uint64_t max_bytes, yaml_document_t *doc, char *err,
                  size_t errlen);
/* Is the key of pair p given earlier in the same mapping? */
bool yamlnode_key_repeated(yaml_document_t *doc, const yaml_node_t *map, const yaml_node_pair_t *p);
/* Write "path:line:col: what: <fmt>" for node n (0:0 without a node); returns -1. */
int yamlnode_fail(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));
/* n's text when it is a scalar, else NULL. */
const char *yamlnode_scalar(const yaml_node_t *n);
/* A non-empty scalar shorter than len, copied to dst. Returns 0 or -1. */
int yamlnode_string(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, char *dst,
                    size_t len);
/* true or false. Returns 0 or -1. */
int yamlnode_bool(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, bool *out);
/* A finite number, the whole scalar. Returns 0 or -1. */
int yamlnode_double(const yamlnode_src_t *s, const yaml_node_t *n, const char *what, double *out);

#endif
