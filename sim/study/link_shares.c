/*
 * link_shares.c - what a line costs on the host's memory links, from pairs
 * of native rates (link_shares.h).
 */
#include "sim/study/link_shares.h"

double lshare_zero_data(double write_data_rate, double write_zero_rate)
{
    double d = write_zero_rate > 0 && write_data_rate > 0 ? write_data_rate / write_zero_rate : 1.0;
    return d <= 1.0 ? d : 1.0; /* zeros no cheaper than data (or, by noise, dearer) */
}

double lshare_bus_gib(double read_gib, double write_gib, double fill_gib)
{
    if (!(read_gib > 0) || !(write_gib > 0))
        return 0.0;
    double links = read_gib + write_gib;
    return fill_gib > 0 && 2 * fill_gib < links ? 2 * fill_gib : links;
}

double lshare_zero_writeback(double fill_data_rate, double fill_zero_rate, double fallback)
{
    if (!(fill_data_rate > 0) || !(fill_zero_rate > 0))
        return fallback;
    double s = 2 * fill_data_rate / fill_zero_rate - 1;
    return s < 0.02 ? 0.02 : s > 1.0 ? 1.0 : s;
}
