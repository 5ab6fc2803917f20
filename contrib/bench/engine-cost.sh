#!/bin/sh
# contrib/bench/engine-cost.sh: instructions the engine spends per data
# packet, counted by valgrind's callgrind over one uetsim flow (two hosts,
# one switch): exact and repeatable, where a timed run on a shared host
# moves by tens of percent. The send side is uet_fep_poll_tx_sg, the
# receive side uet_fep_recv, both inclusive and both including the ACKs
# each end makes or takes for those packets; then the engine's functions
# by their own instructions. Needs valgrind (Debian: valgrind).
#
# usage: engine-cost.sh [-b BUILDDIR] [-p PAYLOAD] [-a ACK_EVERY] [-r RUN]
#                       [-s SIZE] [-n TOP]
#   -b BUILDDIR   build directory holding uet/sim/uetsim (default: build/
#                 beside this checkout, else the current directory)
#   -p PAYLOAD    payload bytes per full packet (1416: a 1500-byte MTU)
#   -a ACK_EVERY  packets per ACK (16, the provider's default)
#   -r RUN        packets per entropy value (16)
#   -s SIZE       bytes of the flow (8388608)
#   -n TOP        functions listed by their own cost (25; 0: none)
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/contrib/bench/uetsim.sh"
# shellcheck source=contrib/bench/callgrind.sh
. "$top/contrib/bench/callgrind.sh"

builddir='' payload=1416 ack=16 run=16 size=8388608 ntop=25
while getopts b:p:a:r:s:n:h o; do
	case $o in
	b) builddir=$OPTARG ;;
	p) payload=$OPTARG ;;
	a) ack=$OPTARG ;;
	r) run=$OPTARG ;;
	s) size=$OPTARG ;;
	n) ntop=$OPTARG ;;
	*) uetsim_usage; exit 2 ;;
	esac
done
uetsim_find engine-cost.sh "$builddir"
for t in valgrind callgrind_annotate; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "SKIP: engine-cost.sh: $t not found (Debian: valgrind)"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/engine-cost.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP PIPE

# One flow, alone on its link: no loss, no congestion, the fixed window.
args="--topo star --hosts 2 --traffic one --size $size --payload $payload
      --cc fixed --ack-every $ack --entropy-run $run -q"
# Counted only inside the two entry points: the simulator's own work
# (its event queue, its check of each delivered packet) stays out.
# shellcheck disable=SC2086 # word splitting of $args is wanted
if ! valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
	--toggle-collect=uet_fep_poll_tx_sg --toggle-collect=uet_fep_recv \
	"$sim" $args \
	>"$tmp/out" 2>"$tmp/err"; then
	echo "engine-cost.sh: uetsim failed under valgrind:" >&2
	tail -n 5 "$tmp/err" >&2
	exit 1
fi
result=$(grep '^result ' "$tmp/out")
if [ "$(kv verified "$result")" != 1 ] || [ "$(kv lost "$result")" != 0 ]; then
	echo "engine-cost.sh: the flow did not arrive whole: $result" >&2
	exit 1
fi
pkts=$(( (size + payload - 1) / payload ))

cg_annotate "$tmp/cg" --inclusive=yes >"$tmp/incl"
cg_annotate "$tmp/cg" >"$tmp/self"
per() { # FUNCTION: inclusive instructions per data packet
	cg_per "$1" "$pkts" <"$tmp/incl"
}

echo "# engine instructions per data packet: uetsim, one flow of $size bytes,"
echo "# $pkts packets of $payload bytes, an ACK every $ack, runs of $run (callgrind)"
printf '%-8s %8s\n' side instr
printf '%-8s %8s\n' send "$(per uet_fep_poll_tx_sg)"
printf '%-8s %8s\n' receive "$(per uet_fep_recv)"
[ "$ntop" -gt 0 ] 2>/dev/null || exit 0
echo "# the functions below them by their own instructions per data packet"
cg_top "$pkts" "$ntop" <"$tmp/self"
