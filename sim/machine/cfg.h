/*
 * cfg.h - machine files: YAML (libyaml) -> machine_t (cfg_load.c and its
 * stages), and a loaded machine's keys by name (cfg_access.c). Where the
 * files are: catalog.h.
 *
 * Stages (Ramulator/Redis style):
 *  1. libyaml builds a node tree with start marks (line:col).
 *  2. One declarative key table (cfg_keys.c) says each key's path, type, unit,
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

#include "models/base/machine.h"

/* Load and check one machine file. Returns NULL with the one-line reason in
 * err ("file:line:col: key.path: value: rule broken"). */
machine_t *cfg_machine_load(const char *path, char *err, size_t errlen);
/* The same from a string (name is used in messages in place of the path). */
machine_t *cfg_machine_load_string(const char *yaml, size_t len, const char *name, char *err,
                                   size_t errlen);
/* The same as cfg_machine_load(), with the core clock set to clock_ghz
 * instead of the file's core.freq (0: the file's). Every value the file
 * gives in ns or GB/s is converted to cycles at that clock, as if the file
 * said it; values in cycles stay. For a host measured at another clock
 * (turbo, a loaded host) than the file was written for. */
machine_t *cfg_machine_load_at_clock(const char *path, double clock_ghz, char *err, size_t errlen);
void cfg_machine_destroy(machine_t *m);

/* Key overrides (`--set KEY=VALUE`): each replaces KEY's value, or adds it,
 * after the YAML is read and before any value is parsed, so that it passes
 * through the same key table, bounds and cross-checks as the file's own
 * value; an override of core.freq therefore converts every value the file
 * gives in ns or GB/s at the new clock (values in cycles stay). An error in
 * an override is located by the option instead of file:line:col:
 * "--set KEY=VALUE: KEY: VALUE: rule". The loaded machine keeps the list
 * (m->n_set, m->set) for reloads and for the output. */
/* Check an override's form without a machine: "KEY=VALUE" with KEY a
 * machine key that takes one scalar value and VALUE not empty. Returns 0,
 * or -1 with "--set 'ARG': reason". */
int cfg_set_check(const char *arg, char *err, size_t errlen);
/* Load path at clock_ghz (0: core.freq) with n_set overrides (at most
 * MACHINE_SET_MAX). */
machine_t *cfg_machine_load_set(const char *path, double clock_ghz, const char *const *set,
                                size_t n_set, char *err, size_t errlen);
/* m's file again, with m's overrides, at clock_ghz (0: core.freq as the file
 * and the overrides give it). */
machine_t *cfg_machine_reload(const machine_t *m, double clock_ghz, char *err, size_t errlen);
/* m's overrides as one line, "KEY=VALUE" separated by blanks ("" none), into
 * buf (MACHINE_SET_MAX x MACHINE_SET_ARG_MAX bytes hold any); returns buf. */
const char *cfg_machine_set_text(const machine_t *m, char *buf, size_t len);
/* Replace *m by its file loaded with these overrides (n_set 0: *m is kept).
 * On an error *m is left as it was. Returns 0, or -1 with the reason. */
int cfg_machine_apply_set(machine_t **m, const char *const *set, size_t n_set, char *err,
                          size_t errlen);

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
    CFG_T_MICROBENCH,
    CFG_T_MBFIT,
    CFG_T_TIME_ANY
} cfg_type_t;

typedef struct cfg_key {
    const char *path; /* dotted YAML path, e.g. "l2.prefetch.degree" */
    cfg_type_t type;
    size_t offset; /* into machine_t */
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
int cfg_key_get(const machine_t *m, const cfg_key_t *k, double *out);
/* Store a numeric key's value (stored unit) after its bounds check, for
 * calibrate. Recomputes the elide threshold when its fraction changes.
 * Returns 0, or -1 with a reason. */
int cfg_key_set(machine_t *m, const cfg_key_t *k, double v, char *err, size_t errlen);
/* How cfg_key_format() writes a value: CFG_FMT_TEXT for messages and the
 * key reference ("48 KiB", "4.5 cycles"), CFG_FMT_YAML as a value a machine
 * file takes back ("49152B", "4.5cycles"; 4 significant digits with a
 * unit, 6 for a plain number). */
typedef enum cfg_fmt { CFG_FMT_TEXT, CFG_FMT_YAML } cfg_fmt_t;
/* A numeric value v of key k, in k's stored unit, written with that unit
 * into buf; returns buf. */
const char *cfg_key_format(const cfg_key_t *k, double v, cfg_fmt_t how, char *buf, size_t len);
/* The key reference as Markdown (the generated part of configs/README.md,
 * which tests/test_cfg.c keeps in step). Returns 0, or -1 on a write error. */
int cfg_keys_markdown(FILE *out);
/* The feature names accepted in features: (bit i of machine_feature_t -> name). */
const char *cfg_feature_name(unsigned bit);

#endif
