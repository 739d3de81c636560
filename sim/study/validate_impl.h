/*
 * validate_impl.h - the inside of the corpus (sim/study/validate.c,
 * validate_load.c): private to those two files.
 */
#ifndef CLEARSIM_VALIDATE_IMPL_H
#define CLEARSIM_VALIDATE_IMPL_H

#include <stddef.h>

#include "sim/engine/point.h"
#include "sim/study/validate.h"

#define VAL_CORPUS_FILE_BYTES (4ull << 20)

struct val_corpus {
    size_t n_cases, n_gains, n_sources;
    val_case_t *cases;
    val_gain_t *gains;
    run_point_t *points; /* one per case */
    char (*sources)[32];
    char (*source_files)[512]; /* the file of each source */
    size_t n_summaries;
    val_summary_t *summaries;
};

#endif
