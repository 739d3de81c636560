/*
 * native_pmu.h - the perf counters of a native run (perf_event_open), where
 * the host allows them.
 *
 * Notes
 *  - One perf event per counter (no group, so that the kernel may multiplex
 *    them), disabled at open, reset + enabled right before the start time
 *    and disabled right after the end time of each timed run. memset counts
 *    user space only (the clearing runs there); mmap counts user and kernel
 *    (the clearing runs in the kernel), which needs perf_event_paranoid <= 1
 *    or CAP_PERFMON.
 *  - Private to the host stage's native runs.
 */
#ifndef CLEARSIM_NATIVE_PMU_H
#define CLEARSIM_NATIVE_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/host/native_run.h"

#define NCTR 7

typedef struct counters {
    int fd[NCTR];
    double sum[NCTR];
    bool counted[NCTR]; /* counted in every timed run so far */
    bool any;
} counters_t;

/* libpfm4 loaded (on first call) and initialised: events are then encoded
 * by name through it, else by the kernel's generic encodings. */
bool native_pfm_available(void);

void native_counters_open(counters_t *c, bool user_only, native_result_t *r);
void native_counters_start(counters_t *c);
void native_counters_stop(counters_t *c);
void native_counters_close(counters_t *c);
/* The counters' means over `runs` timed runs into r (a reason when one was
 * never counted). */
void native_counters_result(const counters_t *c, uint32_t runs, native_result_t *r);

#endif
