#!/bin/sh
# uetdump against uetgen's manifest.
#
# 1. uetdump -h prints usage and exits 0; a bad option exits non-zero.
# 2. uetgen writes one packet of every UET header kind and a manifest of
#    the values it encoded; `uetdump -v -r` must print, per frame, exactly
#    the manifest's name=value set (nothing missing, nothing extra), one
#    summary line per frame naming the right PDS type / control type / SES
#    opcode / NACK code, and report 0 malformed.
# 3. uetgen --bad interleaves malformed packets with good ones: each bad
#    frame must be reported malformed with the manifest's reason, every
#    good frame (including those after a bad one) must still decode with
#    the manifest's fields, and the malformed count must match.
set -u

top_builddir=${top_builddir:-.}
UETGEN=$top_builddir/uet/tools/uetgen
UETDUMP=$top_builddir/uet/tools/uetdump

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-uetdump.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
checks=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

pass() {
	checks=$((checks + 1))
}

# Expected names, from the tables of docs/protocol.md §3.1, §4.5, §4.7, §5.1.
names_awk='
BEGIN {
	split("TSS RUD_REQ ROD_REQ RUDI_REQ RUDI_RESP UUD_REQ ACK ACK_CC " \
	      "ACK_CCX NACK CTRL NACK_CCX RUD_CC_REQ ROD_CC_REQ", t, " ")
	for (i = 1; i <= 14; i++) pds[i] = t[i]
	split("NOOP ACK_REQ CLEAR CLEAR_REQ CLOSE CLOSE_REQ PROBE CREDIT " \
	      "CREDIT_REQ", t, " ")
	for (i = 1; i <= 9; i++) ctl[i - 1] = t[i]
	split("UET_NO_OP UET_WRITE UET_READ UET_ATOMIC UET_FETCHING_ATOMIC " \
	      "UET_SEND UET_RENDEZVOUS_SEND UET_DATAGRAM_SEND " \
	      "UET_DEFERRABLE_SEND UET_TAGGED_SEND UET_RENDEZVOUS_TSEND " \
	      "UET_DEFERRABLE_TSEND UET_DEFERRABLE_RTR UET_TSEND_ATOMIC " \
	      "UET_TSEND_FETCH_ATOMIC UET_MSG_ERROR SYNC_WRITE SYNC_ATOMIC", t, " ")
	for (i = 1; i <= 18; i++) op[i - 1] = t[i]
	split("UET_DEFAULT_RESPONSE UET_RESPONSE UET_RESPONSE_W_DATA " \
	      "UET_NO_RESPONSE", t, " ")
	for (i = 1; i <= 4; i++) rsp[i - 1] = t[i]
	nack[1] = "TRIMMED"; nack[4] = "NO_PDC_AVAIL"; nack[7] = "NO_PKT_BUFFER"
	nack[11] = "PSN_OOR_WINDOW"; nack[23] = "NEW_START_PSN"
}'

# uetdump output -> "<frame> <name> <value>" for the indented name=value
# lines, hex normalised (lower case, no 0x or separators).
fields_of() {
	awk '
	/^[^ ]/ { frame++; next }
	/^    [a-z]+\.[a-z_0-9]+=/ {
		sub(/^ +/, "")
		eq = index($0, "=")
		name = substr($0, 1, eq - 1)
		val = substr($0, eq + 1)
		sub(/ .*/, "", val)
		val = tolower(val)
		gsub(/:/, "", val)
		sub(/^0x/, "", val)
		print frame, name, val
	}' "$1"
}

# Manifest -> the same form, without "malformed" lines.
manifest_fields() {
	awk '$2 != "malformed" {
		v = tolower($3); gsub(/:/, "", v); sub(/^0x/, "", v)
		print $1, $2, v
	}' "$1"
}

# Summary lines -> "<frame> <line>".
summaries_of() {
	awk '/^[^ ]/ { print ++frame, $0 }' "$1"
}

# Checks each frame's summary line names what the manifest says it holds;
# prints one line per mismatch.
check_names() {
	awk "$names_awk"'
	FNR == NR {
		if ($2 == "pds.type") want[$1] = want[$1] " " pds[$3]
		if ($2 == "tss.type") want[$1] = want[$1] " TSS"
		if ($2 == "pds.ctl_type") want[$1] = want[$1] " " ctl[$3]
		if ($2 == "ses.opcode") want[$1] = want[$1] " " op[$3]
		if ($2 == "ses.rsp_opcode") want[$1] = want[$1] " " rsp[$3]
		if ($2 == "pds.nack_code") {
			if (!($3 in nack)) print "frame " $1 ": no name for NACK code " $3
			want[$1] = want[$1] " " nack[$3]
		}
		if ($2 == "malformed") {
			r = $0; sub(/^[^ ]+ [^ ]+ /, "", r)
			bad[$1] = r
		}
		next
	}
	{
		f = $1
		line = $0; sub(/^[^ ]+ /, "", line)
		seen[f] = 1
		if (f in bad) {
			if (index(line, "malformed: " bad[f]) == 0)
				print "frame " f ": expected malformed: " bad[f] ": " line
			next
		}
		if (line ~ /malformed/)
			print "frame " f ": unexpectedly malformed: " line
		n = split(want[f], w, " ")
		if (n == 0)
			print "frame " f ": nothing expected (not in manifest)"
		for (i = 1; i <= n; i++)
			if (w[i] == "" || index(line " ", " " w[i] " ") == 0 &&
			    index(line, " " w[i] ",") == 0)
				print "frame " f ": summary lacks \"" w[i] "\": " line
	}
	END {
		for (f in want) if (!(f in seen)) print "frame " f ": no summary line"
		for (f in bad) if (!(f in seen)) print "frame " f ": no summary line"
	}' "$1" "$2"
}

# Runs uetdump -v on capture $1 (manifest $2), checks everything; $3 =
# expected malformed count.
check_capture() {
	cap=$1 man=$2 want_bad=$3 tag=$(basename "$1" .pcap)

	if ! "$UETDUMP" -v -r "$cap" >"$tmp/$tag.out" 2>"$tmp/$tag.err"; then
		fail "$tag: uetdump -v -r exited non-zero: $(cat "$tmp/$tag.err")"
		return
	fi
	pass

	frames=$(awk '{ print $1 }' "$man" | sort -un | wc -l)
	summaries=$(grep -c '^[^ ]' "$tmp/$tag.out")
	if [ "$frames" -lt 10 ] || [ "$summaries" -ne "$frames" ]; then
		fail "$tag: $summaries summary lines for $frames manifest frames"
	else
		pass
	fi

	manifest_fields "$man" | sort >"$tmp/$tag.want"
	fields_of "$tmp/$tag.out" | sort >"$tmp/$tag.got"
	if [ ! -s "$tmp/$tag.want" ]; then
		fail "$tag: empty manifest"
	elif ! diff "$tmp/$tag.want" "$tmp/$tag.got" >"$tmp/$tag.diff"; then
		fail "$tag: fields differ from manifest (< manifest only, > uetdump only):"
		sed 's/^/    /' "$tmp/$tag.diff" | head -60 >&2
	else
		pass
	fi

	summaries_of "$tmp/$tag.out" >"$tmp/$tag.sum"
	check_names "$man" "$tmp/$tag.sum" >"$tmp/$tag.names"
	if [ -s "$tmp/$tag.names" ]; then
		fail "$tag: summary lines:"
		sed 's/^/    /' "$tmp/$tag.names" | head -40 >&2
	else
		pass
	fi

	if ! grep -q "^uetdump: $frames packets, $frames UET, $want_bad malformed\$" \
	     "$tmp/$tag.err"; then
		fail "$tag: expected '$frames packets, $frames UET, $want_bad malformed', got: $(cat "$tmp/$tag.err")"
	else
		pass
	fi
}

for prog in "$UETGEN" "$UETDUMP"; do
	if [ ! -x "$prog" ]; then
		echo "test-uetdump: $prog not built" >&2
		exit 99
	fi
done

# 1. help and option errors
if "$UETDUMP" -h >"$tmp/help" 2>&1 && grep -q -- '-r FILE' "$tmp/help" &&
   grep -q -- '-i IFACE' "$tmp/help"; then
	pass
else
	fail "uetdump -h: $(cat "$tmp/help")"
fi
if "$UETDUMP" -Z >/dev/null 2>&1 || "$UETDUMP" >/dev/null 2>&1 ||
   "$UETDUMP" -r "$tmp/none.pcap" >/dev/null 2>&1 ||
   "$UETDUMP" -c 0 -r "$tmp/none.pcap" >/dev/null 2>&1; then
	fail "uetdump accepted a bad option, no source, or a missing file"
else
	pass
fi

# 2. one packet of every kind
if "$UETGEN" -w "$tmp/all.pcap" -m "$tmp/all.man"; then
	nframes=$(awk '{ print $1 }' "$tmp/all.man" | sort -un | wc -l)
	check_capture "$tmp/all.pcap" "$tmp/all.man" 0
	# the summary alone (no -v) is the same lines without the fields
	if "$UETDUMP" -r "$tmp/all.pcap" 2>/dev/null >"$tmp/plain.out" &&
	   grep '^[^ ]' "$tmp/all.out" | cmp -s - "$tmp/plain.out"; then
		pass
	else
		fail "uetdump without -v differs from the -v summary lines"
	fi
	# nanosecond timestamps survive writer and reader: uetgen stamps
	# frame N at a whole second + N * 1.000001 ms
	if head -1 "$tmp/plain.out" | grep -q '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.001000001 ' &&
	   sed -n "${nframes}p" "$tmp/plain.out" |
	   grep -q "^[0-9:]*\\.$(printf %09d $((nframes * 1000001))) "; then
		pass
	else
		fail "timestamps: $(head -1 "$tmp/plain.out" | cut -c1-20)"
	fi
	# the IP ECN bits reach the summary: uetgen marks one frame CE
	n=$(grep -c ' UET ev [0-9]* \[CE\] ' "$tmp/plain.out")
	[ "$n" -eq 1 ] && pass || fail "$n frames shown [CE], want 1"
	# '-r -' reads stdin
	if "$UETDUMP" -r - <"$tmp/all.pcap" 2>/dev/null | cmp -s - "$tmp/plain.out"; then
		pass
	else
		fail "uetdump -r - differs from -r FILE"
	fi
	# -c stops early; a BPF filter selects
	n=$("$UETDUMP" -c 3 -r "$tmp/all.pcap" 2>/dev/null | wc -l)
	[ "$n" -eq 3 ] && pass || fail "-c 3 printed $n lines"
	n=$("$UETDUMP" -r "$tmp/all.pcap" ip6 2>/dev/null | grep -c '2001:db8::1')
	want=$("$UETDUMP" -r "$tmp/all.pcap" 2>/dev/null | grep -c '2001:db8::1')
	total=$("$UETDUMP" -r "$tmp/all.pcap" ip6 2>/dev/null | wc -l)
	if [ "$want" -gt 0 ] && [ "$n" -eq "$want" ] && [ "$total" -eq "$want" ]; then
		pass
	else
		fail "filter 'ip6' kept $total lines, $n IPv6 of $want"
	fi
	# the pcap writer's framing, judged by tshark when there is one:
	# valid IPv4 header checksums, valid IPv6 UDP checksums
	if [ -n "${TSHARK:-}" ] && [ -x "$TSHARK" ]; then
		bad=$("$TSHARK" -n -r "$tmp/all.pcap" -o ip.check_checksum:TRUE \
			-o udp.check_checksum:TRUE -T fields -e frame.number \
			-Y 'ip.checksum.status != 1 || (ipv6 && udp && udp.checksum.status != 1) || !(ip || ipv6)' \
			2>"$tmp/tshark.err")
		n=$("$TSHARK" -n -r "$tmp/all.pcap" 2>/dev/null | wc -l)
		if [ -n "$bad" ] || [ "$n" -ne "$nframes" ]; then
			fail "tshark: $n frames, bad checksums in frames: $bad $(cat "$tmp/tshark.err")"
		else
			pass
		fi
	fi
else
	fail "uetgen -w -m failed"
fi

# 3. malformed packets between good ones
if "$UETGEN" --bad -w "$tmp/bad.pcap" -m "$tmp/bad.man"; then
	nbad=$(grep -c '^[0-9]* malformed ' "$tmp/bad.man")
	last=$(awk '{ print $1 }' "$tmp/bad.man" | sort -n | tail -1)
	if [ "$nbad" -lt 3 ] || grep -q "^$last malformed " "$tmp/bad.man"; then
		fail "uetgen --bad: want >= 3 bad frames and a good last one"
	else
		pass
	fi
	check_capture "$tmp/bad.pcap" "$tmp/bad.man" "$nbad"
else
	fail "uetgen --bad failed"
fi

echo "test-uetdump: $checks checks passed, $fails failed"
[ "$fails" -eq 0 ]
