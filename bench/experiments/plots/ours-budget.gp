set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'ours-budget.svg'
set title "quality vs test budget (tabu; prodcons, 2.6-2.9, and worstcase, 1.65, off the scale: see the table)"
set xlabel "tests"
set ylabel "makespan / lower bound (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
set yrange [1:1.3]
plot 'ours-budget.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'ours-budget.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'ours-budget.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'ours-budget.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'ours-budget.dat' using 0:6 with linespoints lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader, \
     'ours-budget.dat' using 0:7 with linespoints lw 2 pt 6 ps 1.3 lc rgb '#8c564b' title columnheader
