# Sourced by the test scripts that measure or load the machine. make
# check runs two tests at once; a bandwidth ratio measured while another
# test busy-polls both CPUs says nothing about uet (it once read 0.29 of
# tcp instead of 0.6). The measuring test takes this lock exclusively,
# the loaders share it, so no loader runs during a measurement.
#   uet_test_lock shared|exclusive
uet_test_lock() {
	command -v flock >/dev/null 2>&1 || return 0
	_lock=${top_builddir:-.}/.uet-test-load.lock
	# a failed exec redirection ends the shell: try it in a subshell
	# first (the netem VM sees the build tree read-only)
	( : >>"$_lock" ) 2>/dev/null || return 0
	exec 9>>"$_lock"
	if [ "$1" = exclusive ]; then
		flock -x -w 1200 9 || echo "test-lock: waited 1200 s, going on" >&2
	else
		flock -s -w 1200 9 || echo "test-lock: waited 1200 s, going on" >&2
	fi
}
