#!/bin/sh
# Configure and build uet out of tree: contrib/build.sh DIR [configure args].
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
[ -x "$top/configure" ] || "$top/autogen.sh" >/dev/null
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] || "$top/configure" --quiet "$@"
make -j"$(nproc)"
