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
 *  - The struct, reads, writes and the attribution reads live in
 *    models/dram_impl.h as static inline code, which the hierarchy
 *    includes so that its per-line path inlines them; the functions here
 *    are the same code.
 *  - Units: core cycles, bytes per cycle.
 */
#include "models/timing.h"
#include "models/dram.h"
#include "models/dram_impl.h"

#include <stdlib.h>

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
    /* 0 only in a machine built without the loader, whose default is 1 */
    d->zero_data_fraction = m->mem_zero_data_fraction > 0 ? m->mem_zero_data_fraction : 1.0;
    d->zero_wb_fraction = m->mem_zero_writeback_fraction > 0 ? m->mem_zero_writeback_fraction : 1.0;
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
    return dram_i_read(d, t);
}

double dram_write(dram_t *d, double t, dram_line_t what)
{
    return dram_i_write(d, t, what);
}

stats_bound_t dram_why(const dram_t *d)
{
    return dram_i_why(d);
}

stats_bound_t dram_accept_why(const dram_t *d)
{
    return dram_i_accept_why(d);
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
    return dram_i_last_accept(d);
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
           d->read_seen == then->read_seen && d->batch_writes == then->batch_writes &&
           d->why_bus_free == then->why_bus_free && timing_same(d->rd_free, then->rd_free, sh) &&
           timing_same(d->wr_free, then->wr_free, sh) &&
           timing_same(d->bus_free, then->bus_free, sh) &&
           timing_same(d->last_accept, then->last_accept, sh);
}
