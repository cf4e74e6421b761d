#!/usr/bin/env python3
"""hog_latency.py: how long one client can hold up another on the same worker.

Starts the server with one worker thread (-t 1), so that both clients
share it, and runs one scenario:

  pipeline  client A streams pipelined "get k" lines for 2 s as fast as
            the socket takes them (and reads its replies); client B sends
            200 single gets meanwhile.
  flush     N one-byte items are stored, then A sends flush_all; B sends
            single gets until A has its OK.
  commands  (mcds only) for each long command of mcds's own, its data is
            made first (N elements, messages or missing keys; N/5 tree
            counter objects), then A sends the command and B sends single
            gets until A has its answer: a list's first lexists (the
            value index built a piece at a time), lrem with no match,
            lindex at the far end, ltrim, delete of a list, qinfo of a
            delayed message, qpurge, delete of a queue, a get of N/2
            missing keys, delete of a tree of counter objects.

Prints B's slowest get (and for flush and commands, how long A's command
took and how many of B's gets it answered meanwhile). Nothing is
asserted: the figures are for doc/performance.md, "Tail latency".

  contrib/bench/hog_latency.py [--server PATH] [--scenario pipeline|flush|commands]
      [--items N] [--memcached]   (--memcached: PATH is memcached, run -u nobody)
"""
import argparse
import os
import random
import socket
import subprocess
import threading
import time


def exchange(sock, data, until):
    sock.sendall(data)
    buf = b""
    while until not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("server closed the connection")
        buf += chunk
    return buf


def start_server(path, memcached):
    port = random.randint(20000, 29999)
    args = [path, "-p", str(port), "-l", "127.0.0.1", "-t", "1", "-U", "0", "-m", "1024"]
    if memcached:
        args += ["-u", "nobody"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            return proc, socket.create_connection(("127.0.0.1", port)), \
                socket.create_connection(("127.0.0.1", port))
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the server did not start")


def pipeline(a, b):
    exchange(a, b"set k 0 0 10\r\n0123456789\r\n", b"\r\n")
    chunk = b"get k\r\n" * 20000
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                if not a.recv(1 << 20):
                    return
            except OSError:
                return

    def writer():
        t0 = time.time()
        while time.time() - t0 < 2.0:
            a.sendall(chunk)

    threading.Thread(target=reader, daemon=True).start()
    w = threading.Thread(target=writer)
    w.start()
    time.sleep(0.3)
    lat = []
    for _ in range(200):
        t1 = time.time()
        exchange(b, b"get k\r\n", b"END\r\n")
        lat.append(time.time() - t1)
    w.join()
    stop.set()
    lat.sort()
    print("pipeline: B's gets: median %.2f ms, slowest %.2f ms" % (lat[100] * 1e3, lat[-1] * 1e3))


def flush(a, b, items):
    batch = bytearray()
    for i in range(items):
        batch += b"set fl:%d 0 0 10 noreply\r\n0123456789\r\n" % i
        if len(batch) > 1 << 20:
            a.sendall(batch)
            batch = bytearray()
    exchange(a, bytes(batch) + b"version\r\n", b"VERSION")
    time.sleep(2)       # the table's growth ends
    t0 = time.time()
    a.sendall(b"flush_all\r\n")
    a.setblocking(False)
    got, worst, answered = b"", 0.0, 0
    while b"OK" not in got:
        t1 = time.time()
        exchange(b, b"get x\r\n", b"END\r\n")
        worst = max(worst, time.time() - t1)
        answered += 1
        try:
            got += a.recv(100)
        except BlockingIOError:
            pass
    print("flush of %d items: %.3f s; B's gets answered meanwhile: %d, slowest %.2f ms"
          % (items, time.time() - t0, answered, worst * 1e3))


def timed(a, b, name, cmd, until):
    """A sends cmd; B sends single gets until A's reply holds until."""
    t0 = time.time()
    a.sendall(cmd)
    a.setblocking(False)
    got, worst, answered = b"", 0.0, 0
    while until not in got:
        t1 = time.time()
        exchange(b, b"get x\r\n", b"END\r\n")
        worst = max(worst, time.time() - t1)
        answered += 1
        try:
            got += a.recv(1 << 20)
        except BlockingIOError:
            pass
    took = time.time() - t0
    a.setblocking(True)
    print("%-34s %8.1f ms; B's gets meanwhile: %6d, slowest %6.2f ms"
          % (name, took * 1e3, answered, worst * 1e3))
    return got


def fill(a, lines):
    """Sends the noreply lines in 1 MB writes, then waits for them."""
    batch = bytearray()
    for line in lines:
        batch += line
        if len(batch) > 1 << 20:
            a.sendall(batch)
            batch = bytearray()
    exchange(a, bytes(batch) + b"mn\r\n", b"MN\r\n")


def list_lines(key, n):
    for i in range(0, n, 64):
        vals = [b"e%d" % j for j in range(i, min(i + 64, n))]
        yield (b"rpush %s %s noreply\r\n" % (key, b" ".join(b"%d" % len(v) for v in vals))
               + b"".join(v + b"\r\n" for v in vals))


def queue_lines(key, n, delay):
    for i in range(0, n, 100):
        k = min(100, n - i)
        yield b"qpushn %s 0 %d 0 %s noreply\r\n" % (key, delay, b" ".join([b"1"] * k)) + b"x\r\n" * k


def commands(a, b, n):
    fill(a, list_lines(b"L", n))
    timed(a, b, "first lexists, %d elements" % n, b"lexists L 2\r\ne7\r\n", b"\r\n")
    timed(a, b, "lrem, no match", b"lrem L 0 4\r\nnone\r\n", b"\r\n")
    timed(a, b, "lindex at the far end", b"lindex L %d\r\n" % (n // 2), b"END\r\n")
    timed(a, b, "ltrim to 10 elements", b"ltrim L %d 10\r\n" % (n // 2), b"\r\n")
    fill(a, list_lines(b"L2", n))
    timed(a, b, "delete of a list", b"delete L2\r\n", b"\r\n")
    fill(a, queue_lines(b"Q", n, 3600))
    got = exchange(a, b"qpush Q 0 3600 1\r\ny\r\n", b"\r\n")
    timed(a, b, "qinfo of a delayed message", b"qinfo Q %s\r\n" % got.split()[1], b"END\r\n")
    timed(a, b, "qpurge", b"qpurge Q\r\n", b"\r\n")
    fill(a, queue_lines(b"Q2", n, 0))
    timed(a, b, "delete of a queue", b"delete Q2\r\n", b"\r\n")
    keys = b" ".join(b"missing:%d" % i for i in range(n // 2))
    timed(a, b, "get of %d missing keys" % (n // 2), b"get " + keys + b"\r\n", b"END\r\n")
    objs = n // 5
    exchange(a, b"ctdef 1 103\r\nctobj root\r\n", b"CREATED\r\nCREATED\r\n")
    fill(a, (b"ctobj root:%d parent=root\r\n" % i for i in range(objs)))     # answers read by fill
    timed(a, b, "delete of %d counter objects" % objs, b"delete root\r\n", b"DELETED\r\n")


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=os.path.join(top, "server", "mcds-server"))
    p.add_argument("--scenario", choices=["pipeline", "flush", "commands"], default="pipeline")
    p.add_argument("--items", type=int, default=1000000)
    p.add_argument("--memcached", action="store_true")
    o = p.parse_args()
    proc, a, b = start_server(o.server, o.memcached)
    try:
        if o.scenario == "pipeline":
            pipeline(a, b)
        elif o.scenario == "commands":
            commands(a, b, o.items)
        else:
            flush(a, b, o.items)
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
