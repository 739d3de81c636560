# validation.gp - predicted against published throughput, log-log, one colour
# per machine, with the line y = x and a band of +-15% around it (clearsim plot
# --kind validation, from 'clearsim validate --format csv').
#
# datafile: one block per machine, blocks separated by two blank lines, the
# first line of a block its title in double quotes; then one line per
# published figure: published_bps, predicted_bps (bytes per second).
# Extra variables: lo and hi, the smallest and the largest of either, in GB/sec.

load plotsdir.'/common.gp'
set logscale xy
set xlabel 'published GB/sec (bytes / 2^{30} per second)'
set ylabel 'predicted GB/sec'
set xrange [lo/1.3:hi*1.3]
set yrange [lo/1.3:hi*1.3]
set size ratio -1
set xtics (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
set ytics (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
plot '+' using 1:($1*0.85):($1*1.15) with filledcurves lc rgb '#e8e8e8' title '±15%', \
     x with lines lw 1 dt 2 lc rgb '#888888' title 'y = x', \
     for [i=0:nseries-1] datafile index i using ($1/2**30):($2/2**30) with points pt 7 ps 1.2 \
         lc i+1 title columnheader(1)
