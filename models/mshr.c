/*
 * mshr.c - slot pool as a binary min-heap of completion times.
 *
 * Notes
 *  - The heap always holds `slots` entries; a free slot holds completion time
 *    0 (or any time in the past). Acquire reads the root; commit replaces the
 *    root and sifts down. Both are O(log slots), allocation-free.
 *  - drain_time is tracked as the running maximum of committed completions.
 */
#include "models/mshr.h"

#include <stdlib.h>

struct mshr {
    uint32_t slots;
    double max_done;
    double heap[]; /* min-heap of completion times */
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
        p->heap[i] = 0;
    p->max_done = 0;
}

double mshr_acquire(const mshr_t *p, double t_request)
{
    return p->heap[0] > t_request ? p->heap[0] : t_request;
}

void mshr_commit(mshr_t *p, double t_done)
{
    double *h = p->heap;
    uint32_t n = p->slots, i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        double vm = t_done;
        if (l < n && h[l] < vm) {
            m = l;
            vm = h[l];
        }
        if (r < n && h[r] < vm)
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = t_done;
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
        n += p->heap[i] > t;
    return n;
}

uint32_t mshr_slots(const mshr_t *p)
{
    return p->slots;
}

void mshr_shift_time(mshr_t *p, double dt)
{
    for (uint32_t i = 0; i < p->slots; i++)
        p->heap[i] += dt;
    p->max_done += dt;
}
