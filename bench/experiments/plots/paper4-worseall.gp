set terminal svg size 820,520 dynamic font 'Helvetica,13' background rgb 'white'
set output 'paper4-worseall.svg'
set title "Paper IV Sect. 6: share of all 8,320 programs where SGA is worse, by input"
set xlabel "family"
set ylabel "fraction of programs (binpack/SGA < 1)"
set key outside right top box
set grid
set datafile missing 'NaN'
set offsets 0.3, 0.3, 0, 0
plot 'paper4-worseall.dat' using 0:2:xtic(1) with points lw 2 pt 1 ps 1.3 lc rgb '#1f77b4' title columnheader, \
     'paper4-worseall.dat' using 0:3 with points lw 2 pt 2 ps 1.3 lc rgb '#d62728' title columnheader, \
     'paper4-worseall.dat' using 0:4 with points lw 2 pt 3 ps 1.3 lc rgb '#2ca02c' title columnheader, \
     'paper4-worseall.dat' using 0:5 with points lw 2 pt 4 ps 1.3 lc rgb '#ff7f0e' title columnheader, \
     'paper4-worseall.dat' using 0:6 with points lw 2 pt 5 ps 1.3 lc rgb '#9467bd' title columnheader, \
     'paper4-worseall.dat' using 0:7 with points lw 2 pt 6 ps 1.3 lc rgb '#8c564b' title columnheader, \
     'paper4-worseall.dat' using 0:8 with points lw 2 pt 7 ps 1.3 lc rgb '#e377c2' title columnheader, \
     'paper4-worseall.dat' using 0:9 with points lw 2 pt 8 ps 1.3 lc rgb '#7f7f7f' title columnheader, \
     'paper4-worseall.dat' using 0:10 with points lw 2 pt 9 ps 1.3 lc rgb '#bcbd22' title columnheader
