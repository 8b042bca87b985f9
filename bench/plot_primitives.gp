# plot_primitives.gp - the plots of bench/primitives (gnuplot 5):
#   gnuplot -e "dir='bench/results'" bench/plot_primitives.gp
# reads dir/nets.gp, dir/families_NET.tsv and dir/layers_NET.tsv (written by
# bench/primitives) and writes
#   dir/primitives_winners.png  which family wins where: per network, a cell per
#       (layer, family) coloured by the family's fastest row over the layer's
#       fastest dnncc row (log scale; 1 = the winner, marked with a dot),
#       oneDNN and OpenBLAS-im2col as two more rows (blue: faster than dnncc);
#       grey: the family has no row for that layer
#   dir/primitives_gflops.png   GFLOP/s per layer of the fastest dnncc row,
#       oneDNN and OpenBLAS-im2col
if (!exists("dir")) dir = "bench/results"
load dir."/nets.gp"
n = words(nets)

fam_label = "sum2d direct im2 kn2 winograd fft depthwise oneDNN OpenBLAS"
set ytics () scale 0
do for [f = 1:9] {
	set ytics add (word(fam_label, f) f - 1)
}

set terminal pngcairo noenhanced size 1800, 330 * n + 60 font "sans,9"
set output dir."/primitives_winners.png"
set multiplot layout n, 1 title "bench/primitives: which family wins where (single thread, batch 1; colour = family's fastest row / layer's fastest dnncc row)"
set logscale cb 10
set cbrange [0.5:100]
set cbtics ("0.5" 0.5, "0.8" 0.8, "1 (wins)" 1, "2" 2, "5" 5, "10" 10, "100" 100)
# blue below 1 (a baseline beats dnncc's best), green at 1, yellow to white above
set palette defined (log10(0.5) "#102890", log10(0.95) "#4a90f0", 0 "#108030", log10(1.25) "#70b030", log10(2) "#d8d040", log10(10) "#f0a040", log10(100) "#ffffff")
# not applicable (or no correct row): grey
set object 1 rectangle from graph 0, 0 to graph 1, 1 behind fc rgb "#d0d0d0" fs solid noborder
set xtics rotate by 60 right scale 0
set grid noxtics noytics
set key off
do for [i = 1:n] {
	net = word(nets, i)
	fam = dir."/families_".net.".tsv"
	lay = dir."/layers_".net.".tsv"
	set autoscale x
	set autoscale y
	stats lay using 1 nooutput
	set xrange [-0.5:STATS_max + 0.5]
	set yrange [8.5:-0.5]
	set title net
	plot fam using 1:2:(0.5):(0.5):($6 < 0.5 ? 0.5 : $6) with boxxyerror fs solid 1.0 noborder fc palette, \
	     lay using 1:(-10):xtic(2) with points ps 0, \
	     fam using 1:($7 == 1 ? $2 : 1/0) with points pt 7 ps 0.8 lc rgb "black"
}
unset multiplot

reset
set terminal pngcairo noenhanced size 1800, 330 * n + 60 font "sans,9"
set output dir."/primitives_gflops.png"
set multiplot layout n, 1 title "bench/primitives: GFLOP/s per conv layer, single thread, batch 1"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 noborder
set xtics rotate by 60 right scale 0
set ylabel "GFLOP/s"
set yrange [0:*]
set grid ytics
set key outside right top vertical
do for [i = 1:n] {
	net = word(nets, i)
	lay = dir."/layers_".net.".tsv"
	stats lay using 1 nooutput
	set xrange [-0.6:STATS_max + 0.6]
	set title net
	plot lay using 12:xtic(2) title "dnncc fastest row" lc rgb "#108030", \
	     '' using 13 title "oneDNN" lc rgb "#2050c0", \
	     '' using 14 title "OpenBLAS-im2col" lc rgb "#c08020"
}
unset multiplot
