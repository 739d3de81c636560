/*
 * model_impl.h - the inside of the core model (models/model.c), shared only
 * with its fast-forward (models/model_ff.c).
 *
 * Notes
 *  - Private: nothing else includes this; everyone else uses models/model.h.
 *  - The fields are described where model.c's Notes describe the mechanism
 *    that owns them; the fast-forward fields are model_ff.c's.
 *  - Units: time in core cycles (double); counters uint64_t; addresses bytes.
 */
#ifndef CLEARSIM_MODEL_IMPL_H
#define CLEARSIM_MODEL_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "models/cache.h"
#include "models/hierarchy.h"
#include "models/model.h"
#include "models/mshr.h"

#define RING_LINES     4096u /* commit-time history; bounds any lookahead */
#define FF_BLOCK_LINES 2048u
#define FF_BLOCKS      6u
#define FF_TOLERANCE   0.01 /* relative spread allowed between block deltas */

typedef enum line_kind { LK_STORE = 0, LK_NT, LK_LOAD } line_kind_t;

/* The line being assembled from store/load ops. */
typedef struct pending_line {
    bool valid;
    line_kind_t kind;
    uint64_t line;  /* line-aligned address */
    uint32_t bytes; /* bytes written/read in it */
    double stores;  /* store/load instructions */
    double insns;   /* other instructions attributed to it */
    uint8_t fill;
} pending_line_t;

struct model {
    const cfg_machine_t *m;
    stats_t st;
    hier_t *h;
    mshr_t *wc;
    cache_t *tlb;
    uint64_t tlb_page_bytes;
    int tlb_page_shift; /* log2(tlb_page_bytes) when a power of two, else -1 */
    uint64_t tlb_last_page;
    bool tlb_last_valid;
    uint32_t line_bytes;
    double cyc_per_ns;

    double t_front;       /* front end: next instruction slot */
    double t_issue;       /* store issue */
    double t_commit_last; /* last line committed to L1 */
    double t_wc_last;     /* last WC line accepted */
    double ring[RING_LINES];
    uint64_t seq; /* lines committed so far */

    pending_line_t pl;
    double loose_insns; /* TRACE_INSNS not yet attributed to a line */

    /* store_line's per-line quantities that depend only on the line's
     * (bytes, stores, insns), kept for the last such triple: the lines of
     * one run all have the same, and this saves their divisions and
     * roundings. Keys are the doubles' bits, so a hit gives the very same
     * values. */
    struct {
        bool valid;
        uint32_t bytes;
        uint64_t stores_bits, insns_bits;
        double issue_cycles; /* stores / stores_per_cycle (0 if no rate) */
        double front_cycles; /* (stores + insns) / insns_per_cycle */
        double port_cycles;  /* port_cycles(bytes, stores) */
        uint64_t la;         /* store-buffer window in lines */
        uint64_t accesses;   /* L1 accesses */
    } slm;
    bool front_memo_valid; /* front(): the last n (bits) and n / insns_per_cycle */
    uint64_t front_memo_bits;
    double front_memo_cycles;

    /* fast-forward inside long operations */
    bool ff_on;
    uint64_t ff_tail_lines;     /* lines always simulated at an op's end */
    uint64_t ff_lines;          /* lines since the last block boundary */
    uint64_t ff_op_lines;       /* lines of the current operation so far */
    stats_t ff_snap;            /* counters at the last block boundary */
    double ff_tsnap;            /* time at the last block boundary */
    stats_t ff_hist[FF_BLOCKS]; /* deltas of the last blocks */
    double ff_dt[FF_BLOCKS];
    uint32_t ff_n; /* valid entries in the history */
    uint64_t ff_skipped_lines;
    uint64_t ff_total_lines;
    double ff_err; /* sum of skipped_share x spread */

    /* write streaming */
    bool ws_active;
    uint32_t ws_run;   /* consecutive full-line write misses */
    uint64_t ws_bytes; /* bytes of the run (from its first line) while active */
};

static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

/* Fast-forward, called after each line of a long operation with the bytes
 * that remain in it (models/model_ff.c). Returns how many bytes the caller
 * must skip (0 for none); when it returns more, counters and time have
 * already been advanced. */
uint64_t model_i_ff_after_line(model_t *md, uint64_t remaining_bytes);

#endif
