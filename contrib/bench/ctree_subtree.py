#!/usr/bin/python3
"""ctree_subtree.py: how long a delete of a big tree-counter subtree holds other
trees (doc/performance.md, "Tree counters").

  contrib/bench/ctree_subtree.py PORT [--runs N]

Against a running mcds-server on 127.0.0.1:PORT (-m 2048): builds big ->
100 children -> 1,000 grandchildren each (100,101 objects), one increment
per leaf, then deletes big while another connection increments the tree
"other" once a millisecond. Prints how long the delete took to answer, how
long until the subtree was released (`stats` ctree_releasing back to 0,
polled every 5 ms; a server without that stat releases before it answers),
and the probe's p99 and longest answer before the delete, during the
release (probes sent from 2 ms before the delete until the release was
over), and in the second from the delete's start (at least until the
release was over). Each run builds the tree anew (a different name each
time)."""
import socket
import sys
import threading
import time

port = int(sys.argv[1])
runs = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--runs" else 1


def conn():
    return socket.create_connection(("127.0.0.1", port))


s = conn()


def pipe(lines):
    s.sendall(("".join(l + "\r\n" for l in lines)).encode())
    got = 0
    buf = b""
    while got < len(lines):
        d = s.recv(1 << 20)
        buf += d
        got = buf.count(b"\n")
    return buf


def stat(sock, name):
    sock.sendall(b"stats\r\n")
    buf = b""
    while not buf.endswith(b"END\r\n"):
        buf += sock.recv(1 << 16)
    for line in buf.decode().split("\r\n"):
        f = line.split()
        if len(f) == 3 and f[1] == name:
            return int(f[2])
    return None


def build(big):
    pipe(["ctobj %s" % big])
    pipe(["ctobj %s.%d parent=%s" % (big, m, big) for m in range(100)])
    for m in range(100):
        pipe(["ctobj %s.%d.%d parent=%s.%d" % (big, m, l, big, m) for l in range(1000)])
    for m in range(100):
        pipe(["ctincr %s.%d.%d 1 103 @%d 1" % (big, m, l, 1609459200 + 3600 * (l % 24)) for l in range(1000)])


def pct(v, q):
    return v[min(len(v) - 1, int(len(v) * q))] * 1000


def run(big):
    build(big)
    lat = []
    stop = [False]

    def prober():
        p = conn()
        while not stop[0]:
            t = time.perf_counter()
            p.sendall(b"ctincr other 1 103 @1609459200 1\r\n")
            p.recv(100)
            lat.append((t, time.perf_counter() - t))
            time.sleep(0.001)

    th = threading.Thread(target=prober)
    th.start()
    time.sleep(1)
    t0 = time.perf_counter()
    r = pipe(["delete %s" % big])
    answered = time.perf_counter() - t0
    poll = conn()
    while (stat(poll, "ctree_releasing") or 0) > 0:
        time.sleep(0.005)
    released = time.perf_counter() - t0
    time.sleep(max(0.0, 1 - released))
    stop[0] = True
    th.join()
    before = sorted(d for t, d in lat if t < t0)
    during = sorted(d for t, d in lat if t0 <= t <= t0 + max(released, 1))
    inrel = sorted(d for t, d in lat if t0 - 0.002 <= t <= t0 + released) or [0.0]
    print("delete answered %r in %.1f ms, released in %.1f ms; probe before: p99 %.2f ms, max %.2f ms; "
          "in the release (%d probes): p99 %.2f ms, max %.2f ms; in the second from the delete (%d): "
          "p99 %.2f ms, max %.2f ms" %
          (r.strip(), answered * 1000, released * 1000, pct(before, 0.99), before[-1] * 1000,
           len(inrel), pct(inrel, 0.99), inrel[-1] * 1000, len(during), pct(during, 0.99), during[-1] * 1000))


pipe(["ctdef 1 103,104,106,107"])
pipe(["ctobj other"])
for i in range(runs):
    run("big%d" % i)
