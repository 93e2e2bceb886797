set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper5-fig3-fig3worse-elapsed.svg'
set title "random starts alone: share of programs worse than binpacking; binpacking's input elapsed"
set xlabel "processors"
set ylabel "fraction of programs"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
set yrange [0:0.25]
plot 'paper5-fig3-fig3worse-elapsed.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper5-fig3-fig3worse-elapsed.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader
