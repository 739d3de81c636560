/*
 * dram.c - memory path as FIFO bandwidth servers plus latency.
 *
 * Notes
 *  - What it models: one core's reachable read and write bandwidth (its
 *    fabric link), the shared DRAM bus with read/write turnaround amortised
 *    over write batches, and idle latency. Queueing delay emerges when
 *    requests arrive faster than a server drains them.
 *  - What it ignores: banks, rows and refresh (their average effect is in
 *    the bandwidth parameters), other cores' traffic, NUMA.
 *  - Units: core cycles, bytes per cycle.
 */
#include "models/timing.h"
#include "models/dram.h"

#include <stdlib.h>

struct dram {
    double lat_rd;        /* cycles */
    double lat_wr;        /* cycles */
    double rd_cpl;        /* read link: cycles per line */
    double wr_cpl;        /* write link: cycles per data line */
    double zero_fraction; /* a zeroing operation's line: share of a data line's link and bus time */
    double bus_cpl;       /* shared bus: cycles per line */
    double turn;          /* cycles per direction change */
    uint32_t batch;       /* writes per bus batch */
    double turn_share;    /* 2 x turn / batch: turnaround cycles per written line */
    double room_cycles;   /* batch x bus_cpl: bus backlog the write queue holds */
    double rd_free, wr_free, bus_free;
    double last_accept; /* when the controller took the latest write */
    /* attribution (docs/MODEL.md "Bottleneck attribution") */
    stats_bound_t why;          /* what bounded the latest returned time */
    stats_bound_t why_accept;   /* ... and the latest write's acceptance */
    stats_bound_t why_bus_free; /* ... and bus_free */
};

static double per_line(double bpc, double line)
{
    return bpc > 0 ? line / bpc : 0.0;
}

dram_t *dram_create(const machine_t *m)
{
    dram_t *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    double line = m->l1.line_bytes ? m->l1.line_bytes : 64;
    d->lat_rd = m->mem_latency_ns * m->freq_ghz;
    d->lat_wr = m->mem_write_latency_ns * m->freq_ghz;
    d->rd_cpl = per_line(m->mem_read_bpc, line);
    d->wr_cpl = per_line(m->mem_write_bpc, line);
    d->zero_fraction = m->mem_zero_write_fraction;
    d->bus_cpl = per_line(m->mem_combined_bpc, line);
    d->turn = m->mem_turnaround_ns * m->freq_ghz;
    d->batch = m->mem_write_queue ? m->mem_write_queue : 1;
    d->turn_share = 2.0 * d->turn / d->batch;
    d->room_cycles = d->batch * d->bus_cpl;
    d->why = d->why_accept = STATS_BOUND_NONE;
    d->why_bus_free = STATS_BOUND(ST_BOUND_MEM_BUS);
    return d;
}

void dram_destroy(dram_t *d)
{
    free(d);
}

double dram_read(dram_t *d, double t)
{
    double start = timing_max(t, timing_max(d->rd_free, d->bus_free));
    if (start > t)
        d->why = d->rd_free >= d->bus_free ? STATS_BOUND(ST_BOUND_MEM_READ_LINK) : d->why_bus_free;
    else
        d->why = STATS_BOUND(ST_BOUND_DRAM_LATENCY);
    d->rd_free = start + d->rd_cpl;
    d->bus_free = start + d->bus_cpl;
    d->why_bus_free = STATS_BOUND(ST_BOUND_MEM_BUS);
    return start + d->lat_rd;
}

double dram_write(dram_t *d, double t, bool zero_line)
{
    double start = timing_max(t, d->wr_free);
    stats_bound_t w = d->wr_free > t ? STATS_BOUND(ST_BOUND_MEM_WRITE_LINK) : STATS_BOUND_NONE;
    double share = zero_line ? d->zero_fraction : 1.0;
    d->wr_free = start + d->wr_cpl * share;
    /* The controller's write queue holds `batch` lines: a write is accepted
     * while the bus backlog is shorter than that, else it waits (this is
     * what bounds a write stream to the bus rate). */
    double room = d->bus_free - d->room_cycles;
    if (start < room) {
        start = room;
        w = STATS_BOUND(ST_BOUND_MEM_BUS);
    }
    /* On the bus, writes drain in batches; each batch pays a turnaround to
     * writes and one back to reads, spread over its lines. */
    d->bus_free = timing_max(d->bus_free, start) + d->bus_cpl * share + d->turn_share;
    d->why_bus_free = STATS_BOUND(ST_BOUND_MEM_BUS);
    d->last_accept = start;
    d->why_accept = w;
    double done = start + d->lat_wr;
    if (d->wr_free > done) {
        done = d->wr_free;
        w = STATS_BOUND(ST_BOUND_MEM_WRITE_LINK);
    }
    d->why = w;
    return done;
}

stats_bound_t dram_why(const dram_t *d)
{
    return d->why;
}

stats_bound_t dram_accept_why(const dram_t *d)
{
    return d->why_accept;
}

stats_bound_t dram_drain_why(const dram_t *d, double t)
{
    double m = timing_max(d->bus_free, timing_max(d->rd_free, d->wr_free));
    if (!(m > t))
        return STATS_BOUND_NONE;
    if (m == d->bus_free)
        return STATS_BOUND(ST_BOUND_MEM_BUS);
    return m == d->wr_free ? STATS_BOUND(ST_BOUND_MEM_WRITE_LINK)
                           : STATS_BOUND(ST_BOUND_MEM_READ_LINK);
}

double dram_last_accept(const dram_t *d)
{
    return d->last_accept;
}

double dram_drain(dram_t *d, double t)
{
    return timing_max(t, timing_max(d->bus_free, timing_max(d->rd_free, d->wr_free)));
}

void dram_shift_time(dram_t *d, double dt)
{
    d->rd_free += dt;
    d->wr_free += dt;
    d->bus_free += dt;
    d->last_accept += dt;
}

/* ---- exact bulk stepping (models/model_bulk.c) ---------------------------- */

dram_t *dram_clone(const dram_t *d, dram_t *into)
{
    if (!into)
        into = malloc(sizeof(*into));
    if (into)
        *into = *d;
    return into;
}

bool dram_same(const dram_t *d, const dram_t *then, const struct timing_shift *sh)
{
    return d->why == then->why && d->why_accept == then->why_accept &&
           d->why_bus_free == then->why_bus_free && timing_same(d->rd_free, then->rd_free, sh) &&
           timing_same(d->wr_free, then->wr_free, sh) &&
           timing_same(d->bus_free, then->bus_free, sh) &&
           timing_same(d->last_accept, then->last_accept, sh);
}
