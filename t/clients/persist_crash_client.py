#!/usr/bin/env python3
"""A queue client that records every acknowledged change, for
t/integration/persist_crash.tcl: the server is killed with SIGKILL under
this load and, after a restart, must hold exactly what was acknowledged.

    persist_crash_client.py HOST PORT QUEUE OUTFILE SECONDS

Loops: qpush "m<i>"; on "PUSHED <id>" writes "P <id> m<i>"; every third
round also qpop with a long lease and, on its ITEM, writes "L <id>", then
qack <id>:<deliveries> and on "ACKED" writes "A <id>". Each line is written
and flushed before the next request is sent. Stops when the connection
breaks (the server was killed) or SECONDS pass; prints "ok <pushed>
<acked>".
"""
import socket
import sys
import time


def main():
    host, port, queue, out, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
    s = socket.create_connection((host, port))
    f = s.makefile("rb")
    log = open(out, "w", buffering=1)
    pushed = acked = 0
    end = time.monotonic() + secs
    i = 0
    try:
        while time.monotonic() < end:
            data = b"m%d" % i
            s.sendall(b"qpush %s 0 0 %d\r\n%s\r\n" % (queue.encode(), len(data), data))
            line = f.readline()
            if not line.startswith(b"PUSHED "):
                break
            log.write("P %d %s\n" % (int(line.split()[1]), data.decode()))
            pushed += 1
            if i % 3 == 2:
                s.sendall(b"qpop %s 1 lease=600\r\n" % queue.encode())
                line = f.readline()
                if not line.startswith(b"ITEM "):
                    break
                _, mid, _, n, deliveries = line.split()
                f.read(int(n) + 2)
                if f.readline() != b"END\r\n":
                    break
                log.write("L %d\n" % int(mid))
                s.sendall(b"qack %s %d:%d\r\n" % (queue.encode(), int(mid), int(deliveries)))
                if f.readline() != b"ACKED\r\n":
                    break
                log.write("A %d\n" % int(mid))
                acked += 1
            i += 1
    except OSError:
        pass
    print("ok %d %d" % (pushed, acked))


if __name__ == "__main__":
    main()
