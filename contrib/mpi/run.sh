#!/bin/sh
# contrib/mpi/run.sh: Open MPI over uet (pml cm, mtl ofi, no other
# transport allowed) runs check.c beside this script: point-to-point
# around uet's size limits, all-pairs nonblocking traffic, wildcards and
# probes, ordering, synchronous sends, a cancelled receive, truncation,
# collectives and one-sided puts and gets, every byte checked. Each run:
#
#   2 and 4 ranks                   the defaults
#   2 ranks, FI_UET_CC=rccc         receiver credit (an MPI barrier once
#   2 ranks, FI_UET_CC=nscc+rccc    hung there: uet/ses/fep_test.c)
#   3 ranks, FI_UET_IMPAIR          2% drops, 1% duplicates, 5% reordered
#   3 ranks, rendezvous from 64 KiB
#
# Needs mpicc and mpirun (Debian: openmpi-bin, libopenmpi-dev); SKIP (77)
# without them. Environment (AM_TESTS_ENVIRONMENT): top_builddir,
# top_srcdir. MPI_CHECK_NP="2 4" overrides the default runs' rank counts.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}

for t in mpicc mpirun; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "SKIP: no $t (Debian: openmpi-bin libopenmpi-dev)"
		exit 77
	fi
done
libs=$top_builddir/prov/uet/.libs
if [ ! -e "$libs/libuet-fi.so" ]; then
	echo "ERROR: $libs/libuet-fi.so not built"
	exit 99
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/uet-mpi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

if ! mpicc -O2 -Wall -Wextra -Werror -o "$tmp/check" \
	"$top_srcdir/contrib/mpi/check.c" 2>"$tmp/cc.err"; then
	cat "$tmp/cc.err"
	echo "ERROR: mpicc could not build check.c"
	exit 99
fi

# A sanitizer build's provider loads into uninstrumented ranks only with
# the runtimes preloaded (Open MPI's own leaks are not ours to report).
san=$(ldd "$libs/libuet-fi.so" 2>/dev/null |
	awk '/libasan|libubsan/ { printf "%s%s", sep, $3; sep = ":" }')
asan=${ASAN_OPTIONS:-}
[ -n "$san" ] && asan="${asan:+$asan:}detect_leaks=0"

root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root

# A run of np ranks with the extra environment "$@" (NAME=VALUE each):
# prints the result line, true when every rank's checks passed. Ranks
# left behind by a hang are killed with their mpirun.
fail=0
run() {
	np=$1
	shift
	what="$np ranks${*:+, $*}"
	xs=
	for e in "$@"; do
		xs="$xs -x $e"
	done
	[ -n "$san" ] && xs="$xs -x LD_PRELOAD=$san -x ASAN_OPTIONS=$asan"
	start=$(date +%s)
	# shellcheck disable=SC2086 # xs is a list of options
	FI_PROVIDER_PATH=$libs FI_UET_IFACE=lo \
	timeout -k 5 180 mpirun $root --oversubscribe \
		-np "$np" --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include uet --mca btl self \
		--mca osc pt2pt -x FI_PROVIDER_PATH -x FI_UET_IFACE $xs \
		"$tmp/check" >"$tmp/out" 2>&1
	rc=$?
	pkill -KILL -f "^$tmp/check" 2>/dev/null
	took=$(( $(date +%s) - start ))
	if [ "$rc" -eq 0 ] && grep -q "^check: ok" "$tmp/out"; then
		echo "PASS: $what: $(grep '^check:' "$tmp/out") (${took} s)"
		return 0
	fi
	echo "FAIL: $what: exit $rc after ${took} s"
	tail -n 30 "$tmp/out"
	fail=1
	return 1
}

for np in ${MPI_CHECK_NP:-2 4}; do
	run "$np"
done
run 2 FI_UET_CC=rccc
run 2 FI_UET_CC=nscc+rccc
run 3 FI_UET_IMPAIR=drop=0.02,dup=0.01,reorder=0.05,seed=3
run 3 FI_UET_RNDV_THRESHOLD=65536
exit $fail
