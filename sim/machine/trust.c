/*
 * trust.c - the trust file of `clearsim report --validation`, read for one
 * machine (see trust.h).
 */
#include "sim/machine/trust.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/base/errbuf.h"
#include "sim/machine/datadir.h"
#include "sim/machine/infile.h"

#define FINGERPRINT_PREFIX "Inputs fingerprint: "

const char *trust_path(char *buf, size_t len)
{
    const char *env = getenv("CLEARSIM_TRUST");
    if (env && env[0])
        snprintf(buf, len, "%s", env);
    else
        snprintf(buf, len, "%s/%s", datadir_path(), TRUST_SUBPATH);
    return buf;
}

/* One field of a line: a count or a fraction (empty: NAN). */
static int field_num(char *s, bool count, double *out)
{
    char *end;
    if (!s[0]) {
        if (count)
            return -1;
        *out = NAN;
        return 0;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0 || (count && v != floor(v)))
        return -1;
    *out = v;
    return 0;
}

int trust_lookup_at(const char *path, const char *name, const char *sha256, trust_t *out, char *err,
                    size_t errlen)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    out->median_abs_err = out->max_abs_err = out->median_gain_err = out->max_gain_err = NAN;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    char *text = NULL;
    size_t len = 0;
    if (infile_read(path, TRUST_FILE_BYTES, "the trust file", &text, &len, err, errlen) != 0)
        return -1;
    int rc = 0;
    bool header = false;
    size_t lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (!line[0] || line[0] == '#' ||
            strncmp(line, FINGERPRINT_PREFIX, strlen(FINGERPRINT_PREFIX)) == 0)
            continue;
        if (!header) {
            if (strcmp(line, TRUST_HEADER) != 0) {
                rc = errbuf_set(err, errlen,
                                "%s:%zu: expected the header '%s' (regenerate it "
                                "with clearsim report --validation)",
                                path, lineno, TRUST_HEADER);
                break;
            }
            header = true;
            continue;
        }
        char *f[8];
        size_t nf = 0;
        for (char *p = line; nf < 8; nf++) {
            f[nf] = p;
            char *comma = strchr(p, ',');
            if (!comma) {
                nf++;
                break;
            }
            *comma = '\0';
            p = comma + 1;
        }
        double v[6];
        bool bad = nf != 8;
        for (size_t i = 0; !bad && i < 6; i++)
            bad = field_num(f[2 + i], i == 0 || i == 3, &v[i]) != 0;
        if (bad) {
            rc = errbuf_set(err, errlen,
                            "%s:%zu: expected %s: a name, a SHA-256, counts and "
                            "non-negative fractions",
                            path, lineno, TRUST_HEADER);
            break;
        }
        if (strcmp(f[0], name) != 0)
            continue;
        if (!sha256 || !sha256[0] || strcmp(f[1], sha256) != 0) {
            out->other_file = true;
            continue;
        }
        out->validated = true;
        out->other_file = false;
        out->cases = (uint64_t)v[0];
        out->median_abs_err = v[1];
        out->max_abs_err = v[2];
        out->gains = (uint64_t)v[3];
        out->median_gain_err = v[4];
        out->max_gain_err = v[5];
    }
    if (rc == 0 && !header)
        rc = errbuf_set(err, errlen, "%s: no header line '%s'", path, TRUST_HEADER);
    free(text);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int trust_lookup(const char *name, const char *sha256, trust_t *out, char *err, size_t errlen)
{
    char path[4096];
    return trust_lookup_at(trust_path(path, sizeof path), name, sha256, out, err, errlen);
}

const char *trust_text(const trust_t *t, char *buf, size_t len)
{
    if (!t->validated)
        snprintf(buf, len, "not validated (%s; docs/VALIDATION.md)",
                 t->other_file ? "the validated file of this name differs from this one"
                               : "no published figure judges it");
    else if (t->gains && isfinite(t->median_gain_err))
        snprintf(buf, len,
                 "validated on %llu published figure%s: median |error| %.1f%%, gains %.1f%% "
                 "(docs/VALIDATION.md)",
                 (unsigned long long)t->cases, t->cases == 1 ? "" : "s", t->median_abs_err * 100.0,
                 t->median_gain_err * 100.0);
    else
        snprintf(buf, len,
                 "validated on %llu published figure%s: median |error| %.1f%%, no gains "
                 "(docs/VALIDATION.md)",
                 (unsigned long long)t->cases, t->cases == 1 ? "" : "s", t->median_abs_err * 100.0);
    return buf;
}
