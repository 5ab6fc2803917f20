#!/bin/sh
# The main job: install dependencies, build, then write a capture holding one
# packet of every UET header type and decode it with uetdump.
# (Once the provider lands this becomes a libfabric ping-pong over uet.)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contrib/deps.sh"
"$top/contrib/build.sh" "$top/build"
out=${UET_DEMO_DIR:-$(mktemp -d)}
"$top/build/uet/tools/uetgen" -w "$out/uet-all.pcap" -m "$out/uet-all.manifest"
echo "== capture: $out/uet-all.pcap"
"$top/build/uet/tools/uetdump" -r "$out/uet-all.pcap"
