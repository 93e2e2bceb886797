set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper4-worse.svg'
set title "Paper IV Sect. 6: share of programs where SGA is worse than binpacking, by input"
set xlabel "processors"
set ylabel "fraction of programs (binpack/SGA < 1)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper4-worse.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper4-worse.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper4-worse.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader
