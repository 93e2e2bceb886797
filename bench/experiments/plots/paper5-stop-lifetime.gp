set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper5-stop-lifetime.svg'
set title "Paper V Sect. 3.4: stop after 100 tests without improvement; input lifetime"
set xlabel "processors"
set ylabel "ratio / tests"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper5-stop-lifetime.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper5-stop-lifetime.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper5-stop-lifetime.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'paper5-stop-lifetime.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'paper5-stop-lifetime.dat' using 0:6 with linespoints lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader
