#!/bin/sh
# contrib/bench/tss-ip.sh: what transport security and raw IP cost. uet
# runs side by side as udp, udp with TSS, and (across two network
# namespaces) raw IP and raw IP with TSS; bandwidth from ft_bw and
# one-way latency from ft_pingpong, every message checked, with the
# ratio of each to plain udp.
#
# usage: tss-ip.sh [-b BUILDDIR] [-r REPS] [-n]
#   -b BUILDDIR  holds fabtests/ft_bw, ft_pingpong and prov/uet/.libs
#                (default: $top_builddir, else the current directory)
#   -r REPS      runs per number, the best kept (3)
#   -n           across a veth between two namespaces (root), which
#                adds the raw IP rows; default: loopback, udp rows only
#                (raw IP needs one address per endpoint)
#
# TSS runs use a fresh direct-mode key file (mode 600) made for the run.
set -u

builddir=${top_builddir:-.}
reps=3
netns=false
while getopts b:r:nh opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	r) reps=$OPTARG ;;
	n) netns=true ;;
	*) sed -n '2,15p' "$0"; exit 2 ;;
	esac
done
builddir=$(cd "$builddir" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd) || exit 2
tb=$here/../netns/testbed.sh
for p in ft_bw ft_pingpong; do
	[ -x "$builddir/fabtests/$p" ] || {
		echo "tss-ip.sh: $builddir/fabtests/$p not built (make check)" >&2
		exit 2
	}
done
tmp=$(mktemp -d)
tbname=
cleanup() {
	[ -n "$tbname" ] && "$tb" down "$tbname" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
export FI_PROVIDER_PATH=$builddir/prov/uet/.libs

umask 077
{
	echo "sdi 0x000077"
	echo "mode direct"
	printf 'key0 '
	od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
	echo
} >"$tmp/key"

if $netns; then
	[ "$(id -u)" = 0 ] || { echo "tss-ip.sh: -n needs root" >&2; exit 2; }
	tbname=tss$$
	"$tb" up "$tbname" >/dev/null 2>&1 || { echo "tss-ip.sh: no testbed" >&2; exit 1; }
	srv=$("$tb" addr "$tbname" a)
	cli=$("$tb" addr "$tbname" b)
	export FI_UET_IFACE=tb0
	configs="udp udp+tss ip ip+tss"
	where="veth MTU 1500"
else
	srv=127.0.0.1
	cli=127.0.0.1
	export FI_UET_IFACE=lo
	configs="udp udp+tss"
	where="loopback"
fi

on() { # a|b CMD...
	side=$1
	shift
	if [ -n "$tbname" ]; then "$tb" exec "$tbname" "$side" "$@"; else "$@"; fi
}

envof() { # CONFIG: the environment of that configuration
	case $1 in
	udp) echo FI_UET_TRANSPORT=udp ;;
	udp+tss) echo FI_UET_TRANSPORT=udp FI_UET_KEY_FILE=$tmp/key ;;
	ip) echo FI_UET_TRANSPORT=ip ;;
	ip+tss) echo FI_UET_TRANSPORT=ip FI_UET_KEY_FILE=$tmp/key ;;
	esac
}

sizes="4096 65536 1048576"
run_bw() { # CONFIG
	d=$(mktemp -d "$tmp/r.XXXXXX")
	# shellcheck disable=SC2046
	on a env $(envof "$1") timeout 120 "$builddir/fabtests/ft_bw" -p uet \
		-s "$srv" -B "$srv" -f "$d/port" -T 30 >"$d/s" 2>&1 &
	# shellcheck disable=SC2046
	on b env $(envof "$1") timeout 120 "$builddir/fabtests/ft_bw" -p uet \
		-s "$cli" -f "$d/port" -T 30 -S 4k,64k,1m -I 200 -w 32 "$srv" \
		>"$d/c" 2>&1
	wait
	awk '$1 ~ /^[0-9]+$/ { print $1, $5 }' "$d/c" |
	while read -r s v; do echo "$v" >>"$tmp/$1.bw.$s"; done
}

run_lat() { # CONFIG
	d=$(mktemp -d "$tmp/r.XXXXXX")
	# shellcheck disable=SC2046
	on a env $(envof "$1") timeout 120 "$builddir/fabtests/ft_pingpong" \
		-p uet -s "$srv" -B "$srv" -f "$d/port" -T 30 >"$d/s" 2>&1 &
	# shellcheck disable=SC2046
	on b env $(envof "$1") timeout 120 "$builddir/fabtests/ft_pingpong" \
		-p uet -s "$cli" -f "$d/port" -T 30 -S 64,4k,64k -I 2000 "$srv" \
		>"$d/c" 2>&1
	wait
	# bytes iters usec/one-way ...
	awk '$1 ~ /^[0-9]+$/ { print $1, $3 }' "$d/c" |
	while read -r s v; do echo "$v" >>"$tmp/$1.lat.$s"; done
}

best() { # FILE max|min
	[ -s "$1" ] || { echo n/a; return; }
	if [ "$2" = max ]; then sort -g "$1" | tail -n 1; else sort -g "$1" | head -n 1; fi
}

for r in $(seq 1 "$reps"); do
	for c in $configs; do
		echo "# run $r: $c" >&2
		run_bw "$c"
		run_lat "$c"
	done
done

table() { # METRIC max|min TITLE SIZES
	echo "$3"
	printf '%10s' size
	for c in $configs; do printf '%12s' "$c"; done
	for c in $configs; do [ "$c" = udp ] || printf '%12s' "$c/udp"; done
	echo
	for s in $4; do
		printf '%10s' "$s"
		base=$(best "$tmp/udp.$1.$s" "$2")
		for c in $configs; do printf '%12s' "$(best "$tmp/$c.$1.$s" "$2")"; done
		for c in $configs; do
			[ "$c" = udp ] && continue
			v=$(best "$tmp/$c.$1.$s" "$2")
			awk -v a="$v" -v b="$base" 'BEGIN {
				if (a == "n/a" || b == "n/a" || b == 0) printf "%12s", "n/a";
				else printf "%12.2f", a / b }'
		done
		echo
	done
}
table bw max "bandwidth on $where: MB/s, ft_bw -w 32 (higher is better)" "$sizes"
table lat min "latency on $where: usec one-way, ft_pingpong (lower is better)" "64 4096 65536"
