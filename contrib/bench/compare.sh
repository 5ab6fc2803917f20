#!/bin/sh
# contrib/bench/compare.sh: uet next to libfabric's tcp and udp;ofi_rxd on
# loopback, or across a veth between two network namespaces, in one run:
# latency from Debian's fi_pingpong (average) and from pp_median.c beside
# this script (median), bandwidth and its CPU cost per message from our
# ft_bw, tagged bandwidth from ft_bw -m tagged, the ceiling of plain UDP
# sockets from udp_ceiling.c and their latency floor from udp_floor.c
# beside this script, and with FT_BIN the same from libfabric's own
# fabtests. See contrib/bench/README.md.
#
# usage: [FT_BIN=DIR] compare.sh [-b BUILDDIR] [-q] [-r REPS] [-n [-m MTUS]]
#   -b BUILDDIR  build directory holding fabtests/ft_bw and prov/uet/.libs
#                (default: $top_builddir, else the current directory)
#   -q           quick: one run per number, fewer iterations (noisier)
#   -r REPS      runs per number, the best one kept (default 2, -q 1):
#                more on a loaded host, where a preempted process spoils
#                a run's average
#   -n, --netns  not on loopback but across a plain veth between two
#                network namespaces (contrib/netns/testbed.sh; root):
#                servers in NAME-a, clients in NAME-b, tables per MTU
#   -m MTUS      the veth's MTUs, comma-separated (default 1500,9000);
#                implies -n
#   FT_BIN=DIR   also run libfabric's fabtests binaries found in DIR:
#                fi_rdm_pingpong (latency) and fi_rdm_tagged_bw (tagged
#                bandwidth); a binary DIR lacks is reported as skipped
set -u

builddir=${top_builddir:-.}
quick=false
want_reps=
netns=false
mtus=1500,9000
# getopts knows no long options: --netns is -n, --help -h.
for a do shift; case $a in --netns) a=-n ;; --help) a=-h ;; esac; set -- "$@" "$a"; done
while getopts b:qr:nm:h opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	q) quick=true ;;
	r) want_reps=$OPTARG ;;
	n) netns=true ;;
	m) netns=true; mtus=$OPTARG ;;
	*) sed -n '2,24p' "$0"; exit 2 ;;
	esac
done
case $want_reps in
'') ;;
*[!0-9]* | 0) echo "compare.sh: -r wants a positive number" >&2; exit 2 ;;
esac
builddir=$(cd "$builddir" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd) || exit 2
ftbw=$builddir/fabtests/ft_bw
if [ ! -x "$ftbw" ]; then
	echo "compare.sh: $ftbw not built: run 'make check' (or make fabtests/ft_bw) in the build directory, or pass -b BUILDDIR" >&2
	exit 2
fi
for t in fi_info fi_pingpong timeout awk; do
	command -v $t >/dev/null 2>&1 || { echo "compare.sh: $t not found" >&2; exit 2; }
done
# libfabric's fabtests, when asked for: whatever DIR lacks is skipped.
# shellcheck source=contrib/bench/ftbin.sh
. "$here/ftbin.sh"
ft_dir=$(ftbin_dir)

# The uet of this build, unless told otherwise (an installed uet is found
# by libfabric itself when the build has none).
if [ -z "${FI_PROVIDER_PATH:-}" ] && [ -d "$builddir/prov/uet/.libs" ]; then
	FI_PROVIDER_PATH=$builddir/prov/uet/.libs
	export FI_PROVIDER_PATH
fi

provs="uet tcp udp;ofi_rxd"
sizes="64 256 1024 4096 65536 1048576"
tmo=60
# Each number is the best of $reps runs (lowest latency, highest
# bandwidth): a loaded host or a retransmission timer can spoil one run.
# The runs go round by round, every provider once a round, so that a host
# that changes speed for a while (a VM whose CPUs are taken away) slows
# each provider alike instead of the one measured then.
if $quick; then
	reps=1 iters_small=1000 iters_64k=50 iters_1m=3 bw_iters=5
	med_iters=1000
else
	reps=2 iters_small=2000 iters_64k=100 iters_1m=5 bw_iters=10
	med_iters=5000
fi
med_sizes="64 256 1024 4096 65536"
# The tagged tables and the fabtests: the sizes of issue 12's table.
tag_sizes="64 4096 65536 1048576"
# fabtests: a pingpong's round trips per size (-I, after 10 untimed), and
# a bandwidth run's messages: ft_msgs up to ft_bytes (at least 4 windows).
if $quick; then
	ft_pp="1000 1000 100 10" ft_msgs=2000 ft_bytes=$((32 << 20))
else
	ft_pp="2000 2000 200 20" ft_msgs=4000 ft_bytes=$((64 << 20))
fi
# uet's datagrams on lo: its largest packet (UETP_PKT_MAX), IP and UDP
lo_mtu=$((16384 + 256 + 28))
ceil_mib=1024
$quick && ceil_mib=256
[ -n "$want_reps" ] && reps=$want_reps

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ft_compare.XXXXXX") || exit 1
# shellcheck source=contrib/bench/place.sh
. "$here/place.sh"
mtus=$(place_mtus compare.sh "$mtus") || exit 2
cleanup() {
	place_down
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# Where the servers (a) and the clients (b) run: here on lo, or in the two
# namespaces of a testbed made for this run (unique name, removed at exit).
place_up compare.sh cmp
# libfabric's fabtests (ftbin_pair): servers in a, clients in b.
# shellcheck disable=SC2034 # read by ftbin_pair
ftbin_srv=$srv ftbin_cli=$cli ftbin_a="on a" ftbin_b="on b"
# shellcheck disable=SC2034
ftbin_tmo=$tmo ftbin_tmp=$tmp

# One file per (place, provider, metric, size) holding one value per run;
# $where is the place being measured (lo, or the veth's MTU).
where=lo
key() { echo "$1" | tr -c 'A-Za-z0-9\n' _; }
put() { echo "$4" >>"$tmp/$where.$(key "$1").$2.$3"; }
get() { # PROV METRIC SIZE: the best value (highest for a *bw metric and
	# the UDP ceiling)
	f="$tmp/$where.$(key "$1").$2.$3"
	[ -s "$f" ] || { echo n/a; return; }
	case $2 in
	*bw | ceil) sort -g "$f" | tail -n 1 ;;
	*) sort -g "$f" | head -n 1 ;;
	esac
}

# Fixed-port servers (fi_pingpong, fabtests): ss runs in the servers'
# namespace.
# shellcheck source=contrib/port.sh
. "$here/../port.sh"
pick_port() { port_pick on a; }

# fi_pingpong PROV SIZE ITERS: prints the client's usec/xfer, or nothing.
# It takes a fixed port: pick a free one, wait for the server to listen,
# retry if someone else got the port first.
pingpong() {
	for _ in 1 2 3 4 5; do
		port=$(pick_port)
		on a timeout $tmo fi_pingpong -p "$1" -e rdm -B "$port" \
			-S "$2" -I "$3" >"$tmp/pp.server" 2>&1 &
		spid=$!
		up=false
		port_held "$spid" "$port" -t on a && { up=true; break; }
		wait "$spid"
	done
	$up || return
	on b timeout $tmo fi_pingpong -p "$1" -e rdm -P "$port" -S "$2" \
		-I "$3" "$srv" >"$tmp/pp.client" 2>&1
	crc=$?
	wait "$spid"
	[ $crc = 0 ] || return
	# bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
	awk '$1 ~ /^[0-9]/ { u = $7 } END { if (u != "") print u }' \
		"$tmp/pp.client"
}

# Latency: fi_pingpong times connection setup into the first size (lazy
# connect on the first message), so measure it with a 1-iteration run
# (each round its own) and take it out: lat = (2*I*u - T1) / (2*I).
latency() { # PROV
	u=$(pingpong "$1" 64 1)
	t1=$(awk -v u="$u" 'BEGIN { print u == "" ? 0 : 2 * u }')
	for s in $sizes; do
		if [ "$s" -le 4096 ]; then
			it=$iters_small
		elif [ "$s" -le 65536 ]; then
			it=$iters_64k
		else
			it=$iters_1m
		fi
		u=$(pingpong "$1" "$s" "$it")
		[ -n "$u" ] || continue
		put "$1" lat "$s" "$(awk -v u="$u" -v i="$it" -v t="$t1" '
			BEGIN {
				l = (2 * i * u - t) / (2 * i)
				if (l <= 0) l = u
				printf "%.2f", l
			}')"
	done
}

# The median one-way time over med_iters round trips of each size, from
# one pp_median pair (built here: it needs a C compiler and libfabric's
# headers; without them that table says n/a).
ppm=$tmp/pp_median
${CC:-cc} -O2 -o "$ppm" "$here/pp_median.c" -lfabric >"$tmp/ppm.log" 2>&1 ||
	ppm=

median() { # PROV
	[ -n "$ppm" ] || return
	list=$(echo "$med_sizes" | tr ' ' ,)
	d=$(mktemp -d "$tmp/pm.XXXXXX")
	on a timeout $tmo "$ppm" -p "$1" -d "$d" -S "$list" \
		-I $med_iters >"$d/server" 2>&1 &
	spid=$!
	on b timeout $tmo "$ppm" -p "$1" -d "$d" -S "$list" \
		-I $med_iters -c >"$d/client" 2>&1
	wait "$spid"
	# size median p10 p90 mean
	awk '$1 ~ /^[0-9]+$/ { print $1, $2 }' "$d/client" |
	while read -r s v; do
		put "$1" med "$s" "$v"
	done
}

# The raw limit: plain UDP moving a stream in datagrams of uet's size
# with one copy on each side (udp_ceiling.c beside this script, built
# here): sendmmsg batches, GSO trains of 16 (uet's entropy runs) and of
# 64 KB. What no transport over UDP sockets can beat on this host.
ucl=$tmp/udp_ceiling
${CC:-cc} -O2 -o "$ucl" "$here/udp_ceiling.c" >"$tmp/ucl.log" 2>&1 ||
	ucl=

# port_file FILE: wait up to 5 s for a server to write its port there.
port_file() {
	for _ in $(seq 1 50); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

ceiling() { # MTU
	[ -n "$ucl" ] || return
	for mode in mmsg gso16 gso; do
		case $mode in
		mmsg) g= t= ;;
		gso16) g=-g t="-t 16" ;;
		gso) g=-g t= ;;
		esac
		for _ in $(seq 1 $reps); do
			d=$(mktemp -d "$tmp/uc.XXXXXX")
			on a timeout $tmo "$ucl" -l $g -B "$srv" -f "$d/port" \
				>/dev/null 2>&1 &
			spid=$!
			port_file "$d/port" &&
				on b timeout $tmo "$ucl" $g $t -m "$1" \
					-n $ceil_mib "$srv" "$(cat "$d/port")" \
					>"$d/out" 2>&1
			wait "$spid"
			# mode mtu MB/s stalls
			awk '$1 ~ /^(gso|mmsg)$/ && $4 == 0 { print $3 }' \
				"$d/out" |
			while read -r v; do
				put udp ceil "$mode" "$v"
			done
		done
	done
}

# The latency floor: a plain UDP ping-pong in datagrams of uet's size,
# GSO trains read with GRO, both ends polling (udp_floor.c beside this
# script, built here), once a round like the providers: the median
# one-way time no transport over UDP sockets can beat on this host.
ufl=$tmp/udp_floor
${CC:-cc} -O2 -o "$ufl" "$here/udp_floor.c" >"$tmp/ufl.log" 2>&1 ||
	ufl=

floor() { # MTU
	[ -n "$ufl" ] || return
	d=$(mktemp -d "$tmp/uf.XXXXXX")
	on a timeout $tmo "$ufl" -l -m "$1" -B "$srv" -f "$d/port" \
		>/dev/null 2>&1 &
	spid=$!
	port_file "$d/port" &&
		on b timeout $tmo "$ufl" -m "$1" -I $med_iters \
			-S "$(echo "$med_sizes" | tr ' ' ,)" "$srv" \
			"$(cat "$d/port")" >"$d/out" 2>&1
	wait "$spid"
	# size median p10 p90
	awk '$1 ~ /^[0-9]+$/ { print $1, $2 }' "$d/out" |
	while read -r s v; do
		put udp floor "$s" "$v"
	done
}

bandwidth() { # PROV
	bandwidth_once "$1" bw "$sizes"
	bandwidth_once "$1" tbw "$tag_sizes" -m tagged
}

# bandwidth_once PROV METRIC SIZES [ARGS...]: one ft_bw pair (ARGS to both
# ends: -m tagged for fi_tsend/fi_trecv); its MB/s per size go in METRIC,
# its CPU per message in METRIC less "bw" plus "cpu" (bw: cpu).
bandwidth_once() {
	bw_p=$1 bw_m=$2
	list=$(echo "$3" | tr ' ' ,)
	shift 3
	d=$(mktemp -d "$tmp/bw.XXXXXX")
	on a timeout $tmo "$ftbw" -p "$bw_p" -s "$srv" -B "$srv" -f "$d/port" \
		-T 30 "$@" >"$d/server" 2>&1 &
	spid=$!
	on b timeout $tmo "$ftbw" -p "$bw_p" -s "$cli" -f "$d/port" -T 30 \
		"$@" -S "$list" -I $bw_iters -w 32 "$srv" >"$d/client" 2>&1
	wait "$spid"
	# bytes msgs window ms MB/s Kmsg/s
	awk '$1 ~ /^[0-9]+$/ { print $1, $5 }' "$d/client" |
	while read -r s v; do
		put "$bw_p" "$bw_m" "$s" "$v"
	done
	# "# cpu bytes client_us server_us": CPU per message, both sides
	awk '$1 == "#" && $2 == "cpu" { print $3, $4 + $5 }' "$d/client" |
	while read -r s v; do
		put "$bw_p" "${bw_m%bw}cpu" "$s" "$v"
	done
}

# fabtests NAME PROV SIZE ITERS [ARGS...]: one process pair of libfabric's
# fabtests binary NAME from FT_BIN (ftbin_pair), server in a, client in
# b; prints the client's "MB/sec usec/xfer", or nothing and a note.
fabtests() {
	ft_name=$1
	shift
	ftbin_pair "$ft_dir/$ft_name" "$@" 2>"$tmp/ft.why"
	[ -s "$tmp/ft.why" ] && sed "s/\$/ ($where)/" "$tmp/ft.why" >>"$tmp/ftnotes"
}

# fabtests' latency (usec/xfer of fi_rdm_pingpong counts both ways of a
# round trip: one-way time) and tagged bandwidth (window 64, 16 at 1 MiB
# so that a window stays within 16 MiB, as ft_bw's). Both keep their
# setup out of the timed loop (ft_sync, then 10 untimed iterations).
ft_latency() { # PROV
	[ -x "$ft_dir/fi_rdm_pingpong" ] || return
	fprov=$1
	# shellcheck disable=SC2086 # one count per size
	set -- $ft_pp
	for s in $tag_sizes; do
		it=$1
		shift
		v=$(fabtests fi_rdm_pingpong "$fprov" "$s" "$it")
		[ -n "$v" ] && put "$fprov" ftlat "$s" "${v#* }"
	done
}

ft_bandwidth() { # PROV
	[ -x "$ft_dir/fi_rdm_tagged_bw" ] || return
	for s in $tag_sizes; do
		w=$(ftbin_window "$s")
		it=$(ftbin_iters "$s" "$w" "$ft_msgs" "$ft_bytes")
		v=$(fabtests fi_rdm_tagged_bw "$1" "$s" "$it" -W $w)
		[ -n "$v" ] && put "$1" ftbw "$s" "${v% *}"
	done
}

start=$(date +%s)
# Asked where the servers run: the IFACE variables name that side's device.
avail=
for p in $provs; do
	if on a fi_info -p "$p" -t FI_EP_RDM >/dev/null 2>&1; then
		avail="$avail $p"
		echo "$p: $(on a fi_info -p "$p" -t FI_EP_RDM 2>/dev/null |
			awk '/provider:/ { print $2; exit }')" >>"$tmp/found"
	else
		echo "$p: not available (fi_info -p '$p' finds nothing)" >>"$tmp/found"
	fi
done

for where in $(place_names); do
	place_enter "$where"
	if $netns; then
		ceiling "$where"
	else
		ceiling $lo_mtu
	fi
	for round in $(seq 1 "$reps"); do
		if $netns; then
			floor "$where"
		else
			floor $lo_mtu
		fi
		for p in $avail; do
			echo "# measuring $p (round $round of $reps) ..." >&2
			latency "$p"
			median "$p"
			bandwidth "$p"
			if [ -n "$ft_dir" ]; then
				ft_latency "$p"
				ft_bandwidth "$p"
			fi
		done
	done
done

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"
		else printf "%.2f", a / b }'
}

table() { # METRIC TITLE [SIZES]
	echo
	echo "$2"
	printf "%10s %12s %12s %12s %10s %10s\n" size uet tcp 'udp;ofi_rxd' \
		uet/tcp uet/rxd
	for s in ${3:-$sizes}; do
		u=$(get uet "$1" "$s")
		t=$(get tcp "$1" "$s")
		r=$(get 'udp;ofi_rxd' "$1" "$s")
		printf "%10s %12s %12s %12s %10s %10s\n" "$s" "$u" "$t" "$r" \
			"$(ratio "$u" "$t")" "$(ratio "$u" "$r")"
	done
}

# The pp_median medians against the UDP floor.
floor_table() {
	echo
	echo "latency floor on $pname: usec one-way, median of $med_iters round trips of plain UDP in datagrams of uet's size (udp_floor.c), against the pp_median table (lower is better)"
	printf "%10s %12s %12s %12s %10s %10s\n" size floor uet tcp \
		uet/floor tcp/floor
	for s in $med_sizes; do
		f=$(get udp floor "$s")
		u=$(get uet med "$s")
		t=$(get tcp med "$s")
		printf "%10s %12s %12s %12s %10s %10s\n" "$s" "$f" "$u" "$t" \
			"$(ratio "$u" "$f")" "$(ratio "$t" "$f")"
	done
}

place=$(place_where servers clients)
echo "# $place, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(nproc 2>/dev/null || echo '?') CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
sed 's/^/# /' "$tmp/found"
for where in $(place_names); do
	pname=$(place_label "$where")
	table lat "latency on $pname: usec one-way, fi_pingpong -e rdm, connection setup taken out (lower is better)"
	table med "latency on $pname: usec one-way, median of $med_iters round trips, pp_median.c (lower is better)" "$med_sizes"
	[ -n "$ufl" ] && floor_table
	table bw "bandwidth on $pname: MB/s, ft_bw client -> server, window 32, data checked (higher is better)"
	table cpu "CPU per message on $pname: usec of user+system time of both ft_bw processes (all threads) over the timed windows, getrusage (lower is better; a poller spins, so this is at most twice the time per message)"
	table tbw "tagged bandwidth on $pname: MB/s, ft_bw -m tagged client -> server, window 32, data checked (higher is better)" "$tag_sizes"
	if [ -n "$ft_dir" ]; then
		[ -x "$ft_dir/fi_rdm_pingpong" ] &&
			table ftlat "latency on $pname: usec one-way, fabtests fi_rdm_pingpong -e rdm, average after 10 untimed round trips (lower is better)" "$tag_sizes"
		[ -x "$ft_dir/fi_rdm_tagged_bw" ] &&
			table ftbw "tagged bandwidth on $pname: MB/s (10^6 B/s), fabtests fi_rdm_tagged_bw -e rdm, client side, window 64 (16 at 1 MiB), data not checked (higher is better)" "$tag_sizes"
	fi
	cm=$(get udp ceil mmsg) c16=$(get udp ceil gso16) cg=$(get udp ceil gso)
	if [ -n "$ucl" ]; then
		echo "# UDP ceiling on $pname (udp_ceiling.c, $ceil_mib MiB in datagrams of uet's size, one copy each side), MB/s:"
		echo "#   sendmmsg $cm, GSO trains of 16 $c16, GSO trains of 64 KB $cg"
		echo "#   at 1 MiB uet is $(ratio "$(get uet bw 1048576)" "$c16") and tcp $(ratio "$(get tcp bw 1048576)" "$c16") of the trains of 16"
	fi
done
echo
echo "# best of $reps runs each, taken round by round; uet/tcp and uet/rxd divide the uet column by the other"
[ -n "$ppm" ] ||
	echo "# no median table: pp_median.c did not build: $(head -n 1 "$tmp/ppm.log")"
[ -n "$ucl" ] ||
	echo "# no UDP ceiling: udp_ceiling.c did not build: $(head -n 1 "$tmp/ucl.log")"
[ -n "$ufl" ] ||
	echo "# no UDP floor: udp_floor.c did not build: $(head -n 1 "$tmp/ufl.log")"
if [ -n "$ft_dir" ]; then
	for b in fi_rdm_pingpong fi_rdm_tagged_bw; do
		[ -x "$ft_dir/$b" ] ||
			echo "# FT_BIN: no $ft_dir/$b, skipped"
	done
	[ -s "$tmp/ftnotes" ] && sed 's/^/# fabtests: /' "$tmp/ftnotes"
fi
echo
echo "# $(( $(date +%s) - start )) s"
