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

/* The sooner of two times. */
static inline double timing_min(double a, double b)
{
    return a < b ? a : b;
}

/* Exact bulk stepping (models/model_bulk.c) compares a state with an
 * earlier one moved in time. Each state's times are read relative to its
 * own floor: the core's issue time, which never decreases and below which
 * no later request, wait or comparison asks (every one takes the later of
 * its own time and the time it reads, or asks whether the time read is
 * later). A time below its floor is "past": its value can no longer change
 * anything. Two times agree when both are past, or when neither is and
 * they sit at the same distance from their floors within tol_cycles (the
 * rounding of times of this size). */
typedef struct timing_shift {
    double floor_now, floor_then; /* the two states' floors */
    double tol_cycles;
} timing_shift_t;

static inline int timing_same(double now, double then, const timing_shift_t *s)
{
    int past_now = now < s->floor_now, past_then = then < s->floor_then;
    if (past_now || past_then)
        return past_now && past_then;
    double d = (now - s->floor_now) - (then - s->floor_then);
    return d <= s->tol_cycles && -d <= s->tol_cycles;
}

#endif
