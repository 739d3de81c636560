/*
 * predictions_fp.c - the inputs of docs/PREDICTIONS.md: which files can change
 * it, their FNV-1a fingerprint, the newest of the sources, and the
 * fingerprint line read back from a written file.
 *
 * Notes
 *  - The list of inputs and the hashing order are described in predictions.h;
 *    the case templates' part of the fingerprint is hashed by predictions.c,
 *    which owns the case list.
 *  - Library code: returns -1 with a one-line reason; never prints.
 */
#include "sim/study/predictions.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/machine/catalog.h"
#include "sim/machine/cfg.h"
#include "sim/machine/datadir.h"
#include "models/base/errbuf.h"
#include "sim/machine/infile.h"

#define FNV_PRIME 0x100000001b3ull

uint64_t predmd_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t predmd_fnv1a_str(uint64_t h, const char *s)
{
    /* with its terminating NUL, so that "ab","c" and "a","bc" differ */
    return predmd_fnv1a(h, s, strlen(s) + 1);
}

typedef struct md_file {
    char rel[256];   /* hashed: the path relative to its root ("models/cache.c") */
    char path[4096]; /* opened */
} md_file_t;

typedef struct md_files {
    md_file_t *v;
    size_t n, cap;
} md_files_t;

static int push_file(md_files_t *f, const char *rel, const char *path, char *err, size_t errlen)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 64;
        md_file_t *nv = realloc(f->v, nc * sizeof *nv);
        if (!nv)
            return errbuf_set(err, errlen, "out of memory");
        f->v = nv;
        f->cap = nc;
    }
    md_file_t *e = &f->v[f->n];
    int a = snprintf(e->rel, sizeof e->rel, "%s", rel);
    int b = snprintf(e->path, sizeof e->path, "%s", path);
    if (a < 0 || (size_t)a >= sizeof e->rel || b < 0 || (size_t)b >= sizeof e->path)
        return errbuf_set(err, errlen, "%s: path too long", path);
    f->n++;
    return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Every regular file under dir (and its folders, to any depth) whose name
 * ends in one of suffixes (NULL terminated), hashed as "<reldir>/<path>".
 * Hidden files and folders are skipped (an editor's or outfile's
 * temporaries). */
static int add_tree(md_files_t *f, const char *dir, const char *reldir, const char *const *suffixes,
                    char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return errbuf_set(err, errlen, "cannot read %s: %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char rel[512], path[4096];
        int r = snprintf(rel, sizeof rel, "%s/%s", reldir, e->d_name);
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || r < 0 || (size_t)r >= sizeof rel) {
            rc = errbuf_set(err, errlen, "%s: path too long", dir);
            break;
        }
        struct stat st;
        if (stat(path, &st) != 0) {
            rc = errbuf_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = add_tree(f, path, rel, suffixes, err, errlen);
            continue;
        }
        bool match = false;
        for (size_t i = 0; suffixes[i] && !match; i++)
            match = has_suffix(e->d_name, suffixes[i]);
        if (match && S_ISREG(st.st_mode))
            rc = push_file(f, rel, path, err, errlen);
    }
    closedir(d);
    return rc;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const md_file_t *)a)->rel, ((const md_file_t *)b)->rel);
}

static int hash_file(uint64_t *h, const md_file_t *f, char *err, size_t errlen)
{
    FILE *fp = fopen(f->path, "rb");
    if (!fp)
        return errbuf_set(err, errlen, "cannot read %s: %s", f->path, strerror(errno));
    char buf[65536];
    uint64_t total = 0, fh = PREDMD_FNV_OFFSET;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        fh = predmd_fnv1a(fh, buf, n);
        total += n;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad)
        return errbuf_set(err, errlen, "cannot read %s", f->path);
    /* path, length, then the contents' own hash: no two file sets collide
     * by shifting bytes from one file to the next */
    char head[320];
    snprintf(head, sizeof head, "%s\n%llu\n%016llx\n", f->rel, (unsigned long long)total,
             (unsigned long long)fh);
    *h = predmd_fnv1a_str(*h, head);
    return 0;
}

/* The input files, sorted by their hashed path: every source file of the
 * three code folders, whole (kernels, the model and the simulator's driver,
 * whose option defaults and report writer also shape the document), and the
 * machine files only when with_configs. */
static int collect_inputs(md_files_t *f, bool with_configs, char *err, size_t errlen)
{
    static const char *const yaml[] = {".yaml", NULL};
    static const char *const code[] = {".c", ".h", ".inc", NULL};
    static const char *const folders[] = {"models", "kernels", "sim", NULL};
    char dir[4096];
    const char *src = datadir_source_dir();
    if (!src)
        return errbuf_set(err, errlen,
                          "the predictions report's fingerprint covers the source files "
                          "(models/, kernels/, sim/), and this clearsim is not in the build tree "
                          "of its source (an installed or copied binary): run report from the "
                          "build tree");
    int rc = with_configs ? add_tree(f, cfg_configs_dir(), "configs", yaml, err, errlen) : 0;
    for (size_t i = 0; rc == 0 && folders[i]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", src, folders[i]);
        rc = add_tree(f, dir, folders[i], code, err, errlen);
    }
    if (rc == 0)
        qsort(f->v, f->n, sizeof *f->v, cmp_file);
    return rc;
}

int predmd_hash_inputs(uint64_t *h, char *err, size_t errlen)
{
    md_files_t f = {0};
    int rc = collect_inputs(&f, true, err, errlen);
    for (size_t i = 0; rc == 0 && i < f.n; i++)
        rc = hash_file(h, &f.v[i], err, errlen);
    free(f.v);
    return rc;
}

int predmd_newest_source(char *rel, size_t rellen, struct timespec *mtime, char *err, size_t errlen)
{
    md_files_t f = {0};
    int rc = collect_inputs(&f, false, err, errlen);
    struct timespec best = {0, 0};
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
        struct stat st;
        if (stat(f.v[i].path, &st) != 0) {
            rc = errbuf_set(err, errlen, "cannot read %s: %s", f.v[i].path, strerror(errno));
            break;
        }
        if (i == 0 || st.st_mtim.tv_sec > best.tv_sec ||
            (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec)) {
            best = st.st_mtim;
            snprintf(rel, rellen, "%s", f.v[i].rel);
        }
    }
    if (rc == 0 && f.n == 0)
        rc = errbuf_set(err, errlen, "no source files under %s", datadir_source_dir());
    if (rc == 0)
        *mtime = best;
    free(f.v);
    return rc;
}

int predmd_read_fingerprint(const char *path, uint64_t *out, char *err, size_t errlen)
{
    FILE *fp = infile_open(path, INFILE_MAX_TEXT_BYTES, NULL, err, errlen);
    if (!fp)
        return -1;
    char line[1024];
    size_t plen = strlen(PREDMD_FINGERPRINT_PREFIX);
    int found = 0; /* 1: a good line, -1: a malformed one */
    while (!found && fgets(line, sizeof line, fp)) {
        if (strncmp(line, PREDMD_FINGERPRINT_PREFIX, plen) != 0)
            continue;
        const char *p = line + plen;
        uint64_t v = 0;
        size_t k = 0;
        for (; k < 16; k++) {
            char c = p[k];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = (unsigned)(c - 'a' + 10);
            else
                break;
            v = v << 4 | d;
        }
        bool end = p[k] == '\n' || p[k] == '\r' || p[k] == '\0';
        found = k == 16 && end ? 1 : -1;
        *out = v;
    }
    bool bad = ferror(fp) != 0;
    fclose(fp);
    if (bad)
        return errbuf_set(err, errlen, "cannot read %s", path);
    if (found < 0)
        return errbuf_set(err, errlen,
                          "%s: malformed '" PREDMD_FINGERPRINT_PREFIX
                          "' line (want 16 lower-case hex digits)",
                          path);
    if (found == 0)
        return errbuf_set(err, errlen,
                          "%s: no '" PREDMD_FINGERPRINT_PREFIX
                          "' line; was it written by 'clearsim "
                          "report'?",
                          path);
    return 0;
}
