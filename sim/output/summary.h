/*
 * summary.h - the statistics a study prints over its cases.
 */
#ifndef CLEARSIM_SUMMARY_H
#define CLEARSIM_SUMMARY_H

#include <stddef.h>

/* Median of v[0..n) (sorts v), NAN when empty: GSL's sort and median. */
double summary_median(double *v, size_t n);

#endif
