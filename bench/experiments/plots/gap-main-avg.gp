set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'gap-main-avg.svg'
set title "binpack/SGA, average, by options"
set xlabel "processors"
set ylabel "binpack makespan / SGA makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'gap-main-avg.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'gap-main-avg.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader
