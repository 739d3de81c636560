/*
 * mshr.c - slot pool as a sorted ring of completion times.
 *
 * Notes
 *  - The pool always holds `slots` completion times; a free slot holds 0 (or
 *    any time in the past). They are kept sorted in a ring: the earliest is at
 *    `head`. Acquire reads it; commit drops it and inserts the new completion
 *    time from the latest end (insertion sort). Completions mostly arrive in
 *    time order, so a commit usually moves nothing: O(1) typical, O(slots)
 *    worst, allocation-free. (The pool is the multiset of completion times;
 *    acquire takes its minimum and commit replaces the minimum, so any
 *    ordered structure gives the same times - this one was a binary heap.)
 *  - drain_time is tracked as the running maximum of committed completions.
 */
#include "models/mshr.h"

#include <stdlib.h>
#include <string.h>

#include "models/timing.h"

struct mshr {
    uint32_t slots;
    uint32_t head; /* ring index of the earliest completion */
    double max_done;
    double ring[]; /* completion times, ascending from head */
};

mshr_t *mshr_create(uint32_t slots)
{
    if (slots == 0)
        return NULL;
    mshr_t *p = calloc(1, sizeof(*p) + (size_t)slots * sizeof(double));
    if (!p)
        return NULL;
    p->slots = slots;
    return p;
}

void mshr_destroy(mshr_t *p)
{
    free(p);
}

void mshr_reset(mshr_t *p)
{
    for (uint32_t i = 0; i < p->slots; i++)
        p->ring[i] = 0;
    p->head = 0;
    p->max_done = 0;
}

double mshr_acquire(const mshr_t *p, double t_request)
{
    double t0 = p->ring[p->head];
    return t0 > t_request ? t0 : t_request;
}

void mshr_commit(mshr_t *p, double t_done)
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

double mshr_drain_time(const mshr_t *p)
{
    return p->max_done;
}

uint32_t mshr_in_flight(const mshr_t *p, double t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->slots; i++)
        n += p->ring[i] > t;
    return n;
}

uint32_t mshr_slots(const mshr_t *p)
{
    return p->slots;
}

void mshr_shift_time(mshr_t *p, double dt)
{
    for (uint32_t i = 0; i < p->slots; i++)
        p->ring[i] += dt;
    p->max_done += dt;
}

/* ---- exact bulk stepping (models/model_bulk.c) ---------------------------- */

mshr_t *mshr_clone(const mshr_t *p, mshr_t *into)
{
    size_t bytes = sizeof(*p) + (size_t)p->slots * sizeof(double);
    if (into && into->slots != p->slots)
        return NULL;
    if (!into)
        into = malloc(bytes);
    if (into)
        memcpy(into, p, bytes);
    return into;
}

bool mshr_same(const mshr_t *p, const mshr_t *then, const struct timing_shift *sh)
{
    if (p->slots != then->slots || !timing_same(p->max_done, then->max_done, sh))
        return false;
    for (uint32_t i = 0; i < p->slots; i++)
        if (!timing_same(p->ring[(p->head + i) % p->slots],
                         then->ring[(then->head + i) % then->slots], sh))
            return false;
    return true;
}
