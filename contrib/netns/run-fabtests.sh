#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/netns/run-fabtests.sh: libfabric's own fabtests suite
# (runfabtests.sh of fabtests 1.17, built from the libfabric source: Debian
# packages none) over uet between two hosts: the two namespaces of a
# testbed (testbed.sh), server in NAME-a, client in NAME-b, across the
# veth. runfabtests.sh reaches its hosts with ssh; a stand-in for ssh on
# PATH runs what it is given for a testbed address inside that namespace,
# in this environment (FI_PROVIDER_PATH, FI_UET_*). Run by hand, as root.
#
# usage: run-fabtests.sh -p BINDIR [-t SETS] [-m MTU] [-c CC] [-n NAME]
#                        [-b BUILDDIR] [-- RUNFABTESTS-OPTIONS...]
#   -p BINDIR    the fabtests install's bin/ (runfabtests.sh and fi_*)
#   -t SETS      runfabtests.sh test sets (quick)
#   -m MTU       the link's MTU (the device's own, 1500)
#   -c CC        FI_UET_CC of both ends (uet's default)
#   -n NAME      the testbed's name (ftb and this shell's pid)
#   -b BUILDDIR  where prov/uet/.libs is (default: build/ beside this
#                checkout; FI_PROVIDER_PATH, when set, wins)
# Exclusions: fabtests/uet.exclude (why: its comments). Exit status:
# runfabtests.sh's (nonzero when a test failed), 2 usage, 77 no testbed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bindir='' sets=quick mtu='' cc='' name='' builddir=$top/build
while getopts p:t:m:c:n:b:h o; do
	case $o in
	p) bindir=$OPTARG ;;
	t) sets=$OPTARG ;;
	m) mtu=$OPTARG ;;
	c) cc=$OPTARG ;;
	n) name=$OPTARG ;;
	b) builddir=$OPTARG ;;
	*) sed -n '3,21p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ -z "$bindir" ] || [ ! -x "$bindir/runfabtests.sh" ]; then
	echo "run-fabtests.sh: -p BINDIR must hold runfabtests.sh (fabtests 1.17, built from the libfabric source)" >&2
	exit 2
fi
bindir=$(cd "$bindir" && pwd)
if [ -z "${FI_PROVIDER_PATH:-}" ]; then
	if [ ! -f "$builddir/prov/uet/.libs/libuet-fi.so" ]; then
		echo "run-fabtests.sh: no uet in $builddir (build it, or pass -b or FI_PROVIDER_PATH)" >&2
		exit 2
	fi
	FI_PROVIDER_PATH=$(cd "$builddir/prov/uet/.libs" && pwd)
fi
export FI_PROVIDER_PATH
export FI_UET_IFACE=tb0
[ -n "$cc" ] && export FI_UET_CC="$cc"

tb=$here/testbed.sh
name=${name:-ftb$$}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uet-fabtests.XXXXXX") || exit 1
cleanup() {
	"$tb" down "$name" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
"$tb" up "$name" >"$tmp/up.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
	cat "$tmp/up.log" >&2
	exit $rc
fi
[ -n "$mtu" ] && { "$tb" mtu "$name" "$mtu" || exit 1; }
a=$("$tb" addr "$name" a) && b=$("$tb" addr "$name" b) || exit 1

# The stand-in for ssh: options dropped, the host mapped to its namespace.
cat >"$tmp/ssh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
	case \$1 in
	-o | -p | -l | -i) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
host=\$1
shift
case \$host in
$a) exec ip netns exec $name-a sh -c "\$*" ;;
$b) exec ip netns exec $name-b sh -c "\$*" ;;
esac
echo "ssh stand-in: \$host is not an address of testbed $name" >&2
exit 255
EOF
chmod +x "$tmp/ssh"
PATH=$tmp:$bindir:$PATH
export PATH

echo "fabtests ($sets) over uet across testbed $name ($a, $b; MTU $(ip netns exec "$name-a" cat /sys/class/net/tb0/mtu)), FI_UET_CC=${FI_UET_CC:-default}"
"$bindir/runfabtests.sh" -p "$bindir" -t "$sets" -f "$top/fabtests/uet.exclude" \
	"$@" uet "$a" "$b"
