/*
 * trace.c - the clearing kernels compiled as trace generators
 * (kernels/kmode.h, KMODE_TRACE): every kernel of every ISA, emitting
 * trace_op_t records into k->trace. No memory is touched.
 *
 * Notes
 *  - k->machine supplies the line-zero block (clzero, dc_zva) and the memset
 *    dispatch thresholds; with a NULL machine the defaults in kmode.h and
 *    clear_memset.inc apply (64-byte block, x86-64 memset with 32-byte
 *    vectors and no thresholds).
 */
#define KMODE_TRACE
#include "kernels/kmode.h"

#include "kernels/clear_x86.inc"
#include "kernels/clear_arm64.inc"
#include "kernels/clear_memset.inc"
#include "kernels/bench_x86.inc"
#include "kernels/bench_arm64.inc"
#include "kernels/bench_chase.inc"
