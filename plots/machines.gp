# machines.gp - one bar per machine (clearsim plot --kind machines, from a
# 'clearsim sweep --sweep machine=A,B,...' csv).
#
# datafile: one block; one line per bar: its label in double quotes (the
# machine, plus the function and size when the csv varies them) and
# bytes_per_sec.

load plotsdir.'/common.gp'
set style fill solid 0.8 border -1
set boxwidth 0.6
set ylabel 'GB/sec (2^{30} bytes per second)'
set yrange [0:*]
set xtics rotate by -30 left noenhanced
unset key
plot datafile using 0:($2/2**30):xtic(1) with boxes lc rgb '#4477aa'
