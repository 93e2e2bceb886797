set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper5-fig3-fig3threads-lifetime.svg'
set title "Paper V Fig. 3 by thread count (mean over 2, 4, 8 processors); binpacking's input lifetime"
set xlabel "threads"
set ylabel "binpack makespan / makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper5-fig3-fig3threads-lifetime.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper5-fig3-fig3threads-lifetime.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper5-fig3-fig3threads-lifetime.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'paper5-fig3-fig3threads-lifetime.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader
