#!/bin/sh
# contrib/bench/mpi.sh: NetPIPE over Open MPI (pml cm, mtl ofi), uet next
# to libfabric's tcp (and optionally udp;ofi_rxd), two ranks of one host,
# in one run: bandwidth and latency at a few sizes and their ratio to tcp.
# A benchmark, not a test: it is not in make check. It prints SKIP and
# exits 0 when Open MPI (mpirun) or NetPIPE (NPopenmpi) is not installed.
# See contrib/bench/README.md.
#
# usage: mpi.sh [-b BUILDDIR] [-i IFACE] [-r REPS] [-u MAXBYTES] [-x]
#   -b BUILDDIR  build directory holding prov/uet/.libs (default:
#                $top_builddir, else the current directory)
#   -i IFACE     the interface every provider uses (default lo); the
#                ranks still share the host, so another one's address
#                takes the kernel's loopback too (uet: FI_UET_HOST_PATH)
#   -r REPS      NetPIPE runs per provider, interleaved, the best number
#                per size kept (default 2)
#   -u MAXBYTES  largest message (default 8388608)
#   -x           also udp;ofi_rxd
set -u

builddir=${top_builddir:-.}
reps=2
max=8388608
provs="uet tcp"
iface=lo
while getopts b:i:r:u:xh opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	i) iface=$OPTARG ;;
	r) reps=$OPTARG ;;
	u) max=$OPTARG ;;
	x) provs="uet tcp udp;ofi_rxd" ;;
	*) sed -n '2,18p' "$0"; exit 2 ;;
	esac
done
for v in "$reps" "$max"; do
	case $v in
	'' | *[!0-9]* | 0) echo "mpi.sh: -r and -u want positive numbers" >&2; exit 2 ;;
	esac
done
for t in mpirun NPopenmpi; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "SKIP: mpi.sh: $t not found (Debian: openmpi-bin, netpipe-openmpi)"
		exit 0
	fi
done
for t in awk timeout; do
	command -v $t >/dev/null 2>&1 || { echo "mpi.sh: $t not found" >&2; exit 2; }
done
builddir=$(cd "$builddir" && pwd) || exit 2
if [ -z "${FI_PROVIDER_PATH:-}" ] && [ -d "$builddir/prov/uet/.libs" ]; then
	FI_PROVIDER_PATH=$builddir/prov/uet/.libs
fi
if [ -z "${FI_PROVIDER_PATH:-}" ]; then
	echo "mpi.sh: no prov/uet/.libs in $builddir: pass -b BUILDDIR or set FI_PROVIDER_PATH" >&2
	exit 2
fi
export FI_PROVIDER_PATH
# Everything on one interface.
FI_UET_IFACE=$iface FI_TCP_IFACE=$iface FI_UDP_IFACE=$iface
export FI_UET_IFACE FI_TCP_IFACE FI_UDP_IFACE

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi_bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
key() { echo "$1" | tr -c 'A-Za-z0-9\n' _; }
# Seconds of CPU (user + system) used by this shell's children so far,
# from the output of times, which must run in this shell (not in a
# command substitution) into $tmp/times just before.
cpu() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) {
	split($i, a, "m"); t += a[1] * 60 + a[2] } print t }' "$tmp/times"; }

# One NetPIPE run of provider $1 into $tmp/KEY.RUN.out. The ofi MTL leaves
# out tcp and udp by default: nothing is left out here, and the MTL's
# verbose output must name the provider, so that a run that fell back to
# another one is not reported under this name.
run() {
	k=$(key "$1")
	# shellcheck disable=SC2086
	timeout 900 mpirun $root --oversubscribe -np 2 \
		--mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_exclude none --mca mtl_ofi_verbose 1 \
		-x FI_PROVIDER="$1" -x FI_PROVIDER_PATH -x FI_UET_IFACE \
		-x FI_TCP_IFACE -x FI_UDP_IFACE \
		NPopenmpi -p 0 -u "$max" -o "$tmp/$k.$2.out" \
		>"$tmp/$k.$2.log" 2>&1
	rc=$?
	# tcp is layered: tcp;ofi_rxm.
	got=$(sed -n 's/.*mtl:ofi:prov: //p' "$tmp/$k.$2.log" | sort -u)
	case $got in
	"$1" | "$1;"*) ok=true ;;
	*) ok=false ;;
	esac
	if [ $rc != 0 ] || ! $ok; then
		echo "mpi.sh: $1 run $2 failed (exit $rc, provider '${got:-none}'):" >&2
		grep -v '^\[' "$tmp/$k.$2.log" | tail -5 >&2
		rm -f "$tmp/$k.$2.out"
		return 1
	fi
}

i=1
while [ $i -le "$reps" ]; do
	for p in $provs; do
		times >"$tmp/times"
		c0=$(cpu)
		t0=$(date +%s.%N)
		run "$p" $i
		t1=$(date +%s.%N)
		times >"$tmp/times"
		c1=$(cpu)
		echo "$t0 $t1 $c0 $c1" | awk '{ print $2 - $1, $4 - $3 }' \
			>>"$tmp/$(key "$p").cpu"
	done
	i=$((i + 1))
done

# The best of the runs per size: bandwidth (Mbit/s, column 2) and one-way
# time (s, column 3).
best() { # PROV SIZE bw|lat
	cat "$tmp/$(key "$1")".*.out 2>/dev/null | awk -v s="$2" -v w="$3" '
		$1 == s { if (w == "bw") { if ($2 > b) b = $2 }
			  else if (b == "" || $3 < b) b = $3 }
		END { if (b == "") print "n/a"
		      else if (w == "bw") printf "%.3f\n", b / 1000
		      else printf "%.2f\n", b * 1e6 }'
}
ratio() { echo "$1 $2" | awk '$1 + 0 > 0 && $2 + 0 > 0 { printf "%.2f", $1 / $2; next } { printf "n/a" }'; }

sizes=
for s in 1 64 1024 4096 16384 65536 262144 1048576 4194304 8388608; do
	[ "$s" -le "$max" ] && sizes="$sizes $s"
done
hdr() {
	printf '%10s' size
	for p in $provs; do printf ' %12s' "$p"; done
	printf ' %9s\n' uet/tcp
}
echo "NetPIPE over Open MPI (pml cm, mtl ofi), 2 ranks on $iface, best of $reps:"
echo "bandwidth, Gbit/s (higher is better)"
hdr
for s in $sizes; do
	printf '%10s' "$s"
	for p in $provs; do printf ' %12s' "$(best "$p" "$s" bw)"; done
	printf ' %9s\n' "$(ratio "$(best uet "$s" bw)" "$(best tcp "$s" bw)")"
done
echo "latency, usec one-way (lower is better)"
hdr
for s in $sizes; do
	printf '%10s' "$s"
	for p in $provs; do printf ' %12s' "$(best "$p" "$s" lat)"; done
	printf ' %9s\n' "$(ratio "$(best uet "$s" lat)" "$(best tcp "$s" lat)")"
done
echo "peak, Gbit/s, and wall / CPU seconds per run (both ranks, user + system)"
for p in $provs; do
	peak=$(cat "$tmp/$(key "$p")".*.out 2>/dev/null |
		awk '$2 > b { b = $2 } END { if (b == "") print "n/a"; else printf "%.2f", b / 1000 }')
	awk -v p="$p" -v pk="$peak" '{ w += $1; c += $2; n++ }
		END { printf "%12s  peak %8s  wall %6.1f s  cpu %6.1f s\n", p, pk, w / n, c / n }' \
		"$tmp/$(key "$p").cpu"
done
