/*
 * infile.h - the one way every reader opens an input file: machine files,
 * size distributions, calibration data, detect's figures, and every CSV.
 *
 * Notes
 *  - Only a regular file is read (after following links). A FIFO, a socket,
 *    a device, a directory, or any file of /proc or /sys fails at once with
 *    a message naming the file and what it is; nothing blocks: the file is
 *    opened with O_NONBLOCK and checked before the first read.
 *  - Every reader gives its own size cap (INFILE_MAX_* below); a larger file
 *    fails before it is read. infile_read() and the csv reader also stop a
 *    file that grows past the cap while it is read; a reader that reads by
 *    lines (report --check) reads at most what the file held when opened
 *    plus what it finds before its first match.
 *  - The type is checked with stat() before the file is opened (no device
 *    driver is opened), and again on the open file.
 *  - YAML: infile_yaml_bounds() walks libyaml's event stream before any
 *    reader builds a document, and rejects a nesting deeper than
 *    INFILE_YAML_DEPTH_MAX, more than INFILE_YAML_ANCHORS_MAX anchors or
 *    aliases, or more than INFILE_YAML_NODES_MAX values, with file:line:col. libyaml's document
 * loader is quadratic in both; the event parser stops at the first excess.
 *  - Library code: returns -1 (or NULL) with a one-line reason; never prints.
 */
#ifndef CLEARSIM_INFILE_H
#define CLEARSIM_INFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define INFILE_MAX_MACHINE_BYTES     (4ull << 20) /* a machine file */
#define INFILE_MAX_SIZES_BYTES       (4ull << 20) /* tune's size distributions */
#define INFILE_MAX_CALIBRATION_BYTES (4ull << 20) /* calibration data */
#define INFILE_MAX_FIGURES_BYTES     (4ull << 20) /* detect --figures (a machine file) */
#define INFILE_MAX_CSV_BYTES         (1ull << 30) /* a csv read row by row (sweep --resume) */
#define INFILE_MAX_PLOT_BYTES        (4ull << 20) /* a csv plot holds in memory */
#define INFILE_MAX_JSON_BYTES                                                                      \
    (4ull << 20)                            /* a sweep's json read back (--resume):                \
                                             * jansson takes up to ~50x */
#define INFILE_MAX_TEXT_BYTES (16ull << 20) /* a text file read by lines (report --check) */

#define INFILE_YAML_DEPTH_MAX   64   /* nested mappings and sequences */
#define INFILE_YAML_ANCHORS_MAX 1024 /* anchors, and aliases, each */
#define INFILE_YAML_NODES_MAX                                                                      \
    200000 /* values (scalars, lists, mappings): libyaml keeps                                     \
            * about 100 bytes and more for each */

/* Open path for reading: a regular file of at most max_bytes, not under
 * /proc or /sys. what names the input in messages ("--sizes-file"; NULL: the
 * path alone). */
FILE *infile_open(const char *path, uint64_t max_bytes, const char *what, char *err, size_t errlen);
/* The whole file, NUL-terminated (*buf malloc'd, *len without the NUL). */
int infile_read(const char *path, uint64_t max_bytes, const char *what, char **buf, size_t *len,
                char *err, size_t errlen);
/* 0 when the YAML text in buf is within the bounds above; else -1 with
 * "path:line:col: ..." (a syntax error is left to the reader's own parse). */
int infile_yaml_bounds(const char *buf, size_t len, const char *path, char *err, size_t errlen);

#endif
