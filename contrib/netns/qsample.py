#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""qsample.py: how full a qdisc's queue is, sampled every few milliseconds.

    qsample.py [--interval SECONDS] [--max-seconds N] [--kind KIND] DEV

Runs in the current network namespace until SIGTERM (or --max-seconds),
asking one `tc -s -batch -` for `qdisc show dev DEV` every --interval
(0.01 s): one tc process for the whole run rather than one per sample,
which would cost a 2-CPU machine more than the traffic it watches. At the
end it prints one line:

    qsample dev DEV kind KIND samples N busy B avg_bytes A p50_bytes P
        p99_bytes Q max_bytes M sent_bytes S sent_pkts K drops D

Only the busy samples (the qdisc sent something since the previous one,
or holds a backlog) count in the averages and percentiles, so the setup
before the traffic and the tail after it do not dilute them. sent_* and
drops are the differences between the first and last sample.
"""
import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time

SENT = re.compile(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+)")
BACKLOG = re.compile(r"backlog (\d+(?:\.\d+)?)([KMG]?)b (\d+)p")
UNIT = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def parse(text, kind):
    """(sent_bytes, sent_pkts, drops, backlog_bytes) per sample."""
    out = []
    cur = None
    for line in text.splitlines():
        if line.startswith("qdisc "):
            # Only the root qdisc of that kind (tbf hides its bfifo).
            cur = [] if line.split()[1] == kind else None
            continue
        if cur is None:
            continue
        m = SENT.search(line)
        if m:
            cur.extend(int(x) for x in m.groups())
            continue
        m = BACKLOG.search(line)
        if m and len(cur) == 3:
            # tc rounds sizes near a KiB multiple to "63Kb"
            cur.append(int(float(m.group(1)) * UNIT[m.group(2)]))
            out.append(tuple(cur))
            cur = None
    return out


def pct(sorted_vals, p):
    if not sorted_vals:
        return 0
    k = max(0, min(len(sorted_vals) - 1,
                   int(round(p / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[k]


def summary(dev, kind, samples):
    busy = []
    for prev, cur in zip(samples, samples[1:]):
        if cur[0] > prev[0] or cur[3] > 0:
            busy.append(cur[3])
    vals = sorted(busy)
    first, last = (samples[0], samples[-1]) if samples else ((0,) * 4,) * 2
    return ("qsample dev %s kind %s samples %d busy %d avg_bytes %d "
            "p50_bytes %d p99_bytes %d max_bytes %d sent_bytes %d "
            "sent_pkts %d drops %d" % (
                dev, kind, len(samples), len(busy),
                sum(busy) // len(busy) if busy else 0,
                pct(vals, 50), pct(vals, 99), vals[-1] if vals else 0,
                last[0] - first[0], last[1] - first[1],
                last[2] - first[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.01)
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--kind", default="tbf")
    ap.add_argument("dev")
    a = ap.parse_args()

    stop = []
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, lambda *_: stop.append(1))
    # tc's output goes to a file: a pipe nobody reads until the end
    # would fill and block it.
    with tempfile.TemporaryFile(mode="w+") as out:
        tc = subprocess.Popen(["tc", "-s", "-batch", "-"],
                              stdin=subprocess.PIPE, stdout=out,
                              stderr=subprocess.DEVNULL, text=True)
        cmd = "qdisc show dev %s\n" % a.dev
        end = time.monotonic() + a.max_seconds
        try:
            while not stop and time.monotonic() < end:
                tc.stdin.write(cmd)
                tc.stdin.flush()
                time.sleep(a.interval)
        except (BrokenPipeError, OSError):
            pass
        try:
            tc.stdin.close()
        except OSError:
            pass
        tc.wait()
        out.seek(0)
        samples = parse(out.read(), a.kind)
    print(summary(a.dev, a.kind, samples))
    sys.stdout.flush()
    return 0 if samples else 1


if __name__ == "__main__":
    sys.exit(main())
