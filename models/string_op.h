/*
 * string_op.h - the microcoded string engine's per-operation rules (rep stos*,
 * MOPS SET*): startup cost and allocation policy.
 *
 * Notes
 *  - Startup is piecewise-linear in the operation's length between the
 *    machine's table points (string.startup), constant before the first and
 *    after the last point.
 *  - Elision (no cache allocation, no RFO) is decided per line from the
 *    operation's total length (mode `length`) or from the bytes remaining in
 *    the operation at that line (mode `remaining`), against
 *    string.elide.threshold; optionally only for zero fills.
 *  - MOPS non-temporal forms (TRACE_F_NT) never allocate.
 */
#ifndef CLEARSIM_STRING_OP_H
#define CLEARSIM_STRING_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "models/base/machine.h"

double string_startup_cycles(const machine_t *m, uint64_t len_bytes);
bool string_elides(const machine_t *m, uint64_t len_bytes, uint64_t remaining_bytes, uint8_t fill,
                   bool nt);

#endif
