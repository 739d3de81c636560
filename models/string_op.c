/*
 * string_op.c - string-engine startup table and elision rule.
 *
 * Notes
 *  - What it models: a per-operation startup (microcode entry, length
 *    decode, alignment handling) that depends only on the length, and the
 *    choice between allocating and non-allocating line writes.
 *  - What it ignores: alignment (kernels clear page-aligned ranges), the
 *    destination's memory type, and any dependence of the startup on what
 *    ran before (warm microcode caches).
 *  - Units: lengths in bytes, costs in core cycles.
 */
#include "models/string_op.h"

double string_startup_cycles(const machine_t *m, uint64_t len_bytes)
{
    uint32_t n = m->n_startup;
    if (n == 0)
        return 0.0;
    const machine_point_t *p = m->startup;
    if (len_bytes <= p[0].len_bytes)
        return p[0].cycles;
    for (uint32_t i = 1; i < n; i++) {
        if (len_bytes <= p[i].len_bytes) {
            double span = (double)(p[i].len_bytes - p[i - 1].len_bytes);
            double f = span > 0 ? (double)(len_bytes - p[i - 1].len_bytes) / span : 1.0;
            return p[i - 1].cycles + f * (p[i].cycles - p[i - 1].cycles);
        }
    }
    return p[n - 1].cycles;
}

bool string_elides(const machine_t *m, uint64_t len_bytes, uint64_t remaining_bytes, uint8_t fill,
                   bool nt)
{
    if (nt)
        return true;
    if (!m->elide_enabled)
        return false;
    if (m->elide_zero_only && fill != 0)
        return false;
    uint64_t basis = m->elide_mode == MACHINE_ELIDE_REMAINING ? remaining_bytes : len_bytes;
    return basis >= m->elide_threshold_bytes;
}
