# train_sweep.gp - the plot of `make bench-train-sweep`: seconds per
# Fashion-MNIST epoch against batch size, log-log, one line per architecture,
# engine and thread count. bench/train_sweep.py calls it with
#   gnuplot -e "datafile='...'; outfile='...'; nsets=N; plottitle='...'" train_sweep.gp
# datafile: N blocks (separated by two blank lines), each a quoted title
# line, then "batch seconds" lines (NaN where not measured).
set terminal pngcairo size 1200,700 font ",10"
set output outfile
set title "Fashion-MNIST MLP training, Adam: s per epoch against batch size\n".plottitle
set logscale xy
set xlabel "batch size"
set ylabel "s per epoch of 60,000 images (log scale)"
set xrange [12:1400]
set xtics (16, 32, 64, 128, 256, 512, 1024)
set grid
set key outside right top
set datafile missing "NaN"
plot for [i=0:nsets-1] datafile index i using 1:2 with linespoints lw 2 \
	title columnheader(1)
