#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/netns/run-impaired.sh: the fabtests between two network
# namespaces across a link that loses, reorders and duplicates packets
# (testbed.sh), so a reliable provider must really recover.
#
#   FT_PROVIDER  provider to test (default uet, loaded from
#                $top_builddir/prov/uet/.libs unless FI_PROVIDER_PATH is set)
#   FT_NETEM     impairment, netem(8) words (default below; none: a clean link)
#   FT_TIMEOUT   seconds allowed to one program (default 60)
#   FT_BUDGET    seconds for the whole run (default 170): a program gets
#                at most what is left of it
#   FT_BW_SIZES  ft_bw message sizes (default 64,4k,64k,1m)
#   FT_PP_SIZES  ft_pingpong msg sizes (default 1,64,4k,64k,1m)
#   FT_CASES     the runs to do (default all), out of: pingpong
#                pingpong-tagged corrupt bw bw-tagged tagged alltoall
#                alltoall-tagged
#   FT_TAGGED_XFAIL  ft_tagged cases known to fail (default as fabtests/run.sh)
#   FT_VERBOSE=1 print every log, not only those of failures
#   TESTBED_IMPAIR  netem, relay or auto (testbed.sh)
#
# Server in NAME-a (10.250.0.1), client in NAME-b (10.250.0.2); the
# all-to-all puts half of its ranks on each side. Each program runs
# under timeout(1). With FI_UET_STATS=1 (set here) uet prints its
# counters when an endpoint closes; they are summed when present.
#
# Exit: 0 all passed, 1 something failed, 77 SKIP (not root, no network
# namespaces, no way to impair the link, provider not available).
set -u

prov=${FT_PROVIDER:-uet}
netem=${FT_NETEM:-loss 5% reorder 25% 50% duplicate 1% delay 1ms}
tmo=${FT_TIMEOUT:-60}
budget=${FT_BUDGET:-170}
bw_sizes=${FT_BW_SIZES:-64,4k,64k,1m}
pp_sizes=${FT_PP_SIZES:-1,64,4k,64k,1m}
verbose=${FT_VERBOSE:-0}
cases=${FT_CASES:-all}
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
. "$here/../test-lock.sh"
uet_test_lock shared
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
bindir=$top_builddir/fabtests
tb=$here/testbed.sh
dev=tb0

skip() {
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null 2>&1 || skip "the iproute2 'ip' command is not installed"
ip netns list >/dev/null 2>&1 || skip "'ip netns' does not work here"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) not found"

if [ "$prov" = uet ] && [ -z "${FI_PROVIDER_PATH:-}" ]; then
	FI_PROVIDER_PATH=$top_builddir/prov/uet/.libs
	export FI_PROVIDER_PATH
fi
command -v fi_info >/dev/null 2>&1 ||
	skip "fi_info not found (Debian package libfabric-bin)"
. "$top_srcdir/contrib/tool-env.sh"
# (uet_tool_env needs FI_PROVIDER_PATH, which another provider may not set)
timeout 60 env ${FI_PROVIDER_PATH:+$(uet_tool_env)} \
	fi_info -p "$prov" -t FI_EP_RDM >/dev/null 2>&1 ||
	skip "provider '$prov' not available: 'fi_info -p $prov -t FI_EP_RDM'" \
	     "found nothing${FI_PROVIDER_PATH:+ (FI_PROVIDER_PATH=$FI_PROVIDER_PATH)}"
for p in ft_pingpong ft_bw ft_tagged ft_alltoall; do
	if [ ! -x "$bindir/$p" ]; then
		echo "FAIL: $bindir/$p not built (make check builds it)"
		exit 1
	fi
done

# The endpoints live on tb0 of their namespace.
FI_TCP_IFACE=$dev FI_UDP_IFACE=$dev FI_UET_IFACE=$dev FI_UET_STATS=1
export FI_TCP_IFACE FI_UDP_IFACE FI_UET_IFACE FI_UET_STATS

case $prov in
tcp*) xfail_default=trunc_expected ;;
udp*) xfail_default=trunc_expected,trunc_unexpected ;;
*) xfail_default= ;;
esac
xfail=${FT_TAGGED_XFAIL-$xfail_default}

name=ftimp$$x$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ft_impaired.XXXXXX") || exit 1
cleanup() {
	"$tb" down "$name" >/dev/null 2>&1	# idempotent
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# A run lasts minutes at most: the relay, if any, must not outlive us long.
TESTBED_MAX_SECONDS=$((budget + 120))
export TESTBED_MAX_SECONDS
words=$netem
[ "$netem" = none ] && words=
set -f	# split the netem words, but "5%" and friends are never patterns
# shellcheck disable=SC2086
"$tb" up "$name" $words >"$tmp/up.log" 2>&1
rc=$?
set +f
if [ $rc = 77 ]; then
	sed 's/^testbed: //' "$tmp/up.log"
	exit 77
elif [ $rc != 0 ]; then
	echo "FAIL: testbed.sh up $name $netem"
	sed 's/^/    /' "$tmp/up.log"
	exit 1
fi
A=$("$tb" addr "$name" a)
B=$("$tb" addr "$name" b)

npass=0
nfail=0
start=$(date +%s)

# Seconds for the next program: FT_TIMEOUT, or what the budget has left.
ptmo() {
	left=$((budget - ($(date +%s) - start)))
	t=$tmo
	[ "$left" -lt "$t" ] && t=$left
	echo "$t"
}

# Link counters summed over both directions:
# "packets dropped duplicated reordered queue-losses", -1 for what the
# link does not count (netem counts no duplicates nor reordering).
link_counts() {
	"$tb" stats "$name" 2>/dev/null | awk '
		{ for (i = 2; i < NF; i += 2)
			if ($(i + 1) ~ /^[0-9]+$/) { v[$i] += $(i + 1); n++ } }
		END { if (!n) { print "-"; exit }	# a clean link
		      printf "%d %d %d %d %d\n", v["in"] + v["sent"],
		      v["dropped"],
		      ("duplicated" in v) ? v["duplicated"] : -1,
		      ("reordered" in v) ? v["reordered"] : -1,
		      v["overflow"] + v["refused"] }'
}

link_delta() { # BEFORE AFTER
	[ "$1" = - ] && return
	echo "$1 $2" | awk '{
		printf "link: %d packets, %d dropped", $6 - $1, $7 - $2
		if ($3 >= 0)
			printf ", %d duplicated", $8 - $3
		if ($4 >= 0)
			printf ", %d reordered", $9 - $4
		if ($10 - $5)
			printf ", %d lost to full queues", $10 - $5
		printf "\n" }'
}

# Sum the "uet stats NAME: key value ..." lines of the provider.
uet_stats() { # LOGS...
	cat "$@" | awk '
		/^uet stats / {
			n++
			sub(/^uet stats [^ ]*: /, "")
			for (i = 1; i < NF; i += 2) v[$i] += $(i + 1)
		}
		END {
			if (!n)
				exit
			printf "uet stats, %d endpoints:", n
			split("tx_pkts rx_pkts retx_rto retx_nack retx_sack " \
			      "retx_tlp nacks_tx " \
			      "sack_gaps dup_rx drop_psn pdc_failed", k, " ")
			for (i = 1; i in k; i++)
				printf " %s %d", k[i], v[k[i]]
			printf "\n"
		}'
}

# Messages checked, read off the client's table (or the ranks' logs).
verified() { # KIND DIR
	case $1 in
	ft_pingpong)
		# "bytes iters usec MB/s": each iteration checks a ping and a pong
		awk 'NF == 4 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
			m += 2 * $2; s++ }
			END { printf "%d messages verified (%d sizes)\n", m, s }' \
			"$2/client.log" ;;
	ft_bw)
		awk 'NF == 6 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
			m += $2; s++; b += $1 * $2 }
			END { printf "%d messages verified (%d sizes, %.1f MB)\n",
			      m, s, b / 1e6 }' "$2/client.log" ;;
	ft_tagged)
		sed -n 's/^# \([0-9]* passed.*\)/cases: \1/p' "$2/client.log" ;;
	ft_alltoall)
		cat "$2"/rank*.log | sed -n 's/.*received \([0-9]*\);.*/\1/p' |
			awk '{ m += $1; r++ }
			END { printf "%d messages verified by %d ranks\n", m, r }' ;;
	esac
}

result() { # NAME STATUS [T0]
	if [ "$2" = PASS ]; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
	fi
	echo "$2: $1${3:+ ($(($(date +%s) - $3)) s)}"
}

details() { # DIR PROG STATUS EXPECT: counts, and logs when they matter
	if [ "$3" = PASS ] && [ "$4" = ok ]; then
		verified "$2" "$1" | sed 's/^/    /'
	fi
	if [ "$4" = fail ]; then
		grep -h "corrupting\|mismatch\|bad data" "$1"/*.log |
			sed 's/^/    /'
	fi
	link_delta "$(cat "$1/link.before")" "$(cat "$1/link.after")" |
		sed 's/^/    /'
	uet_stats "$1"/*.log | sed 's/^/    /'
	if [ "$3" != PASS ] || [ "$verbose" = 1 ]; then
		for f in "$1"/*.log; do
			echo "    --- $(basename "$f")"
			sed 's/^/        /' "$f"
		done
	fi
}

# run_pair NAME EXPECT PROG ARGS...: server in a, client in b. EXPECT is
# ok, or fail: then both must exit non-zero, and not by timeout.
run_pair() {
	pname=$1
	expect=$2
	prog=$3
	shift 3
	d=$(mktemp -d "$tmp/pair.XXXXXX")
	t=$(ptmo)
	if [ "$t" -lt 10 ]; then
		result "$pname" "FAIL (not run: the ${budget} s budget is spent)"
		return
	fi
	link_counts >"$d/link.before"
	t0=$(date +%s)
	timeout -k 5 "$t" "$tb" exec "$name" a "$bindir/$prog" -p "$prov" \
		-s "$A" -B "$A" -f "$d/port" -T $((t - 5)) "$@" \
		>"$d/server.log" 2>&1 &
	spid=$!
	timeout -k 5 "$t" "$tb" exec "$name" b "$bindir/$prog" -p "$prov" \
		-s "$B" -f "$d/port" -T $((t - 5)) "$@" "$A" \
		>"$d/client.log" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	link_counts >"$d/link.after"
	if [ "$expect" = ok ] && [ $crc = 0 ] && [ $src = 0 ]; then
		st=PASS
	elif [ "$expect" = fail ] && [ $crc != 0 ] && [ $src != 0 ] &&
	     [ $crc != 124 ] && [ $src != 124 ]; then
		st=PASS
	else
		st="FAIL (server exit $src, client exit $crc; 124 = timeout)"
	fi
	result "$pname" "$st" "$t0"
	details "$d" "$prog" "$st" "$expect"
}

# run_a2a NAME NPROCS ARGS...: ranks 0..N/2-1 in a, the rest in b; they
# meet through a directory, which both namespaces see.
run_a2a() {
	pname=$1
	n=$2
	shift 2
	d=$(mktemp -d "$tmp/a2a.XXXXXX")
	mkdir "$d/dir"
	t=$(ptmo)
	if [ "$t" -lt 10 ]; then
		result "$pname" "FAIL (not run: the ${budget} s budget is spent)"
		return
	fi
	link_counts >"$d/link.before"
	t0=$(date +%s)
	pids=
	r=0
	while [ $r -lt "$n" ]; do
		if [ $r -lt $((n / 2)) ]; then s=a; ad=$A; else s=b; ad=$B; fi
		timeout -k 5 "$t" "$tb" exec "$name" $s "$bindir/ft_alltoall" \
			-p "$prov" -s "$ad" -n "$n" -r $r -d "$d/dir" \
			-T $((t - 5)) -v "$@" >"$d/rank$r.log" 2>&1 &
		pids="$pids $!"
		r=$((r + 1))
	done
	bad=
	r=0
	for p in $pids; do
		wait "$p"
		rc=$?
		[ $rc = 0 ] || bad="$bad rank $r exit $rc;"
		r=$((r + 1))
	done
	link_counts >"$d/link.after"
	if [ -z "$bad" ]; then
		st=PASS
	else
		st="FAIL (${bad%;}; 124 = timeout)"
	fi
	result "$pname" "$st" "$t0"
	details "$d" ft_alltoall "$st" ok
}

# want CASE: is CASE one of FT_CASES?
want() {
	[ "$cases" = all ] && return 0
	case " $(echo "$cases" | tr ',' ' ') " in *" $1 "*) return 0 ;; esac
	return 1
}

echo "# fabtests across an impaired link, provider '$prov'"
sed 's/^/# /' "$tmp/up.log"

want pingpong && run_pair "ft_pingpong msg, sizes $pp_sizes" ok \
	ft_pingpong -S "$pp_sizes" -I 50
want pingpong-tagged && run_pair "ft_pingpong tagged" ok ft_pingpong \
	-m tagged -S 1,4k,256k -I 20
want corrupt && run_pair "ft_pingpong detects corruption (-Z)" fail \
	ft_pingpong -S 64 -I 20 -Z 15
want bw && run_pair "ft_bw msg" ok ft_bw -S "$bw_sizes" -I 3 -w 16
want bw-tagged && run_pair "ft_bw tagged" ok ft_bw -m tagged -S 256,16k \
	-I 3 -w 32
want tagged && run_pair "ft_tagged" ok ft_tagged ${xfail:+-x "$xfail"}
want alltoall && run_a2a "ft_alltoall 4 ranks over 2 hosts, msg" 4 \
	-M 300 -x 16k
want alltoall-tagged && run_a2a "ft_alltoall 4 ranks over 2 hosts, tagged" \
	4 -M 100 -x 64k -m tagged

# What the link did over the whole run, as its own counters say.
"$tb" stats "$name" 2>/dev/null | sed 's/^/# link /'
if "$tb" list | grep -qx "$name netem"; then
	for s in a b; do
		echo "# tc -s qdisc show dev $dev, in $name-$s:"
		"$tb" exec "$name" $s tc -s qdisc show dev "$dev" |
			sed 's/^/#   /'
	done
fi

echo "# impaired link ($netem), provider '$prov':" \
     "$npass passed, $nfail failed, $(($(date +%s) - start)) s"
[ $nfail = 0 ]
