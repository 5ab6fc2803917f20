#!/bin/sh
# Checks contrib/wireshark/uet.lua against uetgen: uetgen writes a capture
# with one packet of every UET header kind and a manifest of the values it
# encoded ("<frame> <field> <value>", uet/tools/FIELDS.md names); tshark
# with the dissector must show exactly those fields with those values, no
# expert warning or malformed mark on a good frame, working display
# filters, and a malformed mark (or warning) on each bad frame of
# `uetgen --bad`; and the GSO trains of `uetgen --gso` cut into their
# packets.
#
# Environment (AM_TESTS_ENVIRONMENT): top_builddir, top_srcdir, TSHARK.
# TSHARK empty: skipped (exit 77). As root, tshark may refuse to run Lua
# scripts (init.lua run_user_scripts_when_superuser); then tshark runs as
# user nobody. UET_LUA_TEST_UNPRIV=1 forces that path.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
TSHARK=${TSHARK-}

if [ -z "$TSHARK" ]; then
	echo "SKIP: no tshark (configure found none; set TSHARK=/path/to/tshark)"
	exit 77
fi
if ! "$TSHARK" -v 2>/dev/null | grep -q 'with Lua'; then
	echo "SKIP: $TSHARK is built without Lua"
	exit 77
fi

uetgen=$top_builddir/uet/tools/uetgen
if [ ! -x "$uetgen" ]; then
	echo "ERROR: uetgen not built (make builds it)"
	exit 99
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/uet-lua.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# A private copy of the script and an empty home: no personal preferences
# or an installed copy of the plugin get in the way.
cp "$top_srcdir/contrib/wireshark/uet.lua" "$tmp/uet.lua" || exit 99
mkdir "$tmp/home" || exit 99
lua=$tmp/uet.lua

runas=
ts() {
	HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config \
		$runas "$TSHARK" "$@" 2>>"$tmp/tshark.err"
}
tsl() {
	ts -X lua_script:"$lua" "$@"
}
# Does this tshark run user Lua scripts at all? A one-line probe tells,
# so that a broken uet.lua fails the test instead of skipping it.
echo 'Proto("uetluaprobe", "uet Lua test probe")' >"$tmp/probe.lua"
lua_runs() {
	ts -G protocols -X lua_script:"$tmp/probe.lua" |
		awk -F'\t' '$3 == "uetluaprobe" { found = 1 } END { exit !found }'
}
# Filter name our script registered under ("uet", or "uetlua" next to a
# built-in UET dissector).
proto_name() {
	ts -G protocols -X lua_script:"$lua" |
		awk -F'\t' 'index($1, "Ultra Ethernet Transport (uet Lua dissector)") == 1 { print $3 }'
}

drop_privs() {
	if command -v setpriv >/dev/null 2>&1; then
		runas="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	elif command -v runuser >/dev/null 2>&1; then
		runas="runuser -u nobody --"
	else
		return 1
	fi
	chmod 755 "$tmp" "$tmp/home" && chmod 644 "$lua" "$tmp/probe.lua"
}

if [ "${UET_LUA_TEST_UNPRIV:-0}" = 1 ] && [ "$(id -u)" = 0 ]; then
	drop_privs || exit 99
fi
if ! lua_runs; then
	if [ "$(id -u)" = 0 ] && [ -z "$runas" ]; then
		echo "tshark runs no user Lua scripts as root here; retrying as user nobody"
		drop_privs
	fi
	if [ -z "$runas" ] || ! lua_runs; then
		cat "$tmp/tshark.err"
		echo "SKIP: $TSHARK runs no user Lua scripts (as $(id -un)${runas:+ or nobody})"
		exit 77
	fi
fi
P=$(proto_name)
if [ -z "$P" ]; then
	cat "$tmp/tshark.err"
	echo "FAIL: tshark did not load $top_srcdir/contrib/wireshark/uet.lua"
	exit 1
fi
echo "dissector registered as \"$P\"${runas:+ (tshark run via: $runas)}"

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

"$uetgen" -w "$tmp/all.pcap" -m "$tmp/all.man" -l "$tmp/all.list" ||
	{ echo "ERROR: uetgen failed"; exit 99; }
"$uetgen" --bad -w "$tmp/bad.pcap" -m "$tmp/bad.man" -l "$tmp/bad.list" ||
	{ echo "ERROR: uetgen --bad failed"; exit 99; }
[ -z "$runas" ] || chmod 644 "$tmp"/*.pcap
[ -s "$tmp/all.man" ] || { echo "ERROR: empty manifest"; exit 99; }

# Every manifest field name must be a registered field.
ts -G fields -X lua_script:"$lua" | awk -F'\t' '$1 == "F" { print $3 }' \
	>"$tmp/registered"
for n in $(awk '$2 != "malformed" { print $2 }' "$tmp/all.man" "$tmp/bad.man" |
		sort -u); do
	grep -qx "$P.$n" "$tmp/registered" || bad "field $P.$n is not registered"
done
[ $fail = 0 ] || exit 1

# Writes "<frame> <name> <value>" for every manifest field name the
# dissector shows in capture $1, values normalised like the manifest:
# decimal for hex, 0/1 for booleans, byte strings without separators.
# $shown_opts: more tshark options.
shown_opts=
shown() {
	names=$(awk '$2 != "malformed" { print $2 }' "$tmp/all.man" \
		"$tmp/bad.man" | sort -u)
	set -- -r "$1" -T fields -E separator=/t -E occurrence=a \
		-E aggregator=/s -e frame.number
	for n in $names; do
		set -- "$@" -e "$P.$n"
	done
	tsl $shown_opts "$@" >"$tmp/fields.tsv" || return 1
	# Column i+1 holds the i-th name.
	echo "$names" | awk -v P="$P" '
		NR == FNR { name[NR + 1] = $1; next }
		{
			for (i = 2; i <= NF; i++) {
				if ($i == "")
					continue
				k = split($i, v, " ")
				for (j = 1; j <= k; j++)
					print $1, name[i], v[j]
			}
		}' - FS='\t' "$tmp/fields.tsv" |
	while read -r frame name value; do
		case $value in
		0x* | 0X*) value=$(printf '%u' "$value") ;;
		True) value=1 ;;
		False) value=0 ;;
		*:*) value=$(echo "$value" | tr -d ':' | tr 'A-F' 'a-f') ;;
		esac
		echo "$frame $name $value"
	done
}

# compare MANIFEST SHOWN: each manifest value shown in its frame, and no
# manifest-named field shown that the manifest does not list for the frame.
compare() {
	awk '
		NR == FNR {
			key = $1 " " $2
			want[key " " $3] = 1
			has[key] = 1
			next
		}
		{
			key = $1 " " $2
			got[key " " $3] = 1
			shown[key] = shown[key] (shown[key] == "" ? "" : ",") $3
		}
		END {
			for (k in want) {
				if (k in got)
					continue
				split(k, a, " ")
				key = a[1] " " a[2]
				printf "FAIL: frame %s: %s = %s expected, dissector shows %s\n",
					a[1], a[2], a[3], key in shown ? shown[key] : "nothing"
				n++
			}
			for (k in shown) {
				if (k in has)
					continue
				split(k, a, " ")
				printf "FAIL: frame %s: %s = %s shown, not in the header\n",
					a[1], a[2], shown[k]
				n++
			}
			exit n > 0
		}' "$1" "$2"
}

# Frames whose expert info is Warning or worse, or marked malformed:
# "<frame> <severities> <messages>".
experts() {
	tsl -r "$1" -T fields -E separator=/t -e frame.number \
		-e _ws.expert.severity -e _ws.malformed -e _ws.expert.message |
	awk -F'\t' '{
		k = split($2, s, ",")
		worst = 0
		for (i = 1; i <= k; i++)
			if (s[i] + 0 > worst)
				worst = s[i] + 0
		# PI_WARN = 0x00600000
		if (worst >= 6291456 || $3 != "")
			print $1 "\t" ($3 != "" ? "malformed" : "warning") "\t" $4
	}'
}

# ---- the capture of every header kind
echo "== uetgen frames"
cat "$tmp/all.list"
echo "== tshark summary"
tsl -r "$tmp/all.pcap" || bad "tshark failed on the capture"

awk '$2 != "malformed"' "$tmp/all.man" >"$tmp/all.want"
shown "$tmp/all.pcap" >"$tmp/all.got" || bad "tshark -T fields failed"
nframes=$(awk '{ print $1 }' "$tmp/all.want" | sort -u | wc -l)
nvalues=$(wc -l <"$tmp/all.want")
if compare "$tmp/all.want" "$tmp/all.got"; then
	echo "ok: $nvalues field values in $nframes frames match the manifest"
else
	bad "field values differ from the manifest"
fi

experts "$tmp/all.pcap" >"$tmp/all.exp"
if [ -s "$tmp/all.exp" ]; then
	cat "$tmp/all.exp"
	bad "expert warnings or malformed marks on good frames"
else
	echo "ok: no expert warning or malformed mark on $nframes frames"
fi

# Every frame is ours and has a summary in the Info column.
tsl -r "$tmp/all.pcap" -T fields -E separator=/t -e frame.number \
	-e _ws.col.Protocol -e _ws.col.Info >"$tmp/cols.tsv"
awk -F'\t' '$2 != "UET" || $3 == "" || $3 ~ /Malformed/ {
		print "FAIL: frame " $1 ": columns " $2 " / " $3; n++
	}
	END { exit n > 0 }' "$tmp/cols.tsv" || bad "Protocol/Info columns"

# Display filters select what the manifest says they should.
filter_check() {
	# $1 filter, $2 awk condition on the manifest
	want=$(awk "$2 { print \$1 }" "$tmp/all.want" | sort -un | tr '\n' ' ')
	got=$(tsl -r "$tmp/all.pcap" -Y "$1" -T fields -e frame.number |
		sort -un | tr '\n' ' ')
	if [ -z "$want" ]; then
		bad "filter $1: manifest has no such frame"
	elif [ "$want" = "$got" ]; then
		echo "ok: -Y '$1' selects frames $want"
	else
		bad "-Y '$1' selects [$got], manifest says [$want]"
	fi
}
filter_check "$P.pds.type == 7" '$2 == "pds.type" && $3 == 7'
filter_check "$P.pds.ctl_type == 6" '$2 == "pds.ctl_type" && $3 == 6'
filter_check "$P.ses.rsp_opcode == 2" '$2 == "ses.rsp_opcode" && $3 == 2'
filter_check "$P.entropy.entropy" '$2 == "entropy.entropy"'
filter_check "$P.tss.sp == 1" '$2 == "tss.sp" && $3 == 1'

# ---- TSS: after the header, the ciphertext ("encrypted payload") and the
# 16-byte ICV at the end, and the Info column says so; uetgen's TSS frames
# all carry some ciphertext.
echo "== TSS frames"
awk '$2 == "tss.type" { print $1 }' "$tmp/all.want" | sort -un >"$tmp/tss.frames"
tsl -r "$tmp/all.pcap" -T fields -E separator=/t -e frame.number \
	-e "$P.tss.encrypted" -e "$P.tss.icv" -e _ws.col.Info >"$tmp/tss.tsv"
ntss=$(wc -l <"$tmp/tss.frames")
if [ "$ntss" -ge 8 ] && awk -F'\t' '
	NR == FNR { tss[$1] = 1; next }
	{
		icv = $3; gsub(/:/, "", icv)
		enc = $2; gsub(/:/, "", enc)
		if ($1 in tss) {
			if (length(icv) != 32 || enc == "" ||
			    $4 !~ /TSS sdi=0x[0-9a-f]+ .*an=[01] epoch=[0-9]+ tsc=[0-9]+ \(encrypted [0-9]+ bytes, ICV 16\)/) {
				print "FAIL: frame " $1 ": ICV " icv ", ciphertext " length(enc) / 2 " bytes, Info " $4
				n++
			}
		} else if ($2 != "" || $3 != "") {
			print "FAIL: frame " $1 ": ICV or ciphertext shown without TSS"
			n++
		}
	}
	END { exit n > 0 }' "$tmp/tss.frames" "$tmp/tss.tsv"; then
	echo "ok: $ntss TSS frames show ciphertext, a 16-byte ICV and their header in Info"
else
	bad "TSS frames: $ntss, or ciphertext/ICV/Info wrong"
fi

# ---- raw IP: registered on ip.proto (IPv4 and IPv6) at the preference's
# number, entropy header first.
echo "== raw IP"
awk '$2 == "entropy.entropy" { print $1 }' "$tmp/all.want" | sort -un |
	tr '\n' ' ' >"$tmp/raw.want"
tsl -r "$tmp/all.pcap" -Y "(ip.proto == 253 || ipv6.nxt == 253) && $P.entropy.entropy" \
	-T fields -e frame.number | sort -un | tr '\n' ' ' >"$tmp/raw.got"
if [ -s "$tmp/raw.want" ] && cmp -s "$tmp/raw.want" "$tmp/raw.got"; then
	echo "ok: protocol 253 frames $(cat "$tmp/raw.got")decode with their entropy header"
else
	bad "raw IP: frames [$(cat "$tmp/raw.got")], manifest says [$(cat "$tmp/raw.want")]"
fi
n=$(tsl -o "$P.ip_proto:254" -r "$tmp/all.pcap" -Y "$P" -T fields \
	-e frame.number | wc -l)
nall=$(awk '{ print $1 }' "$tmp/all.want" | sort -u | wc -l)
nraw=$(wc -w <"$tmp/raw.want")
if [ "$n" -eq $((nall - nraw)) ]; then
	echo "ok: with $P.ip_proto:254 the $nraw protocol 253 frames are not UET"
else
	bad "$P.ip_proto:254: $n UET frames, want $((nall - nraw))"
fi

# ---- the UDP heuristic: with no port registered, every UDP frame that
# starts with a PDS header (no TSS, no raw-IP entropy header) is still
# found and decoded the same (uet's ephemeral and spray ports).
echo "== UDP heuristic ($P.udp_port:0)"
awk '$2 ~ /^(tss|entropy)\./ { print $1 }' "$tmp/all.man" | sort -un \
	>"$tmp/heur.skip"
awk 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' "$tmp/heur.skip" \
	"$tmp/all.want" >"$tmp/heur.want"
shown_opts="-o $P.udp_port:0"
shown "$tmp/all.pcap" |
	awk 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' \
		"$tmp/heur.skip" - >"$tmp/heur.got"
shown_opts=
nheur=$(awk '{ print $1 }' "$tmp/heur.want" | sort -u | wc -l)
if [ "$nheur" -ge 20 ] && compare "$tmp/heur.want" "$tmp/heur.got"; then
	echo "ok: $nheur UDP frames found by the heuristic, values match"
else
	bad "UDP heuristic: $nheur frames, or values differ from the manifest"
fi

# ---- malformed frames between good ones
echo "== uetgen --bad frames"
cat "$tmp/bad.list"
tsl -r "$tmp/bad.pcap" || bad "tshark failed on the --bad capture"
awk '$2 != "malformed"' "$tmp/bad.man" >"$tmp/bad.want"
awk '$2 == "malformed" { print $1 }' "$tmp/bad.man" | sort -un >"$tmp/bad.frames"
# Values of the good frames only.
shown "$tmp/bad.pcap" |
	awk 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' "$tmp/bad.frames" - \
	>"$tmp/bad.got"
if compare "$tmp/bad.want" "$tmp/bad.got"; then
	echo "ok: good frames of the --bad capture match the manifest"
else
	bad "--bad capture: good frame values differ from the manifest"
fi
experts "$tmp/bad.pcap" >"$tmp/bad.exp"
# Truncation, reserved type/ctl_type and a wrong next_hdr must be marked
# malformed; other defects (version, opcode, cc_type) at least warned.
awk '
	NR == FNR { flag[$1] = $2; msg[$1] = $3; next }
	$2 == "malformed" {
		nbad++
		reason = $0
		sub(/^[0-9]+ malformed /, "", reason)
		need = "warning"
		if (reason ~ /truncated|PDS type|next header|control type/)
			need = "malformed"
		if (!($1 in flag))
			printf "FAIL: frame %s (%s) not flagged\n", $1, reason
		else if (need == "malformed" && flag[$1] != "malformed")
			printf "FAIL: frame %s (%s) only warned: %s\n", $1, reason, msg[$1]
		else {
			printf "ok: frame %s (%s) %s: %s\n", $1, reason, flag[$1], msg[$1]
			next
		}
		n++
		next
	}
	{ good[$1] = 1 }
	END {
		for (f in flag)
			if (f in good) {
				printf "FAIL: good frame %s flagged: %s\n", f, msg[f]
				n++
			}
		if (nbad == 0) {
			print "FAIL: uetgen --bad wrote no malformed frame"
			n++
		}
		exit n > 0
	}' FS='\t' "$tmp/bad.exp" FS=' ' "$tmp/bad.man" || bad "--bad capture: expert marks"
if grep -q 'Dissector error' "$tmp/all.exp" "$tmp/bad.exp"; then
	bad "the dissector raised a Lua error"
fi

# ---- GSO trains: several packets in one UDP payload (uetgen --gso)
# Per frame: how many UET packets, their PSNs and payload lengths, as the
# manifest says; no warning or malformed mark.
if "$uetgen" --gso -w "$tmp/gso.pcap" -m "$tmp/gso.man"; then
	awk '{
		n[$1]++
		if ($4 != "-") p[$1] = p[$1] (p[$1] == "" ? "" : ",") $4
		if ($5 > 0) l[$1] = l[$1] (l[$1] == "" ? "" : ",") $5
	}
	END { for (f in n) print f "\t" n[f] "\t" p[f] "\t" l[f] }' \
		"$tmp/gso.man" | sort -n >"$tmp/gso.want"
	tsl -r "$tmp/gso.pcap" -T fields -E separator=/t -E occurrence=a \
		-e frame.number -e "$P.pds.type" -e "$P.pds.psn" \
		-e "$P.payload_length" |
		awk -F'\t' '{ print $1 "\t" split($2, t, ",") "\t" $3 "\t" $4 }' \
		>"$tmp/gso.got"
	if diff "$tmp/gso.want" "$tmp/gso.got" >"$tmp/gso.diff"; then
		echo "ok: GSO trains cut into the packets uetgen put in them"
	else
		cat "$tmp/gso.diff"
		bad "GSO trains (frame, packets, PSNs, payloads) differ"
	fi
	experts "$tmp/gso.pcap" >"$tmp/gso.exp"
	if [ -s "$tmp/gso.exp" ]; then
		cat "$tmp/gso.exp"
		bad "expert warnings or malformed marks on GSO trains"
	fi
else
	bad "uetgen --gso failed"
fi

# For the log: one frame in full (the NSCC ACK_CC if there is one).
f=$(awk '$2 == "pds.cc_type" && $3 == 0 { print $1; exit }' "$tmp/all.want")
f=${f:-1}
echo "== tshark -V, frame $f"
tsl -r "$tmp/all.pcap" -V -Y "frame.number == $f" |
	sed -n '/^Ultra Ethernet Transport/,$p'

if [ $fail != 0 ]; then
	echo "== tshark stderr"
	grep -v 'Running as user' "$tmp/tshark.err"
fi
exit $fail
