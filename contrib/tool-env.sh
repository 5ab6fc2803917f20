# Sourced by test scripts. Debian's fi_info and fi_pingpong are not built
# with sanitizers, so they can dlopen a provider built with
# --enable-sanitizers only with the sanitizer runtimes preloaded (and leak
# checking off: their leaks are not ours). Run such tools as
#	env $(uet_tool_env) fi_info ...
# uet_tool_env prints nothing for a plain build. Needs FI_PROVIDER_PATH.
uet_tool_env() {
	_so=${FI_PROVIDER_PATH%%:*}/libuet-fi.so
	_san=$(ldd "$_so" 2>/dev/null |
		awk '/libasan|libubsan/ { printf "%s%s", s, $3; s = " " }')
	[ -n "$_san" ] || return 0
	printf 'LD_PRELOAD=%s ASAN_OPTIONS=%s\n' \
		"$(echo "${LD_PRELOAD:+$LD_PRELOAD }$_san" | tr ' ' ':')" \
		"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}
