#!/bin/sh
# contrib/bench/cc-table.sh: the incast table of one congestion control,
# from uetsim (uet/sim): N senders of 2 MiB each into one receiver through
# one switch, 400 Gb/s links, 1 us per hop, 4 KiB payload, 1-BDP buffers
# with trimming, ECN 0.2-0.8 BDP, all starting at t=0 (frames that meet
# at a port in the same picosecond queue in random order: --tie-jitter).
#
# usage: cc-table.sh [-b BUILDDIR] [-c CC] [-n "8 32 128 1023"] [-o DIR]
#                    [-s "SEEDS"] [-t] [-u] [-- UETSIM-ARGS...]
#   -b BUILDDIR  where uet/sim/uetsim is (default $top_builddir, else
#                build/ beside this checkout, else the current directory)
#   -c CC        fixed, nscc, rccc or nscc+rccc (default fixed)
#   -n SIZES     the incast sizes (default "8 32 128 1023")
#   -o DIR       also keep each run's data in DIR/N (DIR/N/SEED with -s;
#                plot with contrib/sim/plot.sh DIR/N)
#   -s SEEDS     run each size once per seed ("1 2 3") and print the
#                means (the largest queue and memory: the largest; drops,
#                trims and retransmissions: the mean, rounded; wall time:
#                the sum); without it, one run of uetsim's seed (1)
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
seeds=
while getopts b:c:n:o:s:tuh opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	c) cc=$OPTARG ;;
	n) sizes=$OPTARG ;;
	o) outdir=$OPTARG ;;
	s) seeds=$OPTARG ;;
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
[ -n "$seeds" ] && where="$where, means of seeds $seeds"
echo "incast, cc $cc, $where: 2 MiB per sender, 400 Gb/s, 1 us/hop, 4 KiB payload, 1-BDP buffers with trimming; wire: $wire"
printf '| %5s | %10s | %6s | %9s | %9s | %6s | %8s | %9s | %9s | %4s | %8s | %6s |\n' \
	N "done/ideal" floor "avg q BDP" "max q BDP" Jain drops trims retx \
	lost "wall s" "RSS MB"
echo '|------:|-----------:|-------:|----------:|----------:|-------:|---------:|----------:|----------:|-----:|---------:|-------:|'
status=0
for n in $sizes; do
	topo=
	if [ -n "$tree" ]; then
		k=4
		while [ $((k * k * k / 4)) -lt $((n + 1)) ]; do
			k=$((k + 2))
		done
		topo="--topo fattree --k $k"
	fi
	lines=
	failed=
	for seed in ${seeds:-default}; do
		out=
		seedarg=
		dir=${outdir:+$outdir/$n}
		if [ "$seed" != default ]; then
			seedarg="--seed $seed"
			dir=${dir:+$dir/$seed}
		fi
		if [ -n "$dir" ]; then
			mkdir -p "$dir"
			out="--out $dir"
		fi
		# shellcheck disable=SC2086 # these are words or none
		uetsim_run --cc "$cc" --senders "$n" -q $out $uec $topo \
			$seedarg "$@"
		rc=$?
		if [ -z "$result" ]; then
			failed=$result_tail
			break
		fi
		[ "$rc" = 0 ] || status=1
		lines="$lines$result
"
	done
	if [ -n "$failed" ]; then
		printf '| %5s | run failed: %s |\n' "$n" "$failed"
		status=1
		continue
	fi
	printf '%s' "$lines" | awk -v n="$n" '
	{
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] += kv[2]
			if (kv[1] == "q_max_bdp" && kv[2] > qmax)
				qmax = kv[2]
			if (kv[1] == "rss_mb" && kv[2] > rss)
				rss = kv[2]
		}
		runs++
	}
	END {
		lost = v["lost"] ? "YES" : \
		       v["unfinished"] ? v["unfinished"] " unfinished" : "no"
		printf "| %5s | %10.4f | %6.4f | %9.3f | %9.3f | %6.4f | %8d | %9d | %9d | %4s | %8.1f | %6d |\n", \
			n, v["ratio"] / runs, v["floor"] / runs,
			v["q_avg_bdp"] / runs, qmax, v["jain"] / runs,
			v["drops"] / runs + 0.5, v["trims"] / runs + 0.5,
			v["retx"] / runs + 0.5, lost, v["wall_s"], rss
	}'
done
exit $status
