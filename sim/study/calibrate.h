/*
 * calibrate.h - fitting a machine's fittable timing parameters to
 * measurements (published figures or native runs), and predicting a set of
 * measured cases.
 *
 * Notes
 *  - A calibration data file (YAML, data/calibration/<machine>.yaml) lists
 *    cases: each is a `clearsim run` command line (`args`), a metric, the
 *    measured value, where the value comes from, and whether the case is in
 *    the fitting set or the validation set. It also lists the keys to fit
 *    with bounds in their stored units (configs/README.md).
 *  - Metrics: `gbps` (bytes/s / 2^30, as perf prints GB/sec) and
 *    `per_line:<perf event>` (the counter divided by the cache lines
 *    cleared).
 *  - The fit is GSL nonlinear least squares (gsl_multifit_nlinear, trust
 *    region Levenberg-Marquardt) on relative residuals, each parameter mapped
 *    onto its bounds through a logistic function; the Jacobian is taken by
 *    finite differences with a step large enough to move integer parameters.
 *  - Uncertainties come from the covariance at the solution, scaled by the
 *    residual variance, mapped back to stored units.
 *  - Clocks: the machine passed in is loaded at the data's clock (or its
 *    file's). A case with a clock of its own is predicted on the machine's
 *    file loaded at that clock, carrying the machine's current values of the
 *    fitted keys; so data measured in several host states (each case at the
 *    clock measured around it) fit one file. A fitted bandwidth the file
 *    gives per second (a bus rate) is carried over per second, any other
 *    value in its stored unit.
 */
#ifndef CLEARSIM_CALIBRATE_H
#define CLEARSIM_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "sim/machine/cfg.h"
#include "sim/engine/workload.h"

#define CAL_CASES_MAX 256
#define CAL_KEYS_MAX  32
#define CAL_STAGES    12
/* How a NAN sigma (cal_result_t) is written: the cases do not determine the key. */
#define CAL_SIGMA_UNKNOWN "? (the cases do not determine it)"

typedef struct cal_case {
    char id[64];
    bool fit; /* in the fitting set (else validation) */
    char source[256];
    char args[512];   /* clearsim run options */
    wl_spec_t spec;   /* parsed from args (function chosen for the machine) */
    char metric[64];  /* gbps | per_line:<event> */
    double value;     /* measured */
    double tolerance; /* relative tolerance the case is checked against (0: none) */
    unsigned stage;   /* fit cases: the stage whose keys they fit (1..CAL_STAGES) */
    double clock_ghz; /* clock: the core clock measured around this case, 0: the data's */
} cal_case_t;

typedef struct cal_key {
    const cfg_key_t *key;
    double lo, hi;  /* bounds in stored units */
    unsigned stage; /* 1..CAL_STAGES: fitted in this stage */
} cal_key_t;

typedef struct cal_data {
    char path[MACHINE_TEXT_MAX];
    char machine[MACHINE_NAME_MAX];
    double clock_ghz; /* clock: the core clock measured with the data, 0 if not given */
    size_t n_cases;
    cal_case_t cases[CAL_CASES_MAX];
    size_t n_keys;
    cal_key_t keys[CAL_KEYS_MAX];
} cal_data_t;

/* Load a data file; its cases' args are parsed against machine m. Returns
 * NULL with a one-line reason ("file:line:col: what") on failure. */
cal_data_t *cal_load(const char *path, const machine_t *m, char *err, size_t errlen);
void cal_destroy(cal_data_t *d);

/* Predict every case on m (threads: how many run at once). pred[i] for case
 * i. Returns 0, or -1 with a reason. */
int cal_predict_all(const machine_t *m, const cal_data_t *d, bool exact, unsigned threads,
                    double *pred, char *err, size_t errlen);

typedef struct cal_result {
    double value[CAL_KEYS_MAX];  /* fitted values, stored units */
    double sigma[CAL_KEYS_MAX];  /* 1-sigma uncertainties, stored units; NAN: the cases
                                    do not determine the key (none moves it, or only in steps);
                                    printed as CAL_SIGMA_UNKNOWN */
    double start[CAL_KEYS_MAX];  /* values before the fit */
    double pred[CAL_CASES_MAX];  /* predictions with the fitted values */
    double pred0[CAL_CASES_MAX]; /* predictions before the fit */
    size_t iterations;
    size_t evaluations;
    double chisq0, chisq;
} cal_result_t;

/* Fit d's keys on d's fitting set, starting from m's values, in at most
 * max_iter trust-region iterations per stage; m receives the fitted values.
 * Stages run in order: stage s fits the keys of stage s on the fitting cases
 * of stage s, with every other key at its current value (the values of
 * earlier stages already fitted). A file without stages is one stage. Each
 * evaluation is logged on stderr (one line) when progress is set and stderr
 * is not a terminal (a terminal gets the progress line instead). Returns 0,
 * or -1 with a reason. */
int cal_fit(machine_t *m, const cal_data_t *d, unsigned threads, bool progress, size_t max_iter,
            cal_result_t *res, char *err, size_t errlen);

/* Copy machine file `in` to `out`, replacing the values of d's keys with m's
 * (keeping every comment) and recording the data, the command and the fit in
 * a comment header. Written atomically. Returns 0, or -1 with a reason. */
int cal_write_yaml(const char *in, const char *out, const machine_t *m, const cal_data_t *d,
                   const cal_result_t *res, const char *command, char *err, size_t errlen);

/* Relative error (pred - value) / value of case i. */
double cal_rel_error(const cal_case_t *c, double pred);

#endif
