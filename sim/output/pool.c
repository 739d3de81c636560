/*
 * pool.c - the thread pool every study runs its predictions on (see
 * pool.h).
 *
 * Notes
 *  - Threads take the next index from a shared counter under a mutex; each
 *    task writes only its own result slot, so the order of completion never
 *    shows in what the caller prints.
 */
#include "sim/output/pool.h"
#include "sim/output/outfile.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "models/base/errbuf.h"

typedef struct pool {
    pthread_mutex_t lock;
    size_t next, done, n;
    pool_task_fn fn;
    void *ctx;
    progress_t *progress;
    uint64_t base;
} pool_t;

static void *pool_worker(void *arg)
{
    pool_t *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        p->fn(p->ctx, i);
        pthread_mutex_lock(&p->lock);
        p->done++;
        progress_update(p->progress, p->base + p->done);
        pthread_mutex_unlock(&p->lock);
    }
}

int pool_run(size_t n, unsigned jobs, pool_task_fn fn, void *ctx, progress_t *pr, uint64_t pr_base,
             char *err, size_t errlen)
{
    pool_t p = {.n = n, .fn = fn, .ctx = ctx, .progress = pr, .base = pr_base};
    if (jobs > POOL_JOBS_MAX)
        jobs = POOL_JOBS_MAX;
    if (jobs > n)
        jobs = (unsigned)n;
    if (jobs <= 1) {
        for (size_t i = 0; i < n; i++) {
            fn(ctx, i);
            progress_update(pr, pr_base + i + 1);
        }
        return 0;
    }
    if (pthread_mutex_init(&p.lock, NULL) != 0)
        return errbuf_set(err, errlen, "cannot create a mutex");
    pthread_t *th = calloc(jobs, sizeof *th);
    unsigned started = 0;
    int rc = 0;
    if (!th) {
        rc = errbuf_set(err, errlen, "out of memory");
    } else {
        /* the workers inherit a mask that blocks the terminating signals, so
         * that their handler runs on this thread, which owns the output
         * files (outfile.h) */
        sigset_t old;
        outfile_block_signals(&old);
        for (; started < jobs; started++) {
            int e = pthread_create(&th[started], NULL, pool_worker, &p);
            if (e != 0) {
                rc = errbuf_set(err, errlen, "cannot start thread %u of %u: %s", started + 1, jobs,
                                strerror(e));
                break;
            }
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        /* With at least one thread started, it finishes the work alone. */
        if (rc != 0 && started > 0)
            rc = 0;
        for (unsigned t = 0; t < started; t++)
            pthread_join(th[t], NULL);
    }
    free(th);
    pthread_mutex_destroy(&p.lock);
    return rc;
}
