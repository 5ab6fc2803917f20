#!/bin/sh
# contrib/bench/pp-cost.sh: instructions per ping-pong round trip through
# libfabric, FI_PROVIDER=uet on loopback, counted by valgrind's callgrind
# in the client of a pp_median pair (the server runs natively, so the
# client seldom polls dry): the provider, the engine, libfabric's calls
# and libc, kernel time excluded. Repeatable to 1% at 64 B and 2-3% at
# 4 KiB (the client's dry polls while it waits still vary), where a timed
# ping-pong on a shared host moves by tens of percent: the
# measure for work on the small-message path. Then the functions by their
# own instructions per round trip. Needs valgrind and a C compiler with
# libfabric's headers (Debian: valgrind, libfabric-dev).
#
# usage: pp-cost.sh [-b BUILDDIR] [-S SIZES] [-I ITERS] [-n TOP]
#   -b BUILDDIR  build directory holding prov/uet/.libs (default: build/
#                beside this checkout, else the current directory)
#   -S SIZES     message sizes, comma-separated (64,4096: below the
#                inject size an fi_inject, from it an fi_send waited for)
#   -I ITERS     timed round trips per size (5000; 100 more warm up)
#   -n TOP       functions listed by their own cost (20; 0: none)
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=contrib/bench/callgrind.sh
. "$top/contrib/bench/callgrind.sh"

builddir='' sizes=64,4096 iters=5000 ntop=20 warm=100
while getopts b:S:I:n:h o; do
	case $o in
	b) builddir=$OPTARG ;;
	S) sizes=$OPTARG ;;
	I) iters=$OPTARG ;;
	n) ntop=$OPTARG ;;
	*) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	   exit 2 ;;
	esac
done
for d in "$builddir" "$top/build" .; do
	if [ -n "$d" ] && [ -f "$d/prov/uet/.libs/libuet-fi.so" ]; then
		FI_PROVIDER_PATH=$(cd "$d/prov/uet/.libs" && pwd)
		break
	fi
done
if [ -z "${FI_PROVIDER_PATH:-}" ]; then
	echo "pp-cost.sh: no prov/uet/.libs/libuet-fi.so (build first, or -b BUILDDIR)" >&2
	exit 2
fi
export FI_PROVIDER_PATH
for t in valgrind callgrind_annotate timeout "${CC:-cc}"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "SKIP: pp-cost.sh: $t not found (Debian: valgrind, gcc)"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-cost.XXXXXX") || exit 1
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# Without inlining, so that run_size (one size's warm-up and timed round
# trips) is a function callgrind can count inside: pp_median's own part
# of a round trip is its loop and two clock reads.
if ! ${CC:-cc} -O2 -fno-inline -o "$tmp/pp" "$top/contrib/bench/pp_median.c" \
	-lfabric >"$tmp/cc.log" 2>&1; then
	echo "SKIP: pp-cost.sh: pp_median.c did not build: $(head -n 1 "$tmp/cc.log")"
	exit 77
fi

echo "# instructions per round trip in the client of a loopback ping-pong over"
echo "# FI_PROVIDER=uet ($iters round trips after $warm, pp_median.c; callgrind)"
printf '%8s %10s\n' size instr
for s in $(echo "$sizes" | tr , ' '); do
	rm -f "$tmp"/*.name
	timeout 300 "$tmp/pp" -p uet -d "$tmp" -S "$s" -I "$iters" -W "$warm" \
		-T 300 >"$tmp/server.out" 2>&1 &
	spid=$!
	if ! timeout 600 valgrind --tool=callgrind --toggle-collect=run_size \
		--callgrind-out-file="$tmp/cg.$s" "$tmp/pp" -p uet -d "$tmp" \
		-S "$s" -I "$iters" -W "$warm" -T 300 -c \
		>"$tmp/client.out" 2>"$tmp/client.err"; then
		echo "pp-cost.sh: the client failed at $s bytes:" >&2
		tail -n 5 "$tmp/client.err" "$tmp/server.out" >&2
		exit 1
	fi
	wait "$spid"
	spid=
	# The client's line: SIZE median p10 p90 mean; nothing else counts.
	if ! awk -v s="$s" '$1 == s { ok = 1 } END { exit !ok }' "$tmp/client.out"; then
		echo "pp-cost.sh: no result at $s bytes: $(head -n 1 "$tmp/client.out")" >&2
		exit 1
	fi
	cg_annotate "$tmp/cg.$s" --inclusive=yes >"$tmp/incl.$s"
	printf '%8s %10s\n' "$s" \
		"$(cg_per run_size $((iters + warm)) <"$tmp/incl.$s")"
done
[ "$ntop" -gt 0 ] 2>/dev/null || exit 0
for s in $(echo "$sizes" | tr , ' '); do
	echo "# $s bytes: the functions by their own instructions per round trip"
	cg_annotate "$tmp/cg.$s" | cg_top $((iters + warm)) "$ntop"
done
