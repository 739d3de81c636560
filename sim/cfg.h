/*
 * cfg.h - machine files: YAML (libyaml) -> cfg_machine_t.
 *
 * Stages (Ramulator/Redis style):
 *  1. libyaml builds a node tree with start marks (line:col).
 *  2. One declarative key table (cfg.c) says each key's path, type, unit,
 *     bounds, whether it is required or its default, and whether
 *     `clearsim calibrate` may fit it. Unknown and duplicate keys are errors.
 *  3. Derived values (set counts, thresholds from fractions) are computed.
 *  4. Cross-checks (ways <= lines, sets a power of two, thresholds within the
 *     caches, latencies ordered, ...).
 *
 * Every error is one line: "file:line:col: key.path: value: rule broken".
 */
#ifndef CLEARSIM_CFG_H
#define CLEARSIM_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "models/machine.h"

typedef struct cfg_error {
    char msg[512];
} cfg_error_t;

/* Load and check one machine file. Returns NULL with err->msg set. */
cfg_machine_t *cfg_machine_load(const char *path, cfg_error_t *err);
/* The same from a string (name is used in messages in place of the path). */
cfg_machine_t *cfg_machine_load_string(const char *yaml, size_t len, const char *name,
                                       cfg_error_t *err);
/* The same as cfg_machine_load(), with the core clock set to clock_ghz
 * instead of the file's core.freq (0: the file's). Every value the file
 * gives in ns or GB/s is converted to cycles at that clock, as if the file
 * said it; values in cycles stay. For a host measured at another clock
 * (turbo, a loaded host) than the file was written for. */
cfg_machine_t *cfg_machine_load_at_clock(const char *path, double clock_ghz, cfg_error_t *err);
void cfg_machine_destroy(cfg_machine_t *m);

/* Resolve --machine NAME|PATH|host to a file path. NAME means
 * <configs dir>/NAME.yaml. Returns 0, or -1 with a reason. */
int cfg_machine_resolve(const char *arg, char *path, size_t pathlen, cfg_error_t *err);
/* The bundled configs directory ($CLEARSIM_CONFIGS, else the source tree's configs/). */
const char *cfg_configs_dir(void);
/* The bundled machines (file names without .yaml), sorted, for `clearsim machines`.
 * Returns 0, or -1 with a reason (directory unreadable, more than max). */
int cfg_machine_list(char names[][CFG_NAME_MAX], size_t max, size_t *count, cfg_error_t *err);

/* The key table, for documentation and calibration. */
typedef enum cfg_type {
    CFG_T_STRING,
    CFG_T_BOOL,
    CFG_T_U32,
    CFG_T_U64,
    CFG_T_DOUBLE,
    CFG_T_SIZE,
    CFG_T_TIME_NS,
    CFG_T_TIME_CYCLES,
    CFG_T_FREQ,
    CFG_T_BW,
    CFG_T_ENUM,
    CFG_T_FEATURES,
    CFG_T_STARTUP,
    CFG_T_PMU,
    CFG_T_TIME_ANY
} cfg_type_t;

typedef struct cfg_key {
    const char *path; /* dotted YAML path, e.g. "l2.prefetch.degree" */
    cfg_type_t type;
    size_t offset; /* into cfg_machine_t */
    bool required;
    const char *deflt; /* default as YAML text, NULL if required or none */
    double min, max;   /* bounds in the stored unit */
    bool fittable;     /* calibrate may fit it */
    const char *enums; /* "a|b|c" for CFG_T_ENUM */
    const char *doc;   /* one line: meaning and the mechanism that uses it */
    size_t size;       /* sizeof the field at offset (4 or 8 for numbers, array size
                        * for strings) */
} cfg_key_t;

const cfg_key_t *cfg_keys(size_t *count);
/* The key with this dotted path, or NULL. */
const cfg_key_t *cfg_key_find(const char *path);
/* A numeric key's stored value (in its stored unit) as a double; -1 for
 * strings, features, startup and pmu. */
int cfg_key_get(const cfg_machine_t *m, const cfg_key_t *k, double *out);
/* Store a numeric key's value (stored unit) after its bounds check, for
 * calibrate. Recomputes the elide threshold when its fraction changes.
 * Returns 0, or -1 with a reason. */
int cfg_key_set(cfg_machine_t *m, const cfg_key_t *k, double v, cfg_error_t *err);
/* How cfg_key_format() writes a value: CFG_FMT_TEXT for messages and the
 * key reference ("48 KiB", "4.5 cycles"), CFG_FMT_YAML as a value a machine
 * file takes back ("49152B", "4.5cycles"; 4 significant digits with a
 * unit, 6 for a plain number). */
typedef enum cfg_fmt { CFG_FMT_TEXT, CFG_FMT_YAML } cfg_fmt_t;
/* A numeric value v of key k, in k's stored unit, written with that unit
 * into buf; returns buf. */
const char *cfg_key_format(const cfg_key_t *k, double v, cfg_fmt_t how, char *buf, size_t len);
/* The key reference as Markdown (the generated part of configs/README.md);
 * for `clearsim keys`. Returns 0, or -1 on a write error. */
int cfg_keys_markdown(FILE *out);
/* The feature names accepted in features: (bit i of cfg_feature_t -> name). */
const char *cfg_feature_name(unsigned bit);

#endif
