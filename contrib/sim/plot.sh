#!/bin/sh
# Plot what `uetsim --out DIR` wrote: DIR/queue.png (the bottleneck queue
# over time, average and peak per bin, in BDP) and DIR/rate.png (goodput
# of up to 16 flows, evenly picked, with the mean of the active flows and
# the windowed Jain index).
#   contrib/sim/plot.sh DIR [png|svg]
# Needs gnuplot (Debian: gnuplot-nox).
set -e
dir=${1:?usage: plot.sh DIR [png|svg]}
fmt=${2:-png}
command -v gnuplot >/dev/null 2>&1 || {
	echo "plot.sh: needs gnuplot (Debian package gnuplot-nox)" >&2
	exit 1
}
for f in queue.dat rate.dat rate_summary.dat summary.txt; do
	[ -r "$dir/$f" ] || { echo "plot.sh: no $dir/$f (uetsim --out $dir)" >&2; exit 1; }
done
case $fmt in
png) term='pngcairo size 1200,600 font ",10"'; ext=png ;;
svg) term='svg size 1200,600 dynamic font ",10"'; ext=svg ;;
*) echo "plot.sh: format png or svg" >&2; exit 1 ;;
esac
title=$(head -n 1 "$dir/summary.txt" | sed 's/^uetsim: //; s/"//g')
nflows=$(grep -c '^# flow ' "$dir/rate.dat" || true)
step=$(( (nflows + 15) / 16 ))
[ "$step" -ge 1 ] || step=1
# Milliseconds on the time axis once the run is longer than 10 ms.
tmax=$(awk '!/^#/ { t = $1 } END { print t + 0 }' "$dir/queue.dat")
if awk -v t="$tmax" 'BEGIN { exit !(t > 10000) }'; then
	div=1000; unit=ms
else
	div=1; unit=us
fi

gnuplot <<EOF
set terminal $term
set grid
set key top right
set title "$title" noenhanced
set xlabel "time ($unit)"

set output "$dir/queue.$ext"
set ylabel "bottleneck queue (BDP)"
set y2label "wire busy"
set y2range [0:1.1]
set y2tics
set ytics nomirror
plot "$dir/queue.dat" using (\$1/$div):3 with lines lc rgb "#aaaaaa" title "peak per bin", \
     "" using (\$1/$div):2 with lines lw 2 lc rgb "#1f77b4" title "average per bin", \
     "" using (\$1/$div):6 axes x1y2 with lines dt 2 lc rgb "#2ca02c" title "wire busy (right axis)"

set output "$dir/rate.$ext"
set ylabel "goodput per flow (Gb/s)"
set y2label "Jain fairness"
set y2range [0:1.05]
set y2tics
set ytics nomirror
plot for [i=0:$((nflows - 1)):$step] "$dir/rate.dat" index i using (\$1/$div):2 \
	with linespoints pt 7 ps 0.4 notitle, \
     "$dir/rate_summary.dat" using (\$1/$div):3 with lines lw 3 lc rgb "black" title "mean of active flows", \
     "" using (\$1/$div):5 axes x1y2 with lines dt 2 lw 2 lc rgb "red" title "Jain (right axis)"
EOF
echo "$dir/queue.$ext $dir/rate.$ext"
