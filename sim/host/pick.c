/*
 * pick.c - --machine NAME|PATH|host: the one resolver, and for `host` the
 * catalogued machine file that matches this host (see pick.h).
 *
 * Notes
 *  - Every catalogued machine that loads is a candidate when isa, vendor
 *    (case-insensitive), family and model are equal. A hypervisor guest
 *    looks at the files with identity.guest: true first, bare metal at the
 *    others first; the other group is the fallback. Several in a group are
 *    narrowed by model_name; still several is an error, never a guess.
 *  - The choice is described (how) and, when the file is of another kind of
 *    system or clock, warned about (warning); the commands print both.
 */
#include "sim/host/pick.h"
#include "models/base/errbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"

/* --------------------------------------------------------- machine match */

/* One bundled machine whose identity matches the host. */
typedef struct host_cand {
    char path[MACHINE_TEXT_MAX];
    char name[MACHINE_NAME_MAX];
    char model_name[MACHINE_TEXT_MAX];
    bool guest;      /* identity.guest: the file describes a virtual-machine guest */
    bool same_model; /* model_name equals the host's too */
    double freq_ghz; /* core.freq */
    bool measured;   /* measured on this CPU (measured_here) */
} host_cand_t;

/* Does m hold figures measured on a CPU like h's (detect --measure): a
 * figure whose source says measured, h's model name, h's kind of system? */
static bool measured_here(const machine_t *m, const host_info_t *h)
{
    bool any = false;
    for (uint32_t i = 0; i < m->n_mb && !any; i++)
        any = strncmp(m->mb[i].source, "measured", 8) == 0;
    return any && m->guest == h->hypervisor && strcasecmp(m->model_name, h->model_name) == 0;
}

#define HOST_CANDS_MAX 16

/* The single candidate of group `guest` (narrowed by model name when several),
 * NULL when the group is empty; *ambiguous when several remain. */
static const host_cand_t *pick_group(const host_cand_t *c, size_t n, bool guest, bool *ambiguous)
{
    const host_cand_t *only = NULL, *exact = NULL;
    size_t count = 0, nexact = 0;
    *ambiguous = false;
    for (size_t i = 0; i < n; i++) {
        if (c[i].guest != guest)
            continue;
        count++;
        only = &c[i];
        if (c[i].same_model) {
            nexact++;
            exact = &c[i];
        }
    }
    if (count == 1)
        return only;
    if (count > 1 && nexact == 1)
        return exact;
    *ambiguous = count > 1;
    return NULL;
}

/* How pick was matched, and the warning when it describes another system. */
static void describe_pick(const host_info_t *h, const host_cand_t *c, host_pick_t *pick)
{
    int w = snprintf(pick->how, sizeof pick->how,
                     "%s (%s): vendor %s, family 0x%x, model 0x%x match this host", c->name,
                     c->path, h->vendor, h->family, h->model);
    size_t at = w > 0 && (size_t)w < sizeof pick->how ? (size_t)w : sizeof pick->how - 1;
    if (c->measured)
        snprintf(pick->how + at, sizeof pick->how - at,
                 ", and so does the model name; its figures were measured on such a host");
    else if (c->same_model)
        snprintf(pick->how + at, sizeof pick->how - at, ", and so does the model name");
    else
        snprintf(pick->how + at, sizeof pick->how - at,
                 "; its model name '%s' is not this host's '%s'", c->model_name, h->model_name);
    host_pick_judge(h, c->name, c->guest, c->freq_ghz, host_measure_core_ghz(8), pick->warning,
                    sizeof pick->warning);
}

bool host_pick_judge(const host_info_t *h, const char *name, bool file_guest, double file_ghz,
                     double measured_ghz, char *warning, size_t len)
{
    char what[640] = "";
    size_t used = 0;
    if (h->hypervisor != file_guest) {
        int w =
            snprintf(what, sizeof what, "this host is %s%s%s, the file describes %s",
                     h->hypervisor ? "a guest of hypervisor '" : "bare metal",
                     h->hypervisor ? (h->hypervisor_vendor[0] ? h->hypervisor_vendor : "?") : "",
                     h->hypervisor ? "'" : "", file_guest ? "a guest" : "bare metal");
        used = w > 0 ? (size_t)w : 0;
    }
    if (measured_ghz > 0 && file_ghz > 0 &&
        fabs(measured_ghz / file_ghz - 1) > HOST_PICK_CLOCK_TOLERANCE + 1e-9 && used < sizeof what)
        snprintf(what + used, sizeof what - used,
                 "%sthe core runs at %.2f GHz here, the file's core.freq is %.2f GHz",
                 used ? "; " : "", measured_ghz, file_ghz);
    if (len)
        warning[0] = '\0';
    if (!what[0])
        return false;
    snprintf(warning, len,
             "%s describes another system (%s): its predictions are for that system, not this "
             "host; 'clearsim detect' writes a machine file for this host",
             name, what);
    return true;
}

int host_pick_machine(host_pick_t *pick, char *err, size_t errlen)
{
    host_info_t *h = malloc(sizeof *h);
    host_cand_t *cand = calloc(HOST_CANDS_MAX, sizeof *cand);
    catalog_t *cat = NULL;
    size_t ncand = 0;
    int rc = -1;
    const host_cand_t *pick_c_early = NULL;
    memset(pick, 0, sizeof *pick);
    if (!h || !cand) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (host_detect(h, err, errlen) || !(cat = catalog_load(err, errlen)))
        goto out;
    /* Every catalogued machine that loads; identity: isa, vendor, family, model. */
    for (size_t i = 0; i < catalog_count(cat) && ncand < HOST_CANDS_MAX; i++) {
        const machine_t *m = catalog_machine(cat, i);
        if (m && m->isa == h->isa && strcasecmp(m->vendor, h->vendor) == 0 &&
            m->family == h->family && m->model == h->model) {
            host_cand_t *c = &cand[ncand++];
            snprintf(c->path, sizeof c->path, "%s", catalog_path(cat, i));
            snprintf(c->name, sizeof c->name, "%s", m->name);
            snprintf(c->model_name, sizeof c->model_name, "%s", m->model_name);
            c->guest = m->guest;
            c->same_model = strcasecmp(m->model_name, h->model_name) == 0;
            c->freq_ghz = m->freq_ghz;
            c->measured = measured_here(m, h);
        }
    }

    /* A file measured on this very CPU (detect --measure: its figures say
     * measured, the model name and the kind of system are this host's)
     * comes before the rest; of several, the first by name. */
    for (size_t i = 0; i < ncand && !pick_c_early; i++)
        if (cand[i].measured)
            pick_c_early = &cand[i];

    /* A guest prefers the files of guests; bare metal the others. */
    bool amb_first = false, amb_second = false;
    const host_cand_t *pick_c = pick_c_early;
    if (!pick_c)
        pick_c = pick_group(cand, ncand, h->hypervisor, &amb_first);
    if (!pick_c && !amb_first)
        pick_c = pick_group(cand, ncand, !h->hypervisor, &amb_second);
    if (pick_c) {
        snprintf(pick->path, sizeof pick->path, "%s", pick_c->path);
        describe_pick(h, pick_c, pick);
        rc = 0;
    } else if (ncand == 0) {
        errbuf_set(err, errlen,
                   "no machine file matches this host (%s family 0x%x model 0x%x '%s'); run "
                   "'clearsim detect --measure -o ~/.config/clearsim/machines/myhost.yaml' to "
                   "make one",
                   h->vendor, h->family, h->model, h->model_name);
    } else {
        char list[512] = "";
        bool group = amb_first ? h->hypervisor : !h->hypervisor;
        for (size_t i = 0; i < ncand; i++) {
            if (cand[i].guest != group)
                continue;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", cand[i].name);
        }
        errbuf_set(err, errlen,
                   "several machine files match this host (%s); choose one with --machine", list);
    }
out:
    catalog_destroy(cat);
    free(cand);
    free(h);
    return rc;
}

machine_t *host_machine_open(const char *arg, host_pick_t *pick, char *err, size_t errlen)
{
    host_pick_t local;
    if (!pick)
        pick = &local;
    memset(pick, 0, sizeof *pick);
    if (!arg || strcmp(arg, "host") != 0)
        return cfg_machine_open(arg, pick->path, sizeof pick->path, err, errlen);
    char why[512];
    if (host_pick_machine(pick, why, sizeof why) != 0) {
        errbuf_set(err, errlen, "--machine host: %s", why);
        return NULL;
    }
    return cfg_machine_load(pick->path, err, errlen);
}
