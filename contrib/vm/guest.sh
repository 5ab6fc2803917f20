#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# contrib/vm/guest.sh: the job of the netem VM (netem-vm.sh), run as root
# inside the guest on the host's tree (read-only) with TMPDIR on tmpfs.
# First a probe: a testbed with the same netem options, 2000 numbered
# datagrams from b to a, what arrived and the qdisc counters of both
# ends; then contrib/netns/run-impaired.sh with TESTBED_IMPAIR=netem.
# Needs top_srcdir and top_builddir; UETVM_DEADLINE (epoch seconds) is
# when the VM is stopped; FT_* go on to run-impaired.sh.
# Exit: run-impaired.sh's code, or 1 when the probe saw netem do nothing.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
echo "uetvm: job start"
here=$top_srcdir/contrib/vm
tb=$top_srcdir/contrib/netns/testbed.sh
# run-impaired.sh's default, for the probe.
netem=${FT_NETEM:-loss 5% reorder 25% 50% duplicate 1% delay 1ms}
probe_n=2000
TESTBED_IMPAIR=netem
export TESTBED_IMPAIR
echo "# guest: kernel $(uname -r), $(nproc) CPUs, modules:" \
     "$(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"

probe() {
	name=probe$$
	set -f
	# shellcheck disable=SC2086
	"$tb" up "$name" $netem || return 1
	set +f
	a=$("$tb" addr "$name" a)
	ready=$TMPDIR/probe.ready
	"$tb" exec "$name" a python3 "$here/linkprobe.py" recv "$a" 9000 \
		"$probe_n" "$ready" >"$TMPDIR/probe.log" 2>&1 &
	rpid=$!
	for _ in $(seq 1 300); do
		[ -e "$ready" ] && break
		sleep 0.1
	done
	"$tb" exec "$name" b python3 "$here/linkprobe.py" send "$a" 9000 \
		"$probe_n" | sed 's/^/# /'
	wait "$rpid"
	prc=$?
	sed 's/^/# /' "$TMPDIR/probe.log"
	# b's netem impairs b>a, the probe's direction; a's saw ARP only.
	for s in b a; do
		echo "# tc -s qdisc show dev tb0, in $name-$s:"
		"$tb" exec "$name" $s tc -s qdisc show dev tb0 | sed 's/^/#   /'
	done
	echo "# ip neigh show dev tb0, in $name-b:"
	"$tb" exec "$name" b ip neigh show dev tb0 | sed 's/^/#   /'
	"$tb" down "$name"
	return $prc
}

t0=$(date +%s)
if probe; then
	prc=0
else
	echo "FAIL: the netem link did not lose, duplicate and reorder" \
	     "the probe's datagrams"
	prc=1
fi
echo "# probe took $(($(date +%s) - t0)) s"

# run-impaired.sh stops starting programs after FT_BUDGET s: by default
# what is left before UETVM_DEADLINE (epoch seconds) but 45 s for its
# set-up, its closing counters and the power-off; timeout(1) is the
# last resort.
left=$((${UETVM_DEADLINE:-$(($(date +%s) + 200))} - $(date +%s)))
FT_BUDGET=${FT_BUDGET:-$((left - 45))}
export FT_BUDGET
echo "# $left s left of the VM's time; FT_BUDGET=$FT_BUDGET"
timeout -k 5 $((left > 10 ? left - 5 : 5)) \
	sh "$top_srcdir/contrib/netns/run-impaired.sh"
rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "FAIL: run-impaired.sh was stopped at the VM's deadline"
	rc=1
fi
[ $rc = 0 ] && rc=$prc
echo "uetvm: job end, exit $rc"
exit $rc
