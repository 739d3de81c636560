/*
 * sweep_axes.c - the values of a sweep's axes (KEY=VALUES expanded) and its
 * shards (see sweep.h).
 *
 * Notes
 *  - A list "a,b,c" is taken as given; a range "LO..HI:xF" or "LO..HI:+S"
 *    (sizes and numbers) is expanded, sizes written back with their unit.
 *  - Point p belongs to shard i of n when p % n == i.
 */
#include "sim/study/sweep.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/machine/cfg.h"
#include "sim/machine/units.h"

/* ------------------------------------------------------------------------ */
/* axes                                                                      */

/* Keys whose values are names: lists only. */
static bool key_is_name(const char *key)
{
    static const char *const names[] = {"machine", "function", "workload", "caller", "fault",
                                        "preempt", "thp",      "libc",     NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(key, names[i]) == 0)
            return true;
    return false;
}

static bool key_is_size(const char *key)
{
    return strcmp(key, "size") == 0 || strcmp(key, "chunk") == 0 ||
           strcmp(key, "extent-cap") == 0 || strcmp(key, "page") == 0 ||
           strcmp(key, "base-page") == 0;
}

void sweep_values_free(char **values, size_t n)
{
    if (!values)
        return;
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

static int push_value(char ***values, size_t *n, size_t *cap, const char *v, size_t len)
{
    if (*n >= SWEEP_VALUES_MAX)
        return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        char **nv = realloc(*values, nc * sizeof *nv);
        if (!nv)
            return -1;
        *values = nv;
        *cap = nc;
    }
    char *s = malloc(len + 1);
    if (!s)
        return -1;
    memcpy(s, v, len);
    s[len] = '\0';
    (*values)[(*n)++] = s;
    return 0;
}

static void format_number(const char *key, uint64_t v, char *buf, size_t len)
{
    if (key_is_size(key))
        unit_format_size(v, buf, len);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

/* LO..HI:xF or LO..HI:+S split into lo_s and hi_s (64 bytes each), the step's
 * text and whether it is geometric. Returns 1 if spec is not range-shaped
 * (no ".."), 0, or -1 with a reason. */
static int split_range(const char *key, const char *spec, char lo_s[64], char hi_s[64],
                       const char **step_s, bool *geometric, char *err, size_t errlen)
{
    const char *dots = strstr(spec, "..");
    if (!dots)
        return 1;
    const char *colon = strrchr(spec, ':');
    if (!colon || colon < dots || (colon[1] != 'x' && colon[1] != '+'))
        return errbuf_set(err, errlen,
                          "--sweep %s=%s: a range needs a step: LO..HI:xFACTOR or LO..HI:+STEP",
                          key, spec);
    size_t lo_len = (size_t)(dots - spec), hi_len = (size_t)(colon - dots - 2);
    if (lo_len == 0 || hi_len == 0 || lo_len >= 64 || hi_len >= 64)
        return errbuf_set(err, errlen, "--sweep %s=%s: a range is LO..HI:xFACTOR or LO..HI:+STEP",
                          key, spec);
    memcpy(lo_s, spec, lo_len);
    lo_s[lo_len] = '\0';
    memcpy(hi_s, dots + 2, hi_len);
    hi_s[hi_len] = '\0';
    *geometric = colon[1] == 'x';
    *step_s = colon + 2;
    return 0;
}

/* LO..HI:xF or LO..HI:+S. Returns 1 if spec is not range-shaped, 0 when
 * expanded, -1 on error. */
static int expand_range(const char *key, const char *spec, char ***values, size_t *n, size_t *cap,
                        char *err, size_t errlen)
{
    char lo_s[64], hi_s[64], why[256];
    const char *step_s;
    bool geometric;
    int rc = split_range(key, spec, lo_s, hi_s, &step_s, &geometric, err, errlen);
    if (rc)
        return rc;
    uint64_t lo, hi, step;
    if (unit_parse_size(lo_s, &lo, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "--sweep %s=%s: '%s': %s", key, spec, lo_s, why);
    if (unit_parse_size(hi_s, &hi, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "--sweep %s=%s: '%s': %s", key, spec, hi_s, why);
    if (geometric ? unit_parse_u64(step_s, &step, why, sizeof why)
                  : unit_parse_size(step_s, &step, why, sizeof why))
        return errbuf_set(err, errlen, "--sweep %s=%s: step '%s%s': %s", key, spec,
                          geometric ? "x" : "+", step_s, why);
    if (lo > hi)
        return errbuf_set(err, errlen, "--sweep %s=%s: the range is empty (%s > %s)", key, spec,
                          lo_s, hi_s);
    if (geometric && (step < 2 || lo == 0))
        return errbuf_set(
            err, errlen, "--sweep %s=%s: a geometric range needs LO > 0 and a factor of at least 2",
            key, spec);
    if (!geometric && step == 0)
        return errbuf_set(err, errlen, "--sweep %s=%s: the step must be at least 1", key, spec);
    for (uint64_t v = lo;;) {
        char buf[32];
        format_number(key, v, buf, sizeof buf);
        if (push_value(values, n, cap, buf, strlen(buf)) != 0)
            return errbuf_set(err, errlen, "--sweep %s=%s: more than %u values (or out of memory)",
                              key, spec, SWEEP_VALUES_MAX);
        if (geometric ? v > hi / step : hi - v < step)
            break;
        v = geometric ? v * step : v + step;
    }
    return 0;
}

/* A number with an optional unit ("16", "80ns", "3.5GHz"): the value, and
 * the unit into unit. Returns 0, or -1. */
static int number_unit(const char *s, double *v, char *unit, size_t len)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || errno || !(*v >= 0) || strlen(end) >= len)
        return -1;
    snprintf(unit, len, "%s", end);
    return 0;
}

/* A machine key's range, LO..HI:xF or LO..HI:+S: numbers that share one
 * unit (l2.mshrs=16..128:x2, memory.latency=80ns..140ns:+20ns), each value
 * written with it. Returns 1 if spec is not range-shaped, 0, or -1. */
static int expand_key_range(const char *key, const char *spec, char ***values, size_t *n,
                            size_t *cap, char *err, size_t errlen)
{
    char lo_s[64], hi_s[64], ulo[16], uhi[16], ust[16];
    const char *step_s;
    bool geometric;
    int rc = split_range(key, spec, lo_s, hi_s, &step_s, &geometric, err, errlen);
    if (rc)
        return rc;
    double lo, hi, step;
    if (number_unit(lo_s, &lo, ulo, sizeof ulo) || number_unit(hi_s, &hi, uhi, sizeof uhi) ||
        number_unit(step_s, &step, ust, sizeof ust))
        return errbuf_set(err, errlen,
                          "--sweep %s=%s: LO, HI and the step are numbers, with one unit", key,
                          spec);
    if (strcmp(ulo, uhi) != 0 || (ust[0] && (geometric || strcmp(ust, ulo) != 0)))
        return errbuf_set(err, errlen,
                          "--sweep %s=%s: LO and HI (and a +STEP) must have the same unit "
                          "('%s', '%s')",
                          key, spec, ulo, uhi);
    if (lo > hi)
        return errbuf_set(err, errlen, "--sweep %s=%s: the range is empty (%s > %s)", key, spec,
                          lo_s, hi_s);
    if (geometric ? !(step > 1) || !(lo > 0) : !(step > 0))
        return errbuf_set(err, errlen,
                          "--sweep %s=%s: a geometric range needs LO > 0 and a factor above 1; "
                          "an arithmetic one a step above 0",
                          key, spec);
    for (unsigned i = 0;; i++) {
        double v = geometric ? lo * pow(step, i) : lo + step * i;
        if (v > hi * (1 + 1e-9))
            break;
        char buf[48];
        if (v == floor(v) && v < 9e15)
            snprintf(buf, sizeof buf, "%.0f%s", v, ulo);
        else
            snprintf(buf, sizeof buf, "%.10g%s", v, ulo);
        if (push_value(values, n, cap, buf, strlen(buf)) != 0)
            return errbuf_set(err, errlen, "--sweep %s=%s: more than %u values (or out of memory)",
                              key, spec, SWEEP_VALUES_MAX);
    }
    return 0;
}

int sweep_spec_expand(const char *key, const char *spec, char ***values, size_t *n, char *err,
                      size_t errlen)
{
    size_t cap = 0;
    *values = NULL;
    *n = 0;
    const point_option_t *po = point_option_find(key);
    bool machine_key = strchr(key, '.') != NULL;
    if (machine_key) {
        char probe[MACHINE_SET_ARG_MAX];
        snprintf(probe, sizeof probe, "%s=0", key);
        if (cfg_set_check(probe, err, errlen))
            return errbuf_set(err, errlen,
                              "--sweep %s=...: not a machine key of one value (see "
                              "configs/README.md)",
                              key);
    } else if (po && strcmp(key, "set") == 0) {
        return errbuf_set(err, errlen,
                          "--sweep set=...: sweep the machine key itself, e.g. "
                          "--sweep l2.mshrs=16..128:x2");
    }
    if (!machine_key && (!po || !po->has_arg))
        return errbuf_set(
            err, errlen,
            "--sweep %s=...: unknown key; use a run option such as size, chunk, loops, "
            "function, fill, caller, page, fault, preempt, extent-cap, thp, base-page, libc, "
            "workload, machine or seed, or a machine key such as l2.mshrs",
            key);
    if (spec[0] == '\0')
        return errbuf_set(err, errlen, "--sweep %s=: no values", key);
    int rc = 1;
    if (machine_key && !strchr(spec, ','))
        rc = expand_key_range(key, spec, values, n, &cap, err, errlen);
    else if (!key_is_name(key) && !strchr(spec, ','))
        rc = expand_range(key, spec, values, n, &cap, err, errlen);
    if (rc == 1) {
        for (const char *p = spec;;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            if (len == 0) {
                rc = errbuf_set(err, errlen, "--sweep %s=%s: empty value in the list", key, spec);
                break;
            }
            if (push_value(values, n, &cap, p, len) != 0) {
                rc =
                    errbuf_set(err, errlen, "--sweep %s=%s: more than %u values (or out of memory)",
                               key, spec, SWEEP_VALUES_MAX);
                break;
            }
            if (!c) {
                rc = 0;
                break;
            }
            p = c + 1;
        }
    }
    if (rc != 0) {
        sweep_values_free(*values, *n);
        *values = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* shards                                                                    */

int sweep_parse_shard(const char *arg, uint32_t *index, uint32_t *count, char *err, size_t errlen)
{
    char a[32], why[256];
    const char *slash = strchr(arg, '/');
    uint64_t i, n;
    if (!slash || (size_t)(slash - arg) >= sizeof a)
        return errbuf_set(err, errlen, "--shard '%.64s': expected i/N, e.g. 1/4", arg);
    memcpy(a, arg, (size_t)(slash - arg));
    a[slash - arg] = '\0';
    if (unit_parse_u64(a, &i, why, sizeof why) != 0 ||
        unit_parse_u64(slash + 1, &n, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "--shard '%.64s': expected i/N with whole numbers", arg);
    if (n < 1 || n > UINT32_MAX || i < 1 || i > n)
        return errbuf_set(err, errlen, "--shard '%.64s': need 1 <= i <= N", arg);
    *index = (uint32_t)(i - 1);
    *count = (uint32_t)n;
    return 0;
}

bool sweep_in_shard(uint64_t p, uint32_t index, uint32_t count)
{
    return count <= 1 || p % count == index;
}
