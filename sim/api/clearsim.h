/*
 * clearsim.h - the public C API of libclearsim: load a machine file, predict
 * one run on it, read the result. Installed as <clearsim.h>; link with
 * `pkg-config --libs --static clearsim`.
 *
 * Example
 *     char err[512];
 *     clearsim_machine_t *m = clearsim_machine_open("zen3-epyc-7j13", err, sizeof err);
 *     clearsim_result_t *r = m ? clearsim_run(m, "-s 1MB -f rep_stosb", err, sizeof err) : NULL;
 *     if (r)
 *         printf("%.3f GB/s\n", clearsim_result_bytes_per_sec(r) / 1e9);
 *     clearsim_result_free(r);
 *     clearsim_machine_close(m);
 *
 * Notes
 *  - Every handle is opaque. Functions that can fail return NULL (or -1) and
 *    write a one-line reason into err (errlen bytes; err may be NULL when
 *    errlen is 0). Nothing prints, nothing exits.
 *  - A machine NAME is looked up as `clearsim machines` does: the
 *    directories of $CLEARSIM_MACHINES, then $XDG_CONFIG_HOME/clearsim/
 *    machines, then the bundled machine files of the data directory
 *    ($CLEARSIM_DATA_DIR, else the installed share/clearsim). Anything with a
 *    '/' or ending in .yaml is a path to a machine file.
 *  - The options of clearsim_run are those of `clearsim run` that describe
 *    the workload and the model (-s, -k, -l, -f, -w, --caller, --set,
 *    --libc, --exact, --seed, ...; see clearsim-run(1)), as one string of
 *    words; --machine is not one of them (the machine is the handle).
 *  - Units: bytes, seconds, bytes per second, core cycles.
 */
#ifndef CLEARSIM_H
#define CLEARSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (the same as `clearsim --version`). */
const char *clearsim_version(void);

/* A loaded machine file. */
typedef struct clearsim_machine clearsim_machine_t;
/* One prediction's result. */
typedef struct clearsim_result clearsim_result_t;

/* Load a machine by NAME or PATH. Returns the machine, or NULL with a reason. */
clearsim_machine_t *clearsim_machine_open(const char *name_or_path, char *err, size_t errlen);
/* Free a machine (NULL is allowed). */
void clearsim_machine_close(clearsim_machine_t *m);
/* The machine's name (its file's base name). */
const char *clearsim_machine_name(const clearsim_machine_t *m);
/* The file it was loaded from. */
const char *clearsim_machine_path(const clearsim_machine_t *m);

/* Predict one run of `clearsim run --machine M OPTIONS` (options may be
 * NULL or "" for the defaults). Returns the result, or NULL with a reason. */
clearsim_result_t *clearsim_run(const clearsim_machine_t *m, const char *options, char *err,
                                size_t errlen);
/* Free a result (NULL is allowed). */
void clearsim_result_free(clearsim_result_t *r);
/* The throughput of the measured region, bytes per second. */
double clearsim_result_bytes_per_sec(const clearsim_result_t *r);
/* The bytes cleared in the measured region. */
uint64_t clearsim_result_bytes(const clearsim_result_t *r);
/* The core cycles of the measured region. */
uint64_t clearsim_result_cycles(const clearsim_result_t *r);
/* The seconds of the measured region. */
double clearsim_result_seconds(const clearsim_result_t *r);
/* The perf-named counters the result has (mapped or not by the machine). */
size_t clearsim_result_counter_count(const clearsim_result_t *r);
/* Counter i's perf event name ("cycles", "L1-dcache-loads", ...), NULL when
 * i is out of range. */
const char *clearsim_result_counter_name(const clearsim_result_t *r, size_t i);
/* Counter i's value into *value. Returns 0; -1 when the machine does not map
 * that counter (not supported) or i is out of range. */
int clearsim_result_counter(const clearsim_result_t *r, size_t i, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif
