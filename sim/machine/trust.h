/*
 * trust.h - how far a bundled machine file can be trusted: the figures of
 * docs/VALIDATION.md for one machine (how many published figures judge it,
 * the median |error| of its predictions and of its gains), read from the
 * trust file that `clearsim report --validation` writes
 * (<data directory>/data/validation.csv; $CLEARSIM_TRUST names another).
 *
 * Notes
 *  - The file: '#' comment lines, an "Inputs fingerprint: " line, the header
 *    TRUST_HEADER, then one line per validated machine. Errors are fractions
 *    (0.083 is 8.3%); an empty field has nothing to summarize (no gains).
 *  - The figures hold for the file that was validated: trust_lookup compares
 *    the machine file's SHA-256 with the one recorded, and a machine file
 *    that differs (a user's copy, an edit since the report) is "not
 *    validated".
 *  - A missing trust file means nothing is validated (an install without
 *    it); a malformed one is an error (file:line and the rule).
 *  - Nothing is run: the figures come from the file, not from the corpus.
 *  - Library code: returns -1 with a reason; never prints.
 */
#ifndef CLEARSIM_TRUST_H
#define CLEARSIM_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRUST_HEADER                                                                               \
    "machine,machine_file_sha256,cases,median_abs_err,max_abs_err,gains,median_gain_err,"          \
    "max_gain_err"
/* The trust file under the data directory. */
#define TRUST_SUBPATH    "data/validation.csv"
#define TRUST_FILE_BYTES (1ull << 20)

typedef struct trust {
    bool validated;        /* a line for the machine, for this very file */
    bool other_file;       /* a line for the name, but of another file (sha256 differs) */
    uint64_t cases;        /* published figures that judge it */
    double median_abs_err; /* of their predictions (a fraction) */
    double max_abs_err;
    uint64_t gains;         /* published gains that judge it */
    double median_gain_err; /* NAN when there are none */
    double max_gain_err;
} trust_t;

/* The trust file's path into buf ($CLEARSIM_TRUST, else the data
 * directory's). Returns buf. */
const char *trust_path(char *buf, size_t len);
/* The figures of machine `name` whose file has SHA-256 `sha256` (hex; ""
 * compares with nothing: not validated). Returns 0 (out->validated false when
 * the file has no line for it, or is missing), or -1 with a reason. */
int trust_lookup(const char *name, const char *sha256, trust_t *out, char *err, size_t errlen);
/* The same from the file at path. */
int trust_lookup_at(const char *path, const char *name, const char *sha256, trust_t *out, char *err,
                    size_t errlen);
/* One line: "validated on 12 published figures: median |error| 8.3%, gains
 * 12.0% (docs/VALIDATION.md)", or "not validated (...)". Returns buf. */
const char *trust_text(const trust_t *t, char *buf, size_t len);

#endif
