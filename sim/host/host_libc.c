/*
 * host_libc.c - this process's C library and its memset tuning (see
 * host_libc.h).
 */
#include "sim/host/host_libc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

/* The dynamic loader mapped into this process, or false. */
static bool loader_path(char *path, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (!p || !strstr(p, "/ld-linux"))
            continue;
        p[strcspn(p, "\n")] = '\0';
        snprintf(path, len, "%s", p);
        found = true;
    }
    fclose(f);
    return found;
}

static bool hex_field(const char *line, const char *key, uint64_t *out)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || line[n] != '=')
        return false;
    char *end;
    unsigned long long v = strtoull(line + n + 1, &end, 0);
    if (end == line + n + 1)
        return false;
    *out = (uint64_t)v;
    return true;
}

int host_libc(host_libc_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
#if defined(__GLIBC__)
    snprintf(out->libc, sizeof out->libc, "glibc-%s", gnu_get_libc_version());
#else
    return errbuf_set(err, errlen,
                      "this program's C library is not glibc: its memset rules are "
                      "not known");
#endif
    char ld[512];
    if (!loader_path(ld, sizeof ld)) {
        snprintf(out->how, sizeof out->how, "no dynamic loader in /proc/self/maps (static build)");
        return 0;
    }
    char cmd[560];
    snprintf(cmd, sizeof cmd, "'%s' --list-diagnostics 2>/dev/null", ld);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(out->how, sizeof out->how, "%s --list-diagnostics could not run", ld);
        return 0;
    }
    char line[512];
    while (fgets(line, sizeof line, p)) {
        uint64_t v;
        if (hex_field(line, "x86.cpu_features.rep_stosb_threshold", &v)) {
            out->have_stosb = true;
            out->stosb_above_bytes = v;
        } else if (hex_field(line, "x86.cpu_features.memset_non_temporal_threshold", &v)) {
            out->have_memset_nt = true;
            out->memset_nt_bytes = v;
        }
    }
    pclose(p);
    snprintf(out->how, sizeof out->how, "%s --list-diagnostics", ld);
    (void)err;
    (void)errlen;
    return 0;
}
