/*
 * pool.h - a pool of threads that runs n independent tasks, with progress.
 *
 * Notes
 *  - Sweeps, tuning, calibration, crosscheck and the predictions report run
 *    their predictions here, each task on its own model.
 */
#ifndef CLEARSIM_POOL_H
#define CLEARSIM_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/progress.h"

/* Most threads of one pool (--jobs). */
#define POOL_JOBS_MAX 1024u

/* Call fn(ctx, i) for i in 0..n-1 on `jobs` threads (jobs <= 1: in this
 * thread, in order). fn must only write its own slot i. After each call,
 * progress_update(pr, pr_base + calls done) (pr may be NULL). Returns 0, or
 * -1 with a reason when no thread can be started. */
typedef void (*pool_task_fn)(void *ctx, size_t i);
int pool_run(size_t n, unsigned jobs, pool_task_fn fn, void *ctx, progress_t *pr, uint64_t pr_base,
             char *err, size_t errlen);

#endif
