#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""contrib/vm/linkprobe.py: what a link does to numbered UDP datagrams.

  linkprobe.py recv ADDR PORT COUNT READYFILE   count arrivals, print totals
  linkprobe.py send ADDR PORT COUNT             send datagrams 0..COUNT-1

netem counts the packets it drops, but not those it duplicates or sends
out of order, so the receiver counts all three itself: a datagram seen
twice is a duplicate, a first arrival with a number below the highest
seen so far came out of order. recv touches READYFILE once bound, and
stops 2 s after the last arrival (or after 60 s). Exit 0 when the link
did damage of every kind, 1 otherwise, 2 usage.
"""
import socket
import struct
import sys
import time

PAD = bytes(92)  # 100-byte datagrams
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)


def recv(addr, port, count, ready):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Room for every datagram: what is lost must be the link's doing,
    # not a slow receiver's (root may exceed rmem_max).
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 24)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
    s.bind((addr, port))
    open(ready, "w").close()
    seen = set()
    arrivals = dups = late = 0
    top = -1
    deadline = time.monotonic() + 60
    s.settimeout(10)  # the sender may take a while to start
    while time.monotonic() < deadline:
        try:
            data = s.recv(2048)
        except socket.timeout:
            break
        s.settimeout(2)
        if len(data) < 8:
            continue
        seq = struct.unpack("!Q", data[:8])[0]
        arrivals += 1
        if seq in seen:
            dups += 1
            continue
        seen.add(seq)
        if seq < top:
            late += 1
        top = max(top, seq)
    lost = count - len(seen)
    print("probe: receive buffer overflows %s" % udp_counter("RcvbufErrors"))
    print("probe: %d sent, %d arrived, %d lost (%.1f%%), %d duplicated "
          "(%.1f%%), %d out of order (%.1f%%)" %
          (count, arrivals, lost, 100.0 * lost / count, dups,
           100.0 * dups / count, late, 100.0 * late / count))
    return 0 if lost > 0 and dups > 0 and late > 0 else 1


def udp_counter(name):
    """A Udp counter of this network namespace, or '?'."""
    try:
        with open("/proc/net/snmp") as f:
            rows = [l.split() for l in f if l.startswith("Udp:")]
        return rows[1][rows[0].index(name)]
    except (OSError, IndexError, ValueError):
        return "?"


def send(addr, port, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for seq in range(count):
        s.sendto(struct.pack("!Q", seq) + PAD, (addr, port))
        # Bursts of 20 keep netem's queue short (its limit is 1000
        # packets) yet far denser than its delay, so it can reorder.
        if seq % 20 == 19:
            time.sleep(0.001)
    # What left this namespace's UDP layer: tells a link that dropped
    # everything from datagrams that never reached it.
    print("probe: sender: %d sent, Udp OutDatagrams %s SndbufErrors %s" %
          (count, udp_counter("OutDatagrams"), udp_counter("SndbufErrors")))
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "recv":
        return recv(argv[2], int(argv[3]), int(argv[4]), argv[5])
    if len(argv) == 5 and argv[1] == "send":
        return send(argv[2], int(argv[3]), int(argv[4]))
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
