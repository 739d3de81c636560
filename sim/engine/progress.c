/*
 * progress.c - a rate-limited progress line with an ETA.
 *
 * Notes
 *  - Uses CLOCK_MONOTONIC; redraws at most every 0.2 s.
 */
#include "sim/engine/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct progress {
    char label[64];
    uint64_t total;
    bool enabled;
    bool drawn;
    double t0, last;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool progress_tty(void)
{
    return isatty(STDERR_FILENO) == 1;
}

progress_t *progress_create(const char *label, uint64_t total, bool enabled)
{
    progress_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    snprintf(p->label, sizeof(p->label), "%s", label);
    p->total = total;
    p->enabled = enabled && progress_tty();
    p->t0 = p->last = now_s();
    return p;
}

void progress_update(progress_t *p, uint64_t done)
{
    if (!p || !p->enabled || p->total == 0)
        return;
    double t = now_s();
    if (t - p->last < 0.2)
        return;
    p->last = t;
    double frac = (double)done / (double)p->total;
    if (frac > 1)
        frac = 1;
    double el = t - p->t0;
    if (frac > 0)
        fprintf(stderr, "\r%s: %5.1f%%  elapsed %.0fs  ETA %.0fs ", p->label, 100 * frac, el,
                el / frac - el);
    else
        fprintf(stderr, "\r%s: %5.1f%%  elapsed %.0fs ", p->label, 0.0, el);
    p->drawn = true;
}

void progress_destroy(progress_t *p)
{
    if (!p)
        return;
    if (p->drawn)
        fprintf(stderr, "\r%*s\r", 72, "");
    free(p);
}
