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
#include <unistd.h>

#include "models/base/errbuf.h"
#include "sim/machine/cfg.h"

#ifndef CLEARSIM_SOURCE_DIR
#define CLEARSIM_SOURCE_DIR "."
#endif

/* ---- finding machine files ------------------------------------------------ */

const char *cfg_configs_dir(void)
{
    const char *e = getenv("CLEARSIM_CONFIGS");
    if (e && e[0])
        return e;
    return CLEARSIM_SOURCE_DIR "/configs";
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
    const char *dir = cfg_configs_dir();
    int w = snprintf(path, pathlen, "%s/%s.yaml", dir, arg);
    if (w < 0 || (size_t)w >= pathlen) {
        errbuf_set(err, errlen, "--machine %s: path too long", arg);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        errbuf_set(err, errlen,
                   "--machine %s: no machine file %s (run `clearsim machines` to list them)", arg,
                   path);
        return -1;
    }
    return 0;
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

int cfg_machine_list(char names[][MACHINE_NAME_MAX], size_t max, size_t *count, char *err,
                     size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    *count = 0;
    const char *dir = cfg_configs_dir();
    DIR *d = opendir(dir);
    if (!d) {
        errbuf_set(err, errlen, "%s: cannot list machine files: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    size_t n = 0;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        if (l - 5 >= MACHINE_NAME_MAX)
            continue; /* cannot be a valid name: name must equal the base name */
        if (n == max) {
            errbuf_set(err, errlen, "%s: more than %zu machine files", dir, max);
            rc = -1;
            break;
        }
        memcpy(names[n], e->d_name, l - 5);
        names[n][l - 5] = '\0';
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_names);
    *count = n;
    return rc;
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
