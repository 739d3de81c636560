/*
 * write_stream.h - arm64 write streaming: after a run of full-line writes
 * that miss L1, misses stop allocating in L1, and past byte thresholds in
 * L2 and L3 too.
 *
 * Notes
 *  - From the write_streaming.enter_lines-th consecutive full-line write
 *    that misses L1 (from the first DC ZVA), misses stop allocating in L1.
 *    Once the run (counted from its first line, the lines that still
 *    allocated included) passes write_streaming.l2 / .l3 bytes, they skip L2
 *    / L3 as well.
 *  - A partial line, a store that hits L1, a kernel call or a fault ends
 *    the run (ws_break).
 *  - Fast-forward: no skip takes a run past one of its thresholds or into
 *    the mode (ws_ff_max_lines); a run's byte count advances by what was
 *    skipped (ws_ff_skip).
 *  - Counts ST_WS_ENTRIES / ST_WS_EXITS into the model's stats.
 *  - Units: lines, bytes.
 */
#ifndef CLEARSIM_WRITE_STREAM_H
#define CLEARSIM_WRITE_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/hierarchy.h"
#include "models/stats.h"

typedef struct ws {
    const machine_t *m;
    hier_t *h;
    stats_t *st;
    uint32_t line_bytes;
    bool active;
    uint32_t run;   /* consecutive full-line write misses */
    uint64_t bytes; /* bytes of the run (from its first line) while active */
} ws_t;

void ws_init(ws_t *w, const machine_t *m, hier_t *h, stats_t *st);
/* The run ends: the next full-line miss starts counting again. */
void ws_break(ws_t *w);
/* Should this store to line (full: it writes the whole line; zva: a DC ZVA)
 * bypass L1? Returns the level it allocates in, or 0 for a normal
 * (allocating) store. */
int ws_level(ws_t *w, uint64_t line, bool full, bool zva);
/* How many more lines a skip may take before the run would reach a
 * threshold or enter the mode (UINT64_MAX: no limit). */
uint64_t ws_ff_max_lines(const ws_t *w);
/* A skip of `lines` lines: the run's bytes advance. */
void ws_ff_skip(ws_t *w, uint64_t lines);

#endif
