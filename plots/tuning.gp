# tuning.gp - tuning curves: effective throughput of each clearing strategy,
# counting the consumer's re-fetch, against the clear size
# (clearsim plot --kind tuning, from 'clearsim tune --format csv').
#
# datafile: one block per strategy ("temporal (rep_stosb)", ...), blocks
# separated by two blank lines, the first line of a block its title in double
# quotes; then one line per size: size_bytes, total_seconds, clear_seconds.
# Solid lines are clear + re-fetch; dashed lines are the clear alone. Extra
# variable: xt (the x tics: "('4KiB' 4096, ...)", labels in binary units).
# With the csv's policy column: nbands, and bandlo, bandhi, bandname (blank-
# separated lists): each band of the recommended policy is shaded, from its
# first size to the next band's, named at the top, and each threshold between
# two bands is marked with a dashed vertical line.

load plotsdir.'/common.gp'
set logscale x 2
set format x '%.0b %BB'
if (exists('xt')) { eval('set xtics '.xt) }
set offsets graph 0.03, graph 0.03, 0, 0
set xlabel 'clear size'
set ylabel 'GB/sec per clear (2^{30} bytes per second)'
set yrange [0:*]
if (exists('nbands')) {
    do for [i=1:nbands] {
        lo = real(word(bandlo, i)); hi = real(word(bandhi, i))
        if (hi <= lo) { hi = lo * 1.5 }
        set object i rect from lo, graph 0 to hi, graph 1 behind \
            fc rgb (i % 2 ? '#e8eef8' : '#f6efe2') fs solid 1.0 noborder
        set label i word(bandname, i) at sqrt(lo * hi), graph 0.97 center font ',9'
        if (i > 1) {
            set arrow i from lo, graph 0 to lo, graph 1 nohead dt 3 lc rgb '#555555'
        }
    }
}
plot for [i=0:nseries-1] datafile index i using 1:($1/$2/2**30) with linespoints ls 1 lc i+1 \
         title columnheader(1), \
     for [i=0:nseries-1] datafile index i using 1:($1/$3/2**30) with lines lw 1 dt 2 lc i+1 \
         notitle
