/*
 * validate_load.c - the corpus of published figures read from its YAML files
 * (libyaml -> val_case_t, val_gain_t, each case's run point), through
 * sim/machine/infile.c, with file:line:col errors; and the corpus's
 * accessors. Running and scoring it: validate.c.
 */
#include "sim/study/validate_impl.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>
#include "models/base/errbuf.h"
#include "sim/engine/point.h"
#include "sim/engine/run.h"
#include "sim/engine/workload.h"
#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/datadir.h"
#include "sim/machine/infile.h"
#include "sim/machine/suggest.h"
#include "sim/machine/yamlnode.h"
#include "sim/output/pool.h"

/* ---- loading ----------------------------------------------------------- */

typedef struct loader {
    yaml_document_t doc;
    yamlnode_src_t src; /* the file and where its errors go */
    val_corpus_t *c;
    size_t cap_cases, cap_gains;
} loader_t;

/* An id: letters, digits, '-', '_', '.'. */
static int get_id(loader_t *l, const yaml_node_t *n, const char *what, char *dst, size_t len)
{
    if (yamlnode_string(&l->src, n, what, dst, len) != 0)
        return -1;
    for (const char *p = dst; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return yamlnode_fail(&l->src, n, what,
                                 "'%s': an id holds only letters, digits, '-', '_' and '.'", dst);
    return 0;
}

/* Walk map's pairs: each key must be a name given once and one of keys[]. */
typedef int (*pair_fn)(loader_t *l, void *ctx, const char *key, const char *what, yaml_node_t *k,
                       yaml_node_t *v);

static int walk_map(loader_t *l, yaml_node_t *map, const char *prefix, const char *const *keys,
                    const char *list, pair_fn fn, void *ctx)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
        const char *ks = yamlnode_scalar(k);
        char what[256];
        if (!ks)
            return yamlnode_fail(&l->src, k, prefix, "keys must be names");
        snprintf(what, sizeof what, "%.100s.%.100s", prefix, ks);
        if (yamlnode_key_repeated(&l->doc, map, p))
            return yamlnode_fail(&l->src, k, what, "given twice");
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = strcmp(keys[i], ks) == 0;
        if (!known) {
            char hint[96];
            return yamlnode_fail(
                &l->src, k, what, "unknown key (%s)%s", list,
                suggest_hint(suggest_nearest(ks, keys, SIZE_MAX), hint, sizeof hint));
        }
        if (fn(l, ctx, ks, what, k, v) != 0)
            return -1;
    }
    return 0;
}

typedef struct source_ctx {
    char id[32];
    bool have_title, have_where;
} source_ctx_t;

static int on_source(loader_t *l, void *ctx, const char *key, const char *what, yaml_node_t *k,
                     yaml_node_t *v)
{
    source_ctx_t *s = ctx;
    char buf[1024];
    (void)k;
    if (strcmp(key, "id") == 0)
        return get_id(l, v, what, s->id, sizeof s->id);
    if (strcmp(key, "title") == 0)
        s->have_title = true;
    if (strcmp(key, "where") == 0)
        s->have_where = true;
    /* title, where, date, author, locator, note: text kept in the file */
    return yamlnode_string(&l->src, v, what, buf, sizeof buf);
}

typedef struct case_ctx {
    val_case_t *c;
    yaml_node_t *command_node, *unit_node;
    bool have_figure, have_unit, have_machine, have_command, have_cpu;
} case_ctx_t;

static int on_condition(loader_t *l, void *ctx, const char *key, const char *what, yaml_node_t *k,
                        yaml_node_t *v)
{
    char buf[256];
    (void)ctx, (void)key, (void)k;
    return yamlnode_string(&l->src, v, what, buf, sizeof buf);
}

static int on_case(loader_t *l, void *ctx, const char *key, const char *what, yaml_node_t *k,
                   yaml_node_t *v)
{
    case_ctx_t *x = ctx;
    val_case_t *c = x->c;
    char buf[1024];
    (void)k;
    if (strcmp(key, "id") == 0)
        return get_id(l, v, what, c->id, sizeof c->id);
    if (strcmp(key, "cpu") == 0) {
        x->have_cpu = true;
        return yamlnode_string(&l->src, v, what, c->cpu, sizeof c->cpu);
    }
    if (strcmp(key, "sku_inferred") == 0)
        return yamlnode_bool(&l->src, v, what, &c->sku_inferred);
    if (strcmp(key, "unit_inferred") == 0)
        return yamlnode_bool(&l->src, v, what, &c->unit_inferred);
    if (strcmp(key, "machine") == 0) {
        x->have_machine = true;
        return get_id(l, v, what, c->machine, sizeof c->machine);
    }
    if (strcmp(key, "figure") == 0) {
        x->have_figure = true;
        if (yamlnode_double(&l->src, v, what, &c->figure) != 0)
            return -1;
        if (!(c->figure > 0))
            return yamlnode_fail(&l->src, v, what, "'%s' must be positive", yamlnode_scalar(v));
        return 0;
    }
    if (strcmp(key, "unit") == 0) {
        x->have_unit = true;
        x->unit_node = v;
        return yamlnode_string(&l->src, v, what, c->unit, sizeof c->unit);
    }
    if (strcmp(key, "bytes") == 0) {
        if (yamlnode_double(&l->src, v, what, &c->bytes) != 0)
            return -1;
        if (!(c->bytes > 0))
            return yamlnode_fail(&l->src, v, what, "'%s' must be positive", yamlnode_scalar(v));
        return 0;
    }
    if (strcmp(key, "spread") == 0)
        return yamlnode_string(&l->src, v, what, c->spread, sizeof c->spread);
    if (strcmp(key, "command") == 0) {
        x->have_command = true;
        x->command_node = v;
        return yamlnode_string(&l->src, v, what, c->command, sizeof c->command);
    }
    if (strcmp(key, "role") == 0) {
        const char *s = yamlnode_scalar(v);
        if (s && strcmp(s, "judge") == 0)
            c->role = VAL_ROLE_JUDGE;
        else if (s && strcmp(s, "calibration") == 0)
            c->role = VAL_ROLE_CALIBRATION;
        else if (s && strcmp(s, "anchor") == 0)
            c->role = VAL_ROLE_ANCHOR;
        else
            return yamlnode_fail(&l->src, v, what, "'%s' is not judge, calibration or anchor",
                                 s ? s : "(not a scalar)");
        return 0;
    }
    if (strcmp(key, "conditions") == 0) {
        static const char *const keys[] = {"clock",   "kernel", "libc", "thp",
                                           "preempt", "note",   NULL};
        if (v->type != YAML_MAPPING_NODE)
            return yamlnode_fail(&l->src, v, what,
                                 "expected a mapping (clock, kernel, libc, thp, preempt)");
        return walk_map(l, v, what, keys, "clock, kernel, libc, thp, preempt, note", on_condition,
                        NULL);
    }
    /* note */
    return yamlnode_string(&l->src, v, what, buf, sizeof buf);
}

static bool grow(void **v, size_t *cap, size_t n, size_t size, size_t max)
{
    if (n < *cap)
        return true;
    if (n >= max)
        return false;
    size_t nc = *cap ? *cap * 2 : 64;
    if (nc > max)
        nc = max;
    void *p = realloc(*v, nc * size);
    if (!p)
        return false;
    *v = p;
    *cap = nc;
    return true;
}

static int load_case(loader_t *l, yaml_node_t *map, const char *source)
{
    static const char *const keys[] = {"id",      "cpu",  "sku_inferred",  "machine", "conditions",
                                       "figure",  "unit", "unit_inferred", "spread",  "bytes",
                                       "command", "role", "note",          NULL};
    val_corpus_t *c = l->c;
    if (map->type != YAML_MAPPING_NODE)
        return yamlnode_fail(&l->src, map, "cases", "each case is a mapping");
    size_t cap_points = l->cap_cases;
    if (!grow((void **)&c->cases, &l->cap_cases, c->n_cases, sizeof *c->cases, VAL_CASES_MAX) ||
        !grow((void **)&c->points, &cap_points, c->n_cases, sizeof *c->points, VAL_CASES_MAX))
        return yamlnode_fail(&l->src, map, "cases",
                             "more than %d cases in the corpus, or out of memory", VAL_CASES_MAX);
    val_case_t *vc = &c->cases[c->n_cases];
    memset(vc, 0, sizeof *vc);
    snprintf(vc->source, sizeof vc->source, "%s", source);
    snprintf(vc->file, sizeof vc->file, "%s", l->src.path);
    vc->line = (uint32_t)map->start_mark.line + 1;
    vc->predicted_bps = vc->error = NAN;
    case_ctx_t x = {.c = vc};
    if (walk_map(l, map, "cases", keys,
                 "id, cpu, sku_inferred, machine, conditions, figure, unit, unit_inferred, "
                 "spread, bytes, command, role, note",
                 on_case, &x) != 0)
        return -1;
    static const char *const required[] = {"id", "cpu", "machine", "figure", "unit", "command"};
    bool have[] = {vc->id[0] != 0, x.have_cpu,  x.have_machine,
                   x.have_figure,  x.have_unit, x.have_command};
    for (size_t i = 0; i < sizeof have / sizeof have[0]; i++)
        if (!have[i]) {
            char what[64];
            snprintf(what, sizeof what, "cases.%s", required[i]);
            return yamlnode_fail(&l->src, map, what, "required (case %s)",
                                 vc->id[0] ? vc->id : "without an id");
        }
    char why[512];
    if (val_unit_bps(vc->figure, vc->unit, vc->bytes, &vc->published_bps, why, sizeof why) != 0)
        return yamlnode_fail(&l->src, x.unit_node, "cases.unit", "%s", why);
    if (val_command_point(vc->command, vc->machine, &c->points[c->n_cases], why, sizeof why) != 0)
        return yamlnode_fail(&l->src, x.command_node, "cases.command", "'%s': %s", vc->command,
                             why);
    for (size_t i = 0; i < c->n_cases; i++)
        if (strcmp(c->cases[i].id, vc->id) == 0)
            return yamlnode_fail(&l->src, map, "cases.id", "'%s' is also the id of a case at %s:%u",
                                 vc->id, c->cases[i].file, (unsigned)c->cases[i].line);
    c->n_cases++;
    return 0;
}

typedef struct gain_ctx {
    val_gain_t *g;
    char num[64], den[64];
    yaml_node_t *num_node, *den_node;
} gain_ctx_t;

static int on_gain(loader_t *l, void *ctx, const char *key, const char *what, yaml_node_t *k,
                   yaml_node_t *v)
{
    gain_ctx_t *x = ctx;
    char buf[1024];
    (void)k;
    if (strcmp(key, "id") == 0)
        return get_id(l, v, what, x->g->id, sizeof x->g->id);
    if (strcmp(key, "numerator") == 0) {
        x->num_node = v;
        return get_id(l, v, what, x->num, sizeof x->num);
    }
    if (strcmp(key, "denominator") == 0) {
        x->den_node = v;
        return get_id(l, v, what, x->den, sizeof x->den);
    }
    return yamlnode_string(&l->src, v, what, buf, sizeof buf);
}

/* Gains are resolved once every file is loaded (a gain may name a case of
 * another file); until then num/den hold the node's line and the names are
 * kept here. */
typedef struct pending_gain {
    char num[64], den[64];
    size_t num_line, num_col, den_line, den_col;
} pending_gain_t;

static int load_gain(loader_t *l, yaml_node_t *map, const char *source, pending_gain_t **pend,
                     size_t *cap_pend)
{
    static const char *const keys[] = {"id", "numerator", "denominator", "note", NULL};
    val_corpus_t *c = l->c;
    if (map->type != YAML_MAPPING_NODE)
        return yamlnode_fail(&l->src, map, "gains", "each gain is a mapping");
    size_t cp = *cap_pend;
    if (!grow((void **)&c->gains, &l->cap_gains, c->n_gains, sizeof *c->gains, VAL_GAINS_MAX) ||
        !grow((void **)pend, &cp, c->n_gains, sizeof **pend, VAL_GAINS_MAX))
        return yamlnode_fail(&l->src, map, "gains",
                             "more than %d gains in the corpus, or out of memory", VAL_GAINS_MAX);
    *cap_pend = cp;
    val_gain_t *g = &c->gains[c->n_gains];
    memset(g, 0, sizeof *g);
    snprintf(g->source, sizeof g->source, "%s", source);
    snprintf(g->file, sizeof g->file, "%s", l->src.path);
    g->line = (uint32_t)map->start_mark.line + 1;
    g->published_ratio = g->predicted_ratio = g->error = NAN;
    gain_ctx_t x = {.g = g};
    if (walk_map(l, map, "gains", keys, "id, numerator, denominator, note", on_gain, &x) != 0)
        return -1;
    if (!g->id[0])
        return yamlnode_fail(&l->src, map, "gains.id", "required");
    if (!x.num_node)
        return yamlnode_fail(&l->src, map, "gains.numerator", "required (gain %s)", g->id);
    if (!x.den_node)
        return yamlnode_fail(&l->src, map, "gains.denominator", "required (gain %s)", g->id);
    if (strcmp(x.num, x.den) == 0)
        return yamlnode_fail(&l->src, x.den_node, "gains.denominator", "'%s' is also the numerator",
                             x.den);
    for (size_t i = 0; i < c->n_gains; i++)
        if (strcmp(c->gains[i].id, g->id) == 0)
            return yamlnode_fail(&l->src, map, "gains.id", "'%s' is also the id of a gain at %s:%u",
                                 g->id, c->gains[i].file, (unsigned)c->gains[i].line);
    pending_gain_t *p = &(*pend)[c->n_gains];
    snprintf(p->num, sizeof p->num, "%s", x.num);
    snprintf(p->den, sizeof p->den, "%s", x.den);
    p->num_line = x.num_node->start_mark.line + 1;
    p->num_col = x.num_node->start_mark.column + 1;
    p->den_line = x.den_node->start_mark.line + 1;
    p->den_col = x.den_node->start_mark.column + 1;
    c->n_gains++;
    return 0;
}

static int load_file(val_corpus_t *c, const char *path, size_t *cap_cases, size_t *cap_gains,
                     pending_gain_t **pend, size_t *cap_pend, char *err, size_t errlen)
{
    loader_t l = {.src = {.path = path, .err = err, .errlen = errlen},
                  .c = c,
                  .cap_cases = *cap_cases,
                  .cap_gains = *cap_gains};
    if (yamlnode_load(path, VAL_CORPUS_FILE_BYTES, &l.doc, err, errlen) != 0)
        return -1;
    int rc = -1;
    yaml_node_t *root = yaml_document_get_root_node(&l.doc);
    yaml_node_t *src = NULL, *cases = NULL, *gains = NULL;
    source_ctx_t s = {0};
    if (!root || root->type != YAML_MAPPING_NODE) {
        yamlnode_fail(&l.src, root, "(top level)",
                      "expected a mapping with source, cases and gains");
        goto out;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&l.doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&l.doc, p->value);
        const char *ks = yamlnode_scalar(k);
        if (ks && yamlnode_key_repeated(&l.doc, root, p)) {
            yamlnode_fail(&l.src, k, ks, "given twice");
            goto out;
        }
        if (ks && strcmp(ks, "source") == 0)
            src = v;
        else if (ks && strcmp(ks, "cases") == 0)
            cases = v;
        else if (ks && strcmp(ks, "gains") == 0)
            gains = v;
        else {
            yamlnode_fail(&l.src, k, ks ? ks : "(top level)", "unknown key (source, cases, gains)");
            goto out;
        }
    }
    if (!src) {
        yamlnode_fail(&l.src, root, "source", "required");
        goto out;
    }
    if (src->type != YAML_MAPPING_NODE) {
        yamlnode_fail(&l.src, src, "source",
                      "expected a mapping (id, title, where, date, author, locator)");
        goto out;
    }
    static const char *const source_keys[] = {"id",     "title",   "where", "date",
                                              "author", "locator", "note",  NULL};
    if (walk_map(&l, src, "source", source_keys, "id, title, where, date, author, locator, note",
                 on_source, &s) != 0)
        goto out;
    if (!s.id[0]) {
        yamlnode_fail(&l.src, src, "source.id", "required");
        goto out;
    }
    if (!s.have_where) {
        yamlnode_fail(&l.src, src, "source.where", "required (list and message id, URL or commit)");
        goto out;
    }
    for (size_t i = 0; i < c->n_sources; i++)
        if (strcmp(c->sources[i], s.id) == 0) {
            yamlnode_fail(&l.src, src, "source.id", "'%s' is the id of another file's source",
                          s.id);
            goto out;
        }
    char(*ns)[32] = realloc(c->sources, (c->n_sources + 1) * sizeof *c->sources);
    if (ns)
        c->sources = ns;
    char(*nf)[512] =
        ns ? realloc(c->source_files, (c->n_sources + 1) * sizeof *c->source_files) : NULL;
    if (!nf) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    c->source_files = nf;
    snprintf(c->source_files[c->n_sources], sizeof *c->source_files, "%s", path);
    snprintf(c->sources[c->n_sources++], sizeof *c->sources, "%s", s.id);
    if (!cases || cases->type != YAML_SEQUENCE_NODE) {
        yamlnode_fail(&l.src, cases ? cases : root, "cases", "required: a list of cases");
        goto out;
    }
    for (yaml_node_item_t *it = cases->data.sequence.items.start;
         it < cases->data.sequence.items.top; it++)
        if (load_case(&l, yaml_document_get_node(&l.doc, *it), s.id) != 0)
            goto out;
    if (gains) {
        if (gains->type != YAML_SEQUENCE_NODE) {
            yamlnode_fail(&l.src, gains, "gains", "expected a list of gains");
            goto out;
        }
        for (yaml_node_item_t *it = gains->data.sequence.items.start;
             it < gains->data.sequence.items.top; it++)
            if (load_gain(&l, yaml_document_get_node(&l.doc, *it), s.id, pend, cap_pend) != 0)
                goto out;
    }
    rc = 0;
out:
    *cap_cases = l.cap_cases;
    *cap_gains = l.cap_gains;
    yaml_document_delete(&l.doc);
    return rc;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t find_case(const val_corpus_t *c, const char *id)
{
    for (size_t i = 0; i < c->n_cases; i++)
        if (strcmp(c->cases[i].id, id) == 0)
            return i;
    return SIZE_MAX;
}

/* Keep the cases of machine/source and the gains whose two cases are kept. */
static int filter(val_corpus_t *c, const char *machine, const char *source, char *err,
                  size_t errlen)
{
    size_t *map = malloc((c->n_cases ? c->n_cases : 1) * sizeof *map);
    if (!map)
        return errbuf_set(err, errlen, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->n_cases; i++) {
        bool keep = (!machine || strcmp(c->cases[i].machine, machine) == 0) &&
                    (!source || strcmp(c->cases[i].source, source) == 0);
        map[i] = keep ? n : SIZE_MAX;
        if (keep) {
            if (n != i) {
                c->cases[n] = c->cases[i];
                c->points[n] = c->points[i];
            }
            n++;
        }
    }
    c->n_cases = n;
    size_t ng = 0;
    for (size_t i = 0; i < c->n_gains; i++) {
        val_gain_t g = c->gains[i];
        if (map[g.num] == SIZE_MAX || map[g.den] == SIZE_MAX)
            continue;
        g.num = map[g.num];
        g.den = map[g.den];
        c->gains[ng++] = g;
    }
    c->n_gains = ng;
    free(map);
    return 0;
}

static val_corpus_t *load_paths(char **paths, size_t n, const char *machine, const char *source,
                                bool *usage, char *err, size_t errlen)
{
    val_corpus_t *c = calloc(1, sizeof *c);
    pending_gain_t *pend = NULL;
    size_t cap_cases = 0, cap_gains = 0, cap_pend = 0;
    if (usage)
        *usage = false;
    if (!c) {
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (load_file(c, paths[i], &cap_cases, &cap_gains, &pend, &cap_pend, err, errlen) != 0)
            goto fail;
    for (size_t i = 0; i < c->n_gains; i++) {
        val_gain_t *g = &c->gains[i];
        pending_gain_t *p = &pend[i];
        g->num = find_case(c, p->num);
        g->den = find_case(c, p->den);
        if (g->num == SIZE_MAX || g->den == SIZE_MAX) {
            bool num = g->num == SIZE_MAX;
            errbuf_set(err, errlen, "%s:%zu:%zu: gains.%s: '%s' is not the id of a case", g->file,
                       num ? p->num_line : p->den_line, num ? p->num_col : p->den_col,
                       num ? "numerator" : "denominator", num ? p->num : p->den);
            goto fail;
        }
        const val_case_t *a = &c->cases[g->num], *b = &c->cases[g->den];
        if (strcmp(a->machine, b->machine) != 0) {
            errbuf_set(err, errlen,
                       "%s:%u: gains: '%s' is a ratio of two machines' figures (%s on %s, %s on "
                       "%s); a gain compares two ways on one machine",
                       g->file, (unsigned)g->line, g->id, a->id, a->machine, b->id, b->machine);
            goto fail;
        }
        g->exempt = a->role != VAL_ROLE_JUDGE || b->role != VAL_ROLE_JUDGE;
        g->published_ratio = a->published_bps / b->published_bps;
    }
    free(pend);
    pend = NULL;
    if (source) {
        bool found = false;
        for (size_t i = 0; i < c->n_sources && !found; i++)
            found = strcmp(c->sources[i], source) == 0;
        if (!found) {
            char hint[96];
            const char **ids = malloc((c->n_sources ? c->n_sources : 1) * sizeof *ids);
            for (size_t i = 0; ids && i < c->n_sources; i++)
                ids[i] = c->sources[i];
            errbuf_set(err, errlen, "--source %s: no source of that id in the corpus%s", source,
                       suggest_hint(ids ? suggest_nearest(source, ids, c->n_sources) : NULL, hint,
                                    sizeof hint));
            free(ids);
            if (usage)
                *usage = true;
            goto fail;
        }
    }
    if (filter(c, machine, source, err, errlen) != 0)
        goto fail;
    if (machine && c->n_cases == 0) {
        errbuf_set(err, errlen, "--machine %s: no case of the corpus%s%s judges that machine",
                   machine, source ? " from source " : "", source ? source : "");
        if (usage)
            *usage = true;
        goto fail;
    }
    return c;
fail:
    free(pend);
    val_destroy(c);
    return NULL;
}

val_corpus_t *val_load(const char *dir, const char *machine, const char *source, bool *usage,
                       char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        errbuf_set(err, errlen, "cannot read the corpus directory %s: %s", dir, strerror(errno));
        return NULL;
    }
    char **paths = NULL;
    size_t n = 0;
    struct dirent *e;
    bool fail = false;
    while (!fail && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        if (n >= VAL_FILES_MAX) {
            errbuf_set(err, errlen, "%s: more than %d corpus files", dir, VAL_FILES_MAX);
            fail = true;
            break;
        }
        char **np = realloc(paths, (n + 1) * sizeof *paths);
        size_t plen = strlen(dir) + 1 + len + 1;
        char *p = malloc(plen);
        if (!np || !p) {
            free(p);
            if (np)
                paths = np;
            errbuf_set(err, errlen, "out of memory");
            fail = true;
            break;
        }
        paths = np;
        snprintf(p, plen, "%s/%s", dir, e->d_name);
        paths[n++] = p;
    }
    closedir(d);
    val_corpus_t *c = NULL;
    if (!fail) {
        if (n > 1)
            qsort(paths, n, sizeof *paths, cmp_name);
        c = load_paths(paths, n, machine, source, usage, err, errlen);
    }
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return c;
}

val_corpus_t *val_load_file(const char *path, char *err, size_t errlen)
{
    char *p = (char *)path;
    return load_paths(&p, 1, NULL, NULL, NULL, err, errlen);
}

void val_destroy(val_corpus_t *c)
{
    if (!c)
        return;
    free(c->cases);
    free(c->gains);
    free(c->points);
    free(c->sources);
    free(c->source_files);
    free(c->summaries);
    free(c);
}

size_t val_n_cases(const val_corpus_t *c)
{
    return c->n_cases;
}

size_t val_n_gains(const val_corpus_t *c)
{
    return c->n_gains;
}

size_t val_n_sources(const val_corpus_t *c)
{
    return c->n_sources;
}

const val_case_t *val_case(const val_corpus_t *c, size_t i)
{
    return i < c->n_cases ? &c->cases[i] : NULL;
}

const val_gain_t *val_gain(const val_corpus_t *c, size_t i)
{
    return i < c->n_gains ? &c->gains[i] : NULL;
}

const char *val_source_file(const val_corpus_t *c, size_t i)
{
    return i < c->n_sources ? c->source_files[i] : NULL;
}

const struct run_point *val_case_point(const val_corpus_t *c, size_t i)
{
    return i < c->n_cases ? &c->points[i] : NULL;
}

const char *val_source_id(const val_corpus_t *c, size_t i)
{
    return i < c->n_sources ? c->sources[i] : NULL;
}

size_t val_n_summaries(const val_corpus_t *c)
{
    return c->n_summaries;
}

const val_summary_t *val_summary(const val_corpus_t *c, size_t i)
{
    return i < c->n_summaries ? &c->summaries[i] : NULL;
}
