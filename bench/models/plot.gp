# plot.gp - the bar chart of `make bench-models`: median ms per call of every
# engine and thread count, per network, on a log scale (the networks span
# four orders of magnitude). bench_models.py calls it with
#   gnuplot -e "datafile='...'; outfile='...'; ncols=N; plottitle='...'" plot.gp
# datafile: a header line of column titles, then one line per network:
# its name and N times (NaN where the engine did not run).
set terminal pngcairo size 1600,700 font ",10"
set output outfile
set title what.", batch 1 fp32 (autoencoder batch 4) - ".plottitle
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y
set ylabel "ms per call (log scale, lower is better)"
set grid ytics
set xtics rotate by -30
set key outside right top vertical autotitle columnhead
set datafile missing "NaN"
plot for [i=2:ncols+1] datafile using i:xtic(1)
