# contrib/bench/callgrind.sh: reading a callgrind profile, for the scripts
# that count instructions (engine-cost.sh, pp-cost.sh). Sourced, not run.
# shellcheck shell=sh

# cg_annotate CGFILE [CALLGRIND_ANNOTATE-ARGS...]: one line per entry,
# "instructions function file". callgrind_annotate prints
# "1,234,567 (12.34%)  file:function [object]"; inline code is charged to
# file:function under the header's file name, so callers sum by function.
cg_annotate() {
	cg_file=$1
	shift
	callgrind_annotate --auto=no --threshold=100 "$@" "$cg_file" 2>/dev/null |
	awk '$1 ~ /^[0-9,]+$/ && $0 ~ /:/ {
		n = $1; gsub(",", "", n)
		f = $0; sub(/ \[.*$/, "", f); sub(/^.*:/, "", f)
		sub(/^[^)]*\) +/, "", $0)
		file = $0; sub(/:.*$/, "", file)
		# The same code may be listed under its absolute and its
		# build-relative source path: one name per file.
		if (match(file, /(^|\/)(prov|uet|include)\//))
			file = substr(file, RSTART + (RSTART > 1))
		print n, f, file
	}' | sort -u
}

# cg_per FUNCTION DIVISOR < LINES: a function's instructions (summed over
# its lines) per DIVISOR, rounded.
cg_per() {
	awk -v f="$1" -v d="$2" '$2 == f { s += $1 } END { printf "%.0f", s / d }'
}

# cg_top DIVISOR TOP < LINES: the TOP functions by instructions per
# DIVISOR, "  count function".
cg_top() {
	awk -v d="$1" '{ s[$2] += $1 }
	END {
		for (f in s)
			printf "%8.0f %s\n", s[f] / d, f
	}' | sort -rn | head -n "$2"
}
