#!/bin/sh
# fi_info through libfabric's own loader finds the built module
# (FI_PROVIDER_PATH), lists RDM entries then DGRAM ones with loopback last,
# honours FI_UET_IFACE and FI_PROVIDER=uet, refuses what we do not do, and
# no utility provider gets layered over uet (ofi_rxd would take our DGRAM
# entries for FI_EP_RDM) unless FI_UET_ALLOW_LAYERING=1.
# Exit 0 pass, 1 fail, 77 skip.
set -u
: "${top_builddir:=.}"
dir=$top_builddir/prov/uet/.libs
command -v fi_info >/dev/null 2>&1 || { echo "SKIP: no fi_info"; exit 77; }
[ -f "$dir/libuet-fi.so" ] || { echo "SKIP: module not built"; exit 77; }
# A sanitizer build's module needs the ASan runtime loaded before it in
# programs that are not instrumented (fi_info, fi_pingpong); their own
# allocations are libfabric's, not ours: leak checking stays in unit_test.
asan=$(ldd "$dir/libuet-fi.so" 2>/dev/null | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
export FI_PROVIDER_PATH=$dir
unset FI_PROVIDER FI_UET_IFACE FI_UET_ALLOW_LAYERING FI_LOG_LEVEL
fail=0
bad() { echo "FAIL: $*"; fail=1; }

fi_info -l 2>/dev/null | grep -q '^uet:' || bad "fi_info -l does not list uet"

out=$(fi_info -p uet 2>&1) || bad "fi_info -p uet failed: $out"
echo "$out" | grep -q '^provider: uet$' || bad "no uet entries"
echo "$out" | grep -q 'provider: uet;' && bad "a provider layered over uet"
echo "$out" | grep -q 'type: FI_EP_RDM' || bad "no FI_EP_RDM entry"
echo "$out" | grep -q 'type: FI_EP_DGRAM' || bad "no FI_EP_DGRAM entry"
echo "$out" | grep 'type:' | grep -Ev 'FI_EP_(RDM|DGRAM)$' | grep -q . &&
	bad "an endpoint type other than RDM and DGRAM"
echo "$out" | sed -n 's/^ *type: //p' | uniq | tr '\n' ' ' |
	grep -qx 'FI_EP_RDM FI_EP_DGRAM ' || bad "DGRAM entries before RDM ones"
echo "$out" | grep -q 'protocol: FI_PROTO_UNSPEC' || bad "protocol"
echo "$out" | grep -q 'fabric: 127.0.0.0/8' || bad "no 127.0.0.0/8 fabric"
echo "$out" | grep -q 'domain: lo' || bad "no lo domain"
last=$(echo "$out" | sed -n 's/^ *domain: //p' | tail -n 1)
[ "$last" = lo ] || bad "loopback is not last (last: $last)"

out=$(FI_UET_IFACE=lo fi_info -p uet 2>&1) || bad "FI_UET_IFACE=lo: $out"
echo "$out" | sed -n 's/^ *domain: //p' | grep -qv '^lo$' &&
	bad "FI_UET_IFACE=lo still lists other interfaces"
out=$(FI_UET_IFACE=lo fi_info -p uet -v 2>&1)
for want in 'caps: \[.*FI_MSG' 'FI_TAGGED' 'FI_DIRECTED_RECV' \
	    'FI_MULTI_RECV' 'FI_SOURCE' 'mode: \[  \]' \
	    'msg_order: \[ FI_ORDER_SAS \]' 'cq_data_size: 8' \
	    'threading: FI_THREAD_SAFE' 'data_progress: FI_PROGRESS_MANUAL' \
	    'src_addr: fi_sockaddr_in://127.0.0.1:0' 'protocol_version: 1' \
	    'prov_name: uet$' 'api_version: 1.17'; do
	echo "$out" | grep -q -- "$want" || bad "-v output lacks $want"
done
for want in FI_ATOMIC 'FI_RMA[ ,]' FI_RMA_EVENT FI_FENCE FI_REMOTE_READ \
	    FI_REMOTE_WRITE; do
	echo "$out" | grep -q -- "$want" || bad "-v output lacks $want"
done

out=$(fi_info -p uet -t FI_EP_DGRAM -v 2>&1) || bad "DGRAM refused: $out"
echo "$out" | grep '^ *type:' | grep -qv 'FI_EP_DGRAM' && bad "-t DGRAM: other types"
echo "$out" | grep -qE 'FI_TAGGED|FI_RMA|FI_ATOMIC' && bad "DGRAM caps beyond FI_MSG"
echo "$out" | grep -q 'max_msg_size: 16592' || bad "lo DGRAM max_msg_size"
fi_info -p uet -t FI_EP_DGRAM -c FI_TAGGED >/dev/null 2>&1 &&
	bad "DGRAM with FI_TAGGED answered"
fi_info -p uet -c FI_TAGGED 2>&1 | grep -q 'FI_EP_DGRAM' &&
	bad "FI_TAGGED hints got a DGRAM entry"
fi_info -p uet -t FI_EP_MSG >/dev/null 2>&1 && bad "MSG answered"
fi_info -p uet -c 'FI_RMA' 2>/dev/null | grep -q '^provider: uet$' ||
	bad "FI_RMA refused"
fi_info -p uet -c 'FI_RMA|FI_RMA_EVENT|FI_FENCE' 2>/dev/null |
	grep -q '^provider: uet$' || bad "FI_RMA|FI_RMA_EVENT|FI_FENCE refused"
fi_info -p uet -c 'FI_TAGGED' >/dev/null 2>&1 || bad "FI_TAGGED refused"
fi_info -p uet -a FI_SOCKADDR_IN >/dev/null 2>&1 || bad "FI_SOCKADDR_IN refused"
fi_info -p uet -a FI_SOCKADDR_IB >/dev/null 2>&1 && bad "FI_SOCKADDR_IB answered"
fi_info -p uet -f 127.0.0.0/8 -d lo >/dev/null 2>&1 || bad "-f/-d lo refused"
fi_info -p uet -d nosuchif9 >/dev/null 2>&1 && bad "unknown domain answered"

out=$(FI_PROVIDER=uet fi_info 2>&1)
echo "$out" | grep '^provider:' | grep -qv '^provider: uet$' &&
	bad "FI_PROVIDER=uet lists: $(echo "$out" | grep '^provider:' | sort -u)"
# RDM stays ours: no uet;ofi_rxd over the DGRAM entries, in either way of
# naming the provider; with FI_UET_ALLOW_LAYERING=1 rxd does layer (so the
# check above can fail)
for how in "FI_PROVIDER=uet fi_info -t FI_EP_RDM" "fi_info -p uet -t FI_EP_RDM"; do
	out=$(env $how 2>&1)
	echo "$out" | grep -q '^provider: uet$' || bad "$how: no uet entry"
	echo "$out" | grep '^provider:' | grep -qv '^provider: uet$' &&
		bad "$how lists: $(echo "$out" | grep '^provider:' | sort -u)"
done
FI_UET_ALLOW_LAYERING=1 FI_PROVIDER=uet fi_info -t FI_EP_RDM 2>&1 |
	grep -q '^provider: uet;ofi_rxd$' ||
	bad "FI_UET_ALLOW_LAYERING=1 did not let ofi_rxd layer"

out=$(fi_info -p uet -n 127.0.0.1 -P 4793 -v 2>&1) || bad "-n 127.0.0.1"
echo "$out" | grep -q 'dest_addr: fi_sockaddr_in://127.0.0.1:4793' ||
	bad "node/service not resolved into dest_addr"

[ $fail -eq 0 ] && echo "PASS: fi_info -p uet"
exit $fail
