#!/bin/sh
# Install what uet needs to build and test on Debian bookworm (run as root,
# or with sudo available). Skips apt-get when everything is already there.
set -e
pkgs="build-essential autoconf automake libtool pkg-config
      libfabric-dev libfabric-bin libpcap-dev libcriterion-dev libssl-dev
      tshark clang iproute2 python3 qemu-system-x86 busybox-static
      gnuplot-nox openmpi-bin libopenmpi-dev"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, non-interactively.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	$sudo debconf-set-selections
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing
