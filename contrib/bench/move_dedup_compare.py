#!/usr/bin/python3
"""move_dedup_compare.py: what a deduplication id costs a push, and list
moves against Redis's LMOVE (doc/performance.md, "Queues" and "Lists").

  contrib/bench/move_dedup_compare.py MCDS_PORT REDIS_PORT [N] [ROUNDS]

Against a running mcds-server and redis-server on 127.0.0.1 (both in
memory), from this one client, N operations a round (default 50,000),
pipelined 100 to a write, rounds alternating between the two sides of each
comparison (default 3); prints operations per second, the median of the
rounds, and the ratio:

- qpush of 16 bytes, plain, against qpush with dedup=<a new id> (the
  window remembers each id: the cost of exactly-once pushes);
- lmove of a 16-byte element from the head of one list to the tail of
  another, on mcds, against Redis's LMOVE of the same.
Standard library only.
"""
import socket
import statistics
import sys
import time

BATCH = 100


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def run(sock, commands, replies_per_command, terminator):
    """Sends commands BATCH at a time; waits for the replies (counted by
    their terminator) of each batch. Returns operations per second."""
    t0 = time.perf_counter()
    for i in range(0, len(commands), BATCH):
        chunk = commands[i:i + BATCH]
        sock.sendall(b"".join(chunk))
        want, got, buf = len(chunk) * replies_per_command, 0, b""
        while got < want:
            data = sock.recv(1 << 20)
            if not data:
                raise RuntimeError("connection closed")
            buf += data
            got = buf.count(terminator)
    return len(commands) / (time.perf_counter() - t0)


def mcds_push(sock, n, round_no, dedup):
    q = b"bq%d%s" % (round_no, b"d" if dedup else b"p")
    cmds = []
    for i in range(n):
        opt = b" dedup=r%di%d" % (round_no, i) if dedup else b""
        cmds.append(b"qpush %s 0 0 16%s\r\n%016d\r\n" % (q, opt, i))
    rate = run(sock, cmds, 1, b"\r\n")
    sock.sendall(b"delete %s\r\n" % q)
    sock.recv(100)
    return rate


def mcds_move(sock, n, round_no):
    src, dst = b"bm%ds" % round_no, b"bm%dd" % round_no
    fill = [b"rpush %s 16 noreply\r\n%016d\r\n" % (src, i) for i in range(n)]
    sock.sendall(b"".join(fill) + b"version\r\n")
    buf = b""
    while b"VERSION" not in buf:
        buf += sock.recv(1 << 16)
    cmds = [b"lmove %s %s left right\r\n" % (src, dst)] * n
    rate = run(sock, cmds, 1, b"END\r\n")
    sock.sendall(b"delete %s\r\ndelete %s\r\n" % (src, dst))
    sock.recv(100)
    return rate


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def redis_move(sock, n, round_no):
    src, dst = b"bm%ds" % round_no, b"bm%dd" % round_no
    for i in range(0, n, 1000):
        sock.sendall(resp(b"RPUSH", src, *[b"%016d" % j for j in range(i, min(n, i + 1000))]))
        sock.recv(100)
    cmds = [resp(b"LMOVE", src, dst, b"LEFT", b"RIGHT")] * n
    rate = run(sock, cmds, 1, b"$16\r\n")
    sock.sendall(resp(b"DEL", src, dst))
    sock.recv(100)
    return rate


def main():
    mport, rport = int(sys.argv[1]), int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    m, r = connect(mport), connect(rport)
    plain, dedup, mmove, rmove = [], [], [], []
    for k in range(rounds):
        plain.append(mcds_push(m, n, k, False))
        dedup.append(mcds_push(m, n, k, True))
        mmove.append(mcds_move(m, n, k))
        rmove.append(redis_move(r, n, k))
    med = statistics.median
    print("qpush plain        %9.0f/s  (rounds: %s)" % (med(plain), ", ".join("%.0f" % x for x in plain)))
    print("qpush dedup=<id>   %9.0f/s  (rounds: %s)  dedup / plain %.2f" % (
        med(dedup), ", ".join("%.0f" % x for x in dedup), med(dedup) / med(plain)))
    print("mcds lmove         %9.0f/s  (rounds: %s)" % (med(mmove), ", ".join("%.0f" % x for x in mmove)))
    print("Redis LMOVE        %9.0f/s  (rounds: %s)  mcds / Redis %.2f" % (
        med(rmove), ", ".join("%.0f" % x for x in rmove), med(mmove) / med(rmove)))


if __name__ == "__main__":
    main()
