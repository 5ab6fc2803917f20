#!/bin/sh
# contrib/bench/cc-table.sh: the incast table of one congestion control,
# from uetsim (uet/sim): N senders of 2 MiB each into one receiver through
# one switch, 400 Gb/s links, 1 us per hop, 4 KiB payload, 1-BDP buffers
# with trimming, ECN 0.2-0.8 BDP, all starting at t=0 (frames that meet
# at a port in the same picosecond queue in random order: --tie-jitter).
#
# usage: cc-table.sh [-b BUILDDIR] [-c CC] [-n "8 32 128 1023"] [-o DIR] [-t] [-u]
#                    [-- UETSIM-ARGS...]
#   -b BUILDDIR  where uet/sim/uetsim is (default $top_builddir, else
#                build/ beside this checkout, else the current directory)
#   -c CC        fixed, nscc, rccc or nscc+rccc (default fixed)
#   -n SIZES     the incast sizes (default "8 32 128 1023")
#   -o DIR       also keep each run's data in DIR/N (plot with
#                contrib/sim/plot.sh DIR/N)
#   -t           the UEC simulator's topology instead of one switch: a
#                3-tier k-ary fat tree, the smallest with N + 1 hosts
#                (k = 4 / 6 / 10 / 16 for 8 / 32 / 128 / 1023), paths of
#                2, 4 and 6 hops, the senders hosts 1..N (the receiver's
#                own edge and pod first)
#   -u           count the wire as the UEC simulator (htsim) does: 64
#                bytes per full packet beyond its 4096 of payload, UET
#                headers included (uetsim --per-packet 64), not UET's
#                56-60 plus 48 of UDP, IP and Ethernet; its published
#                ratios are measured that way
# Columns: last flow's completion / ideal (N x 2 MiB x 8 / 400 Gb/s),
# the same for a wire that carried headers and never idled (the floor),
# time-average and peak of the bottleneck queue in BDP, mean windowed Jain
# fairness, drops, trims and retransmissions in the whole run, whether
# any byte was lost for good (no, YES, or how many flows were unfinished
# at uetsim's time limit), the run's wall time and peak memory. Exit 1 if a run lost
# data, did not finish or failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=contrib/bench/uetsim.sh
. "$top/contrib/bench/uetsim.sh"
builddir=${top_builddir:-}
cc=fixed
sizes="8 32 128 1023"
outdir=
uec=
tree=
while getopts b:c:n:o:tuh opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	c) cc=$OPTARG ;;
	n) sizes=$OPTARG ;;
	o) outdir=$OPTARG ;;
	t) tree=1 ;;
	u) uec="--per-packet 64" ;;
	*) uetsim_usage; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

uetsim_find cc-table.sh "$builddir"

wire="UET headers + 48 B per packet"
[ -n "$uec" ] && wire="64 B per packet beyond the payload, as the UEC simulator counts"
where="one switch"
[ -n "$tree" ] && where="3-tier fat tree (k per N)"
echo "incast, cc $cc, $where: 2 MiB per sender, 400 Gb/s, 1 us/hop, 4 KiB payload, 1-BDP buffers with trimming; wire: $wire"
printf '| %5s | %10s | %6s | %9s | %9s | %6s | %8s | %9s | %9s | %4s | %8s | %6s |\n' \
	N "done/ideal" floor "avg q BDP" "max q BDP" Jain drops trims retx \
	lost "wall s" "RSS MB"
echo '|------:|-----------:|-------:|----------:|----------:|-------:|---------:|----------:|----------:|-----:|---------:|-------:|'
status=0
for n in $sizes; do
	out=
	if [ -n "$outdir" ]; then
		mkdir -p "$outdir/$n"
		out="--out $outdir/$n"
	fi
	topo=
	if [ -n "$tree" ]; then
		k=4
		while [ $((k * k * k / 4)) -lt $((n + 1)) ]; do
			k=$((k + 2))
		done
		topo="--topo fattree --k $k"
	fi
	# shellcheck disable=SC2086 # $out, $uec and $topo are words or none
	uetsim_run --cc "$cc" --senders "$n" -q $out $uec $topo "$@"
	rc=$?
	line=$result
	if [ -z "$line" ]; then
		printf '| %5s | run failed: %s |\n' "$n" "$result_tail"
		status=1
		continue
	fi
	lost=$(kv lost "$line")
	unf=$(kv unfinished "$line")
	[ "$rc" = 0 ] || status=1
	if [ "$lost" != 0 ]; then
		lost=YES
	elif [ "$unf" != 0 ]; then
		lost="$unf unfinished"
	else
		lost=no
	fi
	printf '| %5s | %10.4f | %6.4f | %9.3f | %9.3f | %6.4f | %8s | %9s | %9s | %4s | %8.1f | %6s |\n' \
		"$n" "$(kv ratio "$line")" "$(kv floor "$line")" \
		"$(kv q_avg_bdp "$line")" \
		"$(kv q_max_bdp "$line")" \
		"$(kv jain "$line")" "$(kv drops "$line")" \
		"$(kv trims "$line")" "$(kv retx "$line")" \
		"$lost" "$(kv wall_s "$line")" "$(kv rss_mb "$line")"
done
exit $status
