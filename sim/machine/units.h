/*
 * units.h - parsing of values with units, shared by machine files and CLI
 * options.
 *
 * Notes
 *  - Sizes: B, KB/KiB, MB/MiB, GB/GiB, TB/TiB (also PB/PiB, EB/EiB, so that
 *    the uint64_t limit can be written). KB, MB, GB, TB, PB and EB are binary
 *    (powers of 1024), as perf uses them; unit names are case-insensitive.
 *    A bare number is bytes; 0x hex is allowed for whole numbers. Fractions
 *    and exponents are allowed when the result is a whole number of bytes
 *    (1.25MiB, 1e3B); they are evaluated exactly, not through a double.
 *    Overflow of uint64_t is an error (2^64-1 B is the largest size).
 *  - Spaces between the number and the unit are allowed ("32 KiB");
 *    anything after the unit is an error. NaN, inf and negatives are errors.
 *  - Times: ns, us, ms, s, cycles (or cycle). A unit is required. Returned as
 *    ns or cycles (unit_time_t).
 *  - Frequencies: GHz, MHz; must be positive.
 *  - Bandwidths: GB/s and GiB/s (both binary, 2^30 bytes/s, as perf prints
 *    GB/sec), MB/s, MiB/s (2^20), KB/s, KiB/s, TB/s, TiB/s, B/s, B/cycle.
 *    Returned as bytes/s or bytes/cycle (unit_bw_t).
 *  - Every parser returns 0, or -1 with the rule broken in `why`
 *    (e.g. "unknown unit 'KX'; use B, KB, MB, GB or TB").
 */
#ifndef CLEARSIM_UNITS_H
#define CLEARSIM_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int unit_parse_size(const char *s, uint64_t *out_bytes, char *why, size_t whylen);

typedef struct unit_time {
    double value;
    bool cycles; /* true: value is cycles; false: value is ns */
} unit_time_t;
int unit_parse_time(const char *s, unit_time_t *out, char *why, size_t whylen);

int unit_parse_freq(const char *s, double *out_ghz, char *why, size_t whylen);

typedef struct unit_bw {
    double value;
    bool per_cycle; /* true: bytes/cycle; false: bytes/second */
} unit_bw_t;
int unit_parse_bw(const char *s, unit_bw_t *out, char *why, size_t whylen);

/* Plain numbers: whole decimal/hex integers with bounds, and finite doubles. */
int unit_parse_u64(const char *s, uint64_t *out, char *why, size_t whylen);
int unit_parse_double(const char *s, double *out, char *why, size_t whylen);

/* Format bytes with a binary unit when exact ("4KiB", "2MiB", "1536B"). */
void unit_format_size(uint64_t bytes, char *buf, size_t len);

#endif
