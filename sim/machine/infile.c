/*
 * infile.c - opening, reading and bounding input files (see infile.h).
 *
 * Notes
 *  - open(O_RDONLY | O_NONBLOCK) returns at once on a FIFO without a
 *    writer, so the type check below comes before anything can block; the
 *    flag is cleared again for the reads of a regular file.
 *  - Files of /proc and /sys are regular by type but have no size and may
 *    never end (or, like /proc/self/mem, fail to read): fstatfs()'s magic
 *    number tells them apart.
 *  - Units: bytes.
 */
#include "sim/machine/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <yaml.h>

#include "models/base/errbuf.h"

/* fstatfs f_type of the pseudo file systems (linux/magic.h) */
#define INFILE_PROC_MAGIC    0x9fa0
#define INFILE_SYSFS_MAGIC   0x62656572
#define INFILE_DEBUGFS_MAGIC 0x64626720
#define INFILE_TRACEFS_MAGIC 0x74726163

static const char *type_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    return "not a regular file";
}

static void label(const char *path, const char *what, char *buf, size_t len)
{
    if (what && what[0])
        snprintf(buf, len, "%s %.900s", what, path);
    else
        snprintf(buf, len, "%.900s", path);
}

FILE *infile_open(const char *path, uint64_t max_bytes, const char *what, char *err, size_t errlen)
{
    char lb[1024];
    if (!path || !path[0]) {
        errbuf_set(err, errlen, "%s: no file name given", what && what[0] ? what : "input");
        return NULL;
    }
    label(path, what, lb, sizeof lb);
    struct stat st;
    struct statfs fs;
    /* the type first, so that no device's driver is opened (and a socket,
     * which open() refuses, is still named) */
    if (stat(path, &st) != 0) {
        errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        errbuf_set(err, errlen, "%s: cannot read: %s, not a regular file", lb,
                   type_name(st.st_mode));
        return NULL;
    }
    /* and again on what was opened: the path may have changed in between */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        errbuf_set(err, errlen, "%s: cannot read: %s, not a regular file", lb,
                   type_name(st.st_mode));
        close(fd);
        return NULL;
    }
    if (fstatfs(fd, &fs) == 0 && ((unsigned long)fs.f_type == INFILE_PROC_MAGIC ||
                                  (unsigned long)fs.f_type == INFILE_SYSFS_MAGIC ||
                                  (unsigned long)fs.f_type == INFILE_DEBUGFS_MAGIC ||
                                  (unsigned long)fs.f_type == INFILE_TRACEFS_MAGIC)) {
        errbuf_set(err, errlen,
                   "%s: cannot read: a file of /proc, /sys or a kernel debug file "
                   "system, not a regular file",
                   lb);
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        errbuf_set(err, errlen, "%s: larger than the limit of %" PRIu64 " bytes for this input", lb,
                   max_bytes);
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
        close(fd);
    }
    return f;
}

int infile_read(const char *path, uint64_t max_bytes, const char *what, char **buf, size_t *len,
                char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    FILE *f = infile_open(path, max_bytes, what, err, errlen);
    if (!f)
        return -1;
    char lb[1024];
    label(path, what, lb, sizeof lb);
    /* at most max_bytes + 1: one byte more shows a file that grew past the cap */
    const size_t limit = max_bytes < SIZE_MAX - 2 ? (size_t)max_bytes + 1 : SIZE_MAX - 1;
    size_t cap = 64 * 1024 < limit ? 64 * 1024 : limit, n = 0;
    char *b = malloc(cap + 1);
    int rc = 0;
    while (b && rc == 0) {
        if (n == cap) {
            if (cap >= limit)
                break;
            size_t nc = cap < limit / 2 ? cap * 2 : limit;
            char *nb = realloc(b, nc + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap = nc;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = errbuf_set(err, errlen, "%s: cannot read: %s", lb, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (!b)
        return errbuf_set(err, errlen, "%s: out of memory", lb);
    if (rc == 0 && (uint64_t)n > max_bytes)
        rc =
            errbuf_set(err, errlen, "%s: larger than the limit of %" PRIu64 " bytes for this input",
                       lb, max_bytes);
    if (rc != 0) {
        free(b);
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int infile_yaml_bounds(const char *buf, size_t len, const char *path, char *err, size_t errlen)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return errbuf_set(err, errlen, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    int rc = 0;
    unsigned depth = 0, anchors = 0, aliases = 0;
    unsigned long nodes = 0;
    for (bool done = false; !done && rc == 0;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* a syntax error: the reader's own parse reports it */
        const yaml_mark_t mk = ev.start_mark;
        const char *anchor = NULL;
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
            anchor = (const char *)ev.data.sequence_start.anchor;
            depth++;
            break;
        case YAML_MAPPING_START_EVENT:
            anchor = (const char *)ev.data.mapping_start.anchor;
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_SCALAR_EVENT:
            anchor = (const char *)ev.data.scalar.anchor;
            break;
        case YAML_ALIAS_EVENT:
            aliases++;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        if (anchor)
            anchors++;
        if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
            ev.type == YAML_MAPPING_START_EVENT)
            nodes++;
        if (nodes > INFILE_YAML_NODES_MAX)
            rc =
                errbuf_set(err, errlen, "%s:%zu:%zu: more than %d YAML values; not a clearsim file",
                           path, mk.line + 1, mk.column + 1, INFILE_YAML_NODES_MAX);
        else if (depth > INFILE_YAML_DEPTH_MAX)
            rc = errbuf_set(err, errlen,
                            "%s:%zu:%zu: nested deeper than %d levels; not a clearsim file", path,
                            mk.line + 1, mk.column + 1, INFILE_YAML_DEPTH_MAX);
        else if (anchors > INFILE_YAML_ANCHORS_MAX)
            rc = errbuf_set(err, errlen, "%s:%zu:%zu: more than %d YAML anchors", path, mk.line + 1,
                            mk.column + 1, INFILE_YAML_ANCHORS_MAX);
        else if (aliases > INFILE_YAML_ANCHORS_MAX)
            rc = errbuf_set(err, errlen, "%s:%zu:%zu: more than %d YAML aliases", path, mk.line + 1,
                            mk.column + 1, INFILE_YAML_ANCHORS_MAX);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return rc;
}
