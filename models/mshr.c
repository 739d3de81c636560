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
 *  - The struct, acquire and commit live in models/mshr_impl.h as static
 *    inline code, which the hierarchy and the model include so that the
 *    per-line path inlines them; the functions here are the same code.
 */
#include "models/mshr.h"
#include "models/mshr_impl.h"

#include <stdlib.h>
#include <string.h>

#include "models/timing.h"

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
    return mshr_i_acquire(p, t_request);
}

void mshr_commit(mshr_t *p, double t_done)
{
    mshr_i_commit(p, t_done);
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
