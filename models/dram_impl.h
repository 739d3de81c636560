/*
 * dram_impl.h - the inside of models/dram.c, shared with the hierarchy
 * (models/hierarchy.c) so that the reads, writes and attribution reads of
 * its per-line path inline.
 *
 * Notes
 *  - Private: everyone else uses the functions of models/dram.h, which are
 *    the same code (dram_read() is dram_i_read(), and so on).
 *  - The servers are described in models/dram.h and models/dram.c.
 */
#ifndef CLEARSIM_DRAM_IMPL_H
#define CLEARSIM_DRAM_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "models/dram.h"
#include "models/timing.h"

struct dram {
    double lat_rd;        /* cycles */
    double lat_wr;        /* cycles */
    double rd_cpl;        /* read link: cycles per line */
    double wr_cpl;        /* write link: cycles per data line */
    double zero_fraction; /* a zeroing operation's line: share of a data line's link and bus time */
    double zero_data_fraction; /* a full line of zero data from NT stores: the same share */
    double zero_wb_fraction;   /* a written-back line of zeros: the same share */
    double bus_cpl;            /* shared bus: cycles per line */
    double turn;               /* cycles per direction change */
    uint32_t batch;            /* writes per bus batch */
    double turn_share;         /* 2 x turn / batch: turnaround cycles per written line */
    double room_cycles;        /* batch x bus_cpl: bus backlog the write queue holds */
    double rd_free, wr_free, bus_free;
    double last_accept;    /* when the controller took the latest write */
    bool read_seen;        /* a read since the current write batch began: the batch turns the bus */
    uint32_t batch_writes; /* writes into the current batch (counted only with a turnaround) */
    /* attribution (docs/MODEL.md "Bottleneck attribution") */
    stats_bound_t why;          /* what bounded the latest returned time */
    stats_bound_t why_accept;   /* ... and the latest write's acceptance */
    stats_bound_t why_bus_free; /* ... and bus_free */
};

static inline double dram_i_read(dram_t *d, double t)
{
    double start = timing_max(t, timing_max(d->rd_free, d->bus_free));
    if (start > t)
        d->why = d->rd_free >= d->bus_free ? STATS_BOUND(ST_BOUND_MEM_READ_LINK) : d->why_bus_free;
    else
        d->why = STATS_BOUND(ST_BOUND_DRAM_LATENCY);
    d->rd_free = start + d->rd_cpl;
    d->bus_free = start + d->bus_cpl;
    d->why_bus_free = STATS_BOUND(ST_BOUND_MEM_BUS);
    d->read_seen = true;
    return start + d->lat_rd;
}

static inline double dram_i_write(dram_t *d, double t, dram_line_t what)
{
    double start = timing_max(t, d->wr_free);
    stats_bound_t w = d->wr_free > t ? STATS_BOUND(ST_BOUND_MEM_WRITE_LINK) : STATS_BOUND_NONE;
    double share = what == DRAM_LINE_ZEROING    ? d->zero_fraction
                   : what == DRAM_LINE_ZEROS    ? d->zero_data_fraction
                   : what == DRAM_LINE_WB_ZEROS ? d->zero_wb_fraction
                                                : 1.0;
    d->wr_free = start + d->wr_cpl * share;
    /* The controller's write queue holds `batch` lines: a write is accepted
     * while the bus backlog is shorter than that, else it waits (this is
     * what bounds a write stream to the bus rate). */
    double room = d->bus_free - d->room_cycles;
    if (start < room) {
        start = room;
        w = STATS_BOUND(ST_BOUND_MEM_BUS);
    }
    /* On the bus, writes drain in batches; a batch that reads interleave
     * with pays a turnaround to writes and one back to reads, spread over
     * its lines (each write from the first read in it on). A stream of
     * writes alone never turns the bus. */
    double turn = 0;
    if (d->turn_share > 0) {
        if (d->read_seen)
            turn = d->turn_share;
        if (++d->batch_writes >= d->batch) {
            d->batch_writes = 0;
            d->read_seen = false;
        }
    }
    /* A write the write link held back takes the bus only when the link
     * lets it go: reads that then wait for the bus wait for the link. */
    d->why_bus_free = start >= d->bus_free && w == STATS_BOUND(ST_BOUND_MEM_WRITE_LINK)
                          ? w
                          : STATS_BOUND(ST_BOUND_MEM_BUS);
    d->bus_free = timing_max(d->bus_free, start) + d->bus_cpl * share + turn;
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

static inline stats_bound_t dram_i_why(const dram_t *d)
{
    return d->why;
}

static inline stats_bound_t dram_i_accept_why(const dram_t *d)
{
    return d->why_accept;
}

static inline double dram_i_last_accept(const dram_t *d)
{
    return d->last_accept;
}

#endif
