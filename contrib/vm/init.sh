#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/vm/init.sh: PID 1 of the netem VM (busybox, from the initramfs
# that netem-vm.sh builds). Loads the kernel modules listed in
# /modules/order, mounts the host's root filesystem (virtio-9p tag
# "hostroot", read-only) on /host with fresh proc, sys, dev and a tmpfs
# /run, mounts the writable share (tag "out") on /host/run/uetvm, runs
# its job file chrooted into /host, writes the job's exit code to the
# share as "rc" and powers off. Whatever goes wrong ends in a power-off
# (or a panic, which qemu -no-reboot also turns into an exit).
export PATH=/bin
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "uetvm: init at $(cut -d' ' -f1 /proc/uptime) s of uptime"

off() {
	sync
	poweroff -f
	reboot -f	# -no-reboot makes this an exit too
}

fail() {
	echo "uetvm: FAIL: $*"
	off
}

while read -r m; do
	insmod "/modules/$m.ko" || fail "insmod $m.ko"
done </modules/order

p9=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host
# cache=loose: the host tree does not change under the guest, and
# executables and libraries load much faster with it.
mount -t 9p -o "$p9,ro,cache=loose" hostroot /host ||
	fail "cannot mount the host's root filesystem (9p tag hostroot)"
mount -t proc proc /host/proc || fail "mount /host/proc"
mount -t sysfs sys /host/sys || fail "mount /host/sys"
mount -t devtmpfs dev /host/dev || fail "mount /host/dev"
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o mode=1777 shm /host/dev/shm
mount -t tmpfs -o mode=755 run /host/run || fail "mount /host/run"
mkdir -p /host/run/uetvm /host/run/tmp
chmod 1777 /host/run/tmp
mount -t 9p -o "$p9" out /host/run/uetvm ||
	fail "cannot mount the writable share (9p tag out)"
ip link set lo up

chroot /host /bin/sh /run/uetvm/job
rc=$?
echo "$rc" >/host/run/uetvm/rc
echo "uetvm: exit $rc"
umount /host/run/uetvm
off
