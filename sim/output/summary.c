/*
 * summary.c - the statistics a study prints over its cases (see summary.h).
 */
#include "sim/output/summary.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

double summary_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}
