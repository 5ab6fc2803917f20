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
# 4. TSS: uetgen seals some frames through uet/tss with two test domains
#    and writes their key files. Without -K a TSS frame shows its header
#    and "(encrypted ...)"; with -K the sealed frames must show
#    [decrypted] and exactly the fields uetgen put inside (its -s list),
#    and the others (unknown SDI, a flipped bit, no key for the AN) their
#    reason, all counted; one that verifies but holds a malformed packet
#    is shown malformed with the decoder's reason. Key files that group or others may read, that
#    are symbolic links, not regular files, someone else's or unparsable
#    are refused with a clear error and nothing decoded.
# 5. Raw IP: the frames of protocol 253 show their entropy header, and
#    -P moves the protocol; with editcap, the capture as link type raw IP
#    (no Ethernet header) reads the same, keys included.
# 6. GSO: uetgen --gso writes frames as a capture taken before UDP GSO
#    cut them holds them, several packets in one UDP payload. uetdump
#    must show each packet of a train on its own line, tagged with its
#    place, with uetgen's type, PSN and payload length; a long single
#    packet, and one followed by a packet that does not continue its PSN,
#    stay one packet; the count of cut frames is in the totals.
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

# With -K: each frame of the -s list ($1) must have the summary ($2) its
# content names after "[decrypted]", or "[not verified: reason]", or
# "[decrypted] malformed: reason"; every other TSS frame of the manifest
# ($3) "(encrypted". One line per problem.
check_keys() {
	awk "$names_awk"'
	FILENAME == ARGV[1] {
		if ($2 == "unverified" || $2 == "malformed") {
			r = $0; sub(/^[^ ]+ [^ ]+ /, "", r)
			if ($2 == "unverified") unv[$1] = r
			else bad[$1] = r
		}
		if ($2 == "pds.type") want[$1] = want[$1] " " pds[$3]
		if ($2 == "pds.ctl_type") want[$1] = want[$1] " " ctl[$3]
		if ($2 == "ses.opcode") want[$1] = want[$1] " " op[$3]
		if ($2 == "ses.rsp_opcode") want[$1] = want[$1] " " rsp[$3]
		inner[$1] = 1
		next
	}
	FILENAME == ARGV[2] {
		f = $1; line = $0; sub(/^[^ ]+ /, "", line)
		sum[f] = line
		next
	}
	$2 == "tss.type" { tss[$1] = 1 }
	END {
		for (f in tss) {
			line = sum[f]
			if (f in unv) {
				if (index(line, "(encrypted ") == 0 ||
				    index(line, "[not verified: " unv[f] "]") == 0)
					print "frame " f ": want not verified: " unv[f] ": " line
			} else if (f in bad) {
				if (index(line, " [decrypted] malformed: " bad[f] " (") == 0)
					print "frame " f ": want decrypted, malformed: " bad[f] ": " line
			} else if (f in inner) {
				n = split(want[f], w, " ")
				i = index(line, " [decrypted] ")
				if (i == 0 || n == 0)
					print "frame " f ": not decrypted: " line
				rest = substr(line, i)
				for (k = 1; k <= n; k++)
					if (index(rest " ", " " w[k] " ") == 0 &&
					    index(rest, " " w[k] ",") == 0)
						print "frame " f ": decrypted summary lacks \"" w[k] "\": " line
			} else if (index(line, "(encrypted ") == 0 ||
				   index(line, "[decrypted]") || index(line, "[not verified")) {
				print "frame " f ": TSS frame not in the -s list: " line
			}
		}
		for (f in inner)
			if (!(f in tss))
				print "frame " f ": in the -s list, not TSS in the manifest"
	}' "$1" "$2" "$3"
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
if "$UETGEN" -w "$tmp/all.pcap" -m "$tmp/all.man" -s "$tmp/all.sec" \
	-K "$tmp/k"; then
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

# 4. TSS
ntss=$(awk '$2 == "tss.type"' "$tmp/all.man" | wc -l)
nunv=$(awk '$2 == "unverified"' "$tmp/all.sec" | wc -l)
ndec=$(awk '$2 != "unverified" { print $1 }' "$tmp/all.sec" | sort -u | wc -l)
nmal=$(awk '$2 == "malformed"' "$tmp/all.sec" | wc -l)
if [ "$ntss" -lt 8 ] || [ "$ndec" -lt 4 ] || [ "$nunv" -lt 4 ] ||
   [ "$nmal" -lt 1 ] ||
   ! grep -q ' unverified authentication failed$' "$tmp/all.sec" ||
   ! grep -q ' unverified unknown SDI$' "$tmp/all.sec"; then
	fail "uetgen: $ntss TSS frames, $ndec sealed, $nunv not to open; want more"
else
	pass
fi
# without a key: the header and "(encrypted", for every TSS frame
n=$(grep -c ' TSS sdi=0x[0-9a-f]* .*an=[01] epoch=[0-9]* tsc=[0-9]* (encrypted [0-9]* bytes, ICV 16)$' \
	"$tmp/plain.out")
if [ "$n" -eq "$ntss" ] && ! grep -q 'decrypted\|not verified' "$tmp/plain.out"; then
	pass
else
	fail "without -K: $n of $ntss TSS frames shown with header and (encrypted ...)"
fi
keys="-K $tmp/k-direct.key -K $tmp/k-cluster.key"
# shellcheck disable=SC2086
if "$UETDUMP" -v $keys -r "$tmp/all.pcap" >"$tmp/key.out" 2>"$tmp/key.err"; then
	pass
else
	fail "uetdump -K: exit status $?: $(cat "$tmp/key.err")"
fi
# the fields: the manifest's and what was sealed inside
{ manifest_fields "$tmp/all.man"
  awk '$2 != "unverified" && $2 != "malformed"' "$tmp/all.sec" |
	manifest_fields /dev/stdin
} | sort >"$tmp/key.want"
fields_of "$tmp/key.out" | sort >"$tmp/key.got"
if ! diff "$tmp/key.want" "$tmp/key.got" >"$tmp/key.diff"; then
	fail "-K fields differ from manifest + secrets (< want, > uetdump):"
	sed 's/^/    /' "$tmp/key.diff" | head -40 >&2
else
	pass
fi
summaries_of "$tmp/key.out" >"$tmp/key.sum"
check_keys "$tmp/all.sec" "$tmp/key.sum" "$tmp/all.man" >"$tmp/key.names"
if [ -s "$tmp/key.names" ]; then
	fail "-K summary lines:"
	sed 's/^/    /' "$tmp/key.names" | head -20 >&2
else
	pass
fi
# frames without TSS read the same with and without keys
grep -v ' TSS ' "$tmp/plain.out" >"$tmp/plain.clear"
if grep -v ' TSS ' "$tmp/key.out" | grep '^[^ ]' |
   cmp -s - "$tmp/plain.clear"; then
	pass
else
	fail "-K changed the lines of clear frames"
fi
want="uetdump: $nframes packets, $nframes UET, $nmal malformed, $ndec decrypted, $((ntss - ndec)) not verified"
if grep -qx "$want" "$tmp/key.err"; then
	pass
else
	fail "-K: want '$want', got: $(cat "$tmp/key.err")"
fi
# one domain only: the other's frames are of an unknown SDI
n=$("$UETDUMP" -K "$tmp/k-direct.key" -r "$tmp/all.pcap" 2>&1 |
	grep -c 'sdi=0x5e0002 .*\[not verified: unknown SDI\]')
[ "$n" -ge 2 ] && pass || fail "-K direct only: $n cluster frames of unknown SDI"

# key files refused: nothing decoded, exit 1, the reason on stderr
refuse() {	# $1 key file, $2 expected words, $3 what
	if "$UETDUMP" -K "$1" -r "$tmp/all.pcap" >"$tmp/ref.out" 2>"$tmp/ref.err"; then
		fail "$3: uetdump -K accepted it"
	elif [ -s "$tmp/ref.out" ] || ! grep -q "^uetdump: key file $1: .*$2" "$tmp/ref.err"; then
		fail "$3: want '$2' and no output, got: $(cat "$tmp/ref.err" "$tmp/ref.out" | head -3)"
	elif grep -q "$(tail -c 20 "$tmp/k-direct.key" | tr -d '\n')" "$tmp/ref.err"; then
		fail "$3: the error quotes key material"
	else
		pass
	fi
}
for mode in 640 604 660 644 602 610; do
	cp "$tmp/k-direct.key" "$tmp/perm.key" && chmod "$mode" "$tmp/perm.key"
	refuse "$tmp/perm.key" "group or others may access it (mode $mode)" "mode $mode"
done
chmod 600 "$tmp/perm.key"
if "$UETDUMP" -K "$tmp/perm.key" -r "$tmp/all.pcap" >/dev/null 2>&1; then
	pass
else
	fail "a copy of the key file at mode 600 is refused"
fi
ln -s "$tmp/k-direct.key" "$tmp/link.key"
refuse "$tmp/link.key" "symbolic link" "symbolic link"
mkdir -m 700 "$tmp/dir.key"
refuse "$tmp/dir.key" "not a regular file" "directory"
refuse "$tmp/none.key" "No such file" "missing file"
sed 's/^\(key0 .*\).$/\1/' "$tmp/k-direct.key" >"$tmp/short.key"
chmod 600 "$tmp/short.key"
refuse "$tmp/short.key" "line [0-9]*: a key is 64 hex digits" "63-digit key"
if [ "$(id -u)" = 0 ]; then
	cp "$tmp/k-direct.key" "$tmp/other.key"
	chmod 600 "$tmp/other.key" && chown 65534 "$tmp/other.key" &&
		refuse "$tmp/other.key" "owned by uid 65534" "someone else's file"
fi

# 5. raw IP: the entropy header is the summary's "ev" and a field
nraw=$(awk '$2 == "entropy.entropy"' "$tmp/all.man" | wc -l)
# (uetgen's addresses; no port after them)
n=$(grep -Ec ' (192\.0\.2\.1|2001:db8::1) > (192\.0\.2\.2|2001:db8::2): UET ev [0-9]' \
	"$tmp/plain.out")
if [ "$nraw" -ge 4 ] && [ "$n" -eq "$nraw" ]; then
	pass
else
	fail "raw IP: $n frames without ports shown with ev, manifest has $nraw"
fi
# another protocol number: frames of 253 are not UET any more
n=$("$UETDUMP" -P 254 -r "$tmp/all.pcap" 2>/dev/null | grep -c 'not UET (IP protocol)')
[ "$n" -eq "$nraw" ] && pass || fail "-P 254: $n of $nraw raw IP frames not UET"
EDITCAP=${EDITCAP:-$(command -v editcap 2>/dev/null)}
if [ -n "$EDITCAP" ] && [ -x "$EDITCAP" ]; then
	# shellcheck disable=SC2086
	if "$EDITCAP" -C 14 -T rawip "$tmp/all.pcap" "$tmp/rawip.pcap" &&
	   "$UETDUMP" $keys -r "$tmp/rawip.pcap" >"$tmp/rawip.out" 2>&1 &&
	   "$UETDUMP" $keys -r "$tmp/all.pcap" 2>&1 | cmp -s - "$tmp/rawip.out"; then
		pass
	else
		fail "link type raw IP (editcap -T rawip) reads differently"
	fi
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

# 6. GSO trains
# uetdump's summary lines -> "<frame> <k>/<n> <type> <psn|-> <payload>"
# (frames told apart by their timestamps, uetgen's are all distinct).
gso_lines() {
	awk '/^[0-9][0-9]:[0-9][0-9]:/ {
		if ($1 != ts) { ts = $1; f++ }
		pos = "1/1"; type = ""; psn = "-"; pay = "?"
		for (i = 1; i <= NF; i++) {
			if ($i == "ev") { j = i + 2 }
			if ($i == "[gso") { pos = $(i + 1); sub(/]$/, "", pos) }
			if ($i == "psn" && psn == "-") psn = $(i + 1)
			if ($i == "payload") pay = $(i + 1)
		}
		while ($j ~ /^\[/ || $j ~ /^[0-9]+\/[0-9]+]$/) j++
		type = $j
		if (type == "ACK") psn = "-"
		print f, pos, type, psn, pay
	}' "$1"
}
if "$UETGEN" --gso -w "$tmp/gso.pcap" -m "$tmp/gso.man"; then
	ncut=$(grep -c ' 1/[2-9] ' "$tmp/gso.man")
	npkt=$(wc -l <"$tmp/gso.man")
	nfr=$(awk '{ print $1 }' "$tmp/gso.man" | sort -u | wc -l)
	"$UETDUMP" -r "$tmp/gso.pcap" >"$tmp/gso.out" 2>"$tmp/gso.err"
	gso_lines "$tmp/gso.out" >"$tmp/gso.got"
	if [ "$ncut" -ge 2 ] && diff "$tmp/gso.man" "$tmp/gso.got" >"$tmp/gso.diff"; then
		pass
	else
		fail "GSO trains read differently (want, got): $(cat "$tmp/gso.diff")"
	fi
	want="uetdump: $nfr packets, $npkt UET, 0 malformed, $ncut GSO frames cut"
	grep -qx "$want" "$tmp/gso.err" && pass ||
		fail "GSO totals: want '$want', got: $(cat "$tmp/gso.err")"
else
	fail "uetgen --gso failed"
fi

echo "test-uetdump: $checks checks passed, $fails failed"
[ "$fails" -eq 0 ]
