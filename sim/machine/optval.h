/*
 * optval.h - the value of a command-line style option, parsed with its unit
 * and bounds, and a message that names the option and shows the value.
 *
 * Notes
 *  - Every error is one line, "--opt 'value': reason"; the value is shown
 *    shortened to 64 characters with control characters as '?'.
 *  - Sizes go through unit_parse_size (binary KB/MB/GB as perf), whole
 *    numbers through unit_parse_u64 (decimal or 0x hex).
 *  - Returns 0, or -1 with the reason in err.
 */
#ifndef CLEARSIM_OPTVAL_H
#define CLEARSIM_OPTVAL_H

#include <stddef.h>
#include <stdint.h>

#include "models/base/names.h"

/* Largest size an option takes: 1 TiB. Larger buffers are not a meaningful
 * clearing benchmark and would push simulated addresses past 48 bits once
 * the workload places and aligns them. */
#define OPTVAL_SIZE_MAX_BYTES (1ull << 40)

/* A printable, bounded copy of user text for a message; returns buf. */
const char *optval_shown(const char *s, char *buf, size_t len);
/* A size in 1..OPTVAL_SIZE_MAX_BYTES. */
int optval_size(const char *opt, const char *arg, uint64_t *out, char *err, size_t errlen);
/* A whole number in [min, max]. */
int optval_uint(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out,
                char *err, size_t errlen);
/* One of the names of t; *out is its value. */
int optval_choice(const char *opt, const char *arg, const name_value_t *t, int *out, char *err,
                  size_t errlen);
/* A non-empty text (a file or machine name): *out points into arg. what
 * says what to give ("a file name"). */
int optval_text(const char *opt, const char *arg, const char *what, const char **out, char *err,
                size_t errlen);

#endif
