# plot_strategies.gp - bench/strategies.py's results as the paper's Figures
# 5 and 6: per network, the end-to-end speedup of every strategy over sum2d
# (log scale), and every strategy's measured time against its predicted one.
# Run in the results folder: gnuplot plot_strategies.gp (make bench-strategies does).
set terminal pngcairo size 1400,900 font ",10" noenhanced
set output "strategies.png"
set datafile separator "\t"
set datafile missing "-"
set multiplot layout 2,1

set title "End-to-end speedup over sum2d, one thread, measured cost table (bench/results/strategies.tsv)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y 2
set yrange [0.5:*]
set ylabel "speedup over sum2d"
set grid ytics
set key outside right top vertical
set xtics nomirror
# one cluster per network, one bar per strategy column the .dat has
ncol = int(system("awk -F'\t' '!/^#/ { print NF; exit }' strategies_speedup.dat"))
plot for [i=2:ncol] "strategies_speedup.dat" using i:xtic(1) title columnhead(i)

unset logscale
set title "Measured against predicted time per call (every strategy and network); the lines are +-15%"
set style data points
set logscale xy
set xlabel "predicted (ms, dnncc --report)"
set ylabel "measured (ms, median)"
set key inside left top
plot "strategies.tsv" using ($4/1000):($5/1000) with points pt 7 ps 1 title "strategy x network", \
     x with lines lt 1 dt 1 title "measured = predicted", \
     1.15*x with lines lt 0 title "", 0.85*x with lines lt 0 title ""
unset multiplot
