set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'ours-vsbinpack.svg'
set title "speed-up over binpacking's allocation, by family"
set xlabel "family"
set ylabel "binpack makespan / makespan (ratio)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'ours-vsbinpack.dat' using 0:2:xtic(1) with points lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'ours-vsbinpack.dat' using 0:3 with points lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'ours-vsbinpack.dat' using 0:4 with points lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'ours-vsbinpack.dat' using 0:5 with points lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'ours-vsbinpack.dat' using 0:6 with points lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader, \
     'ours-vsbinpack.dat' using 0:7 with points lw 2 pt 6 ps 1.3 lc rgb '#8c564b' title columnheader, \
     'ours-vsbinpack.dat' using 0:8 with points lw 2 pt 7 ps 1.3 lc rgb '#e377c2' title columnheader, \
     'ours-vsbinpack.dat' using 0:9 with points lw 2 pt 8 ps 1.3 lc rgb '#7f7f7f' title columnheader, \
     'ours-vsbinpack.dat' using 0:10 with points lw 2 pt 9 ps 1.3 lc rgb '#bcbd22' title columnheader, \
     'ours-vsbinpack.dat' using 0:11 with points lw 2 pt 10 ps 1.3 lc rgb '#17becf' title columnheader, \
     'ours-vsbinpack.dat' using 0:12 with points lw 2 pt 11 ps 1.3 lc rgb '#000000' title columnheader, \
     'ours-vsbinpack.dat' using 0:13 with points lw 2 pt 12 ps 1.3 lc rgb '#aec7e8' title columnheader
