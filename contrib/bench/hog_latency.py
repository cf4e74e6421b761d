#!/usr/bin/env python3
"""hog_latency.py: how long one client can hold up another on the same worker.

Starts the server with one worker thread (-t 1), so that both clients
share it, and runs one scenario:

  pipeline  client A streams pipelined "get k" lines for 2 s as fast as
            the socket takes them (and reads its replies); client B sends
            200 single gets meanwhile.
  flush     N one-byte items are stored, then A sends flush_all; B sends
            single gets until A has its OK.

Prints B's slowest get (and for flush, how long the flush took and how
many of B's gets it answered meanwhile). Nothing is asserted: the figures
are for doc/performance.md, "Tail latency".

  contrib/bench/hog_latency.py [--server PATH] [--scenario pipeline|flush]
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


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=os.path.join(top, "server", "mcds-server"))
    p.add_argument("--scenario", choices=["pipeline", "flush"], default="pipeline")
    p.add_argument("--items", type=int, default=1000000)
    p.add_argument("--memcached", action="store_true")
    o = p.parse_args()
    proc, a, b = start_server(o.server, o.memcached)
    try:
        if o.scenario == "pipeline":
            pipeline(a, b)
        else:
            flush(a, b, o.items)
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
