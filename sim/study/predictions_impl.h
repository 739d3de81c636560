/*
 * predictions_impl.h - the inside of `clearsim report` (sim/study/predictions.c, the
 * case list and its runs), shared only with its Markdown writer
 * (sim/study/predictions_write.c).
 *
 * Notes
 *  - Private: nothing else includes this; everyone else uses predictions.h.
 *  - The case templates below are also hashed into the fingerprint
 *    (predictions.c), so a change to them changes it.
 */
#ifndef CLEARSIM_PREDICTIONS_IMPL_H
#define CLEARSIM_PREDICTIONS_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/machine/cfg.h"
#include "sim/study/predictions.h"
#include "sim/engine/workload.h"

#define GIB               1073741824.0
#define RUN_OPTIONS_MAX   192
#define RUN_ERR_MAX       512
#define MACHINES_ARG_SHOW 512

/* ------------------------------------------------------------------------ */
/* the case list                                                             */

typedef enum md_kind { MD_FAULT = 0, MD_KERNEL, MD_MEMSET } md_kind_t;

typedef struct md_fault_page {
    const char *page;  /* -p */
    const char *size;  /* -s */
    const char *label; /* table label */
} md_fault_page_t;

static const md_fault_page_t fault_pages[] = {
    {"2MB", "1GB", "2 MiB"},
    {"1GB", "4GB", "1 GiB"},
};
static const char *const fault_preempts[] = {"none", "voluntary", "full", "lazy"};
static const char *const fault_callers[] = {"page", "extent"};
#define N_FAULT_PAGES    (sizeof fault_pages / sizeof fault_pages[0])
#define N_FAULT_PREEMPTS (sizeof fault_preempts / sizeof fault_preempts[0])
#define N_FAULT_CALLERS  (sizeof fault_callers / sizeof fault_callers[0])
#define FAULT_FORMAT     "--workload mmap -p %s -s %s --preempt %s -f %s"

/* Clearing kernels in user space: the temporal baseline of each ISA, then
 * the others of issue 5 where the machine has them. */
#define KERNEL_FORMAT "-s 1GB -k 2MB -f %s"
#define KERNEL_WHAT   "2 MiB calls over a 1 GiB buffer"
static const char *const kernel_baseline[] = {"rep_stosb", "stp"}; /* by machine_isa_t */
static const char *const kernel_others[] = {"movnti", "clzero", "dc_zva", "stnp", "mops"};
#define N_KERNEL_OTHERS (sizeof kernel_others / sizeof kernel_others[0])

typedef struct md_memset_chunk {
    const char *chunk;
    const char *label;
} md_memset_chunk_t;

#define MEMSET_FORMAT "-s 1GB -k %s -f memset"
static const md_memset_chunk_t memset_chunks[] = {
    {"4KB", "4 KiB"},
    {"2MB", "2 MiB"},
    {"1GB", "1 GiB"},
};
#define N_MEMSET_CHUNKS (sizeof memset_chunks / sizeof memset_chunks[0])

/* ------------------------------------------------------------------------ */
/* state                                                                     */

typedef struct md_run {
    size_t machine;
    md_kind_t kind;
    size_t a, b, c; /* fault: page, preempt, caller; kernel: -; memset: chunk */
    char function[32];
    char options[RUN_OPTIONS_MAX];
    wl_spec_t spec;
    size_t same_as; /* the run whose prediction this one shares (itself: its own) */
    /* result */
    int rc;
    char err[RUN_ERR_MAX];
    double gbps;
} md_run_t;

typedef struct md_machine {
    char name[MACHINE_NAME_MAX];
    machine_t *m;
    const char *function; /* default clear function */
    const char *baseline; /* temporal kernel baseline */
    char missing[512];    /* kernels of kernel_others it lacks */
    size_t first_run, n_runs;
} md_machine_t;

struct predmd {
    char machines_arg[MACHINES_ARG_SHOW];
    size_t n_machines;
    md_machine_t *machines;
    size_t n_runs, cap_runs;
    md_run_t *runs;
    size_t n_order;
    size_t *order; /* the runs that run (same_as == self), largest first */
};

#endif
