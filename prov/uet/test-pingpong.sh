#!/bin/sh
# Two fi_pingpong processes over uet on 127.0.0.1 (-e rdm): every size
# fi_pingpong generates (up to 6 MiB) with data checks, messages and tags,
# then one 16 MiB size; -e rdm is uet's own endpoint, not ofi_rxd over
# uet's DGRAM one; -e dgram: every size up to one packet (16592 bytes on
# lo) with data checks. Exit 0 pass, 1 fail, 77 skip (no fi_pingpong, or
# the module was not built).
set -u
: "${top_builddir:=.}"
dir=$top_builddir/prov/uet/.libs
command -v fi_pingpong >/dev/null 2>&1 || { echo "SKIP: no fi_pingpong"; exit 77; }
[ -f "$dir/libuet-fi.so" ] || { echo "SKIP: module not built"; exit 77; }
# A sanitizer build's module needs the ASan runtime loaded before it in
# programs that are not instrumented (fi_info, fi_pingpong); their own
# allocations are libfabric's, not ours: leak checking stays in unit_test.
asan=$(ldd "$dir/libuet-fi.so" 2>/dev/null | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
export FI_PROVIDER_PATH=$dir FI_UET_IFACE=lo
unset FI_PROVIDER
to=""
command -v timeout >/dev/null 2>&1 && to="timeout 300"
tmp=$(mktemp -d) || exit 1
ep=rdm
trap 'rm -rf "$tmp"' EXIT

# run NAME ARGS...: server on a free control port, then the client
run() {
	name=$1
	shift
	tries=0
	while :; do
		port=$(awk -v s="$$" -v t="$tries" \
			'BEGIN { srand(); print 20000 + int(rand() * 30000 + s * 7 + t * 7919) % 30000 }')
		$to fi_pingpong -p uet -e "$ep" -B "$port" "$@" \
			> "$tmp/$name.srv" 2>&1 &
		srv=$!
		sleep 0.5
		if kill -0 "$srv" 2>/dev/null; then
			break
		fi
		wait "$srv"
		tries=$((tries + 1))
		if [ $tries -ge 5 ]; then
			echo "FAIL: $name: server did not start"
			cat "$tmp/$name.srv"
			return 1
		fi
	done
	$to fi_pingpong -p uet -e "$ep" -P "$port" "$@" 127.0.0.1 \
		> "$tmp/$name.cli" 2>&1
	crc=$?
	wait "$srv"
	src=$?
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		echo "FAIL: $name (client $crc, server $src)"
		sed 's/^/  client: /' "$tmp/$name.cli"
		sed 's/^/  server: /' "$tmp/$name.srv"
		return 1
	fi
	# every size line shows #sent = #ack
	if ! grep -q '=' "$tmp/$name.cli" ||
	   grep -E '^[0-9.]+[kmg]? ' "$tmp/$name.cli" | grep -vq ' =[0-9]'; then
		echo "FAIL: $name: unexpected output"
		cat "$tmp/$name.cli"
		return 1
	fi
	echo "ok: $name: $(grep -cE '^[0-9.]+[kmg]? ' "$tmp/$name.cli") sizes"
	return 0
}

fail=0
run msg-all -S all -I 5 -c || fail=1
run tagged-all -m tagged -S all -I 5 -c || fail=1
run msg-16m -S 16777216 -I 2 -c || fail=1
# the largest size must really have run
grep -q '^16m ' "$tmp/msg-16m.cli" 2>/dev/null || { echo "FAIL: no 16m line"; fail=1; }
grep -q '^6m ' "$tmp/msg-all.cli" 2>/dev/null || { echo "FAIL: -S all stopped early"; fail=1; }
grep -q '^1 ' "$tmp/msg-all.cli" 2>/dev/null || { echo "FAIL: no 1-byte size"; fail=1; }
# the provider fi_pingpong -e rdm got is plain uet (-v prints it)
run rdm-prov -S 64 -I 5 -v || fail=1
grep -q 'prov_name: uet$' "$tmp/rdm-prov.cli" 2>/dev/null ||
	{ echo "FAIL: -e rdm did not get plain uet:" \
		"$(grep prov_name "$tmp/rdm-prov.cli")"; fail=1; }
ep=dgram
run dgram-all -S all -I 10 -c || fail=1
run dgram-max -S 16592 -I 10 -c || fail=1
grep -q '^16k ' "$tmp/dgram-all.cli" 2>/dev/null ||
	{ echo "FAIL: dgram -S all stopped before 16 KiB"; fail=1; }
grep -q '^16k ' "$tmp/dgram-max.cli" 2>/dev/null ||
	{ echo "FAIL: no 16592-byte datagrams"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: fi_pingpong -p uet -e rdm, -e dgram"
exit $fail
