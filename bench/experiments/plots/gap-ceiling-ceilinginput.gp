set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'gap-ceiling-ceilinginput.svg'
set title "the ceiling by binpacking's input: binpacking over the proven lower bound (all programs)"
set xlabel "processors"
set ylabel "binpack makespan / lower bound (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'gap-ceiling-ceilinginput.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:6 with linespoints lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:7 with linespoints lw 2 pt 6 ps 1.3 lc rgb '#8c564b' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:8 with linespoints lw 2 pt 7 ps 1.3 lc rgb '#e377c2' title columnheader, \
     'gap-ceiling-ceilinginput.dat' using 0:9 with linespoints lw 2 pt 8 ps 1.3 lc rgb '#7f7f7f' title columnheader
