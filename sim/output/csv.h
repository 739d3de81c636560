/*
 * csv.h - the one CSV reader: the files clearsim writes (sweep --resume,
 * plot --input) and the ones users write for it (tune --sizes-file).
 *
 * Notes
 *  - RFC 4180 quoting: "a,b", "say ""hi"""; no line breaks inside fields.
 *    The first line is the header; every further line is a row with as many
 *    fields as the header. Empty lines are skipped; CRLF is taken.
 *  - A line is at most CSV_LINE_MAX bytes, and a NUL byte is not text: both
 *    are errors, "path:line: reason", as every error is.
 *  - The file is opened through sim/machine/infile.c: a regular file only
 *    (no FIFO, device, directory or /proc file), of at most the cap its flags
 *    give, checked before the first read and again while reading.
 */
#ifndef CLEARSIM_CSV_H
#define CLEARSIM_CSV_H

#include <stdbool.h>
#include <stddef.h>

#define CSV_LINE_MAX (1u << 20)

enum {
    CSV_MISSING_EMPTY = 1u << 0, /* a file that does not exist has no rows */
    CSV_CUT_LAST = 1u << 1,      /* a last line without a line end (cut by an interrupt) is
                                  * dropped; else it is read */
    CSV_COMMENTS = 1u << 2,      /* lines whose first non-blank is '#' are skipped, and blanks
                                  * around unquoted fields are trimmed */
    CSV_NEED_HEADER = 1u << 3,   /* a file without even a header is an error */
    CSV_SMALL = 1u << 4,         /* a user's small table (tune's sizes): at most
                                  * INFILE_MAX_SIZES_BYTES; else INFILE_MAX_CSV_BYTES */
    CSV_IN_MEMORY = 1u << 5,     /* the caller keeps every row (plot): at most
                                  * INFILE_MAX_PLOT_BYTES */
};

typedef struct csv_row {
    size_t lineno;             /* 1-based line number in the file */
    bool is_header;            /* the header line (given to the callback first) */
    const char *line;          /* the line as written, without its line end */
    size_t n;                  /* number of fields (= n_header) */
    const char *const *fields; /* the fields, unquoted */
    size_t n_header;           /* number of header fields */
    const char *const *header; /* the header, unquoted */
} csv_row_t;

/* Called for the header, then once per data row; returns 0 to go on, or
 * non-zero to stop with an error (it may write a reason to err; else a
 * generic one naming the line is given). */
typedef int (*csv_row_fn)(void *ctx, const csv_row_t *row, char *err, size_t errlen);

/* Read the CSV at path with flags CSV_*. Returns the number of data rows
 * (fn may be NULL to count), or -1 with a reason. */
long csv_read(const char *path, unsigned flags, csv_row_fn fn, void *ctx, char *err, size_t errlen);

#endif
