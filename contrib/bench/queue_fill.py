#!/usr/bin/env python3
"""queue_fill.py: fills one queue of a server with N messages, pipelined,
for queue_memory.sh (doc/performance.md, "Queue memory").

    queue_fill.py PROTO PORT STATE N SIZE

PROTO is mcds, redis or beanstalk; STATE ready, delayed (delay of an hour),
inflight (pushed, then leased for a day: mcds qpop, beanstalkd reserve) or
grouped (mcds: pushed into one FIFO group, all but the first waiting); for
mcds also ttl and ttl-delayed (ready, delayed, each pushed with a ttl of a
day).
The data is SIZE bytes of "x" (never a CR LF, so replies are counted by
their line ends). Exits 0 once every reply came back, 1 on an error reply.
"""
import queue
import socket
import sys
import threading

BATCH = 1000


def commands(proto, state, n, size):
    """Yields (request bytes, line ends expected in its replies) in batches."""
    data = b"x" * size
    if proto == "mcds":
        delay = b"3600" if state in ("delayed", "ttl-delayed") else b"0"
        group = b" group=g" if state == "grouped" else b""
        ttl = b" ttl=86400" if state.startswith("ttl") else b""
        one = b"qpush mem.q 0 " + delay + b" %d" % size + group + ttl + b"\r\n" + data + b"\r\n"
        yield from pushes(one, 1, n)
        if state == "inflight":
            pop = b"qpop mem.q 100 lease=86400\r\n"
            for i in range(0, n, 100 * BATCH // 10):
                k = min(100 * BATCH // 10, n - i) // 100
                yield pop * k, k * 201
    elif proto == "redis":
        one = b"*3\r\n$5\r\nLPUSH\r\n$5\r\nmem.q\r\n$%d\r\n" % size + data + b"\r\n"
        yield from pushes(one, 1, n)
    else:
        delay = b"3600" if state == "delayed" else b"0"
        one = b"put 1024 " + delay + b" 86400 %d\r\n" % size + data + b"\r\n"
        yield from pushes(one, 1, n)
        if state == "inflight":
            yield from pushes(b"reserve-with-timeout 0\r\n", 2, n)


def pushes(one, ends, n):
    for i in range(0, n, BATCH):
        k = min(BATCH, n - i)
        yield one * k, k * ends


def main():
    proto, port, state = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    n, size = int(sys.argv[4]), int(sys.argv[5])
    s = socket.create_connection(("127.0.0.1", port))
    if proto == "beanstalk":
        s.sendall(b"use mem.q\r\nwatch mem.q\r\n")
        got = b""
        while got.count(b"\r\n") < 2:
            got += s.recv(64)
    # The writer runs ahead of the reader by at most 8 batches.
    room = threading.Semaphore(8)
    expected = queue.Queue()

    def writer():
        for req, ends in commands(proto, state, n, size):
            room.acquire()
            expected.put(ends)
            s.sendall(req)
        expected.put(None)

    threading.Thread(target=writer, daemon=True).start()
    bad = False
    seen = 0
    last = b""
    want = expected.get()
    while want is not None:
        buf = s.recv(1 << 20)
        if not buf:
            print("queue_fill: connection closed", file=sys.stderr)
            return 1
        if b"ERROR" in buf or b"NOT_STORED" in buf or b"OUT_OF_MEMORY" in buf:
            bad = True
        seen += buf.count(b"\r\n") + (1 if last == b"\r" and buf[:1] == b"\n" else 0)
        last = buf[-1:]
        while want is not None and seen >= want:
            seen -= want
            room.release()
            want = expected.get()
    s.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
