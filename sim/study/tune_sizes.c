/*
 * tune_sizes.c - `clearsim tune`'s size distributions (see tune.h): the
 * default one, SIZE[:WEIGHT] lists, LO..HI:xF ranges (the sweep's range
 * syntax), csv files (size[,weight]) and YAML mappings (SIZE: WEIGHT,
 * libyaml).
 *
 * Notes
 *  - Every size is a multiple of TUNE_LINE_BYTES; the list comes back
 *    sorted, and a size given twice is an error.
 *  - Errors name the file and line (csv, YAML) or the list item.
 *  - Units: bytes; weights are relative.
 */
#include "sim/study/tune.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <yaml.h>

#include "sim/machine/catalog.h"
#include "sim/machine/datadir.h"
#include "sim/machine/infile.h"

#include "models/base/errbuf.h"
#include "sim/output/csv.h"
#include "sim/study/sweep.h"
#include "sim/machine/optval.h"
#include "sim/machine/units.h"

static int cmp_size(const void *a, const void *b)
{
    const tune_size_t *x = a, *y = b;
    return x->size_bytes < y->size_bytes ? -1 : x->size_bytes > y->size_bytes;
}

/* Sort, then reject duplicates and sizes that are not whole lines. */
static int finish_sizes(tune_size_t *v, size_t n, const char *where, char *err, size_t errlen)
{
    char a[32];
    if (n == 0)
        return errbuf_set(err, errlen, "%s: no sizes", where);
    qsort(v, n, sizeof *v, cmp_size);
    for (size_t i = 0; i < n; i++) {
        unit_format_size(v[i].size_bytes, a, sizeof a);
        if (v[i].size_bytes % TUNE_LINE_BYTES)
            return errbuf_set(err, errlen, "%s: size %s is not a multiple of 64 bytes", where, a);
        if (v[i].size_bytes > OPTVAL_SIZE_MAX_BYTES)
            return errbuf_set(err, errlen, "%s: size %s is larger than the limit of 1TiB", where,
                              a);
        if (i > 0 && v[i].size_bytes == v[i - 1].size_bytes)
            return errbuf_set(err, errlen, "%s: size %s is given twice", where, a);
    }
    return 0;
}

static int push_size(tune_size_t **v, size_t *n, size_t *cap, uint64_t size, double w)
{
    if (*n >= TUNE_SIZES_MAX)
        return -1;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        tune_size_t *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[*n].size_bytes = size;
    (*v)[*n].weight = w;
    (*n)++;
    return 0;
}

static int parse_weight(const char *s, double *w, char *why, size_t whylen)
{
    if (unit_parse_double(s, w, why, whylen) != 0)
        return -1;
    if (!(*w > 0) || !isfinite(*w)) {
        errbuf_set(why, whylen, "a weight must be a positive number");
        return -1;
    }
    return 0;
}

int tune_parse_sizes(const char *dist, tune_size_t **out, size_t *n, char *err, size_t errlen)
{
    size_t cap = 0;
    char why[256];
    *out = NULL;
    *n = 0;
    if (strstr(dist, "..")) {
        char **vals = NULL;
        size_t nv = 0;
        if (sweep_spec_expand("size", dist, &vals, &nv, why, sizeof why) != 0) {
            /* the sweep names its own option; say ours */
            const char *msg = strstr(why, ": ");
            return errbuf_set(err, errlen, "--sizes '%.64s'%s", dist, msg ? msg : ": bad range");
        }
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < nv; i++) {
            uint64_t v;
            if (unit_parse_size(vals[i], &v, why, sizeof why) != 0 ||
                push_size(out, n, &cap, v, 1.0) != 0)
                rc = errbuf_set(err, errlen, "--sizes '%.64s': too many sizes", dist);
        }
        sweep_values_free(vals, nv);
        if (rc == 0)
            rc = finish_sizes(*out, *n, "--sizes", err, errlen);
        if (rc != 0) {
            free(*out);
            *out = NULL;
            *n = 0;
        }
        return rc;
    }
    char item[128];
    for (const char *p = dist;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        uint64_t size;
        double w = 1.0;
        if (len == 0 || len >= sizeof item) {
            errbuf_set(err, errlen, "--sizes '%.64s': %s item", dist,
                       len ? "too long an" : "an empty");
            goto bad;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *colon = strchr(item, ':');
        if (colon) {
            *colon = '\0';
            if (parse_weight(colon + 1, &w, why, sizeof why) != 0) {
                errbuf_set(err, errlen, "--sizes '%.64s': weight '%s': %s", dist, colon + 1, why);
                goto bad;
            }
        }
        int size_bad = unit_parse_size(item, &size, why, sizeof why);
        if (size_bad || size == 0) {
            errbuf_set(err, errlen, "--sizes '%.64s': size '%s': %s", dist, item,
                       size_bad ? why : "must be greater than 0");
            goto bad;
        }
        if (push_size(out, n, &cap, size, w) != 0) {
            errbuf_set(err, errlen, "--sizes: more than %u sizes", TUNE_SIZES_MAX);
            goto bad;
        }
        if (!c)
            break;
        p = c + 1;
    }
    if (finish_sizes(*out, *n, "--sizes", err, errlen) == 0)
        return 0;
bad:
    free(*out);
    *out = NULL;
    *n = 0;
    return -1;
}

/* Reading a sizes csv: the sizes so far and where they go. */
typedef struct csv_sizes {
    const char *path;
    tune_size_t **out;
    size_t *n, *cap;
} csv_sizes_t;

static int csv_size_row(void *ctx, const csv_row_t *row, char *err, size_t errlen)
{
    csv_sizes_t *c = ctx;
    char why[256];
    if (row->is_header) {
        if (row->n > 2 || strcmp(row->fields[0], "size") != 0 ||
            (row->n == 2 && strcmp(row->fields[1], "weight") != 0))
            return errbuf_set(err, errlen, "%s:%zu: the header must be 'size' or 'size,weight'",
                              c->path, row->lineno);
        return 0;
    }
    const char *a = row->fields[0], *b = row->n == 2 ? row->fields[1] : NULL;
    uint64_t size;
    double w = 1.0;
    int size_bad = unit_parse_size(a, &size, why, sizeof why);
    if (size_bad || size == 0)
        return errbuf_set(err, errlen, "%s:%zu: size '%.64s': %s", c->path, row->lineno, a,
                          size_bad ? why : "must be greater than 0");
    if (b && parse_weight(b, &w, why, sizeof why) != 0)
        return errbuf_set(err, errlen, "%s:%zu: weight '%.64s': %s", c->path, row->lineno, b, why);
    if (push_size(c->out, c->n, c->cap, size, w) != 0)
        return errbuf_set(err, errlen, "%s:%zu: more than %u sizes", c->path, row->lineno,
                          TUNE_SIZES_MAX);
    return 0;
}

/* A csv of size[,weight] rows under a 'size' or 'size,weight' header;
 * '#' lines are comments. */
static int load_csv(const char *path, tune_size_t **out, size_t *n, size_t *cap, char *err,
                    size_t errlen)
{
    csv_sizes_t c = {path, out, n, cap};
    return csv_read(path, CSV_COMMENTS | CSV_NEED_HEADER | CSV_SMALL, csv_size_row, &c, err,
                    errlen) < 0
               ? -1
               : 0;
}

static int load_yaml(const char *text, size_t len, const char *path, tune_size_t **out, size_t *n,
                     size_t *cap, char *err, size_t errlen)
{
    yaml_parser_t p;
    yaml_document_t doc;
    char why[256];
    int rc = 0;
    if (infile_yaml_bounds(text, len, path, err, errlen) != 0)
        return -1;
    if (!yaml_parser_initialize(&p))
        return errbuf_set(err, errlen, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &doc)) {
        rc = errbuf_set(err, errlen, "%s:%zu:%zu: %s", path, p.problem_mark.line + 1,
                        p.problem_mark.column + 1, p.problem ? p.problem : "YAML error");
        yaml_parser_delete(&p);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        rc = errbuf_set(err, errlen, "%s:%zu: expected a mapping of SIZE: WEIGHT", path,
                        root ? root->start_mark.line + 1 : 1);
    } else {
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
             rc == 0 && pr < root->data.mapping.pairs.top; pr++) {
            yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
            yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
            size_t line = k ? k->start_mark.line + 1 : 0;
            uint64_t size;
            double w;
            if (!k || !v || k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE) {
                rc = errbuf_set(err, errlen, "%s:%zu: expected SIZE: WEIGHT", path, line);
                break;
            }
            const char *ks = (const char *)k->data.scalar.value;
            const char *vs = (const char *)v->data.scalar.value;
            int size_bad = unit_parse_size(ks, &size, why, sizeof why);
            if (size_bad || size == 0)
                rc = errbuf_set(err, errlen, "%s:%zu: size '%.64s': %s", path, line, ks,
                                size_bad ? why : "must be greater than 0");
            else if (parse_weight(vs, &w, why, sizeof why) != 0)
                rc = errbuf_set(err, errlen, "%s:%zu: weight '%.64s': %s", path,
                                v->start_mark.line + 1, vs, why);
            else if (push_size(out, n, cap, size, w) != 0)
                rc = errbuf_set(err, errlen, "%s:%zu: more than %u sizes", path, line,
                                TUNE_SIZES_MAX);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    return rc;
}

int tune_load_sizes(const char *path, tune_size_t **out, size_t *n, char *err, size_t errlen)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const char *dot = strrchr(path, '.');
    bool yaml = dot && (strcasecmp(dot, ".yaml") == 0 || strcasecmp(dot, ".yml") == 0);
    bool csv = dot && strcasecmp(dot, ".csv") == 0;
    if (!yaml && !csv)
        return errbuf_set(err, errlen, "--sizes-file %.200s: expected a .csv, .yaml or .yml file",
                          path);
    int rc;
    if (yaml) {
        char *text;
        size_t len;
        rc = infile_read(path, INFILE_MAX_SIZES_BYTES, NULL, &text, &len, err, errlen);
        if (rc == 0) {
            rc = load_yaml(text, len, path, out, n, &cap, err, errlen);
            free(text);
        }
    } else {
        rc = load_csv(path, out, n, &cap, err, errlen);
    }
    if (rc == 0)
        rc = finish_sizes(*out, *n, path, err, errlen);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* named distributions: <configs>/sizes/NAME.csv                             */

static int dist_path(const char *name, char *path, size_t len)
{
    int w = snprintf(path, len, "%s/sizes/%s.csv", cfg_configs_dir(), name);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

size_t tune_dist_list(char names[][64], size_t max)
{
    char dir[MACHINE_TEXT_MAX];
    snprintf(dir, sizeof dir, "%s/sizes", cfg_configs_dir());
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= 4 || l - 4 >= 64 || strcmp(e->d_name + l - 4, ".csv") != 0)
            continue;
        char nm[64];
        memcpy(nm, e->d_name, l - 4);
        nm[l - 4] = '\0';
        if (!catalog_valid_name(nm))
            continue;
        /* sorted insert */
        size_t i = n < max ? n : max;
        if (n == max && (max == 0 || strcmp(nm, names[max - 1]) >= 0))
            continue;
        while (i > 0 && strcmp(nm, names[i - 1]) < 0) {
            if (i < max)
                memcpy(names[i], names[i - 1], 64);
            i--;
        }
        memcpy(names[i], nm, 64);
        if (n < max)
            n++;
    }
    closedir(d);
    return n;
}

/* The '# source:' comment of a sizes csv (its first lines), or "". */
void tune_sizes_source(const char *path, char *source, size_t len)
{
    source[0] = '\0';
    char why[256];
    FILE *f = infile_open(path, INFILE_MAX_SIZES_BYTES, NULL, why, sizeof why);
    if (!f)
        return; /* the load itself says why */
    char line[512];
    for (int k = 0; k < 64 && fgets(line, sizeof line, f); k++) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#')
            break;
        p++;
        while (*p == ' ')
            p++;
        if (strncmp(p, "source:", 7) != 0)
            continue;
        p += 7;
        while (*p == ' ')
            p++;
        snprintf(source, len, "%s", p);
        source[strcspn(source, "\r\n")] = '\0';
        break;
    }
    fclose(f);
}

int tune_dist_load(const char *name, caller_preempt_t preempt, tune_size_t **out, size_t *n,
                   char *resolved, size_t rlen, char *source, size_t slen, char *err, size_t errlen)
{
    char nm[64], path[MACHINE_TEXT_MAX + 80];
    *out = NULL;
    *n = 0;
    /* clear-pages: the extents of the chosen preemption model */
    if (strcmp(name, "clear-pages") == 0)
        snprintf(nm, sizeof nm, "clear-pages-%s", caller_preempt_name(preempt));
    else
        snprintf(nm, sizeof nm, "%s", name);
    if (!catalog_valid_name(nm) || strlen(name) >= sizeof nm || dist_path(nm, path, sizeof path)) {
        return errbuf_set(err, errlen, "--dist '%.64s': not a distribution name", name);
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        char names[32][64], list[32 * 66] = "";
        size_t k = tune_dist_list(names, 32);
        for (size_t i = 0; i < k; i++) {
            strcat(list, i ? ", " : "");
            strcat(list, names[i]);
        }
        char note[1024] = "";
        if (!k && !getenv("CLEARSIM_CONFIGS"))
            datadir_note(note, sizeof note);
        return errbuf_set(err, errlen, "--dist '%.64s': no such distribution (known: %s%s)%s", nm,
                          k ? list : "none found in ", k ? "" : cfg_configs_dir(), note);
    }
    snprintf(resolved, rlen, "%s", nm);
    if (tune_load_sizes(path, out, n, err, errlen) != 0)
        return -1;
    tune_sizes_source(path, source, slen);
    return 0;
}
