/*
 * link_shares.h - what a line costs on the host's memory links, from pairs
 * of native rates: a line of zeros against one of data, written by
 * non-temporal stores or written back by a fill, and the bus that reads and
 * writes share. `crosscheck --gains` (xc_gains.c) feeds them to the model
 * each pass and `detect --measure` (measure_fit.c) writes them into a
 * machine file (docs/MODEL.md section 13).
 *
 * Notes
 *  - Pure functions of their arguments; a rate not known is 0 or NaN.
 *  - Units: the shares take two rates in any one unit (_rate) and are
 *    fractions of a data line; the bus is in GiB/s (binary), as its rates.
 */
#ifndef CLEARSIM_LINK_SHARES_H
#define CLEARSIM_LINK_SHARES_H

/* memory.zero_data_fraction: the rate of a stream of data over the same
 * stream of zeros, at most 1 (1 when either is unknown): what a line of
 * zeros costs on the write link against a line of data. */
double lshare_zero_data(double write_data_rate, double write_zero_rate);

/* memory.combined_bandwidth in GiB/s: the read and write links' rates
 * together (a line read and a line written at once, never more), or twice
 * the rate of a fill of data (fill_gib: a line read and one written back a
 * line) when that is less (a fill not known does not count). 0 when the
 * read or the write rate is unknown. */
double lshare_bus_gib(double read_gib, double write_gib, double fill_gib);

/* memory.zero_writeback_fraction: a fill moves a line read and a line
 * written back on one bus, so a line of zeros written back costs
 * 2 x fill_data / fill_zero - 1 of a data line, within 0.02..1 (the key's
 * range); fallback when either fill is unknown. */
double lshare_zero_writeback(double fill_data_rate, double fill_zero_rate, double fallback);

#endif
