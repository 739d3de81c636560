/*
 * detect.h - a machine file for this host (`clearsim detect`): identity,
 * features and cache geometry detected (sim/host/host.c), every timing parameter
 * copied from the nearest bundled machine file.
 *
 * Notes
 *  - Each detected value is commented "# detected: <source>" (CPUID leaf,
 *    MIDR, sysfs path); each copied value "# not measured: from <machine>".
 *  - The nearest bundled machine: same ISA (required), then same vendor, then
 *    same family, then the closest model number; ties go to the first name.
 *  - The cache model needs a power-of-two set count. A detected cache whose
 *    size / (ways x line) is not one (a 300 MiB, 20-way L3) is written as the
 *    nearest size ways x line x 2^k with 1..64 ways (ties: the ways closest
 *    to the detected ones), and the comment says so.
 *  - The generated text is loaded with cfg_machine_load_string() before it is
 *    returned, so what detect prints always loads.
 */
#ifndef CLEARSIM_DETECT_H
#define CLEARSIM_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/host/host.h"

/* Path of the nearest bundled machine to h, and why it was chosen (one line).
 * Returns 0, or -1 with a reason (no bundled machine of the host's ISA). */
int detect_nearest(const host_info_t *h, char *path, size_t pathlen, char *why, size_t whylen,
                   char *err, size_t errlen);

/* The machine YAML for h, called `name`, with the timing parameters of the
 * machine file at base_path (base_why: a note on the choice, may be NULL).
 * Returns a malloc'd NUL-terminated string (free() it), or NULL with a reason. */
char *detect_machine_yaml(const host_info_t *h, const char *name, const char *base_path,
                          const char *base_why, char *err, size_t errlen);

/* A value given instead of the base's (and of a detected one): what
 * `detect --measure` measured or fitted. A key the base lacks is added at
 * the end of its mapping (which the base must have). */
typedef struct detect_value {
    char path[64];     /* "memory.latency" */
    char value[320];   /* as YAML text: "118ns", "[{len: 0, cost: 30cycles}]" */
    char comment[640]; /* "measured: latency 256MiB 118 ns" */
} detect_value_t;

typedef struct detect_extra {
    const detect_value_t *values;
    size_t n_values;
    const char *header;    /* the comment block at the top, instead of detect's ("# ..." lines) */
    const char *base_note; /* the comment of a value kept from the base */
    const char *base_note_timing; /* ... of a fittable time, rate or bandwidth (not a count,
                                   * size or policy); NULL: base_note */
    const char *skip_top;         /* a top-level key of the base left out (NULL: none) */
    const char *tail;             /* text appended at the end (NULL: none) */
} detect_extra_t;

/* detect_machine_yaml with values, header, notes and a tail of the
 * caller's (x may be NULL: then it is detect_machine_yaml). */
char *detect_machine_yaml_ex(const host_info_t *h, const char *name, const char *base_path,
                             const char *base_why, const detect_extra_t *x, char *err,
                             size_t errlen);

/* A cache geometry the cache model accepts: *size_out = *ways_out x line x
 * 2^k, as close to size as possible (see Notes). Returns true when it had to
 * change size or ways. */
bool detect_fit_cache(uint64_t size, uint32_t ways, uint32_t line, uint64_t *size_out,
                      uint32_t *ways_out);

#endif
