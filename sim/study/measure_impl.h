/*
 * measure_impl.h - what the stages of `detect --measure` share: the
 * measurement (suite, figures, values) and the calls between its files
 * (measure.c: the suite and its native runs; measure_fit.c: values from the
 * figures; measure_yaml.c: the machine file).
 */
#ifndef CLEARSIM_MEASURE_IMPL_H
#define CLEARSIM_MEASURE_IMPL_H

#include "sim/host/detect.h"
#include "sim/host/host_libc.h"
#include "sim/machine/libc.h"
#include "sim/study/measure.h"

#define MEASURE_VALUES_MAX 96
#define MEASURE_STAGES     10

struct measure {
    host_info_t h;
    measure_opts_t o;
    char base_path[MACHINE_TEXT_MAX];
    char base_why[MACHINE_TEXT_MAX];
    char base_name[MACHINE_NAME_MAX];
    bool same_silicon;     /* the base describes this CPU: vendor, family and model */
    machine_t *base;       /* the base file, loaded */
    machine_t *from;       /* measure_use_figures: the file whose figures stand in for runs */
    char date[32];         /* when the suite ran (UTC, ISO 8601) */
    double clock_ghz;      /* median of the figures' clocks */
    double adds_per_cycle; /* median of the figures' shares (0: not measured) */
    double hm_issue_ns;    /* measure_i_host_miss_prepare: ntstore-dram's issue time a 4 KiB
                              page in the base's model (0: not taken) */
    size_t n;
    bool full; /* a figure did not fit (measure_native fails: none is dropped silently) */
    measure_fig_t f[MEASURE_FIGS_MAX];

    /* the caches the suite found (phase 1) */
    uint64_t l1_bytes, l2_bytes, l3_nominal_bytes, l3_eff_bytes;
    double foreign_start_gbps; /* l3.foreign_fills before its fit (0: the L3 is not shared) */
    char foreign_start_how[160];
    uint32_t l3_ways; /* the nominal L3's ways (with foreign_start_gbps) */
    char l3_how[448];
    char sweep_stop[224]; /* how phase 1's sweep stopped early, or "" */

    host_libc_t libc;

    /* the file's values (measure_fit) */
    size_t nv;
    detect_value_t v[MEASURE_VALUES_MAX];
    bool fitted;
};

/* The figure called id, or NULL (skipped figures too). */
measure_fig_t *measure_i_fig(measure_t *ms, const char *id);
/* measure_figs.c: the figure called id when it ran (not skipped), or NULL;
 * its rate in bytes per core cycle at the figures' clock (times mult), in
 * its kernel's instructions per cycle, and the time of one call or page in
 * ns; 0 when it did not run. */
const measure_fig_t *measure_i_ran(measure_t *ms, const char *id);
double measure_i_bpc(measure_t *ms, const char *id, double mult);
double measure_i_ops_per_cycle(measure_t *ms, const char *id);
double measure_i_ns(measure_t *ms, const char *id);
/* Whether the write path's figures at the cases' footprint ran: the stores
 * of data and of zeros; the stores of data and the line zeroing. */
bool measure_i_dram_writes(measure_t *ms);
bool measure_i_dram_line_zero(measure_t *ms);
/* The DRAM latency's figure: lat-dram, or on a guest whose host's pages are
 * 4 KiB the sweep's point inside the TLB's reach; NULL when none ran. */
const measure_fig_t *measure_i_dram_latency(measure_t *ms);
/* Before the fit: which figures enter which stage on this host (the L1-size
 * write figures leave it when the DRAM-scale ones ran; the chases past the
 * TLB's reach leave stage 5 on such a guest, and tlb.walk says why). */
void measure_i_assign_stages(measure_t *ms);
/* The write path's figure at the cases' footprint, of data or of zeros: the
 * _ahead twin's on a guest whose stores paid its host's 4 KiB pages' TLB
 * miss (measure_i_host_miss), else the plain one's. */
const char *measure_i_write_id(measure_t *ms, bool zeros);
/* The line-zeroing figure at the cases' footprint that fits stage 8:
 * linezero-dram, or its _ahead twin where the stores pay the host's miss. */
const char *measure_i_line_zero_id(measure_t *ms);
/* Before any stage is assigned: on a guest whose zero stores and their
 * _ahead twin ran at the cases' footprint, the zero stores' issue time a
 * 4 KiB page in the base's model (ms->hm_issue_ns). Returns 0, or -1 with a
 * reason. */
int measure_i_host_miss_prepare(measure_t *ms, char *err, size_t errlen);
/* Whether, on a guest, the zero stores at the cases' footprint ran more
 * than HOSTMISS_NOISE slower than their _ahead twin, with time a page left
 * past their issue time (hostmiss_ns > 0): the miss measure_i_host_miss_values
 * writes. Every stage and value that depends on the miss asks this. */
bool measure_i_host_miss(measure_t *ms);
/* On such a guest: tlb.host_page, tlb.host_entries and tlb.host_miss.*
 * (the miss from the zero figures, the other kinds in the base's
 * proportions). */
void measure_i_host_miss_values(measure_t *ms);
/* core.nt_store_cycles and core.line_zero_cycles from the L1-size figures,
 * or the faster narrow stream over the cases' footprint (ntstore-dram-narrow,
 * linezero-dram), when the DRAM-scale ones fit the write path. */
void measure_i_issue_costs(measure_t *ms);
/* Set (or replace) the file's value for path, with its comment. */
void measure_i_value(measure_t *ms, const char *path, const char *value, const char *comment_fmt,
                     ...) __attribute__((format(printf, 4, 5)));
/* Keep the base file's value for path, labelled ("not measured", "same
 * silicon", ...) with why no figure here determines it (measure_figs.c). */
void measure_i_keep_base(measure_t *ms, const char *path, const char *label, const char *why_fmt,
                         ...) __attribute__((format(printf, 4, 5)));

#endif
