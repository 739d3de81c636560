/*
 * datadir.c - the data directory (see datadir.h): an explicit override, the
 * installed layout relative to the binary, the build tree's source, then the
 * compile-time install prefix.
 */
#include "sim/machine/datadir.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CLEARSIM_SOURCE_DIR
#define CLEARSIM_SOURCE_DIR ""
#endif

#define DATADIR_PATH_MAX 4096

static pthread_once_t datadir_once = PTHREAD_ONCE_INIT;
/* what the binary's location gives (rules 2 to 4), looked up once */
static char datadir_exe_rule[DATADIR_PATH_MAX + 64];
static char datadir_source[DATADIR_PATH_MAX]; /* "" when not in a build tree */
static char datadir_tried_text[3 * DATADIR_PATH_MAX + 64];

static bool is_dir(const char *path)
{
    struct stat st;
    return path[0] && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The first line of a small file into buf; false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return false;
    bool ok = fgets(buf, (int)len, fp) != NULL;
    fclose(fp);
    if (ok)
        buf[strcspn(buf, "\r\n")] = '\0';
    return ok;
}

static void tried_add(const char *what)
{
    size_t n = strlen(datadir_tried_text);
    snprintf(datadir_tried_text + n, sizeof datadir_tried_text - n, "%s%s", n ? ", " : "", what);
}

static void datadir_init(void)
{
    char exe[DATADIR_PATH_MAX] = "", dir[DATADIR_PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && (size_t)n < sizeof exe - 1) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash && slash != exe) {
            *slash = '\0';
            snprintf(dir, sizeof dir, "%s", exe);
        }
    }
    datadir_exe_rule[0] = '\0';
    datadir_source[0] = '\0';
    datadir_tried_text[0] = '\0';
    if (dir[0]) {
        /* rule 3's test first: it does not depend on $CLEARSIM_DATA_DIR */
        char marker[DATADIR_PATH_MAX + 32], src[DATADIR_PATH_MAX], configs[DATADIR_PATH_MAX + 16];
        snprintf(marker, sizeof marker, "%s/%s", dir, DATADIR_MARKER);
        if (CLEARSIM_SOURCE_DIR[0] && read_line(marker, src, sizeof src) &&
            strcmp(src, CLEARSIM_SOURCE_DIR) == 0) {
            snprintf(configs, sizeof configs, "%s/configs", src);
            if (is_dir(configs))
                snprintf(datadir_source, sizeof datadir_source, "%s", src);
        }
        /* rule 2 */
        char rel[DATADIR_PATH_MAX + 64], base[DATADIR_PATH_MAX];
        const char *up = CLEARSIM_BIN_TO_DATA;
        snprintf(base, sizeof base, "%s", dir);
        /* the leading ../ taken off the (canonical) directory of the binary */
        for (char *slash; strncmp(up, "../", 3) == 0 && (slash = strrchr(base, '/')) != NULL;
             up += 3)
            *(slash == base ? slash + 1 : slash) = '\0';
        snprintf(rel, sizeof rel, "%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/", up);
        const char *shown = rel;
        tried_add(shown);
        if (is_dir(shown)) {
            snprintf(datadir_exe_rule, sizeof datadir_exe_rule, "%s", shown);
            return;
        }
        /* rule 3 */
        if (datadir_source[0]) {
            tried_add(datadir_source);
            snprintf(datadir_exe_rule, sizeof datadir_exe_rule, "%s", datadir_source);
            return;
        }
    } else {
        tried_add("(the binary's directory: /proc/self/exe unreadable)");
    }
    /* rule 4 */
    tried_add(CLEARSIM_INSTALL_DATADIR);
    snprintf(datadir_exe_rule, sizeof datadir_exe_rule, "%s", CLEARSIM_INSTALL_DATADIR);
}

const char *datadir_path(void)
{
    const char *e = getenv("CLEARSIM_DATA_DIR");
    if (e && e[0])
        return e;
    pthread_once(&datadir_once, datadir_init);
    return datadir_exe_rule;
}

bool datadir_found(void)
{
    return is_dir(datadir_path());
}

const char *datadir_tried(void)
{
    const char *e = getenv("CLEARSIM_DATA_DIR");
    if (e && e[0])
        return "$CLEARSIM_DATA_DIR";
    pthread_once(&datadir_once, datadir_init);
    return datadir_tried_text;
}

const char *datadir_source_dir(void)
{
    pthread_once(&datadir_once, datadir_init);
    return datadir_source[0] ? datadir_source : NULL;
}

const char *datadir_note(char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    const char *e = getenv("CLEARSIM_DATA_DIR");
    if (datadir_found())
        return buf;
    if (e && e[0])
        snprintf(buf, len, " ($CLEARSIM_DATA_DIR=%.200s is not a directory)", e);
    else
        snprintf(buf, len, " (no clearsim data directory; tried %s; set CLEARSIM_DATA_DIR)",
                 datadir_tried());
    return buf;
}

const char *datadir_sub(const char *sub, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", datadir_path(), sub);
    return buf;
}
