#!/bin/sh
# contrib/bench/lb-table.sh: entropy selection (FI_UET_LB, uet/cms/lb.h)
# in uetsim (uet/sim), issue 10's scenario: a k-ary fat tree (k=8: 128
# hosts, 16 paths between pods), 400 Gb/s, 1 us per hop, 4 KiB payload,
# 1-BDP buffers with trimming, every host sending SIZE to another (a
# random permutation), all at t=0; healthy, then with D switch-to-switch
# cables degraded to 25% of their rate and buffer.
#
# usage: lb-table.sh [-b BUILDDIR] [-c CC] [-k K] [-s SIZE] [-d D]
#                    [-l "single oblivious reps bitmap mixed"] [-r SEEDS]
#                    [-- UETSIM-ARGS...]
#   -b BUILDDIR  where uet/sim/uetsim is (default $top_builddir, else
#                build/ beside this checkout, else the current directory)
#   -c CC        congestion control (default rccc)
#   -k K         fat tree arity (default 8)   -s SIZE  per flow (16MiB)
#   -d D         degraded cables (default 4)  -r SEEDS (default "1")
#   -l POLICIES  the FI_UET_LB policies to compare
# Loss inference is off (--no-loss-infer): with trimming a lost packet is
# NACKed, and RACK's reorder window takes spraying's reordering for loss.
# Columns: the last flow's completion divided by the same size's flow
# alone (host 0 to the last host, healthy fabric, same CC and policy),
# healthy and degraded, the mean over the seeds; trims and RTOs of the
# degraded runs. Exit 1 if a run lost data or did not finish.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=contrib/bench/uetsim.sh
. "$top/contrib/bench/uetsim.sh"
builddir=${top_builddir:-}
cc=rccc
k=8
size=16MiB
deg=4
seeds=1
lbs="single oblivious reps bitmap mixed"
while getopts b:c:k:s:d:l:r:h opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	c) cc=$OPTARG ;;
	k) k=$OPTARG ;;
	s) size=$OPTARG ;;
	d) deg=$OPTARG ;;
	l) lbs=$OPTARG ;;
	r) seeds=$OPTARG ;;
	*) uetsim_usage; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
extra=$*

uetsim_find lb-table.sh "$builddir"

status=0
# run LB TRAFFIC DEGRADE SEED: the key=value line in $result; 1 without
# one. Not in a $(...) subshell, where a failure would not reach $status.
run() {
	# shellcheck disable=SC2086 # $extra is the caller's words
	uetsim_run --topo fattree --k "$k" --traffic "$2" --size "$size" \
		--cc "$cc" --lb "$1" --no-loss-infer --no-verify \
		--degrade "$3" --seed "$4" -q $extra
	[ "$(kv unfinished "$result")" = 0 ] &&
		[ "$(kv failed "$result")" = 0 ] || status=1
	[ -n "$result" ] && return 0
	echo "lb-table.sh: uetsim failed: $result_tail" >&2
	return 1
}

echo "permutation, fat tree k=$k, cc $cc: $size per flow, 400 Gb/s, 1 us/hop, 4 KiB payload, 1-BDP buffers with trimming; $deg cables at 25%; seeds $seeds"
printf '| %-9s | %9s | %8s | %10s | %9s | %9s | %6s |\n' \
	policy "alone us" healthy degraded "deg trims" "deg RTOs" "wall s"
echo '|:----------|----------:|---------:|-----------:|----------:|----------:|-------:|'
for lb in $lbs; do
	t0=$(date +%s)
	run "$lb" one 0 1 || continue
	alone=$(kv last_us "$result")
	h=0 d=0 tr=0 rto=0 n=0
	for seed in $seeds; do
		run "$lb" perm 0 "$seed" || continue 2
		rh=$result
		run "$lb" perm "$deg" "$seed" || continue 2
		rd=$result
		h=$(echo "$h + $(kv last_us "$rh")" | bc -l)
		d=$(echo "$d + $(kv last_us "$rd")" | bc -l)
		tr=$((tr + $(kv trims "$rd")))
		rto=$((rto + $(kv retx_rto "$rd")))
		n=$((n + 1))
	done
	printf '| %-9s | %9.1f | %8.3f | %10.3f | %9d | %9d | %6d |\n' "$lb" \
		"$alone" "$(echo "$h / $n / $alone" | bc -l)" \
		"$(echo "$d / $n / $alone" | bc -l)" $((tr / n)) $((rto / n)) \
		$(($(date +%s) - t0))
done
exit $status
