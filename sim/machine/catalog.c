/*
 * catalog.c - where machine files are: the bundled directory, resolving a
 * --machine NAME or PATH to a file, and the sorted list of the machines
 * there, loaded or not (the one loop over them every command uses).
 */
#include "sim/machine/catalog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"
#include "sim/machine/datadir.h"
#include "sim/machine/suggest.h"

/* ---- finding machine files ------------------------------------------------ */

const char *cfg_configs_dir(void)
{
    const char *e = getenv("CLEARSIM_CONFIGS");
    if (e && e[0])
        return e;
    /* per thread: the data directory follows $CLEARSIM_DATA_DIR as it is now */
    static _Thread_local char dir[MACHINE_TEXT_MAX];
    return datadir_sub("configs", dir, sizeof dir);
}

/* Why the bundled directory may be missing ("" when nothing to add). */
static const char *configs_note(char *buf, size_t len)
{
    const char *e = getenv("CLEARSIM_CONFIGS");
    if (e && e[0]) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    return datadir_note(buf, len);
}

size_t catalog_dirs(char dirs[][MACHINE_TEXT_MAX], size_t max)
{
    size_t n = 0;
    const char *list = getenv("CLEARSIM_MACHINES");
    if (list && list[0]) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *save = NULL, *d = strtok_r(buf, ":", &save); d && n + 2 < max;
             d = strtok_r(NULL, ":", &save))
            if (d[0])
                snprintf(dirs[n++], MACHINE_TEXT_MAX, "%s", d);
    }
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (n + 1 < max) {
        if (xdg && xdg[0] == '/')
            snprintf(dirs[n++], MACHINE_TEXT_MAX, "%s/clearsim/machines", xdg);
        else if (home && home[0])
            snprintf(dirs[n++], MACHINE_TEXT_MAX, "%s/.config/clearsim/machines", home);
    }
    if (n < max)
        snprintf(dirs[n++], MACHINE_TEXT_MAX, "%s", cfg_configs_dir());
    return n;
}

/* The (up to) three machine names in dirs nearest to arg by edit distance
 * (sim/machine/suggest.h), nearest first, ties by name, as "a, b, c" into
 * buf ("" when there is none). Returns buf. */
#define NEAREST_N 3
static const char *nearest_machines(const char *arg, char dirs[][MACHINE_TEXT_MAX], size_t nd,
                                    char *buf, size_t len, char *near, size_t nearlen)
{
    suggest_t sg;
    suggest_init(&sg, arg);
    near[0] = '\0';
    char best[NEAREST_N][MACHINE_NAME_MAX];
    size_t dist[NEAREST_N], nb = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char name[MACHINE_TEXT_MAX];
            size_t n = strlen(e->d_name);
            if (n <= 5 || strcmp(e->d_name + n - 5, ".yaml") != 0 ||
                !catalog_base_name(e->d_name, name, sizeof name) ||
                strlen(name) >= MACHINE_NAME_MAX)
                continue;
            if (suggest_offer(&sg, name))
                suggest_keep(&sg, near, nearlen);
            /* a name the argument begins is nearest of all */
            size_t dd = strncasecmp(name, arg, strlen(arg)) == 0 ? 0 : suggest_distance(arg, name);
            bool dup = false;
            for (size_t k = 0; k < nb && !dup; k++)
                dup = strcmp(best[k], name) == 0;
            if (dd == SIZE_MAX || dup)
                continue;
            /* insert in order (distance, then name), keeping the first NEAREST_N */
            size_t at = nb;
            while (at > 0 &&
                   (dist[at - 1] > dd || (dist[at - 1] == dd && strcmp(best[at - 1], name) > 0)))
                at--;
            if (at >= NEAREST_N)
                continue;
            size_t last = nb < NEAREST_N ? nb : NEAREST_N - 1;
            for (size_t k = last; k > at; k--) {
                dist[k] = dist[k - 1];
                memcpy(best[k], best[k - 1], MACHINE_NAME_MAX);
            }
            dist[at] = dd;
            snprintf(best[at], MACHINE_NAME_MAX, "%s", name);
            if (nb < NEAREST_N)
                nb++;
        }
        if (d)
            closedir(d);
    }
    for (size_t k = 0; k < nb; k++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k ? ", " : "", best[k]);
    }
    return buf;
}

int cfg_machine_resolve(const char *arg, char *path, size_t pathlen, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!arg || !arg[0]) {
        errbuf_set(err, errlen,
                   "--machine: no machine given (run `clearsim machines` to list them)");
        return -1;
    }
    size_t n = strlen(arg);
    bool is_path = strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
                   (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
    if (!is_path && strcmp(arg, "host") == 0) {
        errbuf_set(err, errlen,
                   "--machine host: 'host' is not a machine file name here; give a machine "
                   "name or a path");
        return -1;
    }
    if (is_path) {
        if (n >= pathlen) {
            errbuf_set(err, errlen, "--machine %s: path too long", arg);
            return -1;
        }
        memcpy(path, arg, n + 1);
        return 0;
    }
    if (!catalog_valid_name(arg)) {
        errbuf_set(err, errlen,
                   "--machine %s: not a machine name (run `clearsim machines` to list them)", arg);
        return -1;
    }
    char dirs[CATALOG_DIRS_MAX][MACHINE_TEXT_MAX];
    size_t nd = catalog_dirs(dirs, CATALOG_DIRS_MAX);
    for (size_t i = 0; i < nd; i++) {
        int w = snprintf(path, pathlen, "%s/%s.yaml", dirs[i], arg);
        if (w < 0 || (size_t)w >= pathlen) {
            errbuf_set(err, errlen, "--machine %s: path too long", arg);
            return -1;
        }
        if (access(path, R_OK) == 0)
            return 0;
    }
    char names[3 * MACHINE_NAME_MAX + 8], best[MACHINE_TEXT_MAX], hint[MACHINE_TEXT_MAX + 32],
        note[1024];
    nearest_machines(arg, dirs, nd, names, sizeof names, best, sizeof best);
    errbuf_set(err, errlen,
               "--machine %s: no machine named '%s' (no %s.yaml in %s%s%s, and not a file)%s%s%s "
               "(run `clearsim machines` to list them)",
               arg, arg, arg, nd > 1 ? "the user directories or " : "", cfg_configs_dir(),
               configs_note(note, sizeof note),
               suggest_hint(best[0] ? best : NULL, hint, sizeof hint),
               names[0] ? "; nearest names: " : "", names);
    return -1;
}

bool catalog_valid_name(const char *s)
{
    if (!s || !s[0])
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return false;
    return true;
}

const char *catalog_base_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%s", b ? b + 1 : path);
    size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
        buf[n - 5] = '\0';
    else if (n > 4 && strcmp(buf + n - 4, ".yml") == 0)
        buf[n - 4] = '\0';
    return buf;
}

machine_t *cfg_machine_open(const char *arg, char *path, size_t pathlen, char *err, size_t errlen)
{
    char local[MACHINE_TEXT_MAX];
    if (!path) {
        path = local;
        pathlen = sizeof local;
    }
    if (cfg_machine_resolve(arg, path, pathlen, err, errlen) != 0)
        return NULL;
    return cfg_machine_load(path, err, errlen);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Add the machine names of dir to names[*n..max) that are not there yet. A
 * missing user directory adds nothing; the bundled one must list. */
static int list_dir(const char *dir, bool must, char names[][MACHINE_NAME_MAX], size_t max,
                    size_t *np, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (!must && errno == ENOENT)
            return 0;
        char note[1024];
        errbuf_set(err, errlen, "%s: cannot list machine files: %s%s", dir, strerror(errno),
                   must ? configs_note(note, sizeof note) : "");
        return -1;
    }
    struct dirent *e;
    size_t n = *np;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        if (l - 5 >= MACHINE_NAME_MAX)
            continue; /* cannot be a valid name: name must equal the base name */
        char name[MACHINE_NAME_MAX];
        memcpy(name, e->d_name, l - 5);
        name[l - 5] = '\0';
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], name) == 0;
        if (seen)
            continue; /* an earlier directory's file of the same name comes first */
        if (n == max) {
            errbuf_set(err, errlen, "%s: more than %zu machine files", dir, max);
            rc = -1;
            break;
        }
        memcpy(names[n], name, sizeof name);
        n++;
    }
    closedir(d);
    *np = n;
    return rc;
}

int cfg_machine_list(char names[][MACHINE_NAME_MAX], size_t max, size_t *count, char *err,
                     size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    *count = 0;
    char dirs[CATALOG_DIRS_MAX][MACHINE_TEXT_MAX];
    size_t nd = catalog_dirs(dirs, CATALOG_DIRS_MAX), n = 0;
    for (size_t i = 0; i < nd; i++)
        if (list_dir(dirs[i], i + 1 == nd, names, max, &n, err, errlen))
            return -1;
    qsort(names, n, sizeof(names[0]), cmp_names);
    *count = n;
    return 0;
}

int cfg_machine_list_bundled(char names[][MACHINE_NAME_MAX], size_t max, size_t *count, char *err,
                             size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    size_t n = 0;
    *count = 0;
    if (list_dir(cfg_configs_dir(), true, names, max, &n, err, errlen))
        return -1;
    qsort(names, n, sizeof(names[0]), cmp_names);
    *count = n;
    return 0;
}

typedef struct catalog_entry {
    char name[MACHINE_NAME_MAX];
    char path[MACHINE_TEXT_MAX];
    machine_t *m;
    char err[512];
} catalog_entry_t;

struct catalog {
    catalog_entry_t *e;
    size_t n;
};

catalog_t *catalog_load(char *err, size_t errlen)
{
    static char names[CATALOG_MAX][MACHINE_NAME_MAX];
    size_t n = 0;
    if (cfg_machine_list(names, CATALOG_MAX, &n, err, errlen) != 0)
        return NULL;
    catalog_t *c = calloc(1, sizeof *c);
    if (c)
        c->e = calloc(n ? n : 1, sizeof *c->e);
    if (!c || !c->e) {
        free(c);
        errbuf_set(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        catalog_entry_t *e = &c->e[i];
        snprintf(e->name, sizeof e->name, "%s", names[i]);
        if (cfg_machine_resolve(names[i], e->path, sizeof e->path, e->err, sizeof e->err) != 0)
            e->path[0] = '\0';
        else
            e->m = cfg_machine_load(e->path, e->err, sizeof e->err);
    }
    c->n = n;
    return c;
}

void catalog_destroy(catalog_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        cfg_machine_destroy(c->e[i].m);
    free(c->e);
    free(c);
}

size_t catalog_count(const catalog_t *c)
{
    return c->n;
}

const char *catalog_name(const catalog_t *c, size_t i)
{
    return c->e[i].name;
}

const char *catalog_path(const catalog_t *c, size_t i)
{
    return c->e[i].path;
}

const machine_t *catalog_machine(const catalog_t *c, size_t i)
{
    return c->e[i].m;
}

const char *catalog_error(const catalog_t *c, size_t i)
{
    return c->e[i].m ? "" : c->e[i].err;
}
