/*
 * plot_data.h - what `clearsim plot` draws: a csv that clearsim wrote
 * (sweep, tune, or a crosscheck csv) turned into gnuplot's data file for one
 * kind of plot.
 *
 * Notes
 *  - Kinds and the csv columns they read (docs: plots/README.md):
 *      throughput           sweep csv: function, bytes_per_sec, size_bytes and
 *                           chunk_bytes (x is chunk_bytes when only the chunk
 *                           varies), machine (series per machine when several);
 *      predicted-vs-native  predicted_bytes_per_sec, measured_bytes_per_sec,
 *                           and optionally function (one colour per function);
 *      tuning               tune csv: size_bytes, strategy, function,
 *                           total_seconds, clear_seconds;
 *      machines             sweep csv: machine, bytes_per_sec (and function,
 *                           size_bytes to label bars when they vary).
 *      validation           validate csv: the `case` records' machine,
 *                           published_bps and predicted_bps (one colour per
 *                           machine, log-log).
 *    Rows with a non-empty `error` column are left out.
 *  - The csv goes through the one reader (sim/output/csv.h); an error names
 *    file:line.
 */
#ifndef CLEARSIM_PLOT_DATA_H
#define CLEARSIM_PLOT_DATA_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "models/base/names.h"

typedef enum plot_kind { K_THROUGHPUT = 0, K_PVN, K_TUNING, K_MACHINES, K_VALIDATION } plot_kind_t;
extern const name_value_t plot_kind_names[];

/* The csv: its header and its rows, each with its line number. */
typedef struct plot_csv {
    char **header;
    size_t ncol;
    char ***rows; /* rows[r][c] */
    size_t *lineno;
    size_t nrow;
} plot_csv_t;

/* Read path. Returns 0, or -1 with a reason ("path:line: ..."). */
int plot_csv_read(const char *path, plot_csv_t *c, char *err, size_t errlen);
void plot_csv_free(plot_csv_t *c);

/* The csv of one plot: its file name (for messages), its rows, and the
 * column of `error` (-1: none). */
typedef struct plot_in {
    const char *path;
    const plot_csv_t *c;
    ssize_t err_col;
} plot_in_t;
/* The column called name, or -1. */
ssize_t plot_csv_col(const plot_csv_t *c, const char *name);

/* Write the data file of the kind to f: *nseries the series it holds,
 * *extra the kind's gnuplot variables ("xname='size'; "). Returns 0, or -1
 * with a reason. */
int plot_write_data(FILE *f, plot_kind_t kind, const plot_in_t *in, size_t *nseries, char *extra,
                    size_t extralen, char *err, size_t errlen);

#endif
