set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper5-fig2-elapsed.svg'
set title "Paper V Fig. 2: greedy from binpacking, best after N tests; binpacking's input elapsed"
set xlabel "tests"
set ylabel "binpack makespan / greedy makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper5-fig2-elapsed.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper5-fig2-elapsed.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper5-fig2-elapsed.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader
