# shellcheck shell=sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/bench/ftbin.sh, sourced by compare.sh and compare-rma.sh: what
# their runs of libfabric's fabtests binaries (FT_BIN=DIR) share.
#
#   ftbin_dir                 DIR made absolute (empty without FT_BIN)
#   ftbin_window SIZE         the window: fabtests' 64, 16 from 1 MiB so
#                             that a window stays within 16 MiB
#   ftbin_iters SIZE WINDOW MSGS BYTES
#                             operations to time: MSGS, or fewer to stay
#                             within BYTES, but at least 4 windows
#   ftbin_pair PROG PROV SIZE ITERS [ARGS...]
#                             one process pair of PROG (-e rdm): prints
#                             the client's last "MB/sec usec/xfer", or
#                             nothing and why on stderr (below)
# Needs contrib/port.sh sourced.

ftbin_dir() {
	[ -n "${FT_BIN:-}" ] || return 0
	(cd "$FT_BIN" 2>/dev/null && pwd) || echo "$FT_BIN"
}

ftbin_window() {
	if [ "$1" -ge 1048576 ]; then echo 16; else echo 64; fi
}

ftbin_iters() {
	ftbin_it=$(($4 / $1))
	[ "$ftbin_it" -gt "$3" ] && ftbin_it=$3
	[ "$ftbin_it" -lt $((4 * $2)) ] && ftbin_it=$((4 * $2))
	echo "$ftbin_it"
}

# ftbin_pair: the server (-s ftbin_srv -B PORT) runs under the words of
# ftbin_a, the client (-s ftbin_cli -P PORT ftbin_srv) under those of
# ftbin_b (empty on one host; compare.sh's namespaces: "on a", "on b"),
# each within ftbin_tmo seconds, their output in ftbin_tmp. The programs
# take a fixed port: pick one no socket holds, wait until the server
# holds it (a TCP listener for tcp;ofi_rxm, a UDP socket for udp and
# uet), and start it again on another if it died (the port was taken).
# shellcheck disable=SC2154 # ftbin_a, _b, _srv, _cli, _tmo, _tmp: the caller's
ftbin_pair() {
	ftbin_prog=$1 ftbin_p=$2 ftbin_s=$3 ftbin_i=$4
	shift 4
	ftbin_what="${ftbin_prog##*/} $ftbin_p $ftbin_s"
	ftbin_up=false
	for _ in 1 2 3 4 5; do
		# shellcheck disable=SC2086 # a command prefix, or nothing
		ftbin_port=$(port_pick $ftbin_a)
		# shellcheck disable=SC2086
		$ftbin_a timeout "$ftbin_tmo" "$ftbin_prog" -p "$ftbin_p" -e rdm \
			-s "$ftbin_srv" -B "$ftbin_port" -S "$ftbin_s" \
			-I "$ftbin_i" "$@" >"$ftbin_tmp/ft.server" 2>&1 &
		ftbin_spid=$!
		# shellcheck disable=SC2086
		port_held "$ftbin_spid" "$ftbin_port" -tu $ftbin_a &&
			{ ftbin_up=true; break; }
		wait "$ftbin_spid"
	done
	if ! $ftbin_up; then
		echo "$ftbin_what: no server: $(head -n 1 "$ftbin_tmp/ft.server")" >&2
		return
	fi
	# shellcheck disable=SC2086
	$ftbin_b timeout "$ftbin_tmo" "$ftbin_prog" -p "$ftbin_p" -e rdm \
		-s "$ftbin_cli" -P "$ftbin_port" -S "$ftbin_s" -I "$ftbin_i" \
		"$@" "$ftbin_srv" >"$ftbin_tmp/ft.client" 2>&1
	ftbin_crc=$?
	wait "$ftbin_spid"
	ftbin_src=$?
	if [ $ftbin_crc != 0 ] || [ $ftbin_src != 0 ]; then
		echo "$ftbin_what: failed (client exit $ftbin_crc, server $ftbin_src): $(cat "$ftbin_tmp/ft.client" "$ftbin_tmp/ft.server" | grep -v '^bytes' | head -n 1)" >&2
		return
	fi
	# bytes iters total time MB/sec usec/xfer Mxfers/sec
	awk 'NF == 7 && $4 ~ /^[0-9.]+s$/ { v = $5 " " $6 }
		END { if (v != "") print v }' "$ftbin_tmp/ft.client"
}
