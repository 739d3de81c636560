# throughput.gp - predicted throughput against size, one line per function
# (clearsim plot --kind throughput, from a 'clearsim sweep' csv).
#
# datafile: one block per series (function, plus the machine when the csv has
# several), blocks separated by two blank lines. The first line of a block is
# its title, in double quotes; then one line per point: the size in bytes
# (size_bytes, or chunk_bytes when the sweep varied the chunk) and
# bytes_per_sec. Extra variables: xname ('size' or 'chunk'), xt (the x tics:
# "('4KiB' 4096, ...)", labels in binary units).

load plotsdir.'/common.gp'
set logscale x 2
set format x '%.0b %BB'
if (exists('xt')) { eval('set xtics '.xt) }
set offsets graph 0.03, graph 0.03, 0, 0
set xlabel (xname eq 'chunk' ? 'bytes per call (chunk)' : 'size')
set ylabel 'GB/sec (2^{30} bytes per second)'
set yrange [0:*]
plot for [i=0:nseries-1] datafile index i using 1:($2/2**30) with linespoints ls 1 lc i+1 \
     title columnheader(1)
