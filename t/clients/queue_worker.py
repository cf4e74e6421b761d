#!/usr/bin/env python3
"""A producer or consumer of one mcds queue, run as its own OS process by
t/integration/queue_concurrency.tcl. Plain sockets, the text protocol.

    queue_worker.py produce HOST PORT QUEUE PREFIX COUNT SECONDS
        Pushes COUNT messages "PREFIX-<i>" (i = 0..COUNT-1), pipelined 100
        at a time; every reply must be PUSHED <id>.
        Prints "ok produce <count>".

    queue_worker.py consume HOST PORT QUEUE OUTFILE BATCH LEASE SECONDS [STALL]
        Loops: qpop QUEUE BATCH lease=LEASE wait=0.5; appends one line
        "<payload> <deliveries>" per message to OUTFILE (written, unbuffered,
        before the acks are sent), then acks every message in one pipelined
        write; an ack may answer NOT_FOUND only if the lease ran out. When a
        pop finds nothing, it stops once the key "QUEUE-done" exists and the
        queue has nothing ready, delayed or in flight.
        With STALL > 0: once it has received STALL messages, it takes one
        more non-empty batch, records it in OUTFILE.stalled instead (created
        at once, complete) and sleeps holding the leases until killed (or
        SECONDS pass).
        Writes its pid to OUTFILE.pid first, for the caller to kill it.
        Prints "ok consume got <n> acked <a> notfound <f>".

Every loop is bounded by SECONDS; the process exits 1 with a message on
any unexpected reply.
"""
import os
import socket
import sys
import time


class Conn:
    def __init__(self, host, port, deadline):
        self.s = socket.create_connection((host, port), timeout=30)
        self.buf = b""
        self.deadline = deadline

    def send(self, data):
        self.s.sendall(data)

    def _fill(self):
        if time.time() > self.deadline:
            raise RuntimeError("deadline passed")
        chunk = self.s.recv(1 << 20)
        if not chunk:
            raise RuntimeError("connection closed by the server")
        self.buf += chunk

    def line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                out, self.buf = self.buf[:i], self.buf[i + 2:]
                return out
            self._fill()

    def exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def produce(c, q, prefix, count):
    i = 0
    while i < count:
        n = min(100, count - i)
        cmds = []
        for j in range(i, i + n):
            data = ("%s-%d" % (prefix, j)).encode()
            cmds.append(b"qpush %s 0 0 %d\r\n%s\r\n" % (q, len(data), data))
        c.send(b"".join(cmds))
        for _ in range(n):
            r = c.line()
            if not r.startswith(b"PUSHED "):
                raise RuntimeError("qpush answered %r" % r)
        i += n
    print("ok produce %d" % count)


def pop(c, q, batch, lease):
    c.send(b"qpop %s %d lease=%s wait=0.5\r\n" % (q, batch, lease))
    items = []
    while True:
        r = c.line()
        if r == b"END":
            return items
        parts = r.split(b" ")
        if len(parts) != 5 or parts[0] != b"ITEM":
            raise RuntimeError("qpop answered %r" % r)
        n = int(parts[3])
        data = c.exact(n + 2)
        if data[-2:] != b"\r\n":
            raise RuntimeError("bad data block %r" % data)
        items.append((parts[1], data[:-2], int(parts[4])))


def finished(c, q):
    c.send(b"get %s-done\r\nqstats %s\r\n" % (q, q))
    done = False
    r = c.line()
    if r.startswith(b"VALUE "):
        c.exact(int(r.split(b" ")[3]) + 2)
        done = True
        r = c.line()
    if r != b"END":
        raise RuntimeError("get answered %r" % r)
    st = {}
    while True:
        r = c.line()
        if r == b"END":
            break
        parts = r.split(b" ")
        if parts[0] != b"STAT":
            raise RuntimeError("qstats answered %r" % r)
        st[parts[1]] = parts[2]
    left = sum(int(st[k]) for k in (b"ready", b"delayed", b"in_flight"))
    return done and left == 0


def consume(c, q, outfile, batch, lease, stall, deadline):
    with open(outfile + ".pid", "w") as f:
        f.write("%d\n" % os.getpid())
    out = os.open(outfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    got = acked = notfound = 0
    while True:
        if time.time() > deadline:
            raise RuntimeError("deadline passed after %d messages" % got)
        items = pop(c, q, batch, lease)
        if not items:
            if finished(c, q):
                break
            continue
        got += len(items)
        records = b"".join(b"%s %d\n" % (data, n) for _, data, n in items)
        if stall and got - len(items) >= stall:
            with open(outfile + ".tmp", "wb") as f:
                f.write(records)
            os.rename(outfile + ".tmp", outfile + ".stalled")
            while time.time() < deadline:
                time.sleep(0.1)
            raise RuntimeError("stalled consumer was not killed")
        os.write(out, records)
        c.send(b"".join(b"qack %s %s\r\n" % (q, i) for i, _, _ in items))
        for _ in items:
            r = c.line()
            if r == b"ACKED":
                acked += 1
            elif r == b"NOT_FOUND":
                notfound += 1
            else:
                raise RuntimeError("qack answered %r" % r)
    os.close(out)
    print("ok consume got %d acked %d notfound %d" % (got, acked, notfound))


def main():
    a = sys.argv[1:]
    try:
        if len(a) == 7 and a[0] == "produce":
            mode, host, port, q, prefix, count, secs = a
            c = Conn(host, int(port), time.time() + float(secs))
            produce(c, q.encode(), prefix, int(count))
        elif len(a) in (8, 9) and a[0] == "consume":
            mode, host, port, q, outfile, batch, lease, secs = a[:8]
            stall = int(a[8]) if len(a) == 9 else 0
            deadline = time.time() + float(secs)
            c = Conn(host, int(port), deadline)
            consume(c, q.encode(), outfile, int(batch), lease.encode(), stall, deadline)
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
    except Exception as e:
        print("FAIL: %s" % e)
        sys.stdout.flush()
        sys.exit(1)


if __name__ == "__main__":
    main()
