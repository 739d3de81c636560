/*
 * catalog.h - where machine files are: the bundled configs directory, a
 * --machine NAME or PATH resolved to a file, and the machines found there.
 *
 * Notes
 *  - NAME means NAME.yaml in the first machine directory that has it: each
 *    directory of $CLEARSIM_MACHINES (a ':' list), then
 *    $XDG_CONFIG_HOME/clearsim/machines (~/.config/clearsim/machines when
 *    XDG_CONFIG_HOME is unset), then the bundled configs directory. User
 *    directories add machines to the bundled ones (and a user file shadows a
 *    bundled one of its name); a user directory that does not exist is
 *    skipped. Anything with a '/' or ending in .yaml/.yml is a path. `host`
 *    is not resolved here (sim/host/pick.h).
 *  - catalog_load() is the one loop over the catalogued machines: every
 *    command that needs all of them (machines, host matching, detect's
 *    nearest machine, the predictions report) takes them from it.
 */
#ifndef CLEARSIM_CATALOG_H
#define CLEARSIM_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "models/base/machine.h"

/* Most machine files a catalogue holds. */
#define CATALOG_MAX 256

/* The bundled configs directory ($CLEARSIM_CONFIGS, else the data directory's
 * configs/, sim/machine/datadir.h). */
const char *cfg_configs_dir(void);
#define CATALOG_DIRS_MAX 16
/* The machine directories in search order, the bundled one last. Returns
 * how many (at most max). */
size_t catalog_dirs(char dirs[][MACHINE_TEXT_MAX], size_t max);
/* Resolve --machine NAME|PATH to a file path. Returns 0, or -1 with a reason. */
int cfg_machine_resolve(const char *arg, char *path, size_t pathlen, char *err, size_t errlen);
/* --machine NAME|PATH resolved and loaded; path (pathlen bytes, may be NULL)
 * gets the file. Returns the machine, or NULL with a reason. */
machine_t *cfg_machine_open(const char *arg, char *path, size_t pathlen, char *err, size_t errlen);
/* The machines of every machine directory (file names without .yaml, each
 * name once), sorted. Returns 0, or -1 with a reason (the bundled directory
 * unreadable, more than max). */
int cfg_machine_list(char names[][MACHINE_NAME_MAX], size_t max, size_t *count, char *err,
                     size_t errlen);
/* The bundled machines only (the predictions report, its fingerprint). */
int cfg_machine_list_bundled(char names[][MACHINE_NAME_MAX], size_t max, size_t *count, char *err,
                             size_t errlen);

/* A machine name: letters, digits, '-', '_' and '.'; not empty. */
bool catalog_valid_name(const char *s);
/* The base name of path without .yaml / .yml, into buf; returns buf (a
 * machine file's name must equal it). */
const char *catalog_base_name(const char *path, char *buf, size_t len);

/* Every catalogued machine, loaded, in name order. */
typedef struct catalog catalog_t;
/* Returns the catalogue, or NULL with a reason when the directory cannot be
 * listed; a file that does not load is kept with its reason. */
catalog_t *catalog_load(char *err, size_t errlen);
void catalog_destroy(catalog_t *c);
size_t catalog_count(const catalog_t *c);
const char *catalog_name(const catalog_t *c, size_t i);
/* The file of entry i ("" when its name did not resolve). */
const char *catalog_path(const catalog_t *c, size_t i);
/* The loaded machine of entry i, or NULL when it did not load. */
const machine_t *catalog_machine(const catalog_t *c, size_t i);
/* Why entry i did not load ("" when it did). */
const char *catalog_error(const catalog_t *c, size_t i);

#endif
