/*
 * host_libc.c - this process's C library and its memset tuning (see
 * host_libc.h).
 */
#include "sim/host/host_libc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"
#include "sim/host/detect.h"
#include "sim/machine/libc.h"
#include "sim/machine/units.h"

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

/* The memset tunables of GLIBC_TUNABLES (name=value:name=value). */
static void tunables(host_libc_t *out)
{
    static const char *const names[] = {"glibc.cpu.x86_rep_stosb_threshold",
                                        "glibc.cpu.x86_memset_non_temporal_threshold",
                                        "glibc.cpu.hwcaps"};
    const char *env = getenv("GLIBC_TUNABLES");
    out->tunables[0] = '\0';
    if (!env)
        return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", env);
    for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save))
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t n = strlen(names[i]);
            if (!strncmp(t, names[i], n) && t[n] == '=') {
                size_t used = strlen(out->tunables);
                snprintf(out->tunables + used, sizeof out->tunables - used, "%s%s", used ? ":" : "",
                         t);
            }
        }
}

int host_libc_values(const host_info_t *h, const machine_t *base, uint64_t l2_bytes,
                     uint64_t l3_bytes, host_libc_t *lc, detect_value_t *out, char *err,
                     size_t errlen)
{
    if (host_libc(lc, err, errlen))
        return -1;
    machine_t *hm = malloc(sizeof *hm);
    if (!hm)
        return errbuf_set(err, errlen, "out of memory");
    *hm = *base;
    hm->isa = h->isa;
    hm->features = h->features;
    snprintf(hm->vendor, sizeof hm->vendor, "%s", h->vendor);
    hm->family = h->family;
    hm->model = h->model;
    if (l2_bytes)
        hm->l2.size_bytes = l2_bytes;
    if (h->line_zero_bytes)
        hm->zva_block_bytes = h->line_zero_bytes;
    libc_memset_t p;
    int rc = libc_memset_policy(lc->libc, hm, l3_bytes, &p, err, errlen);
    free(hm);
    if (rc)
        return -1;
    if (lc->have_stosb && p.rep_stosb_bytes && h->isa == MACHINE_ISA_X86_64) {
        p.rep_stosb_bytes = lc->stosb_above_bytes + 1;
        snprintf(p.rep_stosb_why, sizeof p.rep_stosb_why,
                 "%.150s: rep_stosb_threshold=0x%llx, rep stosb above it", lc->how,
                 (unsigned long long)lc->stosb_above_bytes);
    }
    if (lc->have_memset_nt && p.nt_bytes) {
        p.nt_bytes = lc->memset_nt_bytes;
        snprintf(p.nt_why, sizeof p.nt_why, "%.150s: memset_non_temporal_threshold=0x%llx", lc->how,
                 (unsigned long long)lc->memset_nt_bytes);
    }
    const struct {
        const char *path;
        uint64_t v;
        bool size;
        const char *why;
    } rows[5] = {
        {"libc.memset.vector", p.vector_bytes, false, p.vector_why},
        {"libc.memset.rep_stosb_threshold", p.rep_stosb_bytes, true, p.rep_stosb_why},
        {"libc.memset.nt_threshold", p.nt_bytes, true, p.nt_why},
        {"libc.memset.zva_threshold", p.zva_bytes, true, p.zva_why},
        {"libc.memset.mops", (uint64_t)p.mops, false, p.mops_why},
    };
    snprintf(out[0].path, sizeof out[0].path, "libc.name");
    snprintf(out[0].value, sizeof out[0].value, "%s", lc->libc);
    snprintf(out[0].comment, sizeof out[0].comment, "detected: gnu_get_libc_version()%s%s",
             lc->tunables[0] ? "; GLIBC_TUNABLES " : "", lc->tunables);
    for (int i = 0; i < 5; i++) {
        detect_value_t *d = &out[i + 1];
        snprintf(d->path, sizeof d->path, "%s", rows[i].path);
        if (i == 4)
            snprintf(d->value, sizeof d->value, "%s", rows[i].v ? "true" : "false");
        else if (rows[i].size && rows[i].v)
            unit_format_size(rows[i].v, d->value, sizeof d->value);
        else
            snprintf(d->value, sizeof d->value, "%llu", (unsigned long long)rows[i].v);
        snprintf(d->comment, sizeof d->comment, "detected: %s: %s", lc->libc, rows[i].why);
    }
    return HOST_LIBC_VALUES;
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
    tunables(out);
    snprintf(out->how, sizeof out->how, "%s --list-diagnostics%s%s", ld,
             out->tunables[0] ? " with GLIBC_TUNABLES " : "", out->tunables);
    (void)err;
    (void)errlen;
    return 0;
}
