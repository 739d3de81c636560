/*
 * dram.h - the memory path of one core: the link from its last private cache
 * to the memory controllers, and the DRAM bus behind them.
 *
 * Notes
 *  - Reads: a read link (memory.read_bandwidth) and the shared bus
 *    (memory.combined_bandwidth) are FIFO servers; a read's data arrives
 *    memory.latency after its service starts.
 *  - Writes are posted: a write link (memory.write_bandwidth) accepts the
 *    line, which is acknowledged memory.write_latency later (this is what
 *    holds a WC buffer). The controller queues memory.write_queue lines;
 *    beyond that backlog on the bus, writes wait. Each batch of write_queue
 *    writes that reads interleave with pays memory.turnaround twice
 *    (read->write->read); a stream of writes alone pays none.
 *  - A line written by a zeroing operation (CLZERO, DC ZVA, a string store
 *    of zeros that does not allocate) may cost less on the write link and
 *    the bus than a data line (memory.zero_write_fraction; 1 = no
 *    difference); it is acknowledged as late.
 *  - A full line of zero data that non-temporal stores send (MOVNTI, STNP
 *    of zeros) costs memory.zero_data_fraction of a data line on the same
 *    two servers (1, the default: the memory side does not look at the
 *    data). A cached line's write-back costs memory.zero_writeback_fraction
 *    of a data line when the line holds zeros (the caches carry what a
 *    dirty line holds: models/cache.h), else it is data.
 *  - Times are core cycles; bandwidths bytes/cycle.
 */
#ifndef CLEARSIM_DRAM_H
#define CLEARSIM_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/stats.h"

typedef struct dram dram_t;

/* What a written line holds, for its cost on the write link and the bus. */
typedef enum dram_line {
    DRAM_LINE_DATA = 0, /* data (or a partial line) */
    DRAM_LINE_ZEROS,    /* a full line of zero data from non-temporal stores */
    DRAM_LINE_ZEROING,  /* a line a zeroing operation writes (CLZERO, DC ZVA, elided zeros) */
    DRAM_LINE_WB_ZEROS, /* the write-back of a cached line that holds zeros */
} dram_line_t;

dram_t *dram_create(const machine_t *m);
void dram_destroy(dram_t *d);
/* A line read requested at t: returns when its data arrives. */
double dram_read(dram_t *d, double t);
/* A line write of kind `what` handed over at t: returns when it is
 * acknowledged. */
double dram_write(dram_t *d, double t, dram_line_t what);
/* When the controller accepted the latest write (its write queue had room):
 * what a cache that evicted a dirty line waits for before it takes the next
 * fill. */
double dram_last_accept(const dram_t *d);
/* What bounded the latest dram_read/dram_write's returned time (a link, the
 * bus; a read's own latency is ST_BOUND_DRAM_LATENCY, a write that waited
 * for nothing STATS_BOUND_NONE), its acceptance (dram_last_accept), and
 * dram_drain(d, t) past t (STATS_BOUND_NONE: not past t). */
stats_bound_t dram_why(const dram_t *d);
stats_bound_t dram_accept_why(const dram_t *d);
stats_bound_t dram_drain_why(const dram_t *d, double t);
/* Returns when the memory path is idle. */
double dram_drain(dram_t *d, double t);
/* Add dt to every server's time (fast-forward moves time). */
void dram_shift_time(dram_t *d, double dt);

/* Exact bulk stepping (models/model_bulk.c): a copy of d (into, when not
 * NULL; NULL out of memory), and whether d now is `then` as timing_same
 * judges its times (attribution exactly). */
struct timing_shift;
dram_t *dram_clone(const dram_t *d, dram_t *into);
bool dram_same(const dram_t *d, const dram_t *then, const struct timing_shift *sh);

#endif
