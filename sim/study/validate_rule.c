/*
 * validate_rule.c - the rule of the corpus, checked: a published figure is a
 * judge of a machine file, never a fit target (validate.h, val_rule_*).
 *
 * Notes
 *  - A fit target matches a published case when it is of the case's machine
 *    and its throughput is within VAL_RULE_MATCH of the case's figure: either
 *    the figure in GB/s as perf prints it (bytes / 2^30 per second), or the
 *    figure's own number (a rate copied without converting its unit). Times
 *    compare through their bytes per second only.
 *  - Exempt, as DEVELOPERS.md says: the calibration cases (role:
 *    calibration: the Milan and Ice Lake-SP calibration set) and a machine's
 *    one anchor (role: anchor), which may set the machine file's memory
 *    write link and nothing else. The file names the anchor: the comment of
 *    memory.write_bandwidth holds the anchor case's id. Any other value whose
 *    comment names it, or a second anchor for one machine, breaks the rule.
 */
#include "sim/study/validate.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "models/base/errbuf.h"
#include "sim/machine/infile.h"
#include "sim/machine/provenance.h"
#include "sim/engine/point.h"
#include "sim/study/calibrate.h"

#define GIB 1073741824.0

static bool is_time(const char *unit)
{
    return strcasecmp(unit, "s") == 0 || strcasecmp(unit, "ms") == 0 ||
           strcasecmp(unit, "us") == 0 || strcasecmp(unit, "ns") == 0;
}

bool val_rule_matches(const val_case_t *c, double gbps)
{
    double pub = c->published_bps / GIB;
    if (fabs(gbps - pub) <= VAL_RULE_MATCH * pub)
        return true;
    return !is_time(c->unit) && fabs(gbps - c->figure) <= VAL_RULE_MATCH * c->figure;
}

/* Does microbench figure f measure what case i of c measures: a clearing
 * workload of the same kind (store, ntstore, linezero or memset for memset;
 * fault or mmap for mmap), on the same page size when the figure gives one? */
static bool mb_same_kind(const val_corpus_t *c, size_t i, const machine_mb_t *f)
{
    const run_point_t *p = val_case_point(c, i);
    static const char *const fills[] = {"store", "ntstore", "linezero", "memset"};
    if (p->spec.kind == WL_MMAP)
        return (strcmp(f->workload, "fault") == 0 || strcmp(f->workload, "mmap") == 0) &&
               (f->page_bytes == 0 || f->page_bytes == p->spec.page_bytes);
    if (p->spec.kind != WL_MEMSET)
        return false;
    for (size_t k = 0; k < sizeof fills / sizeof fills[0]; k++)
        if (strcmp(f->workload, fills[k]) == 0)
            return true;
    return false;
}

/* Does calibration case f run what case i of c runs: the same workload, page
 * size, and (memset) bytes per call? */
static bool cal_same_kind(const val_corpus_t *c, size_t i, const cal_case_t *f)
{
    const wl_spec_t *a = &val_case_point(c, i)->spec, *b = &f->spec;
    if (a->kind != b->kind || a->page_bytes != b->page_bytes)
        return false;
    if (a->kind != WL_MEMSET)
        return true;
    uint64_t ca = a->chunk_bytes ? a->chunk_bytes : a->size_bytes;
    uint64_t cb = b->chunk_bytes ? b->chunk_bytes : b->size_bytes;
    return ca == cb;
}

int val_rule_machine(const val_corpus_t *c, const machine_t *m, const char *path, char *why,
                     size_t whylen, char *err, size_t errlen)
{
    const val_case_t *anchor = NULL;
    for (size_t i = 0; i < val_n_cases(c); i++) {
        const val_case_t *v = val_case(c, i);
        if (strcmp(v->machine, m->name) != 0 || v->role == VAL_ROLE_CALIBRATION)
            continue;
        if (v->role == VAL_ROLE_ANCHOR) {
            if (anchor) {
                errbuf_set(why, whylen,
                           "%s: two anchors (%s at %s:%u, %s at %s:%u); a machine has one", m->name,
                           anchor->id, anchor->file, (unsigned)anchor->line, v->id, v->file,
                           (unsigned)v->line);
                return 1;
            }
            anchor = v;
        }
        for (uint32_t k = 0; k < m->n_mb; k++) {
            const machine_mb_t *f = &m->mb[k];
            if (f->metric != MACHINE_MB_GBPS || !val_rule_matches(v, f->value) ||
                !mb_same_kind(c, i, f))
                continue;
            errbuf_set(why, whylen,
                       "%s:%u: microbench figure %s (%g GB/s) is the published case %s (%g %s, "
                       "%s:%u): a published figure judges the file and is never its fit target",
                       path, (unsigned)f->line, f->id, f->value, v->id, v->figure, v->unit, v->file,
                       (unsigned)v->line);
            return 1;
        }
    }
    /* each value's line as written (its comment is its source) */
    char *text = NULL;
    size_t len = 0, nlines = 0;
    if (infile_read(path, INFILE_MAX_MACHINE_BYTES, NULL, &text, &len, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < len; i++)
        nlines += text[i] == '\n';
    const char **lines = calloc(nlines + 2, sizeof *lines);
    prov_t *p = lines ? prov_read(path, err, errlen) : NULL;
    if (!p) {
        if (!lines)
            errbuf_set(err, errlen, "out of memory");
        free(lines);
        free(text);
        return -1;
    }
    size_t n = 0;
    for (char *q = text; q && n < nlines + 1; n++) {
        lines[n] = q;
        q = strchr(q, '\n');
        if (q)
            *q++ = '\0';
    }
    int rc = 0;
    bool named = false;
    for (size_t i = 0; i < prov_count(p) && rc == 0; i++) {
        const prov_entry_t *e = prov_entry(p, i);
        const char *line = e->line >= 1 && e->line <= n ? lines[e->line - 1] : "";
        const char *hash = strchr(line, '#');
        for (size_t j = 0; j < val_n_cases(c) && rc == 0; j++) {
            const val_case_t *v = val_case(c, j);
            if (strcmp(v->machine, m->name) != 0 || !hash || !strstr(hash, v->id))
                continue;
            if (v->role != VAL_ROLE_ANCHOR) {
                rc = 1;
                errbuf_set(why, whylen,
                           "%s:%u: %s's source names the published case %s (%s:%u), which is "
                           "not the machine's anchor: a published figure judges the file",
                           path, e->line, e->key, v->id, v->file, (unsigned)v->line);
            } else if (strcmp(e->key, "memory.write_bandwidth") != 0) {
                rc = 1;
                errbuf_set(why, whylen,
                           "%s:%u: %s is set from the anchor %s (%s:%u); an anchor may set the "
                           "memory write link (memory.write_bandwidth) and nothing else",
                           path, e->line, e->key, v->id, v->file, (unsigned)v->line);
            } else {
                named = true;
            }
        }
    }
    prov_destroy(p);
    free(lines);
    free(text);
    if (rc == 0 && anchor && !named) {
        errbuf_set(why, whylen,
                   "%s: the anchor %s (%s:%u) is not named by the file: memory.write_bandwidth's "
                   "comment must name it with its source",
                   path, anchor->id, anchor->file, (unsigned)anchor->line);
        rc = 1;
    }
    return rc;
}

int val_rule_calibration(const val_corpus_t *c, const cal_data_t *d, char *why, size_t whylen)
{
    for (size_t k = 0; k < d->n_cases; k++) {
        const cal_case_t *f = &d->cases[k];
        if (!f->fit || strcmp(f->metric, "gbps") != 0)
            continue;
        for (size_t i = 0; i < val_n_cases(c); i++) {
            const val_case_t *v = val_case(c, i);
            if (strcmp(v->machine, d->machine) != 0 || v->role == VAL_ROLE_CALIBRATION ||
                !val_rule_matches(v, f->value) || !cal_same_kind(c, i, f))
                continue;
            errbuf_set(why, whylen,
                       "%s: fitting case %s (%g GB/s) is the published case %s (%g %s, %s:%u), "
                       "which is not in the calibration set: a published figure judges the file "
                       "and is never its fit target",
                       d->path, f->id, f->value, v->id, v->figure, v->unit, v->file,
                       (unsigned)v->line);
            return 1;
        }
    }
    return 0;
}
