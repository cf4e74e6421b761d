#!/usr/bin/env python3
"""mcds.Pool over replica sets (t/unit/client_replicas.tcl).

    mcds_replicas_check.py offline SRCDIR
    mcds_replicas_check.py live SRCDIR PRIMARY_PORT REPLICA_PORT
    mcds_replicas_check.py blackhole

"offline" needs no mcds server: server lists with replica sets, good and
bad; placement unchanged by adding replicas; and, against small fake
servers on loopback, what is retried and what never is (a request the
server read and then closed on, a reply that never comes, "not confirmed
by enough replicas": sent exactly once), a connect failure that moves the
primary, a refusal naming a primary outside the list, a stale replica
skipped by a read, and hostile refusals (a garbage address, a redirect
loop) that end within the retry timeout with the primary's error; a
silent replica (a Blackhole) and a stale one left alone by reads for
reconnect_delay, then tried again.

"live" runs against a primary (PRIMARY_PORT, --data-dir --persist-items)
and its replica (REPLICA_PORT) on 127.0.0.1, in steps: at each
"step <name>" line it waits for a line on stdin while the test does what
<name> says (kill-replica, restart-replica, promote: kill the primary and
"replicaof no one" the replica, old-primary-back: the old primary started
again as a replica of the promoted one).

"blackhole" prints the port of a Blackhole (a silent address on
loopback) and holds it until stdin closes (for the Node checks).

Prints "ok - <what>" per check and "all checks passed"; exits 1 at the
first mismatch.
"""
import os
import socket
import sys
import threading
import time


def check(what, got, want):
    if got != want:
        sys.exit("FAIL %s: got %r, want %r" % (what, got, want))
    print("ok - %s" % what, flush=True)


def raises(call, *args, **kwargs):
    """The exception call raises (None if it returns)."""
    try:
        call(*args, **kwargs)
    except Exception as e:      # noqa: BLE001 - the caller checks its type
        return e
    return None


class Fake:
    """A server on a free loopback port that counts the request lines it
    reads and answers each with .answer (None: never answers; "close":
    closes the connection; a function: what it returns)."""

    def __init__(self, answer, port=0):
        self.answer = answer
        self.requests = 0
        self.connections = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.addr = "127.0.0.1:%d" % self.port
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            conn, _ = self.listener.accept()
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while b"\r\n" in buf:
                    _, buf = buf.split(b"\r\n", 1)
                    self.requests += 1
                    if self.answer == "close":
                        return
                    answer = self.answer() if callable(self.answer) else self.answer
                    if answer is not None:
                        conn.sendall(answer + b"\r\n")


class Blackhole:
    """A silent address on loopback: a listener (backlog 0) that never
    accepts, its queue filled by one connection of its own, so that the
    kernel drops the SYNs of later connects, which wait for their timeout
    as with a machine that is down and drops packets. close() frees the
    port."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        self.addr = "127.0.0.1:%d" % self.port
        self.filler = socket.socket()
        self.filler.settimeout(2)
        try:
            self.filler.connect(("127.0.0.1", self.port))
        except OSError:
            pass        # without SYN cookies nothing is queued: all SYNs are dropped

    def close(self):
        self.filler.close()
        self.listener.close()


def dead_address(port=1):
    """host:port where nothing listens (a low port, as the suite's other
    tests of a dead server use: a port bound and closed again could be
    handed to the next fake)."""
    return "127.0.0.1:%d" % port


def parsing(mcds):
    good = {
        "10.0.0.9:11211=10.0.0.2:11211=10.0.0.3:11211,10.0.1.9:11211":
            [[("10.0.0.9", 11211), ("10.0.0.2", 11211), ("10.0.0.3", 11211)], [("10.0.1.9", 11211)]],
        "a:1:3=b:2": [[("a", 1), ("b", 2)]],
        "[::1]:7=[::1]:8": [[("::1", 7), ("::1", 8)]],
        "/tmp/s1=/tmp/s2=h:9": [["/tmp/s1", "/tmp/s2", ("h", 9)]],
        "=".join("h:%d" % i for i in range(1, 9)): [[("h", i) for i in range(1, 9)]],
    }
    got = {text: [s.members for s in mcds.Pool(text).shards] for text in good}
    check("good lists: each entry's members, its first address first", got, good)
    check("a weight on the first address weighs the entry", mcds.Pool("a:1:3=b:2").servers, [("a", 1, 3)])
    check("the list as a Python list", [s.members for s in mcds.Pool(["a:1=b:2", ("c", 3)]).shards],
          [[("a", 1), ("b", 2)], [("c", 3)]])
    bad = ["a:1=", "=a:1", "a:1==b:2", "a:1=b:2:3", "a:1=b", "a:1=b:0", "a:1=b:70000", "a:1=b:x",
           "a:1=[::1", "a:1=[::1]", "a:1= b:2", "=".join("h:%d" % i for i in range(1, 10)),
           "a:1=b:2,", "a:1,c:2=d:3:1"]
    check("bad lists are refused whole (ValueError)",
          [type(raises(mcds.Pool, text)).__name__ for text in bad], ["ValueError"] * len(bad))
    check("retry_timeout: 0 to 3600 seconds",
          [type(raises(mcds.Pool, "a:1=b:2", retry_timeout=v)).__name__ for v in (-1, 3601, "5", True)],
          ["ValueError"] * 4)


def placement(mcds):
    plain = mcds.Pool(["10.0.0.1:11211", "10.0.0.2:11212:2", "10.0.0.3:11213", "/tmp/m.sock"])
    sets = mcds.Pool(["10.0.0.1:11211=10.0.1.1:11211", "10.0.0.2:11212:2=10.0.1.2:1=10.0.1.3:2",
                      "10.0.0.3:11213", "/tmp/m.sock=/tmp/r.sock"])
    keys = ["key:%d" % i for i in range(1000)]
    diff = [k for k in keys if plain.server_for_key(k) != sets.server_for_key(k) or
            plain.server_for(k) != sets.server_for(k)]
    check("1,000 keys: the same server with replicas as without", diff, [])
    check("... over every entry", len({sets.server_for_key(k) for k in keys}), 4)


def never_retried(mcds, MemcacheServerError):
    for name, answer, timeout in (("closes after reading it", "close", 5),
                                  ("never answers (timeout)", None, 0.3),
                                  ("answers not confirmed by enough replicas",
                                   b"SERVER_ERROR changed on the primary, not confirmed by enough "
                                   b"replicas", 5)):
        primary, replica = Fake(answer), Fake(b"7")
        pool = mcds.Pool("%s=%s" % (primary.addr, replica.addr), timeout=timeout, retry_timeout=2)
        err = raises(pool.incr, "k", 1)
        check("a write to a server that %s: sent once, the error raised, no other member tried" % name,
              (err is not None, primary.requests, replica.connections), (True, 1, 0))
        pool.close()
    primary = Fake(b"SERVER_ERROR changed on the primary, not confirmed by enough replicas")
    pool = mcds.Pool("%s=%s" % (primary.addr, dead_address()))
    err = raises(pool.incr, "k", 1)
    check("... not confirmed: MemcacheServerError with the server's text",
          (type(err) is MemcacheServerError, err.args[0][:21]), (True, b"changed on the primar"))


def retried(mcds, MemcacheServerError):
    member = Fake(b"7")
    pool = mcds.Pool("%s=%s" % (dead_address(), member.addr))
    check("the service address refuses connections: the next member answers",
          (pool.incr("k", 1), pool.shards[0].primary), (7, ("127.0.0.1", member.port)))
    pool.incr("k", 1)
    check("... and stays the primary (one connection, two requests)",
          (member.connections, member.requests), (1, 2))
    outside = Fake(b"8")
    refusing = Fake(b"SERVER_ERROR read-only replica of " + outside.addr.encode())
    pool = mcds.Pool("%s=%s" % (refusing.addr, dead_address()))
    check("a refusal naming a primary outside the list: the call goes there, and it becomes the primary",
          (pool.incr("k", 1), pool.incr("k", 1), refusing.requests, outside.requests),
          (8, 8, 1, 2))
    stored = Fake(b"STORED")
    refusing.answer = b"SERVER_ERROR read-only replica of " + stored.addr.encode()
    pool = mcds.Pool("%s=%s" % (refusing.addr, dead_address()))
    check("a set follows a refusal too (a replica set's Clients wait for replies: "
          "pymemcache's default noreply would hide the refusal)",
          (pool.set("k", b"v"), stored.requests > 0), (True, True))
    stale = Fake(b"SERVER_ERROR stale replica: its link to its primary is not up")
    primary = Fake(b"VALUE k 0 1\r\nx\r\nEND")
    pool = mcds.Pool("%s=%s" % (primary.addr, stale.addr), read_replicas=True)
    check("read_replicas: a stale replica is skipped, the primary answers",
          (pool.get("k"), stale.requests, primary.requests), (b"x", 1, 1))
    behind = Fake(b"SERVER_ERROR stale replica: behind its primary longer than --replica-max-lag")
    pool = mcds.Pool("%s=%s" % (primary.addr, behind.addr), read_replicas=True)
    check("read_replicas: a replica behind longer than --replica-max-lag is skipped, the primary answers",
          (pool.get("k"), behind.requests, primary.requests), (b"x", 1, 2))
    ro = Fake(b"SERVER_ERROR read-only replica of " + primary.addr.encode())
    pool = mcds.Pool("%s=%s" % (primary.addr, ro.addr), read_replicas=True)
    check("read_replicas: a read a replica refuses as a write (a Kestrel get) goes to the primary",
          (pool.get("k"), ro.requests, primary.requests), (b"x", 1, 3))
    pool = mcds.Pool("%s=%s" % (primary.addr, dead_address()), read_replicas=True)
    check("read_replicas: a replica that cannot be connected to is skipped",
          (pool.get("k"), primary.requests), (b"x", 4))


def hostile(mcds, MemcacheServerError):
    texts = [b"read-only replica of x", b"read-only replica of :1", b"read-only replica of h:99999",
             b"read-only replica of [::1", b"read-only replica of h:1 junk",
             b"read-only replica of " + b"a" * 5000 + b":1", b"read-only replica of h:0",
             b"read-only replica of \x01:1", b"read-only replica"]
    for text in texts:
        server = Fake(b"SERVER_ERROR " + text)
        pool = mcds.Pool("%s=%s" % (server.addr, dead_address()), retry_timeout=1)
        err = raises(pool.incr, "k", 1)
        check("a refusal %r ends with it, tried at most once a round (100 ms)" % text[:40],
              (type(err) is MemcacheServerError, err.args[0] == text, 1 <= server.requests <= 12),
              (True, True, True))
    a, b = Fake(None), Fake(None)
    a.answer = b"SERVER_ERROR read-only replica of " + b.addr.encode()
    b.answer = b"SERVER_ERROR read-only replica of " + a.addr.encode()
    pool = mcds.Pool("%s=%s" % (a.addr, b.addr), retry_timeout=1)
    err = raises(pool.incr, "k", 1)
    check("two replicas naming each other: the call ends with the first one's refusal",
          (type(err) is MemcacheServerError, err.args[0], 1 <= a.requests <= 12, b.requests >= 1),
          (True, a.answer[13:], True, True))
    before = a.requests, b.requests
    pool = mcds.Pool("%s=%s" % (a.addr, b.addr), retry_timeout=0)
    err = raises(pool.incr, "k", 1)
    check("retry_timeout=0: tried once, never redirected",
          (err.args[0], a.requests - before[0], b.requests - before[1]), (a.answer[13:], 1, 0))
    named = [100]

    def next_address():
        named[0] += 1
        return b"SERVER_ERROR read-only replica of 127.0.0.1:%d" % named[0]
    server = Fake(None)
    server.answer = next_address
    pool = mcds.Pool("%s=%s" % (server.addr, dead_address()), retry_timeout=2)
    err = raises(pool.incr, "k", 1)
    check("a refusal naming a new address each time: the call ends with it, "
          "at most 8 addresses outside the list kept, and their marks down no more",
          (type(err) is MemcacheServerError, len(pool.shards[0]._clients) <= 10,
           len(pool.shards[0]._down) <= 10), (True, True, True))
    shard = pool.shards[0]
    shard.primary = ("127.0.0.1", 99)
    shard.client(shard.primary)
    for port in range(200, 230):
        shard.client(("127.0.0.1", port))
    check("... however many are named (the current primary kept)",
          sorted(shard._clients), sorted(shard.members + [("127.0.0.1", 99)] +
                                         [("127.0.0.1", p) for p in range(223, 230)]))
    pool = mcds.Pool("%s=%s" % (dead_address(1), dead_address(2)), retry_timeout=0.3)
    check("every member down: the service address's connect error",
          isinstance(raises(pool.incr, "k", 1), ConnectionRefusedError), True)


def down(mcds):
    """Members that could not be reached, or refused as stale, are left
    alone by reads for reconnect_delay (here 1 s), then tried again."""
    primary = Fake(b"VALUE k 0 1\r\nx\r\nEND")
    silent = Blackhole()
    pool = mcds.Pool("%s=%s" % (primary.addr, silent.addr), read_replicas=True,
                     reconnect_delay=1, connect_timeout=0.3)
    first = pool.get("k")
    silent.close()
    replica = Fake(b"VALUE k 0 1\r\ny\r\nEND", silent.port)     # up again at once
    got = [first] + [pool.get("k") for _ in range(3)]
    check("a silent replica: the first read waits for its connect timeout, the primary answers; "
          "the reads within reconnect_delay leave it alone",
          (got, primary.requests, replica.connections), ([b"x"] * 4, 4, 0))
    time.sleep(1.5)
    check("... the first read after reconnect_delay tries it again, and it answers the reads",
          ([pool.get("k") for _ in range(2)], replica.connections, replica.requests, primary.requests),
          ([b"y"] * 2, 1, 2, 4))
    pool.close()
    stale = Fake(b"SERVER_ERROR stale replica: its link to its primary is not up")
    pool = mcds.Pool("%s=%s" % (primary.addr, stale.addr), read_replicas=True, reconnect_delay=1)
    got = [pool.get("k") for _ in range(3)]
    check("a replica refusing as stale is asked once, then left alone",
          (got, stale.requests), ([b"x"] * 3, 1))
    time.sleep(1.5)
    got = [pool.get("k") for _ in range(2)]
    check("... asked again after reconnect_delay; refused again, it is left alone again",
          (got, stale.requests), ([b"x"] * 2, 2))
    time.sleep(1.3)
    check("... for twice as long", (pool.get("k"), stale.requests), (b"x", 2))
    stale.answer = b"VALUE k 0 1\r\nz\r\nEND"
    time.sleep(1)
    check("... then tried again, and its answer clears the mark",
          ([pool.get("k") for _ in range(2)], stale.requests), ([b"z"] * 2, 4))
    pool.close()
    stale.answer = b"SERVER_ERROR stale replica: its link to its primary is not up"
    pool = mcds.Pool("%s=%s" % (primary.addr, stale.addr), read_replicas=True, reconnect_delay=0)
    before = stale.requests
    check("reconnect_delay=0: every read asks it",
          ([pool.get("k") for _ in range(3)], stale.requests - before), ([b"x"] * 3, 3))
    pool.close()
    stale.requests = 0
    pool = mcds.Pool("%s=%s" % (stale.addr, dead_address()), reconnect_delay=1, retry_timeout=0)
    check("writes ignore the marks: the service address refusing as stale is asked by each write",
          ([type(raises(pool.incr, "k", 1)).__name__ for _ in range(2)], stale.requests),
          (["MemcacheServerError"] * 2, 2))
    pool.close()
    check("reconnect_delay: 0 to 86400 seconds",
          [type(raises(mcds.Pool, "a:1=b:2", reconnect_delay=v)).__name__ for v in (-1, 86401, "2", True)],
          ["ValueError"] * 4)


def blackhole():
    """Prints the port of a Blackhole and holds it until stdin closes."""
    hole = Blackhole()
    print(hole.port, flush=True)
    sys.stdin.read()
    hole.close()


def offline(mcds):
    from pymemcache.exceptions import MemcacheServerError
    parsing(mcds)
    placement(mcds)
    never_retried(mcds, MemcacheServerError)
    retried(mcds, MemcacheServerError)
    hostile(mcds, MemcacheServerError)
    down(mcds)


def step(name):
    """Waits while the test does what name says."""
    print("step %s" % name, flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit("FAIL step %s: no go" % name)


def wait_for(what, probe, want, seconds=20):
    deadline = time.monotonic() + seconds
    while True:
        got = probe()
        if got == want or time.monotonic() > deadline:
            return check(what, got, want)
        time.sleep(0.05)


def live(mcds, pport, rport):
    P, R = ("127.0.0.1", pport), ("127.0.0.1", rport)
    p, r = mcds.Client(P, timeout=5), mcds.Client(R, timeout=5)
    gets = lambda c: int(c.stats()[b"cmd_get"])   # noqa: E731
    pool = mcds.Pool("127.0.0.1:%d=127.0.0.1:%d" % (pport, rport), read_replicas=True, timeout=5)
    check("a write through P=R lands on P", (pool.set("rk", b"v1"), p.get("rk")), (True, b"v1"))
    check("... a queue push too", (pool.qpush("rq", b"m") > 0, p.qstats("rq")["ready"]), (True, 1))
    wait_for("... and reaches R", lambda: (r.get("rk"), (r.qstats("rq") or {}).get("ready")), (b"v1", 1))
    before = gets(p), gets(r)
    got = [pool.get("rk") for _ in range(10)]
    check("read_replicas: 10 gets answered by R (its cmd_get +10, P's +0)",
          (got, gets(p) - before[0], gets(r) - before[1]), ([b"v1"] * 10, 0, 10))
    check("... structure reads from R", (pool.qstats("rq")["ready"], pool.qpeek("rq")[0].data), (1, b"m"))
    check("... a write still goes to P", (pool.set("rk", b"v2"), p.get("rk")), (True, b"v2"))
    step("kill-replica")
    before = gets(p)
    got = [pool.get("rk") for _ in range(5)]
    check("R stopped: reads fall back to P (its cmd_get +5)", (got, gets(p) - before), ([b"v2"] * 5, 5))
    step("restart-replica")
    r = mcds.Client(R, timeout=5)
    while pool.shards[0].is_down(R):
        time.sleep(0.05)        # reconnect_delay (2 s)
    before = gets(p), gets(r)
    check("R back: reads go to it again once reconnect_delay is over", ([pool.get("rk") for _ in range(3)], gets(p) - before[0],
                                           gets(r) - before[1]), ([b"v2"] * 3, 0, 3))
    step("promote")
    check("P killed, R promoted: a write through the same handle succeeds, on R",
          (pool.set("after", b"promoted"), r.get("after"), pool.shards[0].primary), (True, b"promoted", R))
    check("... reads: P (the only replica left) cannot be connected to, R answers",
          (pool.get("after"), pool.qpush("rq", b"n") > 0), (b"promoted", True))
    step("old-primary-back")
    p = mcds.Client(P, timeout=5)
    fresh = mcds.Pool("127.0.0.1:%d=127.0.0.1:%d" % (pport, rport), timeout=5)
    check("P back as R's replica: a handle that believes P is primary is redirected to R",
          (fresh.set("redirected", b"1"), r.get("redirected"), fresh.shards[0].primary), (True, b"1", R))
    check("... P is R's replica", p.stats()[b"repl_role"], b"replica")
    wait_for("... and it reaches P, R's replica", lambda: p.get("redirected"), b"1")
    check("the first handle writes on R", (pool.set("again", b"2"), r.get("again")), (True, b"2"))
    while pool.shards[0].is_down(P):
        time.sleep(0.05)        # refused by the read after the promotion
    before = gets(p)
    check("... and reads from P, now its replica",
          (pool.get("redirected"), gets(p) - before), (b"1", 1))
    check("the queue holds both pushes, each once", r.qstats("rq")["ready"], 2)
    for c in (pool, fresh, p, r):
        c.close()


def main():
    if sys.argv[1] == "blackhole":
        return blackhole()
    sys.path.insert(0, os.path.join(sys.argv[2], "contrib", "python"))
    import mcds
    if sys.argv[1] == "offline":
        offline(mcds)
    else:
        live(mcds, int(sys.argv[3]), int(sys.argv[4]))
    print("all checks passed")


if __name__ == "__main__":
    main()
