/*
 * model.h - the trace-driven cycle-level model of one core's store path,
 * caches, prefetchers, write-combining and memory.
 *
 * Notes
 *  - model_op() has the trace_sink_fn signature: a trace_t feeds it directly.
 *  - Time is kept in core cycles (double internally, reported as uint64_t).
 *  - See docs/MODEL.md for the mechanisms and the published effects they
 *    explain.
 */
#ifndef CLEARSIM_MODEL_H
#define CLEARSIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/base/machine.h"
#include "models/stats.h"
#include "models/base/trace.h"

typedef struct model model_t;

/* Returns NULL and a reason in err on failure. seed drives random replacement. */
model_t *model_create(const machine_t *m, uint64_t seed, char *err, size_t errlen);
void model_destroy(model_t *md);

/* How the simulated addresses are mapped while clearing:
 *  - tlb_page_bytes: the page size the clearing code's accesses translate
 *    through (4 KiB for a user buffer; the kernel clears through its direct
 *    map, typically 1 GiB pages);
 *  - contig_bytes: the size of physically contiguous, naturally aligned
 *    blocks (the folio). Prefetchers that may continue into the next page
 *    (machine_prefetch_t.next_page) do so only within such a block. */
void model_set_mapping(model_t *md, uint64_t tlb_page_bytes, uint64_t contig_bytes);

/* Trace sink: consume one op. Always returns 0. `md` is a model_t *. */
int model_op(void *md, const trace_op_t *op);

/* Wait for everything outstanding (stores, WC buffers) to complete, as at the
 * end of a measured region. */
void model_drain(model_t *md);

/* Fast-forward inside long operations (default off; models/model_ff.h):
 * when MODEL_FF_BLOCKS consecutive blocks of MODEL_FF_BLOCK_LINES lines show
 * the same counter and time deltas within MODEL_FF_TOLERANCE, the model
 * skips ahead to a tail long enough to
 * refill every cache level twice, adding the mean block delta for each
 * skipped block and moving every timestamp it holds. */
void model_set_fast_forward(model_t *md, bool on);
/* Lines fast-forward skipped, and the bound on the relative error of any
 * counter it may have added (the spread of the block deltas it extrapolated
 * from, weighted by the share of lines skipped). */
void model_ff_report(const model_t *md, uint64_t *skipped_lines, uint64_t *total_lines,
                     double *error_bound);
/* Exact bulk stepping (default on; models/model_bulk.c, docs/MODEL.md
 * "Exact bulk stepping"): when the whole state is proven to repeat over a
 * period of a long operation, many periods are applied at once, with the
 * same counters and the same time (within rounding) as simulating them.
 * Off: every line is simulated (the reference path). */
typedef struct model_bulk model_bulk_t;
void model_set_bulk(model_t *md, bool on);
/* Lines bulk stepping applied. */
uint64_t model_bulk_lines(const model_t *md);
/* The same between operations (sim/engine/run.c, across kernel calls): a
 * snapshot of the whole state at a point between calls; later, when the
 * model is that state moved by dbytes (the calls' addresses in [lo, hi)
 * moved on, everything else where it was) and by its time, n more such
 * moves are applied at once. */
typedef struct model_snap model_snap_t;
model_snap_t *model_snap_create(void);
void model_snap_destroy(model_snap_t *s);
/* Forget the snapshot (it is not compared; destroy it with the model or
 * drop it first). */
void model_snap_drop(model_t *md, model_snap_t *s);
/* Returns 0, or -1 when the model cannot be stepped (out of memory, or a
 * machine without an exact period: hier_bulk_period_lines). */
int model_snap_take(model_t *md, model_snap_t *s);
/* What dbytes must be a multiple of (0: no stepping). */
uint64_t model_snap_period_bytes(model_t *md);
/* How far past next_addr (the stream's next address) a move by dbytes
 * stays exact: the end of the TLB page or prefetch block it cannot move
 * (UINT64_MAX: no such limit). */
uint64_t model_snap_room_bytes(model_t *md, uint64_t next_addr, uint64_t dbytes);
/* If the model now is s moved by dbytes, apply up to n more moves and
 * return how many (0: not the same; fewer than n where a prefetcher would
 * run out of free slots) (next_addr: the stream's next address; what stays
 * behind must lie outside [s's next address, next_addr + (n + 1) x
 * dbytes)). */
uint64_t model_snap_step(model_t *md, model_snap_t *s, uint64_t dbytes, uint64_t lo, uint64_t hi,
                         uint64_t from_addr, uint64_t next_addr, uint64_t n);
/* Move every timestamp the model holds by dt cycles (the workload-level
 * fast-forward in sim/engine/run.c uses it after skipping whole periods). */
void model_shift_time(model_t *md, double dt);
/* Add n times `delta` to the model's counters (workload-level fast-forward). */
void model_add_stats(model_t *md, const stats_t *delta, uint64_t n);
/* Current totals; ST_CYCLES is the current time. */
void model_stats(model_t *md, stats_t *out);

#endif
