# shellcheck shell=sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/bench/place.sh, sourced by compare.sh and compare-rma.sh: where
# their servers and clients run, on loopback or (-n) in the two network
# namespaces of a testbed made for the run (contrib/netns/testbed.sh).
#
#   place_mtus NAME MTUS      MTUS (comma-separated) as a list, or exit 2
#                             with NAME's complaint
#   place_up NAME PREFIX      with netns=true: root, a testbed named
#                             PREFIX<pid>x<random> (exit 1 if it fails),
#                             srv/cli its sides' addresses and iface tb0;
#                             else 127.0.0.1 and lo. FI_TCP_IFACE,
#                             FI_UDP_IFACE and FI_UET_IFACE are iface.
#   place_down                remove the testbed, if any
#   place_names               the places measured: lo, or the MTUs
#   place_enter PLACE         across the veth, set its MTU (exit 1 if
#                             that fails) and say so on stderr
#   place_label PLACE         "loopback" or "veth MTU PLACE", for titles
#   place_where ROLE_A ROLE_B the run's place for its first line: the
#                             loopback address, or the testbed's
#                             namespaces, addresses, roles and MTUs
#   on a|b CMD [ARGS...]      run CMD on that side (here without one)
# Needs $here (the caller's directory) and $tmp (a scratch directory).

# shellcheck disable=SC2154 # here: the caller's
place_tb=$here/../netns/testbed.sh
tbname=

place_mtus() {
	place_list=$(echo "$2" | tr , ' ')
	for place_m in $place_list; do
		case $place_m in
		*[!0-9]*) echo "$1: -m wants MTUs such as 1500,9000" >&2; exit 2 ;;
		esac
	done
	[ -n "$place_list" ] || { echo "$1: -m wants at least one MTU" >&2; exit 2; }
	echo "$place_list"
}

# shellcheck disable=SC2154,SC2034 # netns, tmp: the caller's; srv, cli: its
place_up() {
	if $netns; then
		if [ "$(id -u)" != 0 ]; then
			echo "$1: -n needs root (network namespaces)" >&2
			exit 2
		fi
		tbname=$2$$x$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
		if ! "$place_tb" up "$tbname" >"$tmp/up.log" 2>&1; then
			sed "s/^/$1: /" "$tmp/up.log" >&2
			exit 1
		fi
		srv=$("$place_tb" addr "$tbname" a)
		cli=$("$place_tb" addr "$tbname" b)
		iface=tb0
	else
		srv=127.0.0.1
		cli=127.0.0.1
		iface=lo
	fi
	# fi_pingpong has no source-address option: every provider on $iface.
	FI_TCP_IFACE=$iface FI_UDP_IFACE=$iface FI_UET_IFACE=$iface
	export FI_TCP_IFACE FI_UDP_IFACE FI_UET_IFACE
}

place_down() {
	[ -z "$tbname" ] || "$place_tb" down "$tbname" >/dev/null 2>&1
}

# shellcheck disable=SC2154 # mtus: the caller's, from place_mtus
place_names() {
	if $netns; then echo "$mtus"; else echo lo; fi
}

place_enter() {
	$netns || return 0
	"$place_tb" mtu "$tbname" "$1" || exit 1
	echo "# veth MTU $1" >&2
}

place_label() {
	if $netns; then echo "veth MTU $1"; else echo loopback; fi
}

place_where() {
	if $netns; then
		echo "veth between namespaces $tbname-a ($srv, $1) and $tbname-b ($cli, $2), MTU $(echo "$mtus" | sed 's/ /, /g')"
	else
		echo "loopback ($srv)"
	fi
}

on() {
	on_side=$1
	shift
	if [ -n "$tbname" ]; then
		"$place_tb" exec "$tbname" "$on_side" "$@"
	else
		"$@"
	fi
}
