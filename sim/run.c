/*
 * run.c - one prediction: workload -> kernels in trace mode -> model ->
 * result.
 *
 * Notes
 *  - The measured region starts at the workload's WL_MARK_ROI_BEGIN (after
 *    its warm-up) and ends when everything it issued has completed
 *    (model_drain), like a timer read after the last call returns and its
 *    stores are visible.
 *  - Mapping: a memset workload clears a user buffer through 4 KiB pages
 *    (physically contiguous only within a page). An mmap workload's faults
 *    are cleared by the kernel through its direct map (1 GiB pages) and each
 *    folio is physically contiguous.
 *  - perf counters are linear combinations of internal events from the
 *    machine's pmu: map; a counter it does not map is not supported.
 */
#include "sim/run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/model.h"
#include "sim/progress.h"

#define RUN_DIRECT_MAP_PAGE_BYTES (1ull << 30)

const char *const run_std_counters[] = {
    "cycles",    "instructions",    "L1-dcache-loads",  "L1-dcache-load-misses",
    "LLC-loads", "LLC-load-misses", "dTLB-load-misses", NULL,
};

void run_opts_init(run_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
}

typedef struct run_ctx {
    model_t *md;
    stats_t roi_start;
    bool roi_started;
    progress_t *progress;
    uint64_t periods;
    uint64_t total_periods;
} run_ctx_t;

static void on_mark(void *vctx, wl_mark_t mark)
{
    run_ctx_t *c = vctx;
    switch (mark) {
    case WL_MARK_ROI_BEGIN:
        model_stats(c->md, &c->roi_start);
        c->roi_started = true;
        break;
    case WL_MARK_PERIOD:
        c->periods++;
        if ((c->periods & 63) == 0)
            progress_update(c->progress, c->periods);
        break;
    case WL_MARK_LOOP:
        break;
    }
}

/* Periods (kernel calls or folios) the workload will report, for the ETA. */
static uint64_t expected_periods(const wl_spec_t *s)
{
    if (s->kind == WL_MMAP)
        return s->page_bytes ? s->size_bytes / s->page_bytes * s->loops : 0;
    uint64_t chunk = s->chunk_bytes ? s->chunk_bytes : s->size_bytes;
    if (s->caller == WL_CALLER_REPEAT || chunk == 0)
        return s->loops;
    return (s->size_bytes + chunk - 1) / chunk * s->loops;
}

static void map_counters(const cfg_machine_t *m, run_result_t *out)
{
    out->n_counters = 0;
    /* The standard set first, in print order, then any other mapped event. */
    for (int i = 0; run_std_counters[i]; i++) {
        run_counter_t *c = &out->counters[out->n_counters++];
        snprintf(c->name, sizeof(c->name), "%s", run_std_counters[i]);
        c->supported = false;
        c->value = 0;
    }
    for (uint32_t j = 0; j < m->n_pmu; j++) {
        const cfg_pmu_map_t *pm = &m->pmu[j];
        run_counter_t *c = NULL;
        for (uint32_t k = 0; k < out->n_counters; k++)
            if (strcmp(out->counters[k].name, pm->name) == 0)
                c = &out->counters[k];
        if (!c) {
            if (out->n_counters >= RUN_COUNTERS_MAX)
                continue;
            c = &out->counters[out->n_counters++];
            snprintf(c->name, sizeof(c->name), "%s", pm->name);
        }
        c->supported = pm->supported;
        if (!pm->supported)
            continue;
        double v = 0;
        for (uint32_t t = 0; t < pm->n_terms; t++)
            v += pm->terms[t].coef * (double)out->stats.count[pm->terms[t].event];
        c->value = v > 0 ? (uint64_t)llround(v) : 0;
    }
}

int run_predict(const cfg_machine_t *m, const wl_spec_t *spec, const run_opts_t *opts,
                run_result_t *out, char *err, size_t errlen)
{
    run_opts_t defaults;
    if (!opts) {
        run_opts_init(&defaults);
        opts = &defaults;
    }
    memset(out, 0, sizeof(*out));
    if (wl_validate(spec, m, err, errlen))
        return -1;
    model_t *md = model_create(m, opts->seed, err, errlen);
    if (!md)
        return -1;
    if (spec->kind == WL_MMAP)
        model_set_mapping(md, RUN_DIRECT_MAP_PAGE_BYTES, spec->page_bytes);
    else
        model_set_mapping(md, spec->page_bytes ? spec->page_bytes : 4096,
                          spec->page_bytes ? spec->page_bytes : 4096);

    run_ctx_t ctx = {.md = md};
    ctx.total_periods = expected_periods(spec);
    ctx.progress = progress_create("simulating", ctx.total_periods, opts->progress);
    trace_t *t = trace_create(model_op, md, true);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        progress_destroy(ctx.progress);
        model_destroy(md);
        return -1;
    }
    int rc = wl_trace(spec, m, t, on_mark, &ctx, err, errlen);
    trace_flush(t);
    trace_destroy(t);
    progress_destroy(ctx.progress);
    if (rc) {
        model_destroy(md);
        return -1;
    }
    model_drain(md);
    stats_t end;
    model_stats(md, &end);
    model_destroy(md);
    if (!ctx.roi_started)
        memset(&ctx.roi_start, 0, sizeof(ctx.roi_start));
    stats_sub(&out->stats, &end, &ctx.roi_start);

    out->spec = *spec;
    snprintf(out->machine, sizeof(out->machine), "%s", m->name);
    out->bytes = wl_measured_bytes(spec);
    out->cycles = out->stats.count[ST_CYCLES];
    out->seconds = m->freq_ghz > 0 ? (double)out->cycles / (m->freq_ghz * 1e9) : 0;
    out->bytes_per_sec = out->seconds > 0 ? (double)out->bytes / out->seconds : 0;
    out->extrapolated = false;
    out->error_bound = 0;
    map_counters(m, out);
    return 0;
}
