#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/vm/netem-vm.sh: contrib/netns/run-impaired.sh on the kernel's
# own sch_netem, for machines whose kernel has none (and no /dev/kvm).
# Boots Debian's kernel (package linux-image-amd64, fetched with
# apt-get download) in qemu-system-x86_64 under software emulation, with
# an initramfs of busybox-static and the modules netem, veth and 9p need
# (init.sh). The guest mounts this machine's root filesystem read-only
# over virtio-9p, so it runs this very build, and runs guest.sh: a probe
# of the netem link, then run-impaired.sh with TESTBED_IMPAIR=netem.
#
# What runs (the CI has about five minutes for this test, on two cores
# that other tests share, and emulation makes the guest 3 to 10 times
# slower): over uet, five of run-impaired.sh's eight runs, FT_CASES=
# "pingpong corrupt bw tagged alltoall": ft_pingpong msg, its corruption
# check (-Z), ft_bw msg, ft_tagged and ft_alltoall msg; and without the
# 1 MiB sizes (FT_PP_SIZES=1,64,4k,64k, FT_BW_SIZES=64,4k,64k), which
# alone took half the time. Left out: the tagged ft_pingpong, ft_bw and
# ft_alltoall runs (ft_tagged covers tagged matching). A program may take
# FT_TIMEOUT=120 s. On an idle machine boot takes about 10 s, the link
# probe 10 s and the programs 70 s; loaded, twice that. FT_CASES=all runs
# all eight; these and any other FT_* are passed on to run-impaired.sh.
#
# Environment:
#   UET_VM_CACHE    where the kernel and the modules taken out of its
#                   package are kept (default $top_builddir/vm-cache)
#   UET_VM_KERNEL   the kernel package (default: the one that
#                   linux-image-amd64 depends on)
#   UET_VM_TIMEOUT  seconds for the VM, boot to power-off (default 290)
#   UET_VM_CPUS, UET_VM_MEM  guest CPUs and MiB (2, 1024)
#   QEMU            the emulator (qemu-system-x86_64)
#   BUSYBOX         a static busybox (/bin/busybox)
#   UET_VM_SANITIZED=1  run in a sanitizer build too (skipped there)
#   FT_*            passed on to run-impaired.sh in the guest
#
# Exit: the guest's run-impaired.sh: 0 passed, 1 failed, 77 SKIP (also
# here: no qemu, no busybox-static, no kernel package, not x86_64).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
. "$top_srcdir/contrib/test-lock.sh"
uet_test_lock shared
cache=${UET_VM_CACHE:-$top_builddir/vm-cache}
vm_timeout=${UET_VM_TIMEOUT:-290}
cpus=${UET_VM_CPUS:-2}
mem=${UET_VM_MEM:-1024}
qemu=${QEMU:-qemu-system-x86_64}
busybox=${BUSYBOX:-/bin/busybox}
# What the guest needs beyond the kernel image; the modules they depend
# on are found from each module's depends= field.
want_mods="virtio_pci 9pnet_virtio 9p veth sch_netem"

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	exit 1
}

is_root() { [ "$(id -u)" = 0 ]; }

# ---- can this machine do it ----

[ "$(uname -m)" = x86_64 ] ||
	skip "the guest runs this machine's x86_64 binaries; this is $(uname -m)"
command -v "$qemu" >/dev/null 2>&1 ||
	skip "$qemu not found (Debian package qemu-system-x86)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) not found"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not found"
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	skip "no static busybox at $busybox (Debian package busybox-static)"
command -v fi_info >/dev/null 2>&1 ||
	skip "fi_info not found (Debian package libfabric-bin)"
for p in ft_pingpong ft_bw ft_tagged ft_alltoall; do
	[ -x "$top_builddir/fabtests/$p" ] ||
		fail "$top_builddir/fabtests/$p not built (make check builds it)"
done
# Under emulation the sanitizers would double a run that already costs
# minutes; CI runs this test in its plain build.
if [ "${UET_VM_SANITIZED:-0}" != 1 ] &&
   ldd "$top_builddir/fabtests/ft_pingpong" 2>/dev/null | grep -q libasan
then
	skip "sanitizer build: the netem VM runs in the plain build" \
	     "(UET_VM_SANITIZED=1 runs it here too)"
fi
# The guest puts tmpfs on these, which would hide a tree below them.
for d in "$top_srcdir" "$top_builddir"; do
	case $d/ in
	/run/* | /proc/* | /sys/* | /dev/*)
		skip "the guest cannot see $d (it mounts its own /run," \
		     "/proc, /sys, /dev)" ;;
	esac
done

mkdir -p "$cache" || fail "cannot create $cache"
cache=$(cd "$cache" && pwd)

# ---- the kernel package ----

apt_updated=false
apt_update() { # once, as root
	$apt_updated && return 1
	is_root || return 1
	apt_updated=true
	echo "# apt-get update"
	apt-get update -qq >/dev/null 2>&1
}

kernel_pkg() {
	[ -n "${UET_VM_KERNEL:-}" ] && { echo "$UET_VM_KERNEL"; return; }
	command -v apt-cache >/dev/null 2>&1 || return
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' |
		head -n 1
}

pkg=$(kernel_pkg)
[ -z "$pkg" ] && apt_update && pkg=$(kernel_pkg)
if [ -z "$pkg" ]; then
	# No apt lists: a kernel fetched before still does.
	pkg=$(ls -t "$cache"/*/ready 2>/dev/null | head -n 1)
	pkg=${pkg%/ready}
	pkg=${pkg##*/}
	[ -n "$pkg" ] ||
		skip "apt knows no linux-image-amd64 (try apt-get update)"
fi
kdir=$cache/$pkg

deb_file() { ls "$cache/${pkg}_"*.deb 2>/dev/null | tail -n 1; }

fetch_deb() {
	[ -n "$(deb_file)" ] && return 0
	command -v apt-get >/dev/null 2>&1 || return 1
	# (As root, apt notes that it downloads unsandboxed: harmless.)
	(cd "$cache" && apt-get download "$pkg") >"$cache/download.log" 2>&1 ||
		{ apt_update && (cd "$cache" && apt-get download "$pkg") \
			>"$cache/download.log" 2>&1; }
	[ -n "$(deb_file)" ]
}

# Index "NAME PATH" of the package's modules ('-' in file names is '_'
# in module names).
mod_index() { # DIR
	find "$1" -name '*.ko*' | awk '{
		n = $0
		sub(/.*\//, "", n)
		sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", n)
		gsub(/-/, "_", n)
		print n, $0 }'
}

# add_mod NAME: copy NAME after what it depends on into $kdir.tmp/modules
# (decompressed), and append it to the load order. Builtins are skipped.
add_mod() {
	case $added in *" $1 "*) return 0 ;; esac
	f=$(awk -v n="$1" '$1 == n { print $2; exit }' "$kdir.tmp/index")
	if [ -z "$f" ]; then
		grep -q "/$1\.ko$" "$kdir.tmp"/x/lib/modules/*/modules.builtin &&
			return 0
		echo "module $1 is not in $pkg" >&2
		return 1
	fi
	o=$kdir.tmp/modules/$1.ko
	case $f in
	*.ko.xz) xz -dc "$f" >"$o" ;;
	*.ko.zst) zstd -qdc "$f" >"$o" ;;
	*.ko.gz) gzip -dc "$f" >"$o" ;;
	*) cp "$f" "$o" ;;
	esac || return 1
	deps=$(tr '\0' '\n' <"$o" | sed -n 's/^depends=//p' | tr ',' ' ')
	for d in $deps; do
		add_mod "$d" || return 1
	done
	added="$added$1 "
	echo "$1" >>"$kdir.tmp/modules/order"
}

if [ ! -f "$kdir/ready" ]; then
	tk=$(date +%s)
	fetch_deb || skip "cannot download $pkg with apt-get download" \
		"($(tail -n 1 "$cache/download.log" 2>/dev/null))"
	deb=$(deb_file)
	echo "# taking the kernel and its modules out of $(basename "$deb")"
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp/x" "$kdir.tmp/modules"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$kdir.tmp/x" --wildcards './boot/vmlinuz-*' \
			'./lib/modules/*' ||
		fail "cannot unpack $deb"
	mod_index "$kdir.tmp/x/lib/modules" >"$kdir.tmp/index"
	added=" "
	for m in $want_mods; do
		add_mod "$m" || fail "cannot collect module $m from $deb"
	done
	cp "$kdir.tmp"/x/boot/vmlinuz-* "$kdir.tmp/vmlinuz" ||
		fail "no vmlinuz in $deb"
	rm -rf "$kdir.tmp/x" "$kdir.tmp/index"
	basename "$deb" >"$kdir.tmp/ready"
	mv "$kdir.tmp" "$kdir" || fail "cannot fill $kdir"
	# The modules are all that is kept of it.
	rm -f "$deb"
	echo "# kernel and $(wc -l <"$kdir/modules/order") modules ready" \
	     "in $(($(date +%s) - tk)) s"
fi

# ---- the initramfs and the job ----

work=$(mktemp -d "${TMPDIR:-/tmp}/uetvm.XXXXXX") || fail "mktemp"
cleanup() {
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

r=$work/initrd
mkdir -p "$r/bin" "$r/dev" "$r/proc" "$r/sys" "$r/modules" "$work/share"
cp "$busybox" "$r/bin/busybox" && ln -s busybox "$r/bin/sh" &&
	cp "$kdir"/modules/* "$r/modules/" &&
	cp "$here/init.sh" "$r/init" && chmod 755 "$r/init" ||
	fail "cannot build the initramfs"
(cd "$r" && find . | "$busybox" cpio -o -H newc 2>/dev/null) \
	>"$work/initrd.cpio" || fail "cannot build the initramfs"

# The job, as the guest runs it: paths are the host's (same tree).
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	echo "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "HOME=/run/tmp TMPDIR=/run/tmp"
	echo "top_srcdir=$(q "$top_srcdir") top_builddir=$(q "$top_builddir")"
	echo "FT_CASES=$(q "${FT_CASES:-pingpong corrupt bw tagged alltoall}")"
	echo "FT_PP_SIZES=$(q "${FT_PP_SIZES:-1,64,4k,64k}")"
	echo "FT_BW_SIZES=$(q "${FT_BW_SIZES:-64,4k,64k}")"
	echo "FT_TIMEOUT=$(q "${FT_TIMEOUT:-120}")"
	# The guest's clock starts from this one's.
	echo "UETVM_DEADLINE=$(($(date +%s) + vm_timeout - 10))"
	echo "export PATH HOME TMPDIR top_srcdir top_builddir FT_CASES" \
	     "FT_PP_SIZES FT_BW_SIZES FT_TIMEOUT UETVM_DEADLINE"
	for v in $(env | sed -n 's/^\(FT_[A-Z0-9_]*\)=.*/\1/p'); do
		case $v in
		FT_CASES | FT_PP_SIZES | FT_BW_SIZES | FT_TIMEOUT) continue ;;
		esac
		eval "echo \"$v=\$(q \"\$$v\"); export $v\""
	done
	echo "exec /bin/sh $(q "$here/guest.sh")"
} >"$work/share/job"

# ---- boot, run, power off ----

echo "# netem VM: $pkg, $cpus CPUs, $mem MiB, software emulation," \
     "at most $vm_timeout s"
cr=$(printf '\r')
t0=$(date +%s)
{
	timeout -k 10 "$vm_timeout" "$qemu" -accel tcg -cpu max \
		-smp "$cpus" -m "$mem" -nodefaults -display none -no-reboot \
		-serial stdio -monitor none \
		-kernel "$kdir/vmlinuz" -initrd "$work/initrd.cpio" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=out,path="$work/share",security_model=none \
		-device virtio-9p-pci,fsdev=out,mount_tag=out \
		</dev/null 2>"$work/qemu.err"
	echo $? >"$work/qemu.rc"
} | while IFS= read -r line; do
	line=${line%"$cr"}
	case $line in
	"uetvm: job start"*) date +%s >"$work/t.start" ;;
	"uetvm: job end"*) date +%s >"$work/t.end" ;;
	esac
	printf '%s\n' "$line"
done
t1=$(date +%s)

qrc=$(cat "$work/qemu.rc" 2>/dev/null)
ts=$(cat "$work/t.start" 2>/dev/null || echo "$t1")
te=$(cat "$work/t.end" 2>/dev/null || echo "$t1")
echo "# netem VM: boot $((ts - t0)) s, test $((te - ts)) s," \
     "power-off $((t1 - te)) s, total $((t1 - t0)) s"
if [ -s "$work/qemu.err" ]; then
	sed 's/^/# qemu: /' "$work/qemu.err"
fi
rc=$(cat "$work/share/rc" 2>/dev/null)
case $qrc in
124 | 137) fail "the VM did not power off within $vm_timeout s (UET_VM_TIMEOUT)" ;;
esac
case $rc in
0 | 1 | 77) exit "$rc" ;;
'') fail "the guest wrote no exit code (qemu exit ${qrc:-?})" ;;
*) fail "the guest's test exited $rc" ;;
esac
