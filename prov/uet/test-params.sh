#!/bin/sh
# Every FI_UET_* parameter the provider registers (fi_info -g UET) is
# documented in man/fi_uet.7 and vice versa, with the same default, so the
# two never drift apart. Exit 0 pass, 1 fail, 77 skip.
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
man=$top_srcdir/man/fi_uet.7
dir=$top_builddir/prov/uet/.libs
command -v fi_info >/dev/null 2>&1 || { echo "SKIP: no fi_info"; exit 77; }
[ -f "$dir/libuet-fi.so" ] || { echo "SKIP: module not built"; exit 77; }
# A sanitizer build's module needs the ASan runtime loaded before it in
# programs that are not instrumented (fi_info, fi_pingpong); their own
# allocations are libfabric's, not ours: leak checking stays in unit_test.
asan=$(ldd "$dir/libuet-fi.so" 2>/dev/null | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
[ -f "$man" ] || { echo "FAIL: $man missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

FI_PROVIDER_PATH=$dir fi_info -g FI_UET_ > "$tmp/env" 2>&1 || {
	echo "FAIL: fi_info -g FI_UET_"; cat "$tmp/env"; exit 1; }

# "# FI_UET_X: Type" then "# uet: help ... (default: V...)"
sed -n 's/^# \(FI_UET_[A-Z0-9_]*\):.*/\1/p' "$tmp/env" | sort -u \
	> "$tmp/params"
# ".TP" then ".B FI_UET_X" in the RUNTIME PARAMETERS section
sed -n '/^\.SH RUNTIME PARAMETERS/,/^\.SH /p' "$man" |
	awk '/^\.TP/ { tp = 1; next }
	     tp && /^\.B FI_UET_/ { print $2 } { tp = 0 }' | sort -u \
	> "$tmp/documented"

fail=0
n=$(wc -l < "$tmp/params")
if [ "$n" -lt 10 ]; then
	echo "FAIL: only $n FI_UET_ parameters registered"; fail=1
fi
for p in $(comm -23 "$tmp/params" "$tmp/documented"); do
	echo "FAIL: $p is registered but not in fi_uet.7"; fail=1
done
for p in $(comm -13 "$tmp/params" "$tmp/documented"); do
	echo "FAIL: $p is in fi_uet.7 but not registered"; fail=1
done

# The first word of each default must agree.
for p in $(cat "$tmp/params"); do
	help=$(awk -v p="# $p:" 'index($0, p) == 1 { getline; print; exit }' \
		"$tmp/env")
	d1=$(printf '%s\n' "$help" | sed -n 's/.*(default: \([^ ,)]*\).*/\1/p')
	if [ -z "$d1" ]; then
		echo "FAIL: $p help text names no default: $help"; fail=1
		continue
	fi
	d2=$(sed -n '/^\.SH RUNTIME PARAMETERS/,/^\.SH /p' "$man" |
		awk -v p="$p" '$0 == ".B " p { on = 1; next }
			on && /^\.TP/ { exit }
			on { print }' | tr '\n' ' ' |
		sed -n 's/.*Default: \([^ ,.;)]*\).*/\1/p')
	if [ "$d1" != "$d2" ]; then
		echo "FAIL: $p default \"$d1\" (fi_info) vs \"$d2\" (fi_uet.7)"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "PASS: $n parameters, names and defaults agree"
exit $fail
