#!/usr/bin/env python3
"""tail_summary.py: medians (and the p99 range) per row and server of a
tail_counts.sh output, and each server's p99 over the last one named.

    contrib/bench/tail_counts.sh ... > out.txt
    contrib/bench/tail_summary.py out.txt [SERVER ...]
"""
import re
import signal
import statistics
import sys

COLS = ["ops/s", "p50us", "p99us", "cyc99us", "errors", "ew", "ectl", "rd", "wr",
        "write", "fx", "fxwait", "yield", "cs", "mig", "vol", "inv", "idle", "wk", "wkrem"]
SHOW = ["ops/s", "p50us", "p99us", "cyc99us", "ectl", "write", "fxwait", "yield", "cs", "vol", "wkrem"]


def load(path):
    runs = {}
    order = []
    for line in open(path):
        f = line.split()
        if len(f) < 6 or not re.match(r"^[0-9.]+$", f[2]):
            continue
        key = (f[0], f[1])
        if f[0] not in order:
            order.append(f[0])
        runs.setdefault(key, []).append(dict(zip(COLS, f[2:])))
    return runs, order


def med(runs, col):
    vals = [float(r[col]) for r in runs if r.get(col, "-") not in ("-", "")]
    return statistics.median(vals) if vals else float("nan")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # quiet under head
    runs, order = load(sys.argv[1])
    servers = sys.argv[2:] or sorted({s for _, s in runs})
    print("%-10s %-10s" % ("row", "server") + "".join(" %9s" % c for c in SHOW) +
          "  p99 range      p99/%s cyc99/%s" % (servers[-1], servers[-1]))
    for row in order:
        here = [s for s in servers if (row, s) in runs]
        last = [s for s in servers if (row, s) in runs][-1]
        base, cbase = med(runs[(row, last)], "p99us"), med(runs[(row, last)], "cyc99us")
        for s in here:
            r = runs[(row, s)]
            p99 = [float(x["p99us"]) for x in r]
            print("%-10s %-10s" % (row, s) + "".join(" %9.4g" % med(r, c) for c in SHOW) +
                  "  %6.0f-%-6.0f  %6.2f %6s" % (min(p99), max(p99), med(r, "p99us") / base,
                                                "%.2f" % (med(r, "cyc99us") / cbase) if cbase > 0 else "-"))


if __name__ == "__main__":
    main()
