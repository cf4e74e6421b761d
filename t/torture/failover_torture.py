#!/usr/bin/env python3
"""Failover torture of replication (doc/replication.md, "Failover").

Three mcds-servers on their own data directories: a primary and two
replicas. Each replica reaches the primary through a small fault-injecting
TCP proxy of this script, which plays the service address of a keepalived
set-up: the replicas follow the proxy, and the proxy forwards to whichever
server is the primary. While K client threads push to their queues, pop
with leases and ack, the proxies delay, stall, cut, and pass bytes one way
only. At a random moment the primary is killed with SIGKILL; then, as
keepalived's hooks would, contrib/failover/mcds-failover picks the most
advanced replica and promotes it (notify MASTER), the proxies forward to
it, the other replica follows it (notify BACKUP), and the old primary,
started again on its directory, follows it too (notify BACKUP: a restart in
place and a resync). Once all three have caught up, the queues are read
on every server and checked:

- the three servers hold the same messages (ready and in flight);
- no message is there twice, and none that was never pushed;
- --mode sync (the servers run with --fsync always --min-replicas-ack 1):
  every push whose PUSHED came back is there unless its ack went out, and
  no message whose ACKED came back is there: nothing acknowledged is lost;
- both modes: what the failover lost is exactly what the promoted replica
  had not received, message by message. The tail is the old primary's log
  after the position the promoted replica had (where its new lineage
  starts), read from the old primary's files before it starts again: a
  SIGKILL loses nothing a process wrote, and every --fsync policy writes
  a record before its reply goes out (doc/persistence.md). Then:
  * no message whose push record is in the tail is on the new primary;
  * the acknowledged pushes lost (PUSHED came back, no ack went out, not
    there) are exactly those whose push records are in the tail;
  * the acked messages back (ACKED came back, there again) are exactly
    those whose ack records are in the tail and push records are not.
  A loss is therefore not "equal to the lag": the tail also holds pushes
  whose replies the kill cut off, pushes acked since (both records in
  the tail: the message is simply gone), lease and other records; and the
  lag the primary's stats reported just before the kill (records sent and
  not yet acknowledged, per replica) is printed beside it for comparison.
- --mode async: no --min-replicas-ack, and the servers run --fsync
  everysec, no and always (one each), so a primary answers once its
  record is written, or synced, and its senders stream it a moment later;
  in half of the cycles both replicas' links also stall for the primary's
  last 50-500 ms and what they held is dropped at the kill (a network that
  failed before the machine did). Most cycles lose acknowledged changes.
- --self-test: in sync mode, the sync checks on servers without
  --min-replicas-ack; in async mode, the new primary drops 5
  acknowledged pushes it had received. Either way the run must fail.

The next cycle goes on with the new primary and fresh queues, after a
snapshot on every server (none starts by itself: one taken while a
replica lags could remove the log the tail is read from). Prints one
line per cycle and a summary (with how many cycles lost something); exits
1 at the first violation. Python 3 standard library only.
"""

import argparse
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from group_crash import ClientThread, Conn, Gone, Violation   # noqa: E402  (the same wire code)

LEASE = 30                      # pops lease long: in-flight messages stay in flight across the failover
BACKLOG = 60                    # a thread pushes while its queue holds fewer
KEEP_IN_FLIGHT = 8              # a thread acks its oldest message left in flight when it has more
CATCH_UP = 60.0                 # seconds the servers have to catch up after a failover
FAULTS = ("delay", "stall", "cut", "up-only", "down-only")
ASYNC_FSYNC = ("everysec", "no", "always")     # --mode async: each server's --fsync (sync: always)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# ---------------------------------------------------------------------------
# The fault-injecting proxy


class Proxy:
    """Accepts on its own port and forwards each connection to target (a
    port, changed at a failover). fault: None, or one of FAULTS: "delay"
    holds each chunk 1-40 ms, "stall" forwards nothing (the bytes wait in
    the sockets), "cut" closes every connection, "up-only" forwards only
    replica -> primary, "down-only" only primary -> replica (the other
    direction's bytes are dropped: the link breaks and comes back)."""

    def __init__(self, rng):
        self.rng = rng
        self.target = None
        self.fault = None
        self.lock = threading.Lock()
        self.socks = []
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.port = self.lsock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.target), timeout=2)
                u.settimeout(None)
            except (OSError, TypeError):
                c.close()
                continue
            with self.lock:
                self.socks += [c, u]
            threading.Thread(target=self._pump, args=(c, u, "up"), daemon=True).start()
            threading.Thread(target=self._pump, args=(u, c, "down"), daemon=True).start()

    def _pump(self, src, dst, way):
        try:
            while True:
                f = self.fault
                if f == "stall":
                    time.sleep(0.01)
                    continue
                d = src.recv(65536)
                if not d:
                    break
                f = self.fault
                if f == "delay":
                    time.sleep(self.rng.uniform(0.001, 0.04))
                if (f == "up-only" and way == "down") or (f == "down-only" and way == "up"):
                    continue    # dropped
                dst.sendall(d)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            socks, self.socks = self.socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self):
        self.closed = True
        self.lsock.close()
        self.cut()


def inject_faults(proxies, rng, stop, log):
    while not stop.is_set():
        stop.wait(rng.uniform(0.1, 0.6))
        p = rng.choice(proxies)
        f = rng.choice(FAULTS)
        log.append(f)
        if f == "cut":
            p.cut()
            continue
        p.fault = f
        stop.wait(rng.uniform(0.05, 0.8))
        p.fault = None
        if f in ("up-only", "down-only"):
            p.cut()     # the dropped bytes broke the stream: the link starts again


# ---------------------------------------------------------------------------
# Servers


class Node:
    def __init__(self, binary, ddir, fsync, extra):
        self.binary, self.ddir, self.fsync, self.extra = binary, ddir, fsync, extra
        self.port = free_port()
        self.proc = None

    def start(self, replicaof=None):
        # no snapshot by itself (compact() asks for them between cycles): one
        # taken on the primary during the replicas' lag could remove the log
        # file that the tail (below) is read from
        args = [self.binary, "-p", str(self.port), "-l", "127.0.0.1", "-U", "0", "-t", "2",
                "--data-dir", self.ddir, "--repl-timeout", "5", "--fsync", self.fsync,
                "--snapshot-min-size", "0"] + self.extra
        if replicaof is not None:
            args += ["--replicaof", "127.0.0.1:%d" % replicaof]
        self.log = open(os.path.join(self.ddir, "..", os.path.basename(self.ddir) + ".log"), "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        while time.time() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mcds-server did not start on %s" % self.ddir)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def addr(self):
        return "127.0.0.1:%d" % self.port


def stats(port):
    c = Conn(port)
    c.send(b"stats\r\n")
    st = {}
    while True:
        l = c.line()
        if l == b"END":
            break
        _, k, v = l.split(b" ", 2)
        st[k.decode()] = v.decode()
    c.close()
    return st


def failover(*args):
    p = subprocess.run(["bash", os.path.join(REPO, "contrib", "failover", "mcds-failover")] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return p.returncode, p.stdout.decode().strip()


def wait_until(what, pred, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if pred():
                return
        except (OSError, Gone):
            pass
        time.sleep(0.1)
    raise Violation("%s: not after %d s" % (what, seconds))


# ---------------------------------------------------------------------------
# Clients


class Book:
    def __init__(self):
        self.lock = threading.Lock()
        self.pushed = set()     # PUSHED came back
        self.maybe = set()      # cut off by the kill, or not confirmed by a replica
        self.acked = set()      # ACKED came back
        self.ack_sent = set()   # an ack went out (its answer may have been cut off)
        self.data_of = {}       # (queue, message id) -> data, from PUSHED replies and pops


def pop_items(c):
    """A qpop's ITEM lines up to END: [(id, deliveries, data)]; none when
    the pop was not confirmed by a replica (sync mode: the messages are in
    flight on the primary, their delivery lost with the reply, and come
    back when the lease runs out)."""
    out = []
    while True:
        l = c.line()
        if l == b"END":
            return out
        if l.startswith(b"SERVER_ERROR") and not out:
            return out
        p = l.split(b" ")
        if p[0] != b"ITEM" or len(p) != 5:
            raise Violation("unexpected pop line %r" % l)
        out.append((int(p[1]), int(p[4]), c.block(int(p[3]))))


class Worker(ClientThread):
    def __init__(self, queue, port, book, rng, stop):
        super().__init__(port, stop)
        self.queue, self.book, self.rng = queue, book, rng
        self.seq = 0
        self.held = 0           # messages this thread believes are in its queue
        self.in_flight = []     # receipts of the messages it left in flight, oldest first

    def push(self, c):
        data = b"%s:%07d" % (self.queue, self.seq)
        self.seq += 1
        with self.book.lock:
            self.book.maybe.add(data)
        c.send(b"qpush %s 0 0 %d\r\n%s\r\n" % (self.queue, len(data), data))
        reply = c.line()
        self.held += 1      # a push not confirmed is on the primary all the same
        if reply.startswith(b"PUSHED "):
            with self.book.lock:
                self.book.pushed.add(data)
                self.book.maybe.discard(data)
                self.book.data_of[(self.queue, int(reply[7:]))] = data
        elif not reply.startswith(b"SERVER_ERROR"):     # not confirmed: stays "maybe"
            raise Violation("push answered %r" % reply)

    def ack(self, c, mid, deliveries, data):
        with self.book.lock:
            if data in self.book.acked:
                raise Violation("%r delivered after its ACKED came back" % data)
            self.book.ack_sent.add(data)
        c.send(b"qack %s %d:%d\r\n" % (self.queue, mid, deliveries))
        reply = c.line()
        if reply == b"ACKED":
            with self.book.lock:
                self.book.acked.add(data)
            self.held -= 1
        elif reply != b"NOT_FOUND" and not reply.startswith(b"SERVER_ERROR"):
            raise Violation("ack answered %r" % reply)

    def step(self, c):
        if self.held < BACKLOG and self.rng.random() < 0.6:
            self.push(c)
            return
        if len(self.in_flight) > KEEP_IN_FLIGHT:
            self.ack(c, *self.in_flight.pop(0))
            return
        c.send(b"qpop %s %d lease=%d\r\n" % (self.queue, self.rng.randint(1, 4), LEASE))
        for mid, deliveries, data in pop_items(c):
            with self.book.lock:
                self.book.data_of[(self.queue, mid)] = data
            if self.rng.random() < 0.3:
                self.in_flight.append((mid, deliveries, data))      # left in flight, acked later
                continue
            self.ack(c, mid, deliveries, data)


def read_queue(port, queue):
    """The messages of queue, ready (qpeek) and in flight (qpending values):
    a sorted list of data."""
    c = Conn(port)
    out = []
    c.send(b"qpeek %s 100\r\nqpending %s values 10000\r\n" % (queue, queue))
    ready = 0
    for want in (b"ITEM", b"PENDING"):
        while True:
            l = c.line()
            if l in (b"END", b"NOT_FOUND"):
                break
            p = l.split(b" ")
            if p[0] != want:
                raise Violation("reading %r: unexpected line %r" % (queue, l))
            out.append(c.block(int(p[3])))
            ready += want == b"ITEM"
    c.close()
    if ready >= 100:
        raise Violation("%r holds more ready messages than qpeek reads" % queue)
    return sorted(out)


def check(book, queue, got, mode):
    """Returns (lost, back) for queue: the sets of acknowledged pushes
    missing and of acked messages back."""
    seen = set()
    for d in got:
        if d in seen:
            raise Violation("%r is there twice" % d)
        seen.add(d)
        if d not in book.pushed and d not in book.maybe:
            raise Violation("%r was never pushed" % d)
    mine = queue + b":"
    lost = {d for d in book.pushed if d.startswith(mine) and d not in book.ack_sent and d not in seen}
    back = {d for d in book.acked if d in seen}
    if mode == "sync" and lost:
        raise Violation("%d acknowledged pushes lost, e.g. %r" % (len(lost), sorted(lost)[:3]))
    if mode == "sync" and back:
        raise Violation("%d acked messages are back, e.g. %r" % (len(back), sorted(back)[:3]))
    return lost, back


# ---------------------------------------------------------------------------
# The tail the promoted replica never got

REC_HEADER = 12                 # doc/persistence.md, "Files": magic, type, op, 0, length, CRC-32C
REC_MAGIC, REC_QUEUE = 0xA7, 3
Q_ACK = 6                       # types/queue_persist.h: payload: queue key, id u64
Q_GPUSHES = (13, 17)            # Q_GPUSH, Q_GPUSH_TTL: queue key, group key, message
Q_PUSHES = (4, 15) + Q_GPUSHES  # Q_PUSH, Q_PUSH_TTL: queue key, message
MSG_DATA_LEN = 45               # a message: id u64, seq u64, state u8, priority u32, deliveries u32,
MSG_FIXED = 49                  # due u64, pushed u64, flags u32, data length u32, data


class Tail:
    """The old primary's log after the promoted replica's position: how
    many records (records), the queue push records ({(queue, id): data}:
    pushes) and the queue ack records ([(queue, id)]: acks)."""

    def __init__(self):
        self.records = 0
        self.pushes = {}
        self.acks = []

    def add(self, typ, op, payload):
        self.records += 1
        if typ != REC_QUEUE or (op != Q_ACK and op not in Q_PUSHES):
            return
        n = payload[0]
        queue, off = payload[1:1 + n], 1 + n
        if op == Q_ACK:
            self.acks.append((queue, struct.unpack_from("<Q", payload, off)[0]))
            return
        if op in Q_GPUSHES:
            off += 1 + payload[off]
        mid, = struct.unpack_from("<Q", payload, off)
        dlen, = struct.unpack_from("<I", payload, off + MSG_DATA_LEN)
        self.pushes[(queue, mid)] = payload[off + MSG_FIXED:off + MSG_FIXED + dlen]


def log_files(ddir):
    """The log files of a data directory: (first position, path), in order."""
    names = [n for n in os.listdir(ddir) if n.startswith("log.") and len(n) == 20]
    return sorted((int(n[4:], 16), os.path.join(ddir, n)) for n in names)


def read_tail(ddir, start):
    """The records of ddir's log from position start (a record boundary)
    to its last whole record, as a Tail."""
    files = log_files(ddir)
    tail = Tail()
    pos = start
    for i, (first, path) in enumerate(files):
        if i + 1 < len(files) and files[i + 1][0] <= pos:
            continue
        if first > pos:
            raise Violation("the old primary's log has no record at %d" % pos)
        with open(path, "rb") as f:
            data = f.read()
        off = pos - first
        while off + REC_HEADER <= len(data):
            magic, typ, op, _, plen = struct.unpack_from("<BBBBI", data, off)
            if magic != REC_MAGIC or off + REC_HEADER + plen > len(data):
                return tail         # a torn tail: the kill cut its last write
            tail.add(typ, op, data[off + REC_HEADER:off + REC_HEADER + plen])
            off += REC_HEADER + plen
        pos = first + off
    return tail


def lineage_start(ddir):
    """Where the current lineage of a data directory starts: for a replica
    just promoted, the position it had (doc/replication.md, "Promotion")."""
    with open(os.path.join(ddir, "lineage")) as f:
        return int(f.readline().split()[1])


def check_tail(book, queues, seen, lost, back, tail):
    """What the failover lost is exactly what the promoted replica had not
    received. seen: the messages of queues on the new primary; lost, back:
    the acknowledged pushes missing and the acked messages back. Returns
    (pushes, acks) of queues in the tail."""
    pushes = {d for (q, _), d in tail.pushes.items() if q in queues}
    there = pushes & seen
    if there:
        raise Violation("%d messages are on the new primary though the promoted replica never got their push "
                        "records, e.g. %r" % (len(there), sorted(there)[:3]))
    outside = lost - pushes
    if outside:
        raise Violation("%d acknowledged pushes lost that the promoted replica had received (their push records "
                        "are before its position), e.g. %r" % (len(outside), sorted(outside)[:3]))
    acks = set()
    for a in tail.acks:
        if a[0] not in queues:
            continue
        if a not in book.data_of:
            raise Violation("an ack record of %r id %d, a message no client popped" % a)
        acks.add(book.data_of[a])
    outside = back - acks
    if outside:
        raise Violation("%d acked messages back whose ack records the promoted replica had, e.g. %r"
                        % (len(outside), sorted(outside)[:3]))
    gone = {d for d in acks if d in book.acked and d not in pushes} - back
    if gone:
        raise Violation("%d acked messages whose ack records the promoted replica never got are not back, "
                        "e.g. %r" % (len(gone), sorted(gone)[:3]))
    return pushes, acks


# ---------------------------------------------------------------------------
# A cycle


def replica_lags(primary):
    """The lag in records of each replica the primary has (stats
    repl_replica_<i>), as "a/b"."""
    try:
        st = stats(primary.port)
    except (OSError, Gone):
        return "?"
    return "/".join(v.split()[4] for k, v in sorted(st.items()) if k.startswith("repl_replica_")) or "-"


def caught_up(primary, nodes):
    want = stats(primary.port)["persist_log_position"]
    for n in nodes:
        st = stats(n.port)
        if st.get("repl_link") != "up" or st.get("repl_position") != want:
            return False
    return True


def compact(nodes):
    """A snapshot on every server once all have caught up, so that a full
    resync (the old primary's, each cycle) starts from it and not from
    the start of the log; none is taken while a replica lags."""
    for n in nodes:
        c = Conn(n.port)
        c.send(b"snapshot\r\n")
        reply = c.line()
        c.close()
        if reply != b"OK" and reply != b"SERVER_ERROR a snapshot is being written":
            raise Violation("snapshot answered %r on %s" % (reply, n.addr()))
    for n in nodes:
        wait_until("a snapshot on %s" % n.addr(), lambda: stats(n.port)["persist_snapshot_in_progress"] == "0",
                   CATCH_UP)


def drop_ready(port, queue, book):
    """--self-test in async mode: the new primary loses 5 acknowledged
    pushes it had received, popped and acked behind the clients' backs
    (the other messages popped meanwhile are released)."""
    c = Conn(port)
    dropped, others = 0, []
    while dropped < 5:
        c.send(b"qpop %s 20 lease=%d\r\n" % (queue, LEASE))
        got = pop_items(c)
        if not got:
            break
        for mid, deliveries, data in got:
            if dropped < 5 and data in book.pushed and data not in book.ack_sent:
                c.send(b"qack %s %d:%d\r\n" % (queue, mid, deliveries))
                c.line()
                dropped += 1
            else:
                others.append((mid, deliveries))
    for mid, deliveries in others:
        c.send(b"qrelease %s %d:%d\r\n" % (queue, mid, deliveries))
        c.line()
    c.close()


def partition(proxies, seconds):
    """The replicas' links stall for the primary's last seconds: what the
    primary sends them then waits in the proxies' sockets, and the kill's
    cut drops it (a network that failed before the machine did)."""
    for p in proxies:
        p.fault = "stall"
    time.sleep(seconds)


def cycle(args, n, rng, nodes, proxies, state):
    primary = state["primary"]
    replicas = [x for x in nodes if x is not primary]
    book, stop, fstop, faults = Book(), threading.Event(), threading.Event(), []
    queues = [b"c%dq%d" % (n, t) for t in range(args.threads)]
    workers = [Worker(q, primary.port, book, random.Random(rng.random()), stop) for q in queues]
    for w in workers:
        w.start()
    injector = threading.Thread(target=inject_faults, args=(proxies, random.Random(rng.random()), fstop, faults),
                                daemon=True)
    injector.start()
    alive = rng.uniform(1.0, 3.0)
    cut_off = 0.0
    if args.mode == "async" and rng.random() < 0.5:
        cut_off = rng.uniform(0.05, 0.5)
    time.sleep(alive - cut_off)
    if cut_off:
        fstop.set()
        injector.join(5)
        partition(proxies, cut_off)
    lag = replica_lags(primary)
    primary.kill()
    stop.set()
    fstop.set()
    injector.join(5)
    for w in workers:
        w.join(30)
        if w.error is not None:
            raise w.error
    for p in proxies:
        if cut_off:
            p.cut()         # before the stall ends: what it held never arrives
        p.fault = None
        p.cut()

    # keepalived's part: the most advanced replica takes over
    rc, new_addr = failover("pick", *[r.addr() for r in replicas])
    if rc != 0:
        raise Violation("pick failed: %s" % new_addr)
    new = next(r for r in replicas if r.addr() == new_addr)
    rc, out = failover("notify", new.addr(), "127.0.0.1:%d" % proxies[nodes.index(new)].port, "MASTER")
    if rc != 0:
        raise Violation("notify MASTER failed: %s" % out)
    tail = read_tail(primary.ddir, lineage_start(new.ddir))
    if args.self_test and args.mode == "async":
        drop_ready(new.port, queues[0], book)
    for p in proxies:
        p.target = new.port
    other = next(r for r in replicas if r is not new)
    rc, out = failover("notify", other.addr(), "127.0.0.1:%d" % proxies[nodes.index(other)].port, "BACKUP")
    if rc != 0:
        raise Violation("notify BACKUP of the other replica failed: %s" % out)
    primary.start()
    rc, out = failover("notify", primary.addr(), "127.0.0.1:%d" % proxies[nodes.index(primary)].port, "BACKUP")
    if rc != 0:
        raise Violation("notify BACKUP of the old primary failed: %s" % out)
    followers = [other, primary]
    wait_until("the servers catching up with the new primary", lambda: caught_up(new, followers), CATCH_UP)

    lost, back, seen = set(), set(), set()
    for q in queues:
        got = read_queue(new.port, q)
        for f in followers:
            if read_queue(f.port, q) != got:
                raise Violation("queue %r differs on %s from the new primary" % (q, f.addr()))
        l, b = check(book, q, got, args.mode)
        lost |= l
        back |= b
        seen.update(got)
    pushes, acks = check_tail(book, set(queues), seen, lost, back, tail)
    compact(nodes)
    state["primary"] = new
    unanswered = len([d for d in pushes if d not in book.pushed])
    print("cycle %d: killed after %.2fs (faults %s; %s), primary --fsync %s, pushes acked %d, acks acked %d, "
          "promoted %s; lag at the kill %s records; not received by the promoted one %d records: %d pushes "
          "(%d unanswered, %d acked since), %d acks; acknowledged pushes lost %d, acked back %d, ok"
          % (n, alive, ",".join(faults) or "none",
             "links cut off %d ms before" % (cut_off * 1000) if cut_off else "no cut-off",
             primary.fsync, len(book.pushed), len(book.acked), new.addr(), lag, tail.records, len(pushes),
             unanswered, len([d for d in pushes if d in book.ack_sent]), len(acks), len(lost), len(back)),
          flush=True)
    return len(lost), len(back)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=os.path.join(REPO, "server", "mcds-server"))
    ap.add_argument("--mode", choices=("sync", "async"), default="sync")
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--tmp-dir", default=None)
    ap.add_argument("--keep-dir", action="store_true")
    ap.add_argument("--self-test", action="store_true",
                    help="sync: the sync checks on servers without --min-replicas-ack; async: the new primary "
                    "loses a few messages it had; either way the run must fail")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1, 2000000000)
    rng = random.Random(seed)
    policies = ASYNC_FSYNC if args.mode == "async" else ("always",) * 3
    extra = []
    if args.mode == "sync" and not args.self_test:
        extra += ["--min-replicas-ack", "1", "--min-replicas-timeout", "2000"]
    test = ""
    if args.self_test:
        test = (" (self-test: without --min-replicas-ack)" if args.mode == "sync" else
                " (self-test: the new primary loses messages it had)")
    print("failover_torture: seed %d, mode %s%s, %d threads, server %s" % (
        seed, args.mode, test, args.threads, args.server), flush=True)
    tmp = tempfile.mkdtemp(prefix="failover.", dir=args.tmp_dir)
    nodes = [Node(args.server, os.path.join(tmp, "n%d" % i), policies[i], extra) for i in range(3)]
    proxies = [Proxy(random.Random(rng.random())) for _ in nodes]
    for p in proxies:
        p.target = nodes[0].port
    t0, done, rc = time.time(), 0, 0
    totals = [0, 0, 0]
    try:
        for i, node in enumerate(nodes):
            os.makedirs(node.ddir)
            node.start(None if i == 0 else proxies[i].port)
        state = {"primary": nodes[0]}
        wait_until("the replicas' first sync", lambda: caught_up(nodes[0], nodes[1:]), CATCH_UP)
        while done < args.cycles and time.time() - t0 < args.seconds - 10:
            lost, back = cycle(args, done + 1, rng, nodes, proxies, state)
            totals[0] += lost
            totals[1] += back
            totals[2] += lost + back > 0
            done += 1
    except Violation as e:
        print("VIOLATION (seed %d, cycle %d): %s" % (seed, done + 1, e), flush=True)
        rc = 1
    finally:
        for node in nodes:
            node.stop()
        for p in proxies:
            p.close()
        if rc == 0 or not args.keep_dir:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("failover_torture: the data directories and logs are kept in %s" % tmp, flush=True)
    if rc == 0:
        print("failover_torture: %d cycles, mode %s, 0 violations (acknowledged pushes lost %d, acked back %d), "
              "seed %d, %d s; %d cycles lost something" % (done, args.mode, totals[0], totals[1], seed,
                                                          time.time() - t0, totals[2]), flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
