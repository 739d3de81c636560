/*
 * mshr.h - a pool of miss-status holding registers (L1 fill buffers, L2/L3
 * miss queues, write-combining buffers): a fixed number of slots, each busy
 * until the completion time of the request it holds.
 *
 * Notes
 *  - Requests are handed in roughly time order; a request that arrives while
 *    every slot is busy waits for the earliest completion (Little's law makes
 *    throughput = slots x line / latency when latency-bound).
 *  - Times are core cycles.
 */
#ifndef CLEARSIM_MSHR_H
#define CLEARSIM_MSHR_H

#include <stdbool.h>
#include <stdint.h>

typedef struct mshr mshr_t;

mshr_t *mshr_create(uint32_t slots);
void mshr_destroy(mshr_t *p);
/* Earliest time >= t_request at which a slot is free. */
double mshr_acquire(const mshr_t *p, double t_request);
/* Occupy the slot that mshr_acquire() found until t_done. */
void mshr_commit(mshr_t *p, double t_done);
/* Time at which every slot is free. */
double mshr_drain_time(const mshr_t *p);
/* Slots still busy at time t. */
uint32_t mshr_in_flight(const mshr_t *p, double t);
uint32_t mshr_slots(const mshr_t *p);
void mshr_reset(mshr_t *p);
/* Add dt to every completion time (fast-forward moves time). */
void mshr_shift_time(mshr_t *p, double dt);

/* Exact bulk stepping (models/model_bulk.c): a copy of p (into a pool of
 * the same size when not NULL; NULL out of memory), and whether p now holds
 * the completion times `then` held, in order, as timing_same judges them. */
struct timing_shift;
mshr_t *mshr_clone(const mshr_t *p, mshr_t *into);
bool mshr_same(const mshr_t *p, const mshr_t *then, const struct timing_shift *sh);

#endif
