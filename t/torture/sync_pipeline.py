#!/usr/bin/env python3
"""Random pipelines against synchronous acknowledgement (doc/replication.md,
"Guarantees and synchronous acknowledgement").

Starts a primary (--min-replicas-ack 1, a short --min-replicas-timeout,
a random -R) and one replica, in a scratch directory. K connections send
random pipelines of changes and reads on keys of their own (set, append,
delete, ms, a set with noreply, values large enough to be sent from their
items, get, mn) while a thread stops the replica (SIGSTOP) and lets it go
on at random moments, so that some batches are confirmed, some time out,
and some time out while the next command's value is still arriving. Every
reply is checked against a model of the keys: a change's reply may be
"SERVER_ERROR changed on the primary, not confirmed by enough replicas"
in its place (never for noreply), every other reply must be exactly the
model's, in order. At the end the replica must hold every key as the
primary does. Prints one summary line; exits 1 at the first wrong reply or
difference. Python 3 standard library only.

    t/torture/sync_pipeline.py [--server PATH] [--seed N] [--rounds N] [--conns N]
"""

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
UNCONF = b"SERVER_ERROR changed on the primary, not confirmed by enough replicas\r\n"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def connect(port):
    for _ in range(200):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            time.sleep(0.05)
    raise SystemExit("sync_pipeline: no server on port %d" % port)


def request(port, line, end):
    s = connect(port)
    s.sendall(line)
    buf = b""
    while not buf.endswith(end):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    return buf


def stat(port, name):
    for line in request(port, b"stats\r\n", b"END\r\n").split(b"\r\n"):
        parts = line.split(b" ", 2)
        if len(parts) == 3 and parts[1].decode() == name:
            return parts[2].decode()
    return None


class Pipelines:
    """One connection's random pipelines, and what their replies must be."""

    def __init__(self, port, cid, rng):
        self.sock = connect(port)
        self.cid, self.rng, self.model = cid, rng, {}

    def command(self):
        """(bytes sent, its reply, whether it is a change whose reply may be
        the unconfirmed error)."""
        r, model = self.rng, self.model
        k = b"c%dk%d" % (self.cid, r.randrange(8))
        op = r.randrange(9)
        if op < 2 or op == 7:
            v = b"v%d" % r.randrange(1000) if op < 2 else b"B" * r.choice((600, 3000))
            model[k] = v
            return b"set %s 0 0 %d\r\n%s\r\n" % (k, len(v), v), b"STORED\r\n", True
        if op == 2:
            v = model.get(k)
            return b"get %s\r\n" % k, (b"VALUE %s 0 %d\r\n%s\r\nEND\r\n" % (k, len(v), v)) if v else b"END\r\n", False
        if op == 3:
            if k not in model:
                return b"append %s 0 0 1\r\nx\r\n" % k, b"NOT_STORED\r\n", False
            model[k] += b"x"
            return b"append %s 0 0 1\r\nx\r\n" % k, b"STORED\r\n", True
        if op == 4:
            if model.pop(k, None) is None:
                return b"delete %s\r\n" % k, b"NOT_FOUND\r\n", False
            return b"delete %s\r\n" % k, b"DELETED\r\n", True
        if op == 5:
            v = b"n%d" % r.randrange(1000)
            model[k] = v
            return b"set %s 0 0 %d noreply\r\n%s\r\n" % (k, len(v), v), b"", False
        if op == 6:
            return b"mn\r\n", b"MN\r\n", False
        v = b"m%d" % r.randrange(1000)
        model[k] = v
        return b"ms %s %d\r\n%s\r\n" % (k, len(v), v), b"HD\r\n", True

    def round(self):
        """Sends one pipeline, checks its replies: None or what was wrong."""
        cmds = [self.command() for _ in range(self.rng.randint(1, 60))]
        cmds.append((b"mn\r\n", b"MN\r\n", False))
        self.sock.sendall(b"".join(c[0] for c in cmds))
        buf, pos, unconfirmed = b"", 0, 0
        for i, (sent, reply, change) in enumerate(cmds):
            while True:
                rest = buf[pos:]
                if change and rest.startswith(UNCONF):
                    pos += len(UNCONF)
                    unconfirmed += 1
                    break
                if rest.startswith(reply) and (reply or not change):
                    pos += len(reply)
                    break
                if not (reply.startswith(rest) or (change and UNCONF.startswith(rest))):
                    return "connection %d, command %d of %d (%r): expected %r, got %r" % (
                        self.cid, i, len(cmds), sent[:40], reply[:60], rest[:120]), unconfirmed
                d = self.sock.recv(65536)
                if not d:
                    return "connection %d closed at command %d" % (self.cid, i), unconfirmed
                buf += d
        if pos != len(buf):
            return "connection %d: bytes after its replies: %r" % (self.cid, buf[pos:pos + 120]), unconfirmed
        return None, unconfirmed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=os.path.join(REPO, "server", "mcds-server"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=150, help="pipelines per connection")
    ap.add_argument("--conns", type=int, default=4)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1, 2000000000)
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="sync_pipeline.")
    pport, rport = free_port(), free_port()
    common = ["-l", "127.0.0.1", "-U", "0", "-t", "2", "--persist-items"]
    procs = []
    errors, unconfirmed = [], [0]
    try:
        procs.append(subprocess.Popen([args.server, "-p", str(pport), "--data-dir", os.path.join(tmp, "p"),
                                       "--min-replicas-ack", "1", "--min-replicas-timeout", "300",
                                       "-R", str(rng.choice((5, 20, 100)))] + common,
                                      stderr=open(os.path.join(tmp, "p.log"), "w")))
        procs.append(subprocess.Popen([args.server, "-p", str(rport), "--data-dir", os.path.join(tmp, "r"),
                                       "--replicaof", "127.0.0.1:%d" % pport] + common,
                                      stderr=open(os.path.join(tmp, "r.log"), "w")))
        while stat(rport, "repl_link") != "up":
            time.sleep(0.05)
        stop = threading.Event()
        stopper_rng = random.Random(rng.random())

        def stopper():
            while not stop.is_set():
                os.kill(procs[1].pid, signal.SIGSTOP)
                time.sleep(stopper_rng.uniform(0.2, 0.9))
                os.kill(procs[1].pid, signal.SIGCONT)
                time.sleep(stopper_rng.uniform(0.02, 0.3))

        clients = [Pipelines(pport, c, random.Random(rng.random())) for c in range(args.conns)]

        def run(p):
            for _ in range(args.rounds):
                if errors:
                    return
                wrong, n = p.round()
                unconfirmed[0] += n
                if wrong:
                    errors.append(wrong)
                    return

        t = threading.Thread(target=stopper, daemon=True)
        t.start()
        threads = [threading.Thread(target=run, args=(p,)) for p in clients]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        stop.set()
        t.join()
        os.kill(procs[1].pid, signal.SIGCONT)
        want = stat(pport, "persist_log_position")
        for _ in range(600):
            if stat(rport, "repl_position") == want:
                break
            time.sleep(0.05)
        for p in clients:
            for k, v in sorted(p.model.items()):
                for port in (pport, rport):
                    got = request(port, b"get %s\r\n" % k, b"END\r\n")
                    if got != b"VALUE %s 0 %d\r\n%s\r\nEND\r\n" % (k, len(v), v):
                        errors.append("%s on port %d: %r, expected %r" % (k.decode(), port, got[:80], v[:40]))
    finally:
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
            p.terminate()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if errors:
        print("sync_pipeline: VIOLATION (seed %d): %s" % (seed, errors[0]), flush=True)
        return 1
    print("sync_pipeline: %d connections x %d pipelines, %d replies not confirmed, 0 violations, seed %d"
          % (args.conns, args.rounds, unconfirmed[0], seed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
