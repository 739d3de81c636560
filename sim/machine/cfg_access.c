/*
 * cfg_access.c - a loaded machine's keys by name: reading and setting a
 * numeric key in its stored unit (for calibrate), writing a value with its
 * unit (messages, calibrated YAML), and the key reference as Markdown.
 */
#include "sim/machine/cfg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg_impl.h"
#include "sim/machine/units.h"

const char *cfg_key_format(const cfg_key_t *k, double v, cfg_fmt_t how, char *buf, size_t len)
{
    bool yaml = how == CFG_FMT_YAML;
    const char *unit = NULL;
    switch (k->type) {
    case CFG_T_SIZE:
        if (yaml)
            snprintf(buf, len, "%.0fB", v);
        else
            unit_format_size(cfg_i_d2u(v), buf, len);
        return buf;
    case CFG_T_U32:
    case CFG_T_U64:
        snprintf(buf, len, "%.0f", v);
        return buf;
    case CFG_T_BOOL:
        snprintf(buf, len, "%s", v != 0 ? "true" : "false");
        return buf;
    case CFG_T_ENUM: { /* the v-th of its names (as cfg_key_get gives it) */
        const char *e = k->enums ? k->enums : "";
        for (long i = 0; i < (long)v && *e; i++)
            e += strcspn(e, "|") + (e[strcspn(e, "|")] == '|');
        snprintf(buf, len, "%.*s", (int)strcspn(e, "|"), e);
        return buf;
    }
    case CFG_T_TIME_CYCLES:
    case CFG_T_STARTUP:
        unit = "cycles";
        break;
    case CFG_T_TIME_NS:
        unit = "ns";
        break;
    case CFG_T_FREQ:
        unit = "GHz";
        break;
    case CFG_T_BW:
        unit = "B/cycle";
        break;
    default:
        break;
    }
    if (yaml && unit && fabs(v) >= 1e4) /* whole units: %.4g would print 5e+04 */
        snprintf(buf, len, "%.0f%s", v, unit);
    else if (yaml && unit)
        snprintf(buf, len, "%.4g%s", v, unit);
    else if (yaml) /* a plain number (a fraction, a rate) */
        snprintf(buf, len, "%.6g", v);
    else
        snprintf(buf, len, "%g%s%s", v, unit ? " " : "", unit ? unit : "");
    return buf;
}

/* ---- key access for calibrate ----------------------------------------------- */

int cfg_key_get(const machine_t *m, const cfg_key_t *k, double *out)
{
    const void *src = (const char *)m + k->offset;
    switch (k->type) {
    case CFG_T_BOOL: {
        bool b;
        memcpy(&b, src, sizeof(b));
        *out = b ? 1 : 0;
        return 0;
    }
    case CFG_T_ENUM: {
        int v;
        memcpy(&v, src, sizeof(v));
        *out = v;
        return 0;
    }
    case CFG_T_U32:
    case CFG_T_U64:
    case CFG_T_SIZE:
        *out = (double)cfg_i_load_uint(src, k->size);
        return 0;
    case CFG_T_DOUBLE:
    case CFG_T_TIME_NS:
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
    case CFG_T_FREQ:
    case CFG_T_BW:
        memcpy(out, src, sizeof(*out));
        return 0;
    default:
        return -1;
    }
}

int cfg_key_set(machine_t *m, const cfg_key_t *k, double v, char *err, size_t errlen)
{
    void *dst = (char *)m + k->offset;
    if (!isfinite(v) || v < k->min || v > k->max) {
        errbuf_set(err, errlen, "%s: %g: must be between %g and %g", k->path, v, k->min, k->max);
        return -1;
    }
    switch (k->type) {
    case CFG_T_U32:
    case CFG_T_U64:
    case CFG_T_SIZE:
        cfg_i_store_uint(dst, k->size, cfg_i_d2u(floor(v + 0.5)));
        break;
    case CFG_T_DOUBLE:
    case CFG_T_TIME_NS:
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
    case CFG_T_FREQ:
    case CFG_T_BW:
        memcpy(dst, &v, sizeof(v));
        break;
    default:
        errbuf_set(err, errlen, "%s: not a numeric key", k->path);
        return -1;
    }
    if (strcmp(k->path, "string.elide.threshold_fraction") == 0 && v > 0) {
        int lvl = m->elide_threshold_level;
        const machine_cache_t *cl = lvl == 1 ? &m->l1 : lvl == 2 ? &m->l2 : &m->l3;
        m->elide_threshold_bytes = cfg_i_d2u(floor(v * (double)cl->size_bytes + 0.5));
    }
    return 0;
}

/* ---- documentation ----------------------------------------------------------- */

static const char *type_unit(const cfg_key_t *k)
{
    switch (k->type) {
    case CFG_T_STRING:
        return "string";
    case CFG_T_BOOL:
        return "bool";
    case CFG_T_U32:
    case CFG_T_U64:
        return "integer";
    case CFG_T_DOUBLE:
        return "number";
    case CFG_T_SIZE:
        return "size (bytes)";
    case CFG_T_TIME_NS:
        return "time (ns; cycles via core.freq)";
    case CFG_T_TIME_CYCLES:
    case CFG_T_TIME_ANY:
        return "time (cycles; ns via core.freq)";
    case CFG_T_FREQ:
        return "frequency (GHz)";
    case CFG_T_BW:
        return "bandwidth (B/cycle; GB/s via core.freq)";
    case CFG_T_ENUM:
        return "enum";
    case CFG_T_FEATURES:
        return "list of names";
    case CFG_T_STARTUP:
        return "list of {len: size, cost: time}";
    case CFG_T_PMU:
        return "mapping";
    case CFG_T_MICROBENCH:
        return "list of figures";
    case CFG_T_MBFIT:
        return "list of {key, stage, range}";
    }
    return "?";
}

int cfg_keys_markdown(FILE *out)
{
    size_t n = 0;
    const cfg_key_t *keys = cfg_keys(&n);
    fprintf(out, "| key | type (stored unit) | default | range | fit | meaning |\n");
    fprintf(out, "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const cfg_key_t *k = &keys[i];
        char def[96], range[160], lo[48], hi[48];
        bool l3 = strncmp(k->path, "l3.", 3) == 0;
        if (k->required)
            snprintf(def, sizeof(def), "%s", l3 ? "required if `l3:` is given" : "required");
        else if (k->deflt && k->deflt[0])
            snprintf(def, sizeof(def), "`%s`", k->deflt);
        else if (k->deflt)
            snprintf(def, sizeof(def), "empty");
        else
            snprintf(def, sizeof(def), "none");
        switch (k->type) {
        case CFG_T_ENUM:
            snprintf(range, sizeof(range), "%s", k->enums);
            for (char *p = range; *p; p++)
                if (*p == '|')
                    *p = ',';
            break;
        case CFG_T_BOOL:
            snprintf(range, sizeof(range), "true, false");
            break;
        case CFG_T_STRING:
        case CFG_T_FEATURES:
        case CFG_T_PMU:
        case CFG_T_MICROBENCH:
        case CFG_T_MBFIT:
            snprintf(range, sizeof(range), "-");
            break;
        default:
            cfg_key_format(k, k->min, CFG_FMT_TEXT, lo, sizeof(lo));
            if (k->max >= U64MAX_D)
                snprintf(range, sizeof(range), ">= %s", lo);
            else
                snprintf(range, sizeof(range), "%s .. %s", lo,
                         cfg_key_format(k, k->max, CFG_FMT_TEXT, hi, sizeof(hi)));
            if (k->type == CFG_T_STARTUP)
                snprintf(range, sizeof(range), "cost %s .. %s, len <= 1TiB, sorted", lo, hi);
            break;
        }
        if (fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", k->path, type_unit(k), def, range,
                    k->fittable ? "yes" : "no", k->doc) < 0)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}
