#!/bin/sh
# The main job: install dependencies, build, run Debian's fi_pingpong over
# FI_PROVIDER=uet on loopback with a packet capture, and decode the capture
# with uetdump. Leaves the captures in a directory it prints.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contrib/deps.sh"
"$top/contrib/build.sh" "$top/build"

out=${UET_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/uet-demo.XXXXXX")}
export FI_PROVIDER_PATH="$top/build/prov/uet/.libs"
export FI_PROVIDER=uet FI_UET_IFACE=lo

echo "== fi_info -p uet (loopback)"
fi_info -p uet | grep -E "provider|fabric|domain|type" | head -n 4

# fi_pingpong exchanges addresses over a TCP port of its own: take a free one.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "== fi_pingpong -p uet -e rdm, server and client on 127.0.0.1"
FI_UET_PCAP="$out/server.pcap" timeout 60 \
	fi_pingpong -p uet -e rdm -B "$port" -I 100 -S 4096 >"$out/server.log" 2>&1 &
server=$!
for _ in $(seq 1 50); do
	ss -Htln "sport = :$port" 2>/dev/null | grep -q . && break
	sleep 0.1
done
FI_UET_PCAP="$out/client.pcap" timeout 60 \
	fi_pingpong -p uet -e rdm -P "$port" -I 100 -S 4096 127.0.0.1
wait "$server"

echo "== uetdump -a -r $out/client.pcap (first 12 packets)"
"$top/build/uet/tools/uetdump" -a -c 12 -r "$out/client.pcap"
"$top/build/uet/tools/uetdump" -a -r "$out/client.pcap" >/dev/null
echo "== captures: $out/client.pcap $out/server.pcap"
echo "   field by field: build/uet/tools/uetdump -a -v -r $out/client.pcap"
echo "   in tshark: tshark -X lua_script:contrib/wireshark/uet.lua -r $out/client.pcap"
