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
