set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'ours-budgetalg.svg'
set title "quality vs test budget, every family (mean over 1,158 pairs)"
set xlabel "tests"
set ylabel "binpack makespan / makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'ours-budgetalg.dat' using 0:2:xtic(1) with linespoints lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'ours-budgetalg.dat' using 0:3 with linespoints lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'ours-budgetalg.dat' using 0:4 with linespoints lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'ours-budgetalg.dat' using 0:5 with linespoints lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader
