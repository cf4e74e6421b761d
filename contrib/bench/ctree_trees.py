#!/usr/bin/python3
"""ctree_trees.py: increments of independent trees from several connections,
to see whether the server's workers increment different trees at once
(doc/performance.md, "Tree counters", "Trees in parallel").

  contrib/bench/ctree_trees.py PORT [CONNS [SECONDS]]

Against a running mcds-server on 127.0.0.1:PORT: defines counter 1 (hour,
day, year, all time) and CONNS trees r<i> -> r<i>.a -> r<i>.a.b, then each
connection sends ctincr to the leaf of its own tree, 200 pipelined in one
write, waits for the 200 replies, and again, for SECONDS. Prints the
increments per second of all connections together. Run it against -t 1
and -t 2 (each on a fresh server).
"""
import socket
import sys
import threading
import time


def setup(port, trees):
    s = socket.create_connection(("127.0.0.1", port))
    out = b"ctdef 1 103,104,106,107\r\n"
    for t in range(trees):
        out += b"ctobj r%d\r\nctobj r%d.a parent=r%d\r\nctobj r%d.a.b parent=r%d.a\r\n" % (t, t, t, t, t)
    s.sendall(out)
    want, got = 1 + 3 * trees, b""
    while got.count(b"\n") < want:
        got += s.recv(1 << 16)
    s.close()


def main():
    port = int(sys.argv[1])
    conns = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 3
    setup(port, conns)
    counts = [0] * conns
    stop = time.time() + secs

    def run(i):
        s = socket.create_connection(("127.0.0.1", port))
        blob = b"".join(b"ctincr r%d.a.b 1 103 @%d 1\r\n" % (i, 1609459200 + 3600 * (k % 500)) for k in range(200))
        while time.time() < stop:
            s.sendall(blob)
            got = 0
            while got < 200:
                got += s.recv(65536).count(b"\n")
            counts[i] += 200
        s.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(conns)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("%d connections, one tree each: %.0f increments/s" % (conns, sum(counts) / (time.time() - t0)))


if __name__ == "__main__":
    main()
