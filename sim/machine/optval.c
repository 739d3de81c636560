/*
 * optval.c - option values with their units and bounds (see optval.h).
 */
#include "sim/machine/optval.h"

#include <stdio.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/suggest.h"
#include "sim/machine/units.h"

const char *optval_shown(const char *s, char *buf, size_t len)
{
    const size_t max_chars = 64;
    size_t o = 0, i = 0;
    if (len == 0)
        return "";
    for (; s && s[i] && o + 1 < len && i < max_chars; i++)
        buf[o++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    buf[o] = '\0';
    if (s && s[i] && o + 4 < len)
        memcpy(buf + o, "...", 4);
    return buf;
}

int optval_size(const char *opt, const char *arg, uint64_t *out, char *err, size_t errlen)
{
    char why[256], a[80];
    uint64_t v = 0;
    if (unit_parse_size(arg, &v, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "%s '%s': %s", opt, optval_shown(arg, a, sizeof a), why);
    if (v == 0)
        return errbuf_set(err, errlen, "%s '%s': must be greater than 0", opt,
                          optval_shown(arg, a, sizeof a));
    if (v > OPTVAL_SIZE_MAX_BYTES)
        return errbuf_set(err, errlen, "%s '%s': larger than the limit of 1TiB", opt,
                          optval_shown(arg, a, sizeof a));
    *out = v;
    return 0;
}

int optval_uint(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out,
                char *err, size_t errlen)
{
    char why[256], a[80];
    uint64_t v = 0;
    if (unit_parse_u64(arg, &v, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "%s '%s': %s", opt, optval_shown(arg, a, sizeof a), why);
    if (v < min || v > max)
        return errbuf_set(err, errlen, "%s '%s': out of range %llu..%llu", opt,
                          optval_shown(arg, a, sizeof a), (unsigned long long)min,
                          (unsigned long long)max);
    *out = v;
    return 0;
}

int optval_choice(const char *opt, const char *arg, const name_value_t *t, int *out, char *err,
                  size_t errlen)
{
    char list[256], a[80];
    if (name_parse(t, arg, out) == 0)
        return 0;
    suggest_t sg;
    suggest_init(&sg, arg);
    for (const name_value_t *e = t; e->name; e++)
        suggest_offer(&sg, e->name);
    char hint[96];
    return errbuf_set(err, errlen, "%s '%s': must be one of %s%s", opt,
                      optval_shown(arg, a, sizeof a), name_list(t, list, sizeof list),
                      suggest_hint(suggest_best(&sg), hint, sizeof hint));
}

int optval_text(const char *opt, const char *arg, const char *what, const char **out, char *err,
                size_t errlen)
{
    if (!arg || arg[0] == '\0')
        return errbuf_set(err, errlen, "%s '': give %s", opt, what);
    *out = arg;
    return 0;
}
