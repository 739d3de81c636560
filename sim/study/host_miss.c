/*
 * host_miss.c - the TLB miss of a guest's 4 KiB host pages (see host_miss.h).
 */
#include "sim/study/host_miss.h"

#include <stdint.h>
#include <stdio.h>

#include "models/base/errbuf.h"
#include "sim/engine/run.h"
#include "sim/machine/cfg.h"

#define GIB_BYTES 1073741824.0

double hostmiss_page_ns(double rate_gib)
{
    return rate_gib > 0 ? 4096.0 / (rate_gib * GIB_BYTES) * 1e9 : 0;
}

double hostmiss_ns(double probe_plain_gib, double probe_ahead_gib, double issue_ns_page)
{
    if (!(probe_plain_gib > 0) || !(probe_ahead_gib > 0))
        return 0;
    double plain = hostmiss_page_ns(probe_plain_gib), ahead = hostmiss_page_ns(probe_ahead_gib);
    if (plain <= ahead * (1 + HOSTMISS_NOISE))
        return 0;
    return plain > issue_ns_page ? plain - issue_ns_page : 0;
}

bool hostmiss_denied(double data_plain_gib, double data_ahead_gib)
{
    if (!(data_plain_gib > 0) || !(data_ahead_gib > 0))
        return false;
    return hostmiss_page_ns(data_ahead_gib) >
           hostmiss_page_ns(data_plain_gib) * (1 + HOSTMISS_NOISE);
}

int hostmiss_issue_cycles(const char *path, const wl_spec_t *probe, double *cycles_page, char *err,
                          size_t errlen)
{
    static _Thread_local run_result_t res; /* large */
    const char *set[] = {"memory.write_bandwidth=4096B/cycle", "memory.write_latency=0ns",
                         "memory.combined_bandwidth=4096B/cycle", "memory.zero_data_fraction=1",
                         "tlb.host_page=0"};
    char why[512] = "";
    *cycles_page = 0;
    machine_t *mc = cfg_machine_load_set(path, 0, set, sizeof set / sizeof set[0], why, sizeof why);
    if (!mc)
        return errbuf_set(err, errlen, "the issue time: %s", why);
    wl_spec_t s = *probe;
    s.size_bytes = 64ull << 20;
    int rc = run_predict(mc, &s, NULL, &res, why, sizeof why);
    if (rc == 0 && res.bytes_per_sec > 0)
        *cycles_page = 4096.0 / res.bytes_per_sec * 1e9 * mc->freq_ghz;
    cfg_machine_destroy(mc);
    if (rc)
        return errbuf_set(err, errlen, "the issue time: %s", why);
    return 0;
}

size_t hostmiss_sets(const machine_t *m, double miss_ns, char out[][MACHINE_SET_ARG_MAX])
{
    if (!(miss_ns > 0))
        return 0;
    const double line = m->tlb_host_nt_line_ns;
    const struct {
        const char *key;
        double file;
    } kinds[] = {{"nt_line", line},
                 {"nt_narrow", m->tlb_host_nt_narrow_ns},
                 {"string", m->tlb_host_string_ns},
                 {"line_zero", m->tlb_host_line_zero_ns}};
    size_t n = 0;
    uint32_t entries = m->tlb_host_entries;
    if (!entries) /* the TLB's own 4 KiB entries, to a power of two */
        for (entries = 1; entries * 2 <= m->tlb_entries_4k && entries < (1u << 24);)
            entries *= 2;
    snprintf(out[n++], MACHINE_SET_ARG_MAX, "tlb.host_page=4KiB");
    snprintf(out[n++], MACHINE_SET_ARG_MAX, "tlb.host_entries=%u", entries);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        snprintf(out[n++], MACHINE_SET_ARG_MAX, "tlb.host_miss.%s=%.3fns", kinds[k].key,
                 line > 0 ? miss_ns * kinds[k].file / line : miss_ns);
    return n;
}
