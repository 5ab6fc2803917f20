#!/bin/sh
# Every test: install dependencies, build in build/, run `make check`
# (Criterion suites, capture-tool and dissector tests) and sum the results.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
shift || true
"$top/contrib/deps.sh"
"$top/contrib/build.sh" "$dir" "$@"
make -C "$dir" -j"$(nproc)" check || {
	cat "$dir/test-suite.log" 2>/dev/null | tail -n 200
	"$top/contrib/test-summary.sh" "$dir"
	exit 1
}
