#!/usr/bin/env python3
"""kill -9 torture of FIFO message groups (qpush group=; doc/protocol.md,
"FIFO message groups"; doc/persistence.md).

Each cycle starts mcds-server on a fresh data directory with an --fsync
policy (rotating always, everysec, no). K client threads share one queue:
each pushes into groups of its own (pipelined qpush and qpushn group=, the
data naming the group and the message's place in it), and every thread
pops from the whole queue with short leases, acks by receipt and sometimes
releases; a snapshot is asked for now and then. While it runs, every
delivery is checked: a message of a group comes out only once every
earlier message of that group was acked (sent, at least). The server is
killed with SIGKILL at a random moment and started again on the same
directory; then the queue is drained and checked:

- every push whose PUSHED came back is there exactly once, unless its ack
  went out (an ACKED that came back: gone for good; one cut off: either);
- a push cut off by the kill is there at most once;
- nothing comes out twice, and each group's messages come out one at a
  time, in push order.

Prints one line per cycle and a summary; exits 1 at the first violation.
Python 3 standard library only.
"""

import argparse
import collections
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
POLICIES = ("always", "everysec", "no")
QUEUE = b"gq"
GROUPS_PER_THREAD = 3
LEASE = 1                       # pops lease for 1 s: a restart gets them back soon
BACKLOG = 40                    # a thread pushes while the queue holds fewer


class Violation(Exception):
    pass


class Gone(Exception):
    """The server was killed under the connection."""


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.settimeout(20)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise Gone() from e

    def _more(self):
        """Reads what the server sent next into the buffer."""
        try:
            d = self.sock.recv(65536)
        except OSError as e:
            raise Gone() from e
        if not d:
            raise Gone()
        self.buf += d

    def line(self):
        while b"\r\n" not in self.buf:
            self._more()
        i = self.buf.index(b"\r\n")
        out, self.buf = self.buf[:i], self.buf[i + 2:]
        return out

    def block(self, n):
        while len(self.buf) < n + 2:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n + 2:]
        return out

    def items(self):
        """ITEM lines up to END: [(id, deliveries, data)]."""
        out = []
        while True:
            l = self.line()
            if l == b"END":
                return out
            p = l.split(b" ")
            if p[0] != b"ITEM" or len(p) != 5:
                raise Violation("unexpected pop line %r" % l)
            out.append((int(p[1]), int(p[4]), self.block(int(p[3]))))

    def close(self):
        self.sock.close()


class Book:
    """What the clients know, shared by the threads (under lock)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pushed = {}        # data -> message id: PUSHED came back
        self.maybe = set()      # data of pushes the kill cut off
        self.acked = set()      # data whose ACKED came back
        # data -> acks that went out and did not answer NOT_FOUND (a
        # counter: two consumers may ack two deliveries of one message)
        self.ack_sent = collections.Counter()
        self.ops = 0


def data_of(group, seq):
    return b"%s:%06d" % (group, seq)


def parse_data(d):
    g, s = d.rsplit(b":", 1)
    return g, int(s)


class ClientThread(threading.Thread):
    """A client thread: step(conn) until stop is set or the server is
    killed under it; a Violation it meets is kept in error."""

    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.error = None

    def run(self):
        try:
            c = Conn(self.port)
            while not self.stop.is_set():
                self.step(c)
        except Gone:
            pass
        except Violation as e:
            self.error = e


class Worker(ClientThread):
    def __init__(self, tid, port, book, rng, stop):
        super().__init__(port, stop)
        self.tid, self.book, self.rng = tid, book, rng
        self.groups = [b"t%dg%d" % (tid, i) for i in range(GROUPS_PER_THREAD)]
        self.next = {g: 0 for g in self.groups}

    def push(self, c):
        g = self.rng.choice(self.groups)
        n = self.rng.randint(1, 4)
        datas = [data_of(g, self.next[g] + i) for i in range(n)]
        self.next[g] += n
        with self.book.lock:
            self.book.maybe.update(datas)
        if n == 1:
            c.send(b"qpush %s 0 0 %d group=%s\r\n%s\r\n" % (QUEUE, len(datas[0]), g, datas[0]))
        else:
            c.send(b"qpushn %s 0 0 1024 %s group=%s\r\n%s" % (
                QUEUE, b" ".join(b"%d" % len(d) for d in datas), g, b"".join(d + b"\r\n" for d in datas)))
        reply = c.line()
        if not reply.startswith(b"PUSHED "):
            raise Violation("push answered %r" % reply)
        ids = [int(x) for x in reply[7:].split(b" ")]
        with self.book.lock:
            for d, i in zip(datas, ids):
                self.book.pushed[d] = i
                self.book.maybe.discard(d)
            self.book.ops += 1

    def check_delivery(self, data):
        """Every earlier message of data's group was acked (sent at least)."""
        g, s = parse_data(data)
        with self.book.lock:
            for earlier in range(s):
                d = data_of(g, earlier)
                if self.book.ack_sent[d] == 0 and (d in self.book.pushed or d in self.book.maybe):
                    raise Violation("%r delivered while %r of its group was not acked" % (data, d))

    def step(self, c):
        with self.book.lock:
            queued = len(self.book.pushed) + len(self.book.maybe) - len(self.book.acked)
        r = self.rng.random()
        if queued < BACKLOG and r < 0.45:
            self.push(c)
            return
        if r < 0.5:
            c.send(b"snapshot\r\n")
            c.line()
            return
        c.send(b"qpop %s %d lease=%d\r\n" % (QUEUE, self.rng.randint(1, 5), LEASE))
        got = c.items()
        seen = set()
        for mid, deliveries, data in got:
            g, _ = parse_data(data)
            if g in seen:
                raise Violation("two messages of group %r in one pop" % g)
            seen.add(g)
            self.check_delivery(data)
        for mid, deliveries, data in got:
            if self.rng.random() < 0.1:
                c.send(b"qrelease %s %d:%d\r\n" % (QUEUE, mid, deliveries))
                c.line()
                continue
            with self.book.lock:
                self.book.ack_sent[data] += 1
            c.send(b"qack %s %d:%d\r\n" % (QUEUE, mid, deliveries))
            reply = c.line()
            if reply == b"ACKED":
                with self.book.lock:
                    self.book.acked.add(data)
            elif reply == b"NOT_FOUND":
                with self.book.lock:    # the lease ran out first: not acked after all
                    self.book.ack_sent[data] -= 1
            else:
                raise Violation("ack answered %r" % reply)


class Server:
    def __init__(self, binary, ddir, policy):
        self.binary, self.ddir, self.policy = binary, ddir, policy
        self.proc = None
        self.port = None

    def start(self):
        for _ in range(20):
            port = random.randint(20000, 60000)
            self.proc = subprocess.Popen(
                [self.binary, "-p", str(port), "-U", "0", "-t", "2", "--data-dir", self.ddir,
                 "--fsync", self.policy], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.time() + 60
            while time.time() < deadline and self.proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    self.port = port
                    return
                except OSError:
                    time.sleep(0.05)
            self.kill()
        raise RuntimeError("mcds-server did not start on %s" % self.ddir)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def drain(port):
    """Every message left, in the order they come out (one pop at a time,
    acked): the list of data, checking one at a time per group."""
    c = Conn(port)
    out = []
    idle_since = None
    while True:
        c.send(b"qpop %s 10\r\n" % QUEUE)
        got = c.items()
        groups = [parse_data(d)[0] for _, _, d in got]
        if len(groups) != len(set(groups)):
            raise Violation("after the restart one pop held two messages of a group: %r" % got)
        for mid, deliveries, data in got:
            out.append(data)
            c.send(b"qack %s %d:%d\r\n" % (QUEUE, mid, deliveries))
            if c.line() != b"ACKED":
                raise Violation("drain ack of %r failed" % data)
        if got:
            idle_since = None
            continue
        c.send(b"qstats %s\r\n" % QUEUE)
        st = {}
        while True:
            l = c.line()
            if l in (b"END", b"NOT_FOUND"):
                break
            _, k, v = l.split(b" ", 2)
            st[k] = v
        if st.get(b"in_flight", b"0") == b"0" and st.get(b"grouped", b"0") == b"0":
            c.close()
            return out, st
        idle_since = idle_since or time.time()
        if time.time() - idle_since > LEASE + 10:
            raise Violation("messages never came back after the restart: %r" % st)
        time.sleep(0.05)


def check(book, drained):
    seen = set()
    last = {}
    for d in drained:
        if d in seen:
            raise Violation("%r came out twice after the restart" % d)
        seen.add(d)
        g, s = parse_data(d)
        if g in last and last[g] > s:
            raise Violation("group %r out of order after the restart: %d after %d" % (g, s, last[g]))
        last[g] = s
        if d in book.acked:
            raise Violation("%r was acked (ACKED came back) and is there again" % d)
        if d not in book.pushed and d not in book.maybe:
            raise Violation("%r was never pushed" % d)
    lost = [d for d in book.pushed if book.ack_sent[d] == 0 and d not in seen]
    if lost:
        raise Violation("%d acknowledged pushes lost, e.g. %r" % (len(lost), lost[:3]))
    back = sum(1 for d in book.maybe if d in seen)
    return back


def cycle(args, n, policy, rng, tmp):
    ddir = tempfile.mkdtemp(prefix="gcrash.", dir=tmp)
    srv = Server(args.server, ddir, policy)
    srv.start()
    book, stop = Book(), threading.Event()
    workers = [Worker(t, srv.port, book, random.Random(rng.random()), stop) for t in range(args.threads)]
    for w in workers:
        w.start()
    alive = rng.uniform(0.4, 2.0)
    time.sleep(alive)
    srv.kill()
    stop.set()
    for w in workers:
        w.join(30)
        if w.error is not None:
            raise w.error
    srv.start()
    try:
        drained, st = drain(srv.port)
        back = check(book, drained)
    finally:
        srv.stop()
    shutil.rmtree(ddir, ignore_errors=True)
    print("cycle %d policy %s killed after %.2fs: pushes acked %d, acks acked %d, left %d, "
          "in flight at the kill %d (%d back), ok" % (n, policy, alive, len(book.pushed), len(book.acked),
                                                      len(drained), len(book.maybe), back), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=os.path.join(REPO, "server", "mcds-server"))
    ap.add_argument("--cycles", type=int, default=9)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--tmp-dir", default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1, 2000000000)
    rng = random.Random(seed)
    print("group_crash: seed %d, %d threads, server %s" % (seed, args.threads, args.server), flush=True)
    t0 = time.time()
    done = 0
    try:
        while done < args.cycles and time.time() - t0 < args.seconds:
            cycle(args, done + 1, POLICIES[done % len(POLICIES)], rng, args.tmp_dir)
            done += 1
    except Violation as e:
        print("VIOLATION (seed %d, cycle %d): %s" % (seed, done + 1, e), flush=True)
        return 1
    print("group_crash: %d cycles, 0 violations, seed %d, %d s" % (done, seed, time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
