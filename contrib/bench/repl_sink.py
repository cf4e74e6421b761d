#!/usr/bin/env python3
"""repl_sink.py: a replica that applies nothing, for repl_compare.sh.

    repl_sink.py HOST PORT

Asks the primary for its log from 0 (psync ? 0), takes a full resync's
snapshot if it is sent one, then reads LOG frames and acknowledges each
at once with REPLACK <position> (and answers nothing else), until the
primary closes the link. It stands for a replica on a machine of its own:
what the primary spends on its replicas (the senders' reads of the log,
their writes to the socket, the acknowledgements) is measured without the
replicas' own work sharing the machine. The replication protocol is
doc/replication.md's. Python 3 standard library only.
"""
import socket
import sys


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    s = socket.create_connection((host, port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = s.makefile("rb", buffering=1 << 20)
    s.sendall(b"psync ? 0\r\n")
    first = f.readline().split()
    if first[0] == b"FULLSYNC":
        pos, left = int(first[2]), int(first[3])
        while left > 0:
            left -= len(f.read(min(left, 1 << 20)))
    elif first[0] == b"CONTINUE":
        pos = int(first[2])
    else:
        sys.exit("repl_sink: the primary answered %r" % b" ".join(first))
    while True:
        line = f.readline()
        if not line:
            return 0
        if line.startswith(b"LOG "):
            n = int(line[4:])
            if len(f.read(n)) != n:
                return 0
            pos += n
            s.sendall(b"REPLACK %d\r\n" % pos)


if __name__ == "__main__":
    sys.exit(main())
