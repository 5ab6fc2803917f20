#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Userspace stand-in for the sch_netem qdisc between two namespaces.

testbed.sh runs this when the kernel has no sch_netem: it opens a tun
device in each of two network namespaces and copies every IP packet
from one to the other, applying netem-style impairments (loss,
duplicate, corrupt, delay with jitter, reorder, limit) to each
direction, as netem on both ends of a veth pair would.

    impair.py [--dev tb0] [--pidfile F] [--stats F] [--max-seconds S]
              [--seed N] NETNS_A NETNS_B [netem options...]

NETNS_A/B are names under /run/netns (as `ip netns add` makes them) or
paths. The devices disappear when this process ends; it ends on
SIGTERM/SIGINT/SIGHUP, after --max-seconds, or when a device goes away.
"""

import argparse
import ctypes
import errno
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import sys
import time

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
READ_BATCH = 64		# packets read from one device per wake-up
STATS_PERIOD = 0.2	# seconds between stats file updates


class Usage(Exception):
    pass


def parse_pct(tok):
    """'5%' -> 0.05 (tc writes probabilities as percentages)."""
    if not tok.endswith('%'):
        raise Usage(f"'{tok}': write a probability as N%")
    try:
        v = float(tok[:-1]) / 100.0
    except ValueError:
        raise Usage(f"'{tok}': not a percentage") from None
    if not 0.0 <= v <= 1.0:
        raise Usage(f"'{tok}': out of 0%..100%")
    return v


def parse_time(tok):
    """tc(8) TIMES: s, ms, us (a bare number is microseconds)."""
    units = (('msecs', 1e-3), ('msec', 1e-3), ('ms', 1e-3),
             ('usecs', 1e-6), ('usec', 1e-6), ('us', 1e-6),
             ('secs', 1.0), ('sec', 1.0), ('s', 1.0))
    for suffix, mult in units:
        if tok.endswith(suffix):
            num, scale = tok[:-len(suffix)], mult
            break
    else:
        num, scale = tok, 1e-6
    try:
        v = float(num) * scale
    except ValueError:
        raise Usage(f"'{tok}': not a time") from None
    if v < 0:
        raise Usage(f"'{tok}': negative time")
    return v


def is_time(tok):
    try:
        parse_time(tok)
        return True
    except Usage:
        return False


class Impair:
    """The subset of netem(8) options we reproduce."""

    def __init__(self, args):
        self.loss = self.dup = self.corrupt = self.reorder = 0.0
        self.delay = self.jitter = 0.0
        self.limit = 1000		# netem's default queue limit
        self.seed = None
        i, n = 0, len(args)

        def opt_corr(j):
            # A correlation may follow; netem's is accepted and ignored.
            return j + 1 if j < n and args[j].endswith('%') else j

        while i < n:
            kw = args[i]
            if kw == 'loss':
                i += 1
                if i < n and args[i] == 'random':
                    i += 1
                if i >= n:
                    raise Usage('loss needs a percentage')
                self.loss = parse_pct(args[i])
                i = opt_corr(i + 1)
            elif kw in ('duplicate', 'corrupt', 'reorder'):
                if i + 1 >= n:
                    raise Usage(f'{kw} needs a percentage')
                v = parse_pct(args[i + 1])
                setattr(self, {'duplicate': 'dup'}.get(kw, kw), v)
                i = opt_corr(i + 2)
                if kw == 'reorder' and i < n and args[i] == 'gap':
                    raise Usage('reorder ... gap is not supported')
            elif kw == 'delay':
                if i + 1 >= n:
                    raise Usage('delay needs a time')
                self.delay = parse_time(args[i + 1])
                i += 2
                if i < n and is_time(args[i]):
                    self.jitter = parse_time(args[i])
                    i = opt_corr(i + 1)
                if i < n and args[i] == 'distribution':
                    if i + 1 >= n or args[i + 1] != 'uniform':
                        raise Usage('only "distribution uniform" is '
                                    'supported')
                    i += 2
            elif kw == 'limit':
                if i + 1 >= n or not args[i + 1].isdigit():
                    raise Usage('limit needs a packet count')
                self.limit = max(1, int(args[i + 1]))
                i += 2
            elif kw == 'seed':
                if i + 1 >= n or not args[i + 1].isdigit():
                    raise Usage('seed needs a number')
                self.seed = int(args[i + 1])
                i += 2
            else:
                raise Usage(f"netem option '{kw}' is not supported by "
                            "the userspace relay")

    def __str__(self):
        return (f'loss {self.loss:.2%} duplicate {self.dup:.2%} '
                f'corrupt {self.corrupt:.2%} reorder {self.reorder:.2%} '
                f'delay {self.delay * 1e3:g}ms jitter '
                f'{self.jitter * 1e3:g}ms limit {self.limit}')


def netns_path(name):
    if '/' in name:
        return name
    for d in ('/run/netns', '/var/run/netns'):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise OSError(errno.ENOENT, f'network namespace {name} not found')


def setns(path):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if hasattr(os, 'setns'):
            os.setns(fd, CLONE_NEWNET)
            return
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f'setns {path}: {os.strerror(e)}')
    finally:
        os.close(fd)


def open_tun(name):
    """A tun device in the current namespace, alive while fd is open."""
    fd = os.open('/dev/net/tun', os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    ifr = struct.pack('16sH22x', name.encode(), IFF_TUN | IFF_NO_PI)
    fcntl.ioctl(fd, TUNSETIFF, ifr)
    return fd


class Direction:
    # overflow: over the queue limit; refused: the receiving device
    # would not take it (its queue full, or the link down).
    KEYS = ('in', 'delivered', 'dropped', 'duplicated', 'reordered',
            'corrupted', 'overflow', 'refused')

    def __init__(self, name, src, dst):
        self.name, self.src, self.dst = name, src, dst
        self.count = dict.fromkeys(self.KEYS, 0)

    def line(self):
        return self.name + ' ' + ' '.join(f'{k} {self.count[k]}'
                                          for k in self.KEYS)


class Relay:
    def __init__(self, imp, dirs, rng):
        self.imp, self.dirs, self.rng = imp, dirs, rng
        self.queue = []		# (due, seq, direction, packet)
        self.seq = 0

    def write(self, d, pkt):
        try:
            os.write(d.dst, pkt)
            d.count['delivered'] += 1
        except OSError as e:
            # Only a device that is gone ends the relay; a packet the
            # kernel refuses (a corrupted IP header: EINVAL) is one lost.
            if e.errno in (errno.EBADF, errno.ENODEV, errno.ENXIO):
                raise
            d.count['refused'] += 1

    def arrive(self, d, pkt, now):
        imp, rng = self.imp, self.rng
        d.count['in'] += 1
        if imp.loss and rng.random() < imp.loss:
            d.count['dropped'] += 1
            return
        copies = 1
        if imp.dup and rng.random() < imp.dup:
            copies = 2
            d.count['duplicated'] += 1
        for _ in range(copies):
            p = pkt
            if imp.corrupt and rng.random() < imp.corrupt:
                b = bytearray(pkt)
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
                p = bytes(b)
                d.count['corrupted'] += 1
            due = now
            if imp.delay or imp.jitter:
                # netem: with reorder, that share goes out at once and
                # overtakes the delayed rest.
                if imp.reorder and rng.random() < imp.reorder:
                    d.count['reordered'] += 1
                else:
                    due = now + max(0.0, imp.delay +
                                    rng.uniform(-imp.jitter, imp.jitter))
            if due <= now:
                self.write(d, p)
            elif len(self.queue) >= imp.limit:
                d.count['overflow'] += 1
            else:
                self.seq += 1
                heapq.heappush(self.queue, (due, self.seq, d, p))

    def flush(self, now):
        q = self.queue
        while q and q[0][0] <= now:
            _, _, d, p = heapq.heappop(q)
            self.write(d, p)

    def next_due(self):
        return self.queue[0][0] if self.queue else None


def write_stats(path, dirs, imp):
    if not path:
        return
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(f'# relay: {imp}\n')
        for d in dirs:
            f.write(d.line() + '\n')
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(
        description='netem-style impairments between two namespaces '
        'over a pair of tun devices')
    ap.add_argument('--dev', default='tb0')
    ap.add_argument('--pidfile')
    ap.add_argument('--stats')
    ap.add_argument('--max-seconds', type=float, default=3600.0)
    ap.add_argument('--seed', type=int)
    ap.add_argument('--check', action='store_true',
                    help='only parse the netem options')
    ap.add_argument('netns_a')
    ap.add_argument('netns_b')
    ap.add_argument('netem', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    netem = a.netem[1:] if a.netem[:1] == ['--'] else a.netem
    try:
        imp = Impair(netem)
    except Usage as e:
        print(f'impair.py: {e}', file=sys.stderr)
        return 2
    if a.check:
        print(f'impair.py: {imp}')
        return 0
    seed = a.seed if a.seed is not None else imp.seed
    rng = random.Random(seed)

    home = os.open('/proc/self/ns/net', os.O_RDONLY | os.O_CLOEXEC)
    fds = []
    for ns in (a.netns_a, a.netns_b):
        setns(netns_path(ns))
        fds.append(open_tun(a.dev))
    # Go home so that we pin nothing but the two devices' namespaces.
    if hasattr(os, 'setns'):
        os.setns(home, CLONE_NEWNET)
    else:
        ctypes.CDLL(None, use_errno=True).setns(home, CLONE_NEWNET)
    os.close(home)

    dirs = [Direction('a>b', fds[0], fds[1]),
            Direction('b>a', fds[1], fds[0])]
    by_fd = {d.src: d for d in dirs}
    relay = Relay(imp, dirs, rng)
    stop = []

    def on_signal(signum, _frame):
        stop.append(signum)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    print(f'impair.py: pid {os.getpid()}, {a.dev} in {a.netns_a} and '
          f'{a.netns_b}, {imp}, seed {seed}', flush=True)
    if a.pidfile:
        with open(a.pidfile + '.tmp', 'w') as f:
            f.write(f'{os.getpid()}\n')
        os.replace(a.pidfile + '.tmp', a.pidfile)

    poller = select.epoll()
    for fd in fds:
        poller.register(fd, select.EPOLLIN)
    try:
        why = loop(a, imp, relay, dirs, by_fd, poller, stop)
    except OSError as e:
        why = f'device gone: {e}'
    write_stats(a.stats, dirs, imp)
    for d in dirs:
        print('impair.py: ' + d.line())
    print(f'impair.py: exit: {why}', flush=True)
    return 0


def loop(a, imp, relay, dirs, by_fd, poller, stop):
    """Forward until told to stop; returns why it stopped."""
    end = time.monotonic() + a.max_seconds
    next_stats = 0.0
    last = None
    while not stop:
        now = time.monotonic()
        if now >= end:
            return f'--max-seconds {a.max_seconds:g} reached'
        relay.flush(now)
        if now >= next_stats:
            snap = [dict(d.count) for d in dirs]
            if snap != last:
                write_stats(a.stats, dirs, imp)
                last = snap
            next_stats = now + STATS_PERIOD
        wake = min(end, next_stats)
        due = relay.next_due()
        if due is not None:
            wake = min(wake, due)
        try:
            events = poller.poll(max(0.0, wake - now))
        except InterruptedError:
            continue
        for fd, ev in events:
            d = by_fd[fd]
            if ev & (select.EPOLLERR | select.EPOLLHUP):
                return f'{d.name}: source device gone'
            for _ in range(READ_BATCH):
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                relay.arrive(d, pkt, time.monotonic())
    return f'signal {stop[0]}'


if __name__ == '__main__':
    sys.exit(main())
