# contrib/bench/uetsim.sh: what the uetsim table scripts (cc-table.sh,
# lb-table.sh) share. Sourced, not run, with $top set to the checkout;
# $sim, $result and $result_tail are set for the caller.
# shellcheck shell=sh disable=SC2034,SC2154

# Print the calling script's header comment (its usage).
uetsim_usage() {
	awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# uetsim_find NAME BUILDDIR: set $sim to uet/sim/uetsim in BUILDDIR, else
# in build/ beside this checkout, else in the current directory; without
# one, say so as NAME and exit 2.
uetsim_find() {
	sim=
	for d in "$2" "$top/build" .; do
		if [ -n "$d" ] && [ -x "$d/uet/sim/uetsim" ]; then
			sim=$d/uet/sim/uetsim
			return 0
		fi
	done
	echo "$1: no uet/sim/uetsim (build first, or -b BUILDDIR)" >&2
	exit 2
}

# uetsim_run ARGS...: run uetsim; $result is its "result k=v ..." line
# (empty when it printed none) and $result_tail the last line it printed.
# Returns uetsim's exit status, or 1 without a result line.
uetsim_run() {
	result_out=$("$sim" "$@" 2>&1)
	result_rc=$?
	result=$(printf '%s\n' "$result_out" | grep '^result ')
	result_tail=$(printf '%s\n' "$result_out" | tail -n 1)
	[ -n "$result" ] || result_rc=1
	return $result_rc
}

# kv KEY LINE: one field of a key=value line.
kv() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
