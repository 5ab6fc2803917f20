#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""rxrate.py: how soon a receiver's rate came back after an event.

    rxrate.py --event-file FILE --rate BITS [--interval S] [--hold N]
              [--max-seconds N]

Runs in the receiving network namespace until SIGTERM (or --max-seconds),
reading the bytes every device there has received (/proc/net/dev, one
open file, no process per sample) every --interval (0.01 s) against
CLOCK_MONOTONIC. At the end it reads FILE, which holds the monotonic
time of the event (a path cut: `python3 -c` printing time.monotonic()
just before it), and prints one line:

    rxrate event_s E before_bps B after_bps A recovered_ms R

before_bps: the median rate over the second before the event; after_bps
the median from one second after it on; recovered_ms: from the event to
the start of the first --hold (5) intervals in a row that each reach
--rate bits/s, or -1 if none did. Lower-layer bytes (IP, UDP, UET
headers included), as the links carry them.
"""
import argparse
import signal
import sys
import time


def rx_bytes():
    """Bytes received by every device but lo."""
    total = 0
    with open("/proc/net/dev") as f:
        for line in f.readlines()[2:]:
            name, data = line.split(":", 1)
            if name.strip() != "lo":
                total += int(data.split()[0])
    return total


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--event-file", required=True)
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--interval", type=float, default=0.01)
    ap.add_argument("--hold", type=int, default=5)
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    samples = []
    end = time.monotonic() + a.max_seconds
    while not stop and time.monotonic() < end:
        samples.append((time.monotonic(), rx_bytes()))
        time.sleep(a.interval)
    try:
        with open(a.event_file) as f:
            event = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        print("rxrate: no event time in %s" % a.event_file, file=sys.stderr)
        return 1
    rates = []  # (start, bits/s) per interval
    for (t0, b0), (t1, b1) in zip(samples, samples[1:]):
        if t1 > t0:
            rates.append((t0, (b1 - b0) * 8 / (t1 - t0)))
    before = median([r for t, r in rates if event - 1 <= t < event])
    after = median([r for t, r in rates if t >= event + 1])
    rec = -1
    for i in range(len(rates) - a.hold + 1):
        if rates[i][0] < event:
            continue
        if all(r >= a.rate for _, r in rates[i:i + a.hold]):
            rec = (rates[i][0] - event) * 1000
            break
    print("rxrate event_s %.3f before_bps %.0f after_bps %.0f "
          "recovered_ms %.0f" % (event, before, after, rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
