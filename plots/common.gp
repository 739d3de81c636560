# common.gp - terminal and style shared by every clearsim plot template.
#
# Loaded by the templates in this folder. 'clearsim plot' sets these variables
# with gnuplot -e before it runs a template:
#   datafile   the data file clearsim wrote from the input csv (see each template)
#   outfile    the image to write
#   fmt        'png' or 'svg' (from the output file's extension)
#   plottitle  the title ('' for none)
#   nseries    the number of data blocks (series) in datafile
#   plotsdir   this folder
#
# Debian's gnuplot-nox may lack the cairo terminals: 'pngcairo' is used when
# it is there, else the libgd 'png' terminal; 'svg' is built in.

if (fmt eq 'svg') {
    set terminal svg size 900,560 dynamic enhanced font 'Sans,12' background rgb 'white'
} else {
    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
        set terminal pngcairo size 900,560 enhanced font 'Sans,11' background rgb 'white'
    } else {
        set terminal png size 900,560 enhanced font 'Sans,11' background rgb 'white'
    }
}
set output outfile
if (strlen(plottitle) > 0) { set title plottitle noenhanced }
set grid lc rgb '#dddddd'
set key outside right top noenhanced
set border 3
set tics nomirror
set style line 1 lw 2 pt 7 ps 0.8
set datafile separator whitespace
