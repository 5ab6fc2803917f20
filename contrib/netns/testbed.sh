#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/netns/testbed.sh: two test hosts on one machine, i.e. the network
# namespaces NAME-a and NAME-b joined by one link that can be impaired
# like a real network (loss, reordering, duplication, delay).
#
#   testbed.sh up NAME [netem options...]   create NAME-a and NAME-b
#   testbed.sh down NAME                    remove them (idempotent)
#   testbed.sh exec NAME a|b CMD [ARGS...]  run CMD inside NAME-a or NAME-b
#   testbed.sh addr NAME a|b                print that side's IPv4 address
#   testbed.sh stats NAME                   impairment counters of the link
#   testbed.sh mtu NAME BYTES               set the MTU of tb0 on both sides
#   testbed.sh list                         testbeds that are up
#
# e.g. testbed.sh up t1 loss 5% reorder 25% 50% duplicate 1% delay 1ms
#
# The link is device tb0 on both sides: a = $TESTBED_NET.1/24 and
# fd00:250::1/64, b = .2 and ::2. These private addresses exist only
# inside the two namespaces (nothing is routed out of them), so every
# testbed can use the same ones without colliding.
#
# Impairment (TESTBED_IMPAIR): "netem" puts `tc qdisc add dev tb0 root
# netem OPTIONS` on both ends of a veth pair; "relay" makes tb0 a tun
# device on each side with impair.py in between, a userspace copy of
# netem's loss/duplicate/corrupt/delay/reorder/limit for kernels built
# without sch_netem; "auto" (default) picks netem when the kernel has it.
#
# Environment: TESTBED_NET (10.250.0), TESTBED_IMPAIR (auto),
# TESTBED_MTU (the MTU of tb0 after up; default: the device's own, 1500),
# TESTBED_MAX_SECONDS (3600: the relay stops by itself after that),
# TESTBED_STATE_DIR (/run/uet-testbed: pid, log and stats of each testbed).
#
# Exit: 0 ok, 1 error, 2 usage, 77 this machine cannot do it (SKIP): not
# root, no iproute2, namespaces or veth refused, no way to impair.
set -u
set -f	# netem options such as "5%" are words, never patterns

here=$(cd "$(dirname "$0")" && pwd)
dev=tb0
net=${TESTBED_NET:-10.250.0}
net6=fd00:250:
impair_mode=${TESTBED_IMPAIR:-auto}
max_seconds=${TESTBED_MAX_SECONDS:-3600}
state_root=${TESTBED_STATE_DIR:-/run/uet-testbed}
up_mtu=${TESTBED_MTU:-}

usage() {
	sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

die() {
	echo "testbed: $*" >&2
	exit 1
}

skip() {
	echo "testbed: SKIP: $*" >&2
	exit 77
}

check_name() {
	case $1 in
	'' | *[!A-Za-z0-9_.-]*)
		die "bad NAME '$1' (letters, digits, '_', '.', '-')" ;;
	esac
	# Namespace names are free, but keep them readable in `ip netns`.
	[ ${#1} -le 32 ] || die "NAME '$1' is longer than 32 characters"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, tc)"
	command -v ip >/dev/null 2>&1 ||
		skip "the iproute2 'ip' command is not installed"
}

side_addr() { # a|b
	case $1 in
	a) echo "$net.1" ;;
	b) echo "$net.2" ;;
	*) usage ;;
	esac
}

ns_exists() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"
}

# netem on lo of a scratch namespace: no effect on anything else.
netem_works() { # NETNS
	ip netns exec "$1" tc qdisc add dev lo root netem delay 0ms \
		2>/dev/null || return 1
	ip netns exec "$1" tc qdisc del dev lo root 2>/dev/null
	return 0
}

relay_pid() { # STATE_DIR: the relay's pid if it is still that relay
	[ -f "$1/relay.pid" ] || return 1
	pid=$(cat "$1/relay.pid")
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
		grep -q 'impair\.py' || return 1
	echo "$pid"
}

check_mtu() {
	case $1 in
	'' | *[!0-9]*) die "bad MTU '$1' (a number of bytes)" ;;
	esac
}

# Set tb0's MTU in NETNS and read it back: the kernel may clamp it.
set_mtu() { # NETNS BYTES
	ip -n "$1" link set "$dev" mtu "$2" || return 1
	got=$(ip -n "$1" -o link show "$dev" |
		sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
	[ "$got" = "$2" ] || { echo "testbed: $1 $dev has MTU '$got'" >&2; return 1; }
}

# ---- up ----

lladdr() { # NETNS: tb0's MAC address there
	ip -n "$1" -o link show "$dev" |
		sed -n 's/.* link\/ether \([0-9a-f:]*\) .*/\1/p'
}

# Each side knows the other's MAC from the start: ARP and neighbour
# discovery never cross the impaired link, so a lost ARP request cannot
# hold a test's first packets for seconds (three lost in a row drop them
# all), and netem's counters count only the tests' own packets.
static_neighbours() { # NAME
	mac_a=$(lladdr "$1-a")
	mac_b=$(lladdr "$1-b")
	[ -n "$mac_a" ] && [ -n "$mac_b" ] || return 1
	ip -n "$1-a" neigh replace "$net.2" lladdr "$mac_b" dev "$dev" \
		nud permanent || return 1
	ip -n "$1-b" neigh replace "$net.1" lladdr "$mac_a" dev "$dev" \
		nud permanent || return 1
	ip -n "$1-a" -6 neigh replace "$net6:2" lladdr "$mac_b" dev "$dev" \
		nud permanent 2>/dev/null
	ip -n "$1-b" -6 neigh replace "$net6:1" lladdr "$mac_a" dev "$dev" \
		nud permanent 2>/dev/null
	return 0
}

# Until the kernel has seen the carrier (operstate UP) tb0 transmits
# through its no-op qdisc, which drops everything: wait for it, at most
# 5 s (a slow emulated guest takes a moment).
wait_oper_up() { # NAME
	for _ in $(seq 1 100); do
		ok=true
		for s in a b; do
			ip -n "$1-$s" -o link show "$dev" | grep -q 'state UP' ||
				ok=false
		done
		$ok && return 0
		sleep 0.05
	done
	return 1
}

up_name=
up_done=false
up_cleanup() {
	$up_done && return
	[ -n "$up_name" ] || return
	echo "testbed: setting up '$up_name' failed, removing it" >&2
	cmd_down "$up_name" >/dev/null 2>&1
}

start_relay() { # NAME SD NETEM...
	name=$1
	sd=$2
	shift 2
	command -v python3 >/dev/null 2>&1 || return 1
	python3 "$here/impair.py" --check x x "$@" >/dev/null ||
		die "the userspace relay does not take these netem options: $*"
	python3 "$here/impair.py" --dev "$dev" --pidfile "$sd/relay.pid" \
		--stats "$sd/stats" --max-seconds "$max_seconds" \
		"$name-a" "$name-b" "$@" </dev/null >"$sd/relay.log" 2>&1 &
	rpid=$!
	for _ in $(seq 1 100); do
		[ -s "$sd/relay.pid" ] && return 0
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.05
	done
	sed 's/^/    /' "$sd/relay.log" >&2
	die "the userspace relay did not start"
}

cmd_up() {
	[ $# -ge 1 ] || usage
	name=$1
	shift
	check_name "$name"
	[ -z "$up_mtu" ] || check_mtu "$up_mtu"
	need_root
	sd=$state_root/$name
	if [ -e "$sd" ] || ns_exists "$name-a" || ns_exists "$name-b"; then
		die "testbed '$name' exists already (testbed.sh down $name)"
	fi
	mkdir -p "$sd" || die "cannot create $sd"
	up_name=$name
	trap up_cleanup EXIT
	trap 'exit 1' INT TERM HUP

	err=$(ip netns add "$name-a" 2>&1) ||
		skip "network namespaces do not work here (ip netns add: $err)"
	ip netns add "$name-b" || die "ip netns add $name-b failed"
	for s in a b; do
		ip -n "$name-$s" link set lo up || die "lo up in $name-$s"
	done

	mode=veth
	how="veth pair, no impairment"
	if [ $# -gt 0 ]; then
		case $impair_mode in
		auto | netem | relay) ;;
		*) die "TESTBED_IMPAIR=$impair_mode: use auto, netem or relay" ;;
		esac
		mode=
		if [ "$impair_mode" != relay ] && command -v tc >/dev/null 2>&1
		then
			if netem_works "$name-a"; then
				mode=netem
			elif command -v modprobe >/dev/null 2>&1 &&
			     modprobe sch_netem 2>/dev/null &&
			     netem_works "$name-a"; then
				mode=netem
			fi
		fi
		if [ -z "$mode" ] && [ "$impair_mode" = netem ]; then
			skip "no sch_netem: 'tc qdisc add ... netem' fails" \
			     "(kernel built without it, or modprobe" \
			     "sch_netem failed); TESTBED_IMPAIR=auto would" \
			     "use the userspace relay"
		fi
		if [ -z "$mode" ]; then
			[ -c /dev/net/tun ] ||
				skip "no sch_netem and no /dev/net/tun for" \
				     "the userspace relay"
			command -v python3 >/dev/null 2>&1 ||
				skip "no sch_netem and no python3 for the" \
				     "userspace relay"
			mode=relay
		fi
	fi

	if [ "$mode" = relay ]; then
		start_relay "$name" "$sd" "$@"
		how="tun pair + userspace relay impair.py (no sch_netem): $*"
	else
		# netem acts on whole skbs: one segment per skb makes its
		# loss and reordering hit wire-sized packets, as the relay's
		# do, and not 64 KiB TCP segmentation offload bursts.
		gso=
		[ "$mode" = netem ] && gso="gso_max_segs 1"
		# shellcheck disable=SC2086
		err=$(ip link add "$dev" netns "$name-a" $gso type veth \
			peer name "$dev" netns "$name-b" $gso 2>&1) ||
			skip "cannot create a veth pair here ($err)"
		[ "$mode" = netem ] && how="veth pair + netem on both ends: $*"
	fi
	for s in a b; do
		n=1
		[ $s = b ] && n=2
		ip -n "$name-$s" addr add "$net.$n/24" dev "$dev" ||
			die "cannot add $net.$n/24 in $name-$s"
		# IPv6 is a bonus: a namespace may have it disabled.
		ip -n "$name-$s" -6 addr add "$net6:$n/64" dev "$dev" nodad \
			2>/dev/null || echo "testbed: no IPv6 in $name-$s" >&2
		if [ -n "$up_mtu" ]; then
			set_mtu "$name-$s" "$up_mtu" || die "MTU $up_mtu in $name-$s"
		fi
		ip -n "$name-$s" link set "$dev" up || die "$dev up in $name-$s"
		if [ "$mode" = netem ]; then
			err=$(ip netns exec "$name-$s" tc qdisc add dev "$dev" \
				root netem "$@" 2>&1) ||
				die "tc qdisc add dev $dev root netem $*: $err"
		fi
	done
	# The relay's tun devices carry IP alone: no neighbours, no carrier.
	if [ "$mode" != relay ]; then
		static_neighbours "$name" ||
			die "cannot add static neighbour entries on $dev"
		wait_oper_up "$name" ||
			die "$dev did not come up in $name-a and $name-b"
	fi
	echo "$mode" >"$sd/mode"
	up_done=true
	echo "testbed $name: $name-a $dev $net.1/24 <-> $name-b $dev" \
	     "$net.2/24; $how${up_mtu:+; MTU $up_mtu}"
}

# ---- down ----

cmd_down() {
	[ $# -eq 1 ] || usage
	name=$1
	check_name "$name"
	need_root
	sd=$state_root/$name
	rc=0
	if pid=$(relay_pid "$sd"); then
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	for s in a b; do
		if ns_exists "$name-$s"; then
			ip netns del "$name-$s" || rc=1
		fi
	done
	rm -rf "$sd"
	return $rc
}

# ---- exec, addr, stats, mtu, list ----

cmd_mtu() {
	[ $# -eq 2 ] || usage
	name=$1
	check_name "$name"
	check_mtu "$2"
	need_root
	for s in a b; do
		ns_exists "$name-$s" || die "no namespace $name-$s (testbed.sh up $name)"
		set_mtu "$name-$s" "$2" || die "cannot set MTU $2 on $dev in $name-$s"
	done
}

cmd_exec() {
	[ $# -ge 3 ] || usage
	name=$1
	side=$2
	shift 2
	check_name "$name"
	case $side in a | b) ;; *) usage ;; esac
	need_root
	ns_exists "$name-$side" || die "no namespace $name-$side (testbed.sh up $name)"
	exec ip netns exec "$name-$side" "$@"
}

# One line per direction: "a>b key value ...".
cmd_stats() {
	[ $# -eq 1 ] || usage
	name=$1
	check_name "$name"
	need_root
	sd=$state_root/$name
	[ -f "$sd/mode" ] || die "no testbed '$name'"
	case $(cat "$sd/mode") in
	relay)
		relay_pid "$sd" >/dev/null ||
			echo "testbed: the relay of '$name' is not running" >&2
		# It rewrites the file every 0.2 s while counts change.
		sleep 0.3
		grep -v '^#' "$sd/stats" 2>/dev/null
		;;
	netem)
		# netem on a's tb0 impairs a>b, on b's tb0 b>a.
		for s in a b; do
			o=b
			[ $s = b ] && o=a
			ip netns exec "$name-$s" tc -s qdisc show dev "$dev" |
				awk -v d="$s>$o" '/Sent/ {
					gsub(/[(),]/, " ")
					for (i = 1; i <= NF; i++) {
						if ($i == "pkt") p = $(i - 1)
						if ($i == "dropped") x = $(i + 1)
					}
					print d, "sent", p, "dropped", x
					exit }'
		done
		;;
	*)
		echo "a>b (no impairment)"
		echo "b>a (no impairment)"
		;;
	esac
}

cmd_list() {
	[ -d "$state_root" ] || return 0
	set +f
	for sd in "$state_root"/*; do
		[ -f "$sd/mode" ] || continue
		echo "$(basename "$sd") $(cat "$sd/mode")"
	done
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
exec) cmd_exec "$@" ;;
addr) [ $# -eq 2 ] || usage; side_addr "$2" ;;
stats) cmd_stats "$@" ;;
mtu) cmd_mtu "$@" ;;
list) cmd_list ;;
-h | --help | help) usage ;;
*) usage ;;
esac
