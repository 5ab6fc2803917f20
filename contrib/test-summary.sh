#!/bin/sh
# Sum the results of `make check` in a build dir: Criterion suites by their
# "Synthesis" lines, other tests by their automake .trs result.
# Usage: contrib/test-summary.sh [BUILD_DIR]   (exit 1 if anything failed)
dir=${1:-.}
find "$dir" -name '*.trs' | sort | while read -r trs; do
	log=${trs%.trs}.log
	syn=$(grep -a 'Synthesis: Tested:' "$log" 2>/dev/null | tail -n 1)
	if [ -n "$syn" ]; then
		echo "$syn" | sed 's/\x1b\[[0-9;]*m//g' |
			awk -v t="${log#"$dir"/}" -F'|' '{
				split($1, a, ":"); n = a[3] + 0
				split($2, b, ":"); p = b[2] + 0
				split($3, c, ":"); f = c[2] + 0
				split($4, d, ":"); k = d[2] + 0
				printf "C %s %d %d %d %d\n", t, n, p, f, k }'
	else
		r=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
		echo "S ${trs#"$dir"/} $r"
	fi
done | awk '
	$1 == "C" { printf "  %-40s criterion: %d tested, %d passing, %d failing, %d crashing\n", $2, $3, $4, $5, $6
		    pass += $4; fail += $5 + $6; ctested += $3 }
	$1 == "S" { printf "  %-40s %s\n", $2, $3
		    if ($3 == "PASS" || $3 == "XFAIL") pass++
		    else if ($3 == "SKIP") skip++
		    else fail++ }
	END { printf "criterion total: %d tested\n", ctested
	      printf "tests: %d passed, %d failed, %d skipped\n", pass, fail, skip
	      exit fail > 0 }'
