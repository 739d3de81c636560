# predicted-vs-native.gp - predicted against measured throughput, with the
# line y = x (clearsim plot --kind predicted-vs-native, from a crosscheck
# csv with the columns predicted_bytes_per_sec and measured_bytes_per_sec,
# and optionally function).
#
# datafile: one block per function (or one block "runs"), blocks separated by
# two blank lines, the first line of a block its title in double quotes; then
# one line per run: measured_bytes_per_sec, predicted_bytes_per_sec.
# Extra variable: maxgb, the largest value of either, in GB/sec.

load plotsdir.'/common.gp'
set xlabel 'measured GB/sec'
set ylabel 'predicted GB/sec'
set xrange [0:maxgb*1.05]
set yrange [0:maxgb*1.05]
set size ratio -1
plot x with lines lw 1 dt 2 lc rgb '#888888' title 'y = x', \
     for [i=0:nseries-1] datafile index i using ($1/2**30):($2/2**30) with points pt 7 ps 1.2 \
         lc i+1 title columnheader(1)
