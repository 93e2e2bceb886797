set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper7-coarse-fig22.svg'
set title "coarse grain: Paper VII Fig. 22: the bound p vs processors and latency"
set xlabel "processors"
set ylabel "speedup over one processor (bound)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper7-coarse-fig22.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper7-coarse-fig22.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper7-coarse-fig22.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader
