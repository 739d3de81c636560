/*
 * provenance.h - where each value of a machine file comes from: measured,
 * sourced, fitted, derived, inherited from another file, or unsourced.
 *
 * Notes
 *  - The rule is the one machine files are written by (configs/README.md,
 *    docs/ADDING-A-MACHINE.md): a value's own line comment says where it
 *    comes from.
 *      "# measured: ..."        measured (detect --measure, data/)
 *      "# [TAG] ..."            sourced: a published source, by tag
 *      "# fitted: ..."          fitted by clearsim calibrate
 *      "# derived: ..."         derived from the file's own figures
 *      "# shared: NAME (...)"   inherited from machine file NAME
 *      "# detected: ..."        read off the host (detect)
 *      any other text           sourced: a source named in words
 *      none, "unsourced ...", "no source ...", "unknown ..."   unsourced
 *    A value without a comment on its line takes the comment lines just
 *    above it (features: [...] under its block of sources). A key listed in
 *    the calibration header that `calibrate -o` writes ("#   KEY  OLD -> NEW
 *    (+/- ...)") is fitted, whatever its comment.
 *  - Keys come from the YAML document (libyaml), with their dotted paths and
 *    lines; a list's entries are reported as the list's key. The
 *    microbench: section (the figures themselves) is not reported.
 *  - Reading only: nothing here prints.
 */
#ifndef CLEARSIM_PROVENANCE_H
#define CLEARSIM_PROVENANCE_H

#include <stddef.h>

typedef enum prov_kind {
    PROV_MEASURED = 0,
    PROV_SOURCED,
    PROV_FITTED,
    PROV_DERIVED,
    PROV_INHERITED,
    PROV_DETECTED,
    PROV_UNSOURCED,
    PROV_KIND_COUNT
} prov_kind_t;

/* "measured", "sourced", ... */
const char *prov_kind_name(prov_kind_t k);

typedef struct prov_entry {
    char key[128];   /* dotted path: "l2.mshrs" */
    char value[128]; /* the value as written ("[...]" for a list) */
    unsigned line;   /* 1-based line of the value */
    prov_kind_t kind;
    char from[256]; /* the tag, the file inherited from, or the comment's text */
} prov_entry_t;

typedef struct prov prov_t;

/* Read the provenance of every value of the machine file at path. Returns
 * NULL with a reason (file:line:col for a YAML error). */
prov_t *prov_read(const char *path, char *err, size_t errlen);
void prov_destroy(prov_t *p);
size_t prov_count(const prov_t *p);
const prov_entry_t *prov_entry(const prov_t *p, size_t i);

#endif
