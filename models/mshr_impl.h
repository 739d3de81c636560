/*
 * mshr_impl.h - the inside of models/mshr.c, shared with the per-line path
 * (models/hierarchy.c, models/model.c) so that acquire and commit inline.
 *
 * Notes
 *  - Private: everyone else uses the functions of models/mshr.h, which are
 *    the same code (mshr_acquire() is mshr_i_acquire(), and so on).
 *  - The sorted ring is described in the Notes of models/mshr.c.
 */
#ifndef CLEARSIM_MSHR_IMPL_H
#define CLEARSIM_MSHR_IMPL_H

#include <stdint.h>

#include "models/mshr.h"

struct mshr {
    uint32_t slots;
    uint32_t head; /* ring index of the earliest completion */
    double max_done;
    double ring[]; /* completion times, ascending from head */
};

static inline double mshr_i_acquire(const mshr_t *p, double t_request)
{
    double t0 = p->ring[p->head];
    return t0 > t_request ? t0 : t_request;
}

static inline void mshr_i_commit(mshr_t *p, double t_done)
{
    double *r = p->ring;
    uint32_t n = p->slots;
    /* Drop the earliest: the ring now starts one further on and its last
     * position (the old head) is free. */
    uint32_t hole = p->head;
    uint32_t head = hole + 1 == n ? 0 : hole + 1;
    p->head = head;
    /* Move later completions up until t_done fits. */
    for (uint32_t k = n - 1; k > 0; k--) {
        uint32_t before = hole == 0 ? n - 1 : hole - 1;
        if (!(r[before] > t_done))
            break;
        r[hole] = r[before];
        hole = before;
    }
    r[hole] = t_done;
    if (t_done > p->max_done)
        p->max_done = t_done;
}

#endif
