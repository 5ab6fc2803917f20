#!/bin/sh
# Every section sign in the tree's sources, scripts, man pages and docs
# cites a document a reader can open: "UE 1.0 §3.5.8", "RFC 6298 §5.3",
# "docs/protocol.md §4.3" or another file of the tree (docs/naming.md §4).
# The name stands a few words before the sign, on its line or at the end
# of the line before; a sign a few words after a cited one inherits its
# document ("docs/protocol.md §4.1, §4.7"). A tree file must exist and be
# a Markdown file with numbered headings, one of them the section cited.
# Prints file:line for each offence. Exit 0 pass, 1 fail. It first
# proves on planted files that it catches each kind of offence.
set -u
: "${top_srcdir:=.}"
sect=$(printf '\302\247')

# The files to check, below the current directory.
sources() {
	find uet include prov fabtests contrib fuzz man docs .ci \
		-path fuzz/corpus -prune -o -type f \
		\( -name '*.[ch]' -o -name '*.sh' -o -name '*.md' \
		   -o -name '*.inc' -o -name '*.lua' -o -name '*.py' \
		   -o -name '*.[17]' -o -name '*.exclude' -o -name run \) \
		-print 2>/dev/null
	ls Makefile.am configure.ac README.md AUTHORS autogen.sh 2>/dev/null
}

# Check the files named, paths relative to the top of their tree.
check() {
	LC_ALL=C awk -v S="$sect" '
function exists(p) {
	if (p in seen)
		return seen[p]
	seen[p] = ((getline junk < p) >= 0)
	close(p)
	return seen[p]
}
# The headings "## 4." and "### 4.3 ..." of a Markdown file, once.
function load(p,   l, n) {
	if (p in loaded)
		return
	loaded[p] = 1
	while ((getline l < p) > 0)
		if (l ~ /^#+ [0-9]+(\.[0-9]+)*\.? /) {
			sub(/^#+ /, "", l)
			sub(/\.? .*/, "", l)
			head[p, l] = 1
			numbered[p] = 1
		}
	close(p)
}
# How many words (with a letter or digit) t holds.
function words(t,   w, n, i, k) {
	n = split(t, w, /[ \t]+/)
	k = 0
	for (i = 1; i <= n; i++)
		if (w[i] ~ /[A-Za-z0-9]/)
			k++
	return k
}
# The document named at the end of text t (a few words), or "".
function docname(t, dir,   w, n, i, k, tail, m, p) {
	n = split(t, w, /[ \t]+/)
	tail = ""
	k = 0
	for (i = n; i >= 1 && k < 4; i--) {
		if (w[i] == "")
			continue
		tail = w[i] " " tail
		k++
	}
	if (tail ~ /UE 1\.0(\.1)?[^0-9]/ || tail ~ /RFC ?[0-9][0-9]+/)
		return "spec"
	# the last file named, if several
	m = ""
	while (match(tail, FILE)) {
		m = substr(tail, RSTART, RLENGTH - 1)
		tail = substr(tail, RSTART + RLENGTH - 1)
	}
	if (m == "")
		return ""
	p = dir "/" m
	if (exists(p))
		return p
	if (exists(m))
		return m
	return "?" m
	return ""
}
BEGIN { FILE = "[A-Za-z0-9_.\\/-]*[A-Za-z0-9_-]\\.(md|[ch]|sh|lua|py|inc|[17])([^A-Za-z0-9_]|$)" }
FNR == 1 {
	dir = FILENAME
	sub(/\/[^\/]*$/, "", dir)
	if (dir == FILENAME)
		dir = "."
	last = ""
}
{
	# A comment wrapped between the name and the sign: the line before
	# counts, its comment leader dropped.
	cur = $0
	sub(/^[ \t]*(\*|#+|--|\/\/|;|\.\\")?[ \t]*/, "", cur)
	line = last " " cur
	skip = length(last) + 1
	last = cur
}
index(cur, S) {
	prev = ""
	pos = 0
	while ((i = index(line, S)) > 0) {
		before = substr(line, 1, i - 1)
		rest = substr(line, i + length(S))
		match(rest, /^[0-9A-Za-z]+(\.[0-9A-Za-z]+)*/)
		num = substr(rest, 1, RLENGTH)
		line = substr(rest, RLENGTH + 1)
		pos += i + length(S) + RLENGTH - 1
		doc = ""
		doc = docname(before, dir)
		if (doc == "" && prev != "" && words(before) <= 3 &&
		    before !~ /[.;] /)
			doc = prev
		prev = doc ~ /^\?/ ? "" : doc
		if (pos <= skip)
			continue
		if (doc == "" || doc ~ /^\?/) {
			why = doc == "" ? "names no document" : "names " substr(doc, 2) ", not a file of the tree"
			printf "%s:%d: %s%s %s\n", FILENAME, FNR, S, num, why
			bad++
			continue
		}
		if (doc == "spec")
			continue
		load(doc)
		if (!(doc in numbered)) {
			printf "%s:%d: %s has no numbered sections\n", FILENAME, FNR, doc
			bad++
		} else if (!((doc, num) in head)) {
			printf "%s:%d: %s has no section %s%s\n", FILENAME, FNR, doc, S, num
			bad++
		}
	}
}
END { exit bad > 0 }
' "$@"
}

# Planted: citations that must pass, then a bare sign, a document not in
# the tree, a section its document lacks and a file without sections,
# which must not.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs" "$tmp/uet"
printf '# A\n\n## 1. One\n\n### 1.2 Two\n' > "$tmp/docs/a.md"
{
	echo "/* UE 1.0 ${sect}3.5.8, RFC 6298 ${sect}5.3; docs/a.md ${sect}1.2, ${sect}1"
	echo " * wrapped: docs/a.md"
	echo " * ${sect}1.2 */"
	echo "/* bare ${sect}4.2 */"
	echo "/* pds-behaviour.md ${sect}7 */"
	echo "/* docs/a.md ${sect}9 */"
	echo "/* uet/x.c ${sect}1 */"
} > "$tmp/uet/x.c"
want="uet/x.c:4 uet/x.c:5 uet/x.c:6 uet/x.c:7 "
# shellcheck disable=SC2046
got=$(cd "$tmp" && check $(sources) | cut -d: -f1,2 | tr '\n' ' ')
if [ "$got" != "$want" ]; then
	echo "FAIL: on planted citations the check printed '$got', not '$want'"
	exit 1
fi

cd "$top_srcdir" || exit 1
files=$(sources)
[ -n "$files" ] || { echo "FAIL: no files to check in $top_srcdir"; exit 1; }
# shellcheck disable=SC2086
check $files
rc=$?
[ $rc -eq 0 ] ||
	echo "FAIL: name UE 1.0, an RFC or a file of the tree before each $sect (docs/naming.md ${sect}4)"
exit $rc
