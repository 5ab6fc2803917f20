#!/bin/sh
# contrib/bench/compare-rma.sh: RMA write and read bandwidth of uet next to
# libfabric's tcp and udp;ofi_rxd on loopback, or across a veth between two
# network namespaces, from our ft_rma, with the ratios uet/tcp and
# uet/rxd, and the CPU each message cost both sides. Every message is
# checked by ft_rma. With FT_BIN, the same from libfabric's own fabtests
# (fi_rma_bw -e rdm).
#
# usage: [FT_BIN=DIR] compare-rma.sh [-b BUILDDIR] [-q] [-n [-m MTUS]]
#   -b BUILDDIR  build directory holding fabtests/ft_rma and prov/uet/.libs
#                (default: $top_builddir, else the current directory)
#   -q           quick: one run per number, fewer iterations (noisier)
#   -n, --netns  across a plain veth between two network namespaces
#                (contrib/netns/testbed.sh; root): targets in NAME-a,
#                initiators in NAME-b, tables per MTU
#   -m MTUS      the veth's MTUs, comma-separated (default 1500,9000);
#                implies -n
#   FT_BIN=DIR   also run libfabric's fi_rma_bw from DIR, -o write and
#                -o read (skipped if DIR lacks it)
# A provider that does not advertise FI_RMA is reported as such.
set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
builddir=${top_builddir:-.}
quick=false
netns=false
mtus=1500,9000
# getopts knows no long options: --netns is -n, --help -h.
for a do shift; case $a in --netns) a=-n ;; --help) a=-h ;; esac; set -- "$@" "$a"; done
while getopts b:qnm:h opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	q) quick=true ;;
	n) netns=true ;;
	m) netns=true; mtus=$OPTARG ;;
	*) sed -n '2,21p' "$0"; exit 2 ;;
	esac
done
builddir=$(cd "$builddir" && pwd) || exit 2
ftrma=$builddir/fabtests/ft_rma
if [ ! -x "$ftrma" ]; then
	echo "compare-rma.sh: $ftrma not built: run 'make check' (or make fabtests/ft_rma) in the build directory, or pass -b BUILDDIR" >&2
	exit 2
fi
for t in fi_info timeout awk; do
	command -v $t >/dev/null 2>&1 || { echo "compare-rma.sh: $t not found" >&2; exit 2; }
done
# shellcheck source=contrib/bench/ftbin.sh
. "$here/ftbin.sh"
ft_dir=$(ftbin_dir)
ftrmabw=$ft_dir/fi_rma_bw
if [ -z "${FI_PROVIDER_PATH:-}" ] && [ -d "$builddir/prov/uet/.libs" ]; then
	FI_PROVIDER_PATH=$builddir/prov/uet/.libs
	export FI_PROVIDER_PATH
fi

provs="uet tcp udp;ofi_rxd"
sizes=4096,65536,1048576,16777216
if $quick; then
	reps=1 iters=3
else
	reps=2 iters=10
fi
# fi_rma_bw: the sizes of issue 12's table, each in its own process pair,
# ft_msgs operations up to ft_bytes (at least 4 windows of 64, 16 at 1 MiB)
ft_sizes="64 4096 65536 1048576"
if $quick; then
	ft_msgs=2000 ft_bytes=$((32 << 20))
else
	ft_msgs=4000 ft_bytes=$((64 << 20))
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ft_compare_rma.XXXXXX") || exit 1
# shellcheck source=contrib/bench/place.sh
. "$here/place.sh"
mtus=$(place_mtus compare-rma.sh "$mtus") || exit 2
cleanup() {
	place_down
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# Where the targets (a) and the initiators (b) run: here on lo, or in the
# two namespaces of a testbed made for this run (compare.sh's way).
place_up compare-rma.sh rma
# libfabric's fi_rma_bw (ftbin_pair): servers in a, clients in b.
# shellcheck disable=SC2034 # read by ftbin_pair
ftbin_srv=$srv ftbin_cli=$cli ftbin_a="on a" ftbin_b="on b" ftbin_tmo=120
# shellcheck disable=SC2034
ftbin_tmp=$tmp
# One file per (place, provider, op) holding "bytes value" per run; $where
# is the place being measured (lo, or the veth's MTU).
where=lo
key() { echo "$where.$1" | tr -c 'A-Za-z0-9\n' _; }

# run PROV OP: the ft_rma bw table rows "bytes MB/s" of the best run.
run() {
	d=$(mktemp -d "$tmp/run.XXXXXX")
	on a timeout 120 "$ftrma" -p "$1" -s "$srv" -B "$srv" -f "$d/port" \
		-T 30 -o "$2" -S "$sizes" -I "$iters" -w 32 \
		>"$d/server.log" 2>&1 &
	spid=$!
	on b timeout 120 "$ftrma" -p "$1" -s "$cli" -f "$d/port" -T 30 \
		-o "$2" -S "$sizes" -I "$iters" -w 32 "$srv" \
		>"$d/client.log" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [ $crc != 0 ] || [ $src != 0 ]; then
		echo "# $1 $2: failed:" >&2
		sed 's/^/#   /' "$d/client.log" "$d/server.log" >&2
		return
	fi
	awk 'NF == 6 && $1 ~ /^[0-9]+$/ { print $1, $5 }' \
		"$d/client.log" >>"$tmp/$(key "$1").$2"
	# "# cpu bytes client_us server_us": CPU per message
	awk '$1 == "#" && $2 == "cpu" { print $3, $4 + $5 }' \
		"$d/client.log" >>"$tmp/$(key "$1").$2.cpu"
}

# shellcheck source=contrib/port.sh
. "$here/../port.sh"

# ftrun PROV OP SIZE ITERS WINDOW: one fi_rma_bw pair (ftbin_pair); both
# sides read or write (fi_rma_bw's tests are bidirectional); the
# client's MB/sec is kept.
ftrun() {
	v=$(ftbin_pair "$ftrmabw" "$1" "$3" "$4" -o "$2" -W "$5" \
		2>"$tmp/ft.why")
	[ -s "$tmp/ft.why" ] && sed 's/^/# /' "$tmp/ft.why" >&2
	[ -n "$v" ] && echo "$3 ${v% *}" >>"$tmp/$(key "$1").ft$2"
}

ft_rma() { # PROV OP
	for s in $ft_sizes; do
		w=$(ftbin_window "$s")
		it=$(ftbin_iters "$s" "$w" "$ft_msgs" "$ft_bytes")
		ftrun "$1" "$2" "$s" "$it" "$w"
	done
}

# The numbers of a loaded host (more runnable processes than CPUs) are not
# those of an idle one: say which this was, before and after.
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null; }
load0=$(load)
avail=
for p in $provs; do
	# Where the targets run: across the veth, tb0 is there only.
	if ! on a fi_info -p "$p" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
		echo "# $p: FI_RMA not advertised, skipped"
		continue
	fi
	avail="$avail $p"
done
# Round by round, every provider once a round: a host that slows down
# for a while slows each alike (compare.sh).
for where in $(place_names); do
	place_enter "$where"
	for _ in $(seq 1 "$reps"); do
		for p in $avail; do
			for op in write read; do
				run "$p" "$op"
				[ -x "$ftrmabw" ] && ft_rma "$p" "$op"
			done
		done
	done
done

best() { # PROV OP SIZE
	f="$tmp/$(key "$1").$2"
	[ -f "$f" ] || { echo "-"; return; }
	awk -v s="$3" '$1 == s && $2 > m { m = $2 } END {
		if (m) printf "%.1f\n", m; else print "-" }' "$f"
}
lowest() { # PROV OP SIZE: the least CPU per message of the runs
	f="$tmp/$(key "$1").$2.cpu"
	[ -f "$f" ] || { echo "-"; return; }
	awk -v s="$3" '$1 == s && (m == "" || $2 < m) { m = $2 } END {
		if (m != "") printf "%.2f\n", m; else print "-" }' "$f"
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b == 0) print "-";
		else printf "%.2f\n", a / b }'
}

place=$(place_where targets initiators)
echo "# $place, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(nproc 2>/dev/null || echo '?') CPUs, load $load0 before, $(load) after"
table() { # best|lowest TITLE [OPS [SIZES]]: one row per op and size
	echo "$2"
	printf '%-6s %10s %10s %10s %10s %9s %9s\n' op bytes uet tcp rxd \
		uet/tcp uet/rxd
	for op in ${3:-write read}; do
		for s in ${4:-$(echo "$sizes" | tr , ' ')}; do
			u=$($1 uet "$op" "$s")
			t=$($1 tcp "$op" "$s")
			r=$($1 "udp;ofi_rxd" "$op" "$s")
			printf '%-6s %10s %10s %10s %10s %9s %9s\n' "${op#ft}" "$s" \
				"$u" "$t" "$r" "$(ratio "$u" "$t")" \
				"$(ratio "$u" "$r")"
		done
	done
}
for where in $(place_names); do
	pname=$(place_label "$where")
	table best "# RMA bandwidth on $pname, MB/s (best of $reps), ft_rma -w 32"
	table lowest "# CPU per message on $pname, usec: user+system of both ft_rma processes (all threads), getrusage; the read target's includes its warm-up window (lower is better)"
	if [ -n "$ft_dir" ] && [ -x "$ftrmabw" ]; then
		table best "# RMA bandwidth on $pname, MB/s (10^6 B/s, best of $reps), fabtests fi_rma_bw -e rdm, both sides at once, client side, window 64 (16 at 1 MiB), data not checked" "ftwrite ftread" "$ft_sizes"
	fi
done
if [ -n "$ft_dir" ] && [ ! -x "$ftrmabw" ]; then
	echo "# FT_BIN: no $ftrmabw, skipped"
fi
