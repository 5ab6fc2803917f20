#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/netns/run-bottleneck.sh: congestion across a real bottleneck.
# N sender namespaces (4) reach one receiver namespace through a router
# namespace whose egress toward the receiver is shaped by tbf to RATE
# (1gbit) with a buffer of about one bandwidth-delay product. ft_incast
# runs across it over uet with FI_UET_CC=fixed, nscc, rccc and nscc+rccc,
# and over tcp for reference: every sender streams BYTES into the one
# receiver at once, which checks every byte.
#
# For each run it reports the aggregate goodput and its share of RATE,
# Jain's fairness index over the senders, the router's queue (sampled
# every 10 ms by qsample.py: average and largest backlog, in KB and as
# delay at RATE), the round trip of a low-rate ping from sender 1 to the
# receiver during the run (p50/p99), retransmissions (uet: FI_UET_STATS
# by cause; tcp: the senders' RetransSegs) and the router's drops, with
# uet's `uet cc` lines (window, base RTT, ECN share) below the table.
#
# Pass criteria (exit 1 if one fails): every run completes with every
# byte verified by the receiver and crosses the shaper; for uet the
# congestion control named in its `uet cc` lines is the one asked for;
# uet with a congestion control (not fixed) keeps Jain >= 0.9 and
# goodput >= half of RATE.
#
# usage: run-bottleneck.sh [-n SENDERS] [-r RATE] [-q BUFFER] [-k BURST]
#                          [-s SECONDS | -b BYTES] [-S SIZE] [-w WINDOW]
#                          [-c "RUNS"] [-T BUDGET] [-v]
#   -n SENDERS  sender namespaces (4)
#   -r RATE     bottleneck rate, tc syntax in bit/s: 1gbit, 500mbit (1gbit)
#   -q BUFFER   tbf limit in bytes (one BDP: RATE x the ping RTT of a full
#               packet, at least 4 packets)
#   -k BURST    tbf burst in bytes (16384)
#   -s SECONDS  each run moves SECONDS x RATE, split among the senders (4)
#   -b BYTES    bytes per sender instead (k, m, g suffixes)
#   -S SIZE     message size (64k); -w WINDOW sends in flight (16)
#   -c RUNS     which runs: fixed nscc rccc nscc+rccc (uet) and tcp
#               (default all five)
#   -T BUDGET   seconds for the whole script (180); a run gets at most
#               60 s and what is left
#   -v          print every program's output
#
# Addresses exist only inside the script's own namespaces: the receiver
# link is $BN_NET.0.0/24 (router .1, receiver .2), sender i's link
# $BN_NET.i.0/24 (router .1, sender .2); BN_NET is 10.251. Programs come
# from $top_builddir (default: this checkout, or its build/ directory),
# uet from $top_builddir/prov/uet/.libs unless FI_PROVIDER_PATH is set.
#
# Exit: 0 passed, 1 failed, 77 SKIP: not root, no network namespaces,
# veth or tbf, no ping (iputils or busybox) or python3, or no uet.
set -u

nsend=4
rate=1gbit
buffer=
burst=16384
secs=4
bytes=
msg=64k
window=16
runs="fixed nscc rccc nscc+rccc tcp"
budget=180
verbose=0
run_max=60
net=${BN_NET:-10.251}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# The build tree: $top_builddir, else the checkout or its build/.
if [ -z "${top_builddir:-}" ]; then
	top_builddir=$top
	[ -x "$top/fabtests/ft_incast" ] || [ ! -x "$top/build/fabtests/ft_incast" ] ||
		top_builddir=$top/build
fi
incast=$top_builddir/fabtests/ft_incast

usage() {
	sed -n '25,40p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts n:r:q:k:s:b:S:w:c:T:vh opt; do
	case $opt in
	n) nsend=$OPTARG ;;
	r) rate=$OPTARG ;;
	q) buffer=$OPTARG ;;
	k) burst=$OPTARG ;;
	s) secs=$OPTARG ;;
	b) bytes=$OPTARG ;;
	S) msg=$OPTARG ;;
	w) window=$OPTARG ;;
	c) runs=$OPTARG ;;
	T) budget=$OPTARG ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage

skip() {
	echo "SKIP: $*"
	exit 77
}

die() {
	echo "FAIL: $*"
	exit 1
}

for v in "$nsend" "$burst" "$secs" "$window" "$budget" ${buffer:+"$buffer"}; do
	case $v in
	'' | *[!0-9]* | 0) die "-n, -k, -s, -w, -T and -q want positive numbers" ;;
	esac
done
[ "$nsend" -le 64 ] || die "-n $nsend: at most 64 senders"
# The rate in bit/s, from tc's own syntax (bit, kbit, mbit, gbit).
rate_bps=$(echo "$rate" | awk '
	/^[0-9.]+(bit|kbit|mbit|gbit)$/ {
		v = $0 + 0; u = $0; sub(/^[0-9.]+/, "", u)
		m = u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1
		printf "%.0f", v * m }')
if [ -z "$rate_bps" ] || [ "$rate_bps" -le 0 ]; then
	die "-r $rate: use tc's bit/s syntax, e.g. 1gbit or 500mbit"
fi
for r in $runs; do
	case $r in
	fixed | nscc | rccc | nscc+rccc | tcp) ;;
	*) die "-c: '$r' is not fixed, nscc, rccc, nscc+rccc or tcp" ;;
	esac
done

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, tc)"
for t in ip tc timeout python3; do
	command -v $t >/dev/null 2>&1 || skip "$t not found"
done
ip netns list >/dev/null 2>&1 || skip "'ip netns' does not work here"
if command -v ping >/dev/null 2>&1; then
	ping="ping"
elif command -v busybox >/dev/null 2>&1 && busybox ping -h 2>&1 |
     grep -q Usage; then
	ping="busybox ping"
else
	skip "no ping (iputils-ping or busybox)"
fi
[ -x "$incast" ] || die "$incast not built (make check builds it)"
if [ -z "${FI_PROVIDER_PATH:-}" ]; then
	FI_PROVIDER_PATH=$top_builddir/prov/uet/.libs
	export FI_PROVIDER_PATH
fi
FI_UET_IFACE=bn0 FI_TCP_IFACE=bn0
export FI_UET_IFACE FI_TCP_IFACE
# The caller's settings would change what is measured.
unset FI_UET_CC FI_UET_LINK_GBPS FI_UET_BASE_RTT_US FI_UET_WINDOW \
	FI_UET_IMPAIR FI_UET_PCAP FI_PROVIDER 2>/dev/null

pfx=bn$$x$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
R=$pfx-r
D=$pfx-d
raddr=$net.0.2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bottleneck.XXXXXX") || exit 1
start=$(date +%s)

kids=	# our background programs, each under timeout(1)
cleanup() {
	for p in $kids; do
		kill -TERM "$p" 2>/dev/null
	done
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in "$pfx"-*) ip netns del "$ns" 2>/dev/null ;; esac
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

sender() { echo "$pfx-s$1"; }

# ---- topology ----

# One veth from the router (device RDEV) to namespace NS (device bn0),
# on NET.SUB.0/24. One segment per packet (gso_max_segs 1): the shaper
# then queues wire-sized packets, not 64 KiB TCP or UDP offload bursts.
link() { # NS RDEV SUB
	ip link add "$2" netns "$R" gso_max_segs 1 type veth \
		peer name bn0 netns "$1" gso_max_segs 1 || return 1
	ip -n "$R" addr add "$net.$3.1/24" dev "$2" &&
	ip -n "$1" addr add "$net.$3.2/24" dev bn0 &&
	ip -n "$R" link set "$2" up &&
	ip -n "$1" link set bn0 up &&
	ip -n "$1" route add "$net.0.0/16" via "$net.$3.1"
}

setup() {
	err=$(ip netns add "$R" 2>&1) ||
		skip "network namespaces do not work here (ip netns add: $err)"
	ip netns add "$D" || return 1
	i=1
	while [ $i -le "$nsend" ]; do
		ip netns add "$(sender $i)" || return 1
		i=$((i + 1))
	done
	for ns in $(ip netns list | awk '{print $1}'); do
		case $ns in "$pfx"-*) ip -n "$ns" link set lo up || return 1 ;; esac
	done
	err=$(ip link add rx0 netns "$R" gso_max_segs 1 type veth peer \
		name bn0 netns "$D" gso_max_segs 1 2>&1) ||
		skip "cannot create a veth pair here ($err)"
	ip -n "$R" addr add "$net.0.1/24" dev rx0 &&
	ip -n "$D" addr add "$raddr/24" dev bn0 &&
	ip -n "$R" link set rx0 up &&
	ip -n "$D" link set bn0 up &&
	ip -n "$D" route add "$net.0.0/16" via "$net.0.1" || return 1
	i=1
	while [ $i -le "$nsend" ]; do
		link "$(sender $i)" "s$i" $i || return 1
		i=$((i + 1))
	done
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
}

shape() { # LIMIT
	ip netns exec "$R" tc qdisc replace dev rx0 root tbf rate "$rate" \
		burst "$burst" limit "$1"
}

# tc -s counters of the shaper: "sent_bytes drops".
tbf_counts() {
	ip netns exec "$R" tc -s qdisc show dev rx0 | awk '
		/^qdisc tbf/ { t = 1; next }
		/^qdisc/ { t = 0 }
		t && /Sent/ { gsub(/[(),]/, " "); print $2, $7; exit }'
}

# Round trips in microseconds, one a line, from ping's "time=X ms".
ping_us() { # FILE
	sed -n 's/.*time=\([0-9.]*\) *ms.*/\1/p' "$1" |
		awk '{ printf "%.0f\n", $1 * 1000 }' | sort -n
}

pct() { # P < sorted numbers
	awk -v p="$1" '{ v[NR] = $1 } END {
		if (!NR) { print "n/a"; exit }
		k = int(p / 100 * NR + 0.999999); if (k < 1) k = 1
		print v[k] }'
}

setup >"$tmp/setup.log" 2>&1 || {
	echo "FAIL: building the namespaces"
	sed 's/^/    /' "$tmp/setup.log"
	exit 1
}
shape "$burst" >"$tmp/tbf.log" 2>&1 ||
	skip "no tbf qdisc ($(head -n 1 "$tmp/tbf.log"))"

# Base RTT: the median of 20 full-packet pings through the shaper.
# shellcheck disable=SC2086 # $ping: one or two words
timeout 10 ip netns exec "$(sender 1)" $ping -c 20 -i 0.01 -s 1472 "$raddr" \
	>"$tmp/base.ping" 2>&1
base_us=$(ping_us "$tmp/base.ping" | pct 50)
[ "$base_us" != n/a ] || {
	echo "FAIL: sender 1 cannot ping the receiver $raddr"
	sed 's/^/    /' "$tmp/base.ping"
	exit 1
}
[ "$base_us" -ge 1 ] || base_us=1
bdp=$(awk -v r="$rate_bps" -v t="$base_us" 'BEGIN { printf "%.0f", r / 8 * t / 1e6 }')
if [ -z "$buffer" ]; then
	buffer=$(awk -v b="$bdp" 'BEGIN { p = int((b + 1513) / 1514)
		if (p < 4) p = 4; print p * 1514 }')
fi
shape "$buffer" >"$tmp/tbf.log" 2>&1 || die "tc tbf limit $buffer: $(cat "$tmp/tbf.log")"
gbps=$(awk -v r="$rate_bps" 'BEGIN { g = int((r + 1e9 - 1) / 1e9); print g < 1 ? 1 : g }')
if [ -z "$bytes" ]; then
	bytes=$(awk -v r="$rate_bps" -v s="$secs" -v n="$nsend" \
		'BEGIN { printf "%.0f", r / 8 * s / n }')
fi

# A provider lists bn0 once the kernel calls it running, which may lag
# the link's creation by up to a second (linkwatch).
has_prov() { # PROV
	n=0
	while [ $n -lt 30 ]; do
		timeout 20 ip netns exec "$D" fi_info -p "$1" -t FI_EP_RDM \
			>/dev/null 2>&1 &&
			return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
has_prov uet ||
	skip "fi_info -p uet finds nothing on bn0 (FI_PROVIDER_PATH=$FI_PROVIDER_PATH)"

echo "# $nsend senders -> router (tbf $rate, burst $burst B, limit $buffer B) -> receiver;" \
     "base RTT $base_us us (ping, 1500 B), BDP $bdp B"
echo "# ft_incast: $bytes bytes per sender, messages of $msg, window $window;" \
     "uet FI_UET_LINK_GBPS=$gbps FI_UET_BASE_RTT_US=$base_us"
[ "$((gbps * 1000000000))" = "$rate_bps" ] ||
	echo "# note: FI_UET_LINK_GBPS takes whole Gb/s: RCCC paces at $gbps Gb/s, above the bottleneck"

npass=0
nfail=0
rows=
details=

# Seconds for the next run: run_max, or what the budget has left.
run_tmo() {
	left=$((budget - ($(date +%s) - start)))
	[ "$left" -lt "$run_max" ] && echo "$left" || echo "$run_max"
}

tcp_retrans() { # the senders' RetransSegs, summed
	i=1
	n=0
	while [ $i -le "$nsend" ]; do
		# shellcheck disable=SC2016 # awk's $f, not the shell's
		v=$(ip netns exec "$(sender $i)" awk '/^Tcp:/ {
			if (!h) { for (f = 1; f <= NF; f++) if ($f == "RetransSegs") c = f; h = 1 }
			else print $c }' /proc/net/snmp)
		n=$((n + ${v:-0}))
		i=$((i + 1))
	done
	echo "$n"
}

# Wait (up to T seconds) for the server's header, printed just before it
# starts the senders: the sampler and ping then see the transfer only.
wait_start() { # LOG PID T
	n=0
	while [ $n -lt $(($3 * 20)) ] && kill -0 "$2" 2>/dev/null; do
		grep -q '^# ft_incast:' "$1" && return 0
		sleep 0.05
		n=$((n + 1))
	done
	return 1
}

fail() { # LABEL WHY DIR
	nfail=$((nfail + 1))
	echo "FAIL: $1: $2"
	for f in "$3"/*.log; do
		[ -f "$f" ] || continue
		echo "    --- $(basename "$f")"
		sed 's/^/        /' "$f" | tail -n 40
	done
}

# One ft_incast run. Appends its row to $rows and its uet details to
# $details.
run_one() { # RUN
	label=$1
	case $1 in
	tcp) prov=tcp cc= ;;
	*) prov=uet cc=$1 label="uet $1" ;;
	esac
	d=$tmp/$(echo "$1" | tr + _)
	mkdir -p "$d"
	t=$(run_tmo)
	if [ "$t" -lt 15 ]; then
		fail "$label" "not run: the $budget s budget is spent" "$d"
		return
	fi
	env=
	[ $prov = uet ] && env="FI_UET_STATS=1 FI_UET_CC=$cc FI_UET_LINK_GBPS=$gbps FI_UET_BASE_RTT_US=$base_us"
	rt0=$(tcp_retrans)
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(tbf_counts)
	sent0=$1 drop0=$2
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $env: words or nothing
	timeout -k 5 "$t" ip netns exec "$D" env $env "$incast" -p $prov \
		-s "$raddr" -B "$raddr" -n "$nsend" -f "$d/port" -T $((t - 5)) \
		>"$d/server.log" 2>&1 &
	spid=$!
	kids=$spid
	cpids=
	i=1
	while [ $i -le "$nsend" ]; do
		# shellcheck disable=SC2086
		timeout -k 5 "$t" ip netns exec "$(sender $i)" env $env \
			"$incast" -p $prov -s "$net.$i.2" -n "$nsend" \
			-r $((i - 1)) -f "$d/port" -T $((t - 5)) -b "$bytes" \
			-S "$msg" -w "$window" "$raddr" >"$d/client$i.log" 2>&1 &
		cpids="$cpids $!"
		kids="$kids $!"
		i=$((i + 1))
	done
	qpid='' ppid=''
	if wait_start "$d/server.log" "$spid" "$t"; then
		timeout "$t" ip netns exec "$R" python3 "$here/qsample.py" \
			--max-seconds "$t" rx0 >"$d/queue.out" 2>"$d/queue.err" &
		qpid=$!
		kids="$kids $qpid"
		# shellcheck disable=SC2086 # $ping: one or two words
		timeout "$t" ip netns exec "$(sender 1)" $ping -i 0.02 "$raddr" \
			>"$d/ping.out" 2>&1 &
		ppid=$!
		kids="$kids $ppid"
	fi
	wait "$spid"
	src=$?
	crc=0
	for p in $cpids; do
		wait "$p" || crc=$?
	done
	secs_run=$(($(date +%s) - t0))
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
	[ -n "$ppid" ] && kill -TERM "$ppid" 2>/dev/null
	[ -n "$qpid" ] && wait "$qpid"
	[ -n "$ppid" ] && wait "$ppid"
	kids=
	# shellcheck disable=SC2046
	set -- $(tbf_counts)
	sent=$(($1 - sent0)) drops=$(($2 - drop0))

	# Every byte verified, by the receiver's count and each sender's word.
	nmsgs=$(awk -v b="$bytes" -v s="$msg" 'BEGIN {
		m = s; u = substr(s, length(s)); k = 1
		if (u == "k") k = 1024; else if (u == "m") k = 1048576
		if (k > 1) m = substr(s, 1, length(s) - 1)
		m *= k; printf "%d %d", int((b + m - 1) / m), m }')
	# shellcheck disable=SC2086 # two numbers
	set -- $nmsgs
	want_msgs=$(($1 * nsend)) want_bytes=$(($1 * $2 * nsend))
	got=$(sed -n 's/^# verified: \([0-9]*\) messages, \([0-9]*\) bytes.*/\1 \2/p' "$d/server.log")
	okc=$(cat "$d"/client*.log | grep -c 'verified by the server$')
	hdr_prov=$(sed -n 's/^# ft_incast: provider \([^,]*\),.*/\1/p' "$d/server.log")
	agg=$(sed -n 's/^# aggregate: \([0-9.]*\) MB\/s.*/\1/p' "$d/server.log")
	jain=$(sed -n 's/^# aggregate:.*jain \([0-9.]*\) over MB\/s, \([0-9.]*\) over.*/\1 \2/p' "$d/server.log")
	# shellcheck disable=SC2086
	set -- ${jain:-n/a n/a}
	jain=$1 jain_first=$2
	share=$(awk -v a="${agg:-0}" -v r="$rate_bps" 'BEGIN { printf "%.2f", a * 8e6 / r }')

	# the router's queue: bytes, and as delay at the rate
	q=$(cat "$d/queue.out" 2>/dev/null)
	qv() { echo "$q" | tr ' ' '\n' | sed -n "/^$1\$/{n;p;}"; }
	qavg=$(qv avg_bytes) qmax=$(qv max_bytes)
	qcol=n/a qmcol=n/a
	if [ -n "$qavg" ]; then
		qcol=$(awk -v b="$qavg" -v r="$rate_bps" 'BEGIN { printf "%.1f KB %.0f us", b / 1e3, b * 8e6 / r }')
		qmcol=$(awk -v b="$qmax" -v r="$rate_bps" 'BEGIN { printf "%.1f KB %.0f us", b / 1e3, b * 8e6 / r }')
	fi
	p50=n/a p99=n/a np=0
	if [ -s "$d/ping.out" ]; then
		ping_us "$d/ping.out" >"$d/ping.us"
		np=$(wc -l <"$d/ping.us")
		p50=$(pct 50 <"$d/ping.us")
		p99=$(pct 99 <"$d/ping.us")
	fi

	# retransmissions: uet's counters by cause, or tcp's RetransSegs
	if [ $prov = uet ]; then
		retx=$(cat "$d"/*.log | awk '/^uet stats/ {
			for (f = 1; f < NF; f++) {
				if ($f == "retx_sack") s += $(f + 1)
				if ($f == "retx_tlp") t += $(f + 1)
				if ($f == "retx_nack") n += $(f + 1)
				if ($f == "retx_rto") r += $(f + 1)
			}
			c++ }
			END { printf "%d %d %d %d %d", s + t + n + r, s, t, n, r; print "", c + 0 }')
		# shellcheck disable=SC2086
		set -- $retx
		retx=$1
		nstats=$6
		details="$details
$label: retransmissions sack $2, tlp $3, nack $4, rto $5 ($nstats endpoints' uet stats)"
		# the senders' contexts toward the receiver
		ccs=$(cat "$d"/client*.log | awk -v to="$raddr:" '
			/^uet cc / && index($0, "-> " to) {
				for (f = 1; f < NF; f++) {
					if ($f == "cwnd") w = $(f + 1)
					if ($f == "base_rtt_ns") b = $(f + 1)
					if ($f == "ecn_frac") e = $(f + 1)
				}
				printf "%s %s %s %s %s\n", $3, $6, w, b, e }')
		details="$details
$(echo "$ccs" | awk -v l="$label" 'NF {
			printf "%s: uet cc %s -> receiver: %s cwnd %d B, base RTT %s, ECN share %s\n",
				l, $1, $2, $3, $4 < 0 ? "none" : sprintf("%.1f us", $4 / 1e3), $5 }')"
		ncc=$(echo "$ccs" | awk -v a="$cc" '$2 == a' | wc -l)
	else
		retx=$(($(tcp_retrans) - rt0))
		ncc=$nsend
	fi

	row=$(printf '| %-14s | %7s | %5s | %6s | %6s | %17s | %17s | %5s / %-5s | %7s | %6s |' \
		"$label" "${agg:-n/a}" "$share" "$jain" "$jain_first" "$qcol" \
		"$qmcol" "$p50" "$p99" "$retx" "$drops")
	rows="$rows
$row"

	why=
	if [ $src != 0 ] || [ $crc != 0 ]; then
		why="receiver exit $src, a sender exit $crc (124 = timeout)"
	elif [ "$got" != "$want_msgs $want_bytes" ]; then
		why="receiver verified '${got:-nothing}', want $want_msgs messages, $want_bytes bytes"
	elif [ "$okc" != "$nsend" ]; then
		why="$okc of $nsend senders heard their data verified"
	elif [ "${hdr_prov%%;*}" != "$prov" ]; then
		why="ran over provider '$hdr_prov', not $prov"
	elif [ "$sent" -lt "$want_bytes" ]; then
		why="the shaper sent $sent bytes, fewer than the $want_bytes verified"
	elif [ "$ncc" -lt "$nsend" ]; then
		why="$ncc of $nsend senders' uet cc lines say $cc"
	fi
	crit=
	if [ -z "$why" ] && [ $prov = uet ] && [ "$cc" != fixed ]; then
		crit=", jain $jain >= 0.9, goodput $share of $rate >= 0.5"
		awk -v j="$jain" -v s="$share" 'BEGIN { exit !(j >= 0.9 && s >= 0.5) }' ||
			why="jain $jain (need >= 0.9), goodput $share of $rate (need >= 0.5)"
	fi
	if [ -n "$why" ]; then
		fail "$label" "$why" "$d"
		return
	fi
	npass=$((npass + 1))
	echo "PASS: $label: $want_msgs messages, $want_bytes bytes verified, ${agg} MB/s$crit (${secs_run} s; $np pings)"
	if [ "$verbose" = 1 ]; then
		for f in "$d"/*.log "$d/queue.out"; do
			echo "    --- $(basename "$f")"
			sed 's/^/        /' "$f"
		done
	fi
}

for r in $runs; do
	if [ "$r" = tcp ] && ! has_prov tcp; then
		echo "SKIP: tcp: fi_info -p tcp finds nothing on bn0"
		continue
	fi
	run_one "$r"
done

echo
echo "ft_incast, $nsend senders x $bytes B through tbf $rate (limit $buffer B), base RTT $base_us us:"
echo "| run            |    MB/s | share |   Jain | Jain@1 |         avg queue |         max queue | ping p50/p99 us | retx    | drops  |"
echo "|----------------|--------:|------:|-------:|-------:|------------------:|------------------:|----------------:|--------:|-------:|"
echo "$rows" | sed '/^$/d'
echo "(share: of $rate; Jain over the senders' MB/s, Jain@1 over their bytes when the first finished;"
echo " queue: tbf backlog sampled every 10 ms while busy, as KB and delay at $rate; retx: uet resends, tcp RetransSegs)"
echo "$details" | sed '/^$/d'
echo "# bottleneck: $npass passed, $nfail failed, $(($(date +%s) - start)) s"
[ $nfail = 0 ]
