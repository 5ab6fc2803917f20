# shellcheck shell=sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/port.sh, sourced by the scripts that start a server on a fixed
# port (Debian's fi_pingpong and libfabric's fabtests take -B PORT): pick
# a port nothing holds, then wait until the server holds it.
#
#   port_pick [CMD...]    print a port in 20000-59999 that no TCP or UDP
#                         socket holds (ss runs under CMD, e.g. in a netns)
#   port_held PID PORT SS_PROTOS [CMD...]
#                         true once process PID holds PORT (ss -l with
#                         SS_PROTOS: -t for a TCP listener, -tu where the
#                         provider binds UDP), false if PID died (someone
#                         else got the port first) or after 10 s; without
#                         ss, true after a second
# Both leave only port_* variables behind.

port_have_ss=false
command -v ss >/dev/null 2>&1 && port_have_ss=true

port_pick() {
	while :; do
		port_p=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
		port_p=$((20000 + port_p % 40000))
		if ! $port_have_ss ||
		   [ -z "$("$@" ss -Htuan "sport = :$port_p" 2>/dev/null)" ]; then
			echo "$port_p"
			return
		fi
	done
}

port_held() {
	port_pid=$1
	port_n=$2
	port_protos=$3
	shift 3
	for port_i in $(seq 1 100); do
		kill -0 "$port_pid" 2>/dev/null || return 1
		if $port_have_ss; then
			[ -n "$("$@" ss -Hln "$port_protos" "sport = :$port_n" \
				2>/dev/null)" ] && return 0
		elif [ "$port_i" -ge 10 ]; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}
