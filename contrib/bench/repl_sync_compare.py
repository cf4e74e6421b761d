#!/usr/bin/env python3
"""repl_sync_compare.py: a synchronously replicated write, mcds against Redis.

Starts, in a scratch directory, an mcds primary with --min-replicas-ack 1
and one replica, and a Redis primary with one replica, both pairs with
the same durability (mcds --fsync everysec --persist-items; Redis
appendonly yes, appendfsync everysec), then runs one client on one
connection against each primary for --seconds:

  mcds   set <key> 0 0 <size>     answered once the replica has it
  redis  SET <key> <value> then WAIT 1 1000, sent together

and prints operations per second and the p50 / p99 latency of each
round trip. One connection, one request at a time: this measures the
round trip of a confirmed write, not throughput.

    contrib/bench/repl_sync_compare.py [--seconds 3] [--size 32] [--replica-threads 4]

--replica-threads sets the mcds replica's -t (its worker threads, which
each batch it applies holds).
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MCDS = os.path.join(HERE, "..", "..", "server", "mcds-server")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def connect(port, tries=100):
    for _ in range(tries):
        try:
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit("nothing listens on %d" % port)


def exchange(s, data, lines):
    s.sendall(data)
    buf = b""
    while buf.count(b"\r\n") < lines:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        buf += chunk
    return buf


def ask(s, data):
    """Everything the server answers to data within 0.2 s."""
    s.sendall(data)
    s.settimeout(0.2)
    buf = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    except socket.timeout:
        pass
    s.settimeout(None)
    return buf


def run(port, make, lines, seconds):
    s = connect(port)
    lat, n, end = [], 0, time.time() + seconds
    while time.time() < end:
        t = time.perf_counter()
        exchange(s, make(n), lines)
        lat.append(time.perf_counter() - t)
        n += 1
    lat.sort()
    return n / seconds, lat[len(lat) // 2] * 1e6, lat[int(len(lat) * 0.99)] * 1e6


def wait_up(port, question, answer, name):
    """Until the replica on port says answer to question (10 s at most)."""
    s = connect(port)
    for _ in range(200):
        if answer in ask(s, question):
            s.close()
            return
        time.sleep(0.05)
    sys.exit("the %s replica did not come up" % name)


def mcds_pair(tmp, procs, replica_threads):
    p, r = free_port(), free_port()
    procs.append(subprocess.Popen([MCDS, "-p", str(p), "-l", "127.0.0.1", "--data-dir", os.path.join(tmp, "mp"),
                                   "--persist-items", "--min-replicas-ack", "1"], stderr=subprocess.DEVNULL))
    connect(p).close()
    procs.append(subprocess.Popen([MCDS, "-p", str(r), "-l", "127.0.0.1", "--data-dir", os.path.join(tmp, "mr"),
                                   "--persist-items", "--replicaof", "127.0.0.1:%d" % p, "-t", str(replica_threads)],
                                  stderr=subprocess.DEVNULL))
    wait_up(r, b"stats\r\n", b"STAT repl_link up", "mcds")
    return p


def redis_pair(tmp, procs):
    p, r = free_port(), free_port()
    common = ["--save", "", "--appendonly", "yes", "--appendfsync", "everysec"]
    procs.append(subprocess.Popen(["redis-server", "--port", str(p), "--dir", os.path.join(tmp, "rp")] + common,
                                  stdout=subprocess.DEVNULL))
    procs.append(subprocess.Popen(["redis-server", "--port", str(r), "--dir", os.path.join(tmp, "rr"),
                                   "--replicaof", "127.0.0.1", str(p)] + common, stdout=subprocess.DEVNULL))
    wait_up(r, b"INFO replication\r\n", b"master_link_status:up", "Redis")
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--replica-threads", type=int, default=4)
    a = ap.parse_args()
    v = b"x" * a.size
    tmp, procs = tempfile.mkdtemp(prefix="repl_sync_compare."), []
    for d in ("mp", "mr", "rp", "rr"):
        os.mkdir(os.path.join(tmp, d))
    try:
        port = mcds_pair(tmp, procs, a.replica_threads)
        r = run(port, lambda i: b"set k%d 0 0 %d\r\n%s\r\n" % (i, a.size, v), 1, a.seconds)
        print("mcds  set, --min-replicas-ack 1   %8.0f ops/s  p50 %6.0f us  p99 %6.0f us  (replica -t %d)"
              % (r + (a.replica_threads,)))
        if shutil.which("redis-server"):
            port = redis_pair(tmp, procs)
            r = run(port, lambda i: b"*3\r\n$3\r\nSET\r\n$%d\r\nk%d\r\n$%d\r\n%s\r\n*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n"
                    b"$4\r\n1000\r\n" % (len(b"k%d" % i), i, a.size, v), 2, a.seconds)
            print("redis SET + WAIT 1 1000          %8.0f ops/s  p50 %6.0f us  p99 %6.0f us" % r)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
