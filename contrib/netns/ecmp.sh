#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/netns/ecmp.sh: a sender and a receiver joined by PATHS equal-
# cost routes through PATHS router namespaces, the kernel hashing each
# flow onto one by its UDP/IP 5-tuple (fib_multipath_hash_policy=1), each
# path shaped by tbf to RATE toward the receiver: spraying meets real
# ECMP. Then uet's policies are measured against the healthy capacity.
#
#   ecmp.sh up NAME [PATHS [RATE]]    create it (4 paths, 200mbit)
#   ecmp.sh down NAME                 remove everything it made
#   ecmp.sh degrade NAME I RATE       path I (1..PATHS) shaped to RATE
#   ecmp.sh cut NAME I                path I drops everything (router's
#                                     link to the receiver down: a black
#                                     hole the sender cannot see)
#   ecmp.sh heal NAME I               undo cut and degrade of path I
#   ecmp.sh exec NAME s|r CMD...      run CMD in the sender or receiver
#   ecmp.sh run NAME [SECONDS]        measure (below)
#
# run: ft_bw (64 KiB messages) from sender to receiver over uet with one
# fixed source port (FI_UET_ENTROPY_BITS=0: one 5-tuple, one path) and
# sprayed over 2^ECMP_BITS source ports (5: 32; 8 ports often hash onto
# 3 of 4 paths) in runs of ECMP_RUN packets per port (4: a 64-packet
# window then covers 16 ports, not 4) with each entropy selection policy
# (FI_UET_LB; ECMP_LB="oblivious mixed" picks some), first on healthy
# paths, then with path 1 at a quarter of RATE, then with path 1 cut
# SECONDS/2 after the start; each line gives goodput, its share of the
# capacity left, its share of what the paths left give one fixed port
# each (the fixed port's healthy goodput per path: headers, ~7% at MTU
# 1500, left out, so that only what spraying loses counts), and whether
# the transfer completed; after a cut, how long the receiver took to get
# 80% of the rate left again, for 50 ms (rxrate.py, in its namespace).
# ft_bw's window is ECMP_WINDOW messages (64, fabtests' default): it
# waits for the receiver's ack after each window, and the paths idle for
# that round trip (at 16 that cost ~2% of the degraded case's goodput).
#
# Addresses (inside these namespaces only): sender 10.253.0.1 on device
# uet0, receiver 10.253.0.2 on uet0; path i: sender 10.254.i.1 - router
# 10.254.i.2 and router 10.255.i.1 - receiver 10.255.i.2; ft_bw's own
# out-of-band TCP connection on a direct link mg, 10.252.253.1 - .2.
# Exit: 0 ok, 1 error, 2 usage, 77 cannot here (not root, no netns/tbf).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../../build}

die() { echo "ecmp: $*" >&2; exit 1; }
skip() { echo "ecmp: SKIP: $*" >&2; exit 77; }
usage() { sed -n '8,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

nsx() { _ns=$1; shift; ip netns exec "$_ns" "$@"; }

paths_of() { cat "/run/uet-ecmp/$1/paths" 2>/dev/null || echo 0; }
rate_of() { cat "/run/uet-ecmp/$1/rate" 2>/dev/null; }

up() { # NAME PATHS RATE
	name=$1 paths=$2 rate=$3
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v tc >/dev/null || skip "no tc"
	mkdir -p "/run/uet-ecmp/$name"
	echo "$paths" >"/run/uet-ecmp/$name/paths"
	echo "$rate" >"/run/uet-ecmp/$name/rate"
	for n in s r; do
		ip netns add "$name-$n" || skip "cannot create namespaces"
		nsx "$name-$n" ip link set lo up
		# the endpoint's own address and device (its MTU: 1500); a
		# veth whose peer stays unused, as dummy may be missing
		nsx "$name-$n" ip link add uet0 type veth peer name uet0p
		nsx "$name-$n" ip link set uet0p up
		nsx "$name-$n" ip link set uet0 up
		nsx "$name-$n" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
		nsx "$name-$n" sysctl -qw net.ipv4.conf.all.rp_filter=0
	done
	nsx "$name-s" ip addr add 10.253.0.1/32 dev uet0
	nsx "$name-r" ip addr add 10.253.0.2/32 dev uet0
	hops_s='' hops_r=''
	i=1
	while [ "$i" -le "$paths" ]; do
		p=$name-p$i
		ip netns add "$p"
		nsx "$p" ip link set lo up
		nsx "$p" sysctl -qw net.ipv4.ip_forward=1
		nsx "$p" sysctl -qw net.ipv4.conf.all.rp_filter=0
		ip link add "e${name}s$i" type veth peer name "e${name}p$i" ||
			skip "veth refused"
		ip link set "e${name}s$i" netns "$name-s" name "p$i"
		ip link set "e${name}p$i" netns "$p" name tos
		ip link add "e${name}r$i" type veth peer name "e${name}q$i"
		ip link set "e${name}r$i" netns "$name-r" name "p$i"
		ip link set "e${name}q$i" netns "$p" name tor
		nsx "$name-s" ip addr add "10.254.$i.1/30" dev "p$i"
		nsx "$name-s" ip link set "p$i" up
		nsx "$name-r" ip addr add "10.255.$i.2/30" dev "p$i"
		nsx "$name-r" ip link set "p$i" up
		nsx "$p" ip addr add "10.254.$i.2/30" dev tos
		nsx "$p" ip addr add "10.255.$i.1/30" dev tor
		nsx "$p" ip link set tos up
		nsx "$p" ip link set tor up
		nsx "$p" ip route add 10.253.0.2/32 via "10.255.$i.2"
		nsx "$p" ip route add 10.253.0.1/32 via "10.254.$i.1"
		shape "$name" "$i" "$rate"
		hops_s="$hops_s nexthop via 10.254.$i.2 dev p$i"
		hops_r="$hops_r nexthop via 10.255.$i.1 dev p$i"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	nsx "$name-s" ip route add 10.253.0.2/32 src 10.253.0.1 $hops_s
	# shellcheck disable=SC2086
	nsx "$name-r" ip route add 10.253.0.1/32 src 10.253.0.2 $hops_r
	nsx "$name-s" ip route get 10.253.0.2 from 10.253.0.1 >/dev/null ||
		die "no route from sender to receiver"
	# A control link for ft_bw's out-of-band TCP connection, outside
	# the paths: a cut path must not take the test's own socket with it
	# (hashed onto it, it stalled both sides until the timeout).
	ip link add "e${name}ms" type veth peer name "e${name}mr" ||
		skip "veth refused"
	ip link set "e${name}ms" netns "$name-s" name mg
	ip link set "e${name}mr" netns "$name-r" name mg
	nsx "$name-s" ip addr add 10.252.253.1/30 dev mg
	nsx "$name-r" ip addr add 10.252.253.2/30 dev mg
	nsx "$name-s" ip link set mg up
	nsx "$name-r" ip link set mg up
}

# tbf at RATE toward the receiver, a buffer of ~5 ms at that rate.
shape() { # NAME I RATE
	nsx "$1-p$2" tc qdisc replace dev tor root tbf rate "$3" \
		burst 16kb latency 5ms || skip "no tbf"
}

down() {
	name=$1
	for x in $(ip netns list | awk '{print $1}'); do
		case $x in
		"$name-s" | "$name-r" | "$name"-p[0-9]*) ip netns del "$x" ;;
		esac
	done
	rm -rf "/run/uet-ecmp/$name"
}

# kbit/s of a tc rate word
kbit() {
	case $1 in
	*gbit) echo $((${1%gbit} * 1000000)) ;;
	*mbit) echo $((${1%mbit} * 1000)) ;;
	*kbit) echo "${1%kbit}" ;;
	*) die "rate '$1': use kbit, mbit or gbit" ;;
	esac
}

# One transfer: label, capacity left (kbit/s), env for both sides; the
# cut (if any) happens at half time. REF_KBIT (0: none) is what the paths
# left could deliver as goodput, from the fixed port's healthy run: a
# share of it leaves out what headers cost (one port gets ~93% of the
# rate at MTU 1500) and counts only what spraying loses. Sets gp_kbit.
measure() { # NAME LABEL CAP_KBIT CUT_PATH REF_KBIT ENV...
	name=$1 label=$2 cap=$3 cut=$4 ref=$5
	shift 5
	dir=$(mktemp -d)
	# ft_bw -I counts windows of $win messages of 64 KiB
	bytes=$((cap * 1000 / 8 * secs))
	n=$((bytes / 65536 / win))
	[ "$n" -ge 4 ] || n=4
	nsx "$name-r" env FI_PROVIDER_PATH="$top/prov/uet/.libs" \
		FI_UET_IFACE=uet0 "$@" timeout $((secs * 4 + 30)) \
		"$top/fabtests/ft_bw" -p uet -S 64k -I "$n" -w "$win" \
		-B 10.252.253.2 -f "$dir/port" -T $((secs * 3 + 20)) \
		>"$dir/s.log" 2>&1 &
	spid=$!
	rpid=
	if [ "$cut" != 0 ]; then
		# the receiver's rate, and when it came back after the cut
		# not through nsx: $! is then ip's pid, which execs python
		ip netns exec "$name-r" python3 "$here/rxrate.py" \
			--event-file "$dir/event" --rate $((cap * 800)) \
			--max-seconds $((secs * 4 + 30)) >"$dir/rx.log" 2>&1 &
		rpid=$!
		(sleep $((secs / 2))
		 python3 -c 'import time; print(time.monotonic())' \
			>"$dir/event"
		 "$0" cut "$name" "$cut") &
	fi
	nsx "$name-s" env FI_PROVIDER_PATH="$top/prov/uet/.libs" \
		FI_UET_IFACE=uet0 "$@" timeout $((secs * 4 + 30)) \
		"$top/fabtests/ft_bw" -p uet -S 64k -I "$n" -w "$win" \
		-f "$dir/port" -T $((secs * 3 + 20)) 10.252.253.2 \
		>"$dir/c.log" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	[ -n "$rpid" ] && kill -TERM "$rpid" 2>/dev/null
	wait
	[ "$cut" != 0 ] && "$0" heal "$name" "$cut"
	# the sender's timed goodput (MB/s column of its 64 KiB row)
	mbs=$(awk '$1 == "65536" { v = $5 } END { print v + 0 }' "$dir/c.log")
	gp_kbit=$(awk -v mbs="$mbs" 'BEGIN { printf "%.0f", mbs * 8 * 1000 }')
	awk -v l="$label" -v gp="$gp_kbit" -v cap="$cap" -v ref="$ref" \
	    -v ok="$crc/$src" \
	    'BEGIN {
		of = ref > 0 ? sprintf("%5.1f%%", 100 * gp / ref) : "     -"
		printf "%-38s %6.0f Mbit/s %5.1f%% of %5.0f Mbit/s %s  %s\n",
		    l, gp / 1000, 100 * gp / cap, cap / 1000, of,
		    ok == "0/0" ? "completed" : "FAILED (" ok ")" }'
	[ "$crc/$src" = 0/0 ] || { tail -n 5 "$dir/c.log" "$dir/s.log" >&2; }
	if [ -n "$rpid" ]; then
		awk '$1 == "rxrate" {
			r = $9 < 0 ? "never" : sprintf("%d ms", $9)
			printf "%38s receiver at 80%% of the rate left: %s " \
			    "after the cut (%.0f Mbit/s before, %.0f after)\n", \
			    "", r, $5 / 1e6, $7 / 1e6 }' "$dir/rx.log"
	fi
	rm -rf "$dir"
}

run() { # NAME
	name=$1
	paths=$(paths_of "$name")
	[ "$paths" -gt 0 ] || die "$name is not up"
	r=$(kbit "$(rate_of "$name")")
	full=$((r * paths))
	deg=$((r * (paths - 1) + r / 4))
	left=$((r * (paths - 1)))
	echo "ECMP over $paths paths of $(rate_of "$name"), ${secs}s transfers"
	echo "(goodput, its share of the rate left, its share of the goodput" \
	     "the paths left give one fixed port each)"
	bits=${ECMP_BITS:-5} erun=${ECMP_RUN:-4}
	g1=0
	pols="fixed"
	for lb in ${ECMP_LB:-single oblivious reps bitmap mixed}; do
		pols="$pols $lb"
	done
	for lb in $pols; do
		if [ "$lb" = fixed ]; then
			l="fixed port" e=FI_UET_ENTROPY_BITS=0 one=$r
		else
			l="$lb, $((1 << bits)) ports" e="FI_UET_LB=$lb" one=
		fi
		# what the paths give one fixed port each: all, path 1 at a
		# quarter, path 1 gone (g1: the fixed port's healthy goodput)
		if [ -n "$one" ]; then
			rf=0 rd=0 rl=0
		else
			rf=$((g1 * paths)) rd=$((g1 * (paths - 1) + g1 / 4))
			rl=$((g1 * (paths - 1)))
		fi
		# shellcheck disable=SC2086
		measure "$name" "healthy, $l" "${one:-$full}" 0 "$rf" \
			FI_UET_ENTROPY_BITS=$bits FI_UET_ENTROPY_RUN=$erun $e
		[ -n "$one" ] && g1=$gp_kbit
		"$0" degrade "$name" 1 "$((r / 4))kbit"
		# shellcheck disable=SC2086
		measure "$name" "path 1 at 1/4, $l" "${one:-$deg}" 0 "$rd" \
			FI_UET_ENTROPY_BITS=$bits FI_UET_ENTROPY_RUN=$erun $e
		"$0" heal "$name" 1
		# shellcheck disable=SC2086
		measure "$name" "path 1 cut midway, $l" "${one:-$left}" 1 "$rl" \
			FI_UET_ENTROPY_BITS=$bits FI_UET_ENTROPY_RUN=$erun $e
	done
}

[ $# -ge 2 ] || usage
cmd=$1 name=$2
shift 2
case $cmd in
up) up "$name" "${1:-4}" "${2:-200mbit}" ;;
down) down "$name" ;;
degrade) shape "$name" "$1" "$2" ;;
cut) nsx "$name-p$1" ip link set tor down ;;
heal)
	nsx "$name-p$1" ip link set tor up
	nsx "$name-p$1" ip route replace 10.253.0.2/32 via "10.255.$1.2"
	shape "$name" "$1" "$(rate_of "$name")" ;;
exec)
	side=$1
	shift
	nsx "$name-$side" "$@" ;;
run) secs=${1:-6} win=${ECMP_WINDOW:-64}; run "$name" ;;
*) usage ;;
esac
