/*
 * write_stream.c - arm64 write streaming (see write_stream.h).
 */
#include "models/write_stream.h"

void ws_init(ws_t *w, const machine_t *m, hier_t *h, stats_t *st)
{
    *w = (ws_t){.m = m, .h = h, .st = st, .line_bytes = m->l1.line_bytes};
}

void ws_break(ws_t *w)
{
    if (w->active) {
        w->active = false;
        w->st->count[ST_WS_EXITS] += 1;
    }
    w->run = 0;
}

int ws_level(ws_t *w, uint64_t line, bool full, bool zva)
{
    const machine_t *m = w->m;
    if (!m->ws_enabled)
        return 0;
    if (!full || hier_in_l1(w->h, line)) {
        ws_break(w);
        return 0;
    }
    if (!w->active) {
        if (++w->run < m->ws_enter_lines && !zva)
            return 0;
        w->active = true;
        w->bytes = (uint64_t)(w->run - 1) * w->line_bytes;
        w->st->count[ST_WS_ENTRIES] += 1;
    }
    w->bytes += w->line_bytes;
    if (m->ws_l3_bytes && w->bytes > m->ws_l3_bytes)
        return HIER_MEM;
    if (m->ws_l2_bytes && w->bytes > m->ws_l2_bytes)
        return HIER_L3;
    return HIER_L2;
}

uint64_t ws_ff_max_lines(const ws_t *w)
{
    const machine_t *m = w->m;
    if (!m->ws_enabled)
        return UINT64_MAX;
    if (!w->active)
        return w->run ? 0 : UINT64_MAX;
    uint64_t next = UINT64_MAX;
    if (m->ws_l2_bytes > w->bytes)
        next = m->ws_l2_bytes;
    if (m->ws_l3_bytes > w->bytes && m->ws_l3_bytes < next)
        next = m->ws_l3_bytes;
    return next == UINT64_MAX ? UINT64_MAX : (next - w->bytes) / w->line_bytes;
}

void ws_ff_skip(ws_t *w, uint64_t lines)
{
    if (w->active)
        w->bytes += lines * w->line_bytes;
}
