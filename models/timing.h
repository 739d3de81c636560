/*
 * timing.h - the time arithmetic the timing mechanisms share.
 *
 * Notes
 *  - Times are core cycles as doubles; an event happens at the later of the
 *    times it waits for (timing_max).
 *  - Header-only and inline: these sit on the per-line path.
 */
#ifndef CLEARSIM_TIMING_H
#define CLEARSIM_TIMING_H

/* The later of two times (the larger of two doubles; no NaN reaches here). */
static inline double timing_max(double a, double b)
{
    return a > b ? a : b;
}

#endif
