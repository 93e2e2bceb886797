set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper4-fig5minmax-elapsed.svg'
set title "Paper IV Fig. 5: SGA, min and max over 260 programs; input elapsed (unbound on the target)"
set xlabel "processors"
set ylabel "binpack makespan / SGA makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper4-fig5minmax-elapsed.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:6 with linespoints lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:7 with linespoints lw 2 pt 6 ps 1.3 lc rgb '#8c564b' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:8 with linespoints lw 2 pt 7 ps 1.3 lc rgb '#e377c2' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:9 with linespoints lw 2 pt 8 ps 1.3 lc rgb '#7f7f7f' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:10 with linespoints lw 2 pt 9 ps 1.3 lc rgb '#bcbd22' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:11 with linespoints lw 2 pt 10 ps 1.3 lc rgb '#17becf' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:12 with linespoints lw 2 pt 11 ps 1.3 lc rgb '#000000' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:13 with linespoints lw 2 pt 12 ps 1.3 lc rgb '#aec7e8' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:14 with linespoints lw 2 pt 13 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:15 with linespoints lw 2 pt 1 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:16 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'paper4-fig5minmax-elapsed.dat' using 0:17 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#ff7f0e' title columnheader
