#!/usr/bin/env python3
"""contrib/python/mcds.py against a running mcds-server (t/unit/python_module.tcl).

    mcds_module_check.py SRCDIR HOST PORT TIMEOUT

Prints "ok - <what>" per check and "all checks passed" at the end; exits 1
with a message at the first mismatch.
"""
import os
import sys
import time


def main():
    srcdir, host, port, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    sys.path.insert(0, os.path.join(srcdir, "contrib", "python"))
    import mcds
    from pymemcache.exceptions import MemcacheClientError, MemcacheServerError

    c = mcds.Client((host, port), timeout=timeout)

    def check(what, got, want):
        if got != want:
            sys.exit("FAIL %s: got %r, want %r" % (what, got, want))
        print("ok - %s" % what)

    def raises(what, exc, fn, *args, **kw):
        try:
            fn(*args, **kw)
        except exc as e:
            print("ok - %s (%s)" % (what, e))
            return e
        sys.exit("FAIL %s: no %s" % (what, exc.__name__))

    check("qcreate creates, then says it exists",
          [c.qcreate("py:q", lease=30, maxdeliver=3, maxlen=5), c.qcreate("py:q")], [True, False])
    check("qcreate maxage= (retention)", [c.qcreate("py:aged", maxage=1.5), c.qstats("py:aged")["max_age_ms"]],
          [True, 1500])
    a = c.qpush("py:q", b"one\r\ntwo")
    b = c.qpush("py:q", "caf\u00e9", flags=7)
    check("qpush answers increasing ids", b > a > 0, True)
    got = c.qpop("py:q", 2)
    check("qpop: data (binary-safe), flags, deliveries, receipts",
          [(m.id, m.flags, m.data, m.deliveries, m.receipt) for m in got],
          [(a, 0, b"one\r\ntwo", 1, "%d:1" % a), (b, 7, "caf\u00e9".encode(), 1, "%d:1" % b)])
    check("qack by receipt, then again", [c.qack("py:q", got[0]), c.qack("py:q", got[0].receipt)],
          [True, False])
    check("qrelease gives it back; its old receipt is then no one's",
          [c.qrelease("py:q", got[1]), c.qtouch("py:q", got[1])], [True, False])
    again = c.qpop("py:q", lease=0.2)
    check("redelivered with deliveries 2", [(m.id, m.deliveries) for m in again], [(b, 2)])
    time.sleep(0.5)
    third = c.qpop("py:q", lease=30)
    check("a lease that ran out: the late receipt acts on nothing",
          [c.qack("py:q", again[0]), [(m.id, m.deliveries) for m in third]], [False, [(b, 3)]])
    check("qpending: the in-flight message and its lease",
          [(p.id, p.deliveries, p.lease_ms_left > 25000, p.data) for p in c.qpending("py:q", values=True)],
          [(b, 3, True, "caf\u00e9".encode())])
    c.qpush("py:q", b"next")
    acked, nxt = c.qpop("py:q", ack=third[0])
    check("qpop ack=: acked, and the next one leased", [acked, [m.data for m in nxt]], [True, [b"next"]])
    check("qpeek leases nothing", [m.data for m in c.qpeek("py:q", 5)], [])
    for i in range(4):
        c.qpush("py:q", b"m%d" % i, priority=2000 - i)
    check("qpush on a full queue (maxlen 5) answers None", c.qpush("py:q", b"x"), None)
    check("qpeek in priority order", [m.data for m in c.qpeek("py:q", 5)], [b"m3", b"m2", b"m1", b"m0"])
    s = c.qstats("py:q")
    check("qstats as a dict of ints",
          [s["ready"], s["in_flight"], s["max_deliveries"], s["max_length"], s["dlq"]],
          [4, 1, 3, 5, "py:q:dead"])
    check("qpurge counts what it dropped", c.qpurge("py:q"), 4)
    check("qstats and qpurge of a missing queue: None", [c.qstats("py:none"), c.qpurge("py:none")],
          [None, None])
    check("qpop of a missing queue: no messages", c.qpop("py:none"), [])

    t0 = time.monotonic()
    check("a blocking pop longer than the socket timeout waits, then answers empty",
          c.qpop("py:empty", wait=timeout + 1), [])
    check("... after about its wait", time.monotonic() - t0 >= timeout + 0.9, True)

    e = raises("a count out of range is a CLIENT_ERROR", MemcacheClientError, c.qpop, "py:q", 1000)
    check("... that says which argument is wrong", "count must be 1..100" in str(e), True)
    c.set("py:string", b"v")
    raises("a queue verb on a cache value is a CLIENT_ERROR", MemcacheClientError, c.qpush,
           "py:string", b"x")
    raises("a message over -I is a SERVER_ERROR", MemcacheServerError, c.qpush, "py:q",
           b"x" * (2 * 1024 * 1024))
    check("memcached commands go on working on the same client", c.get("py:string"), b"v")
    raises("a bad key is refused before anything is sent", Exception, c.qpush, "bad key", b"x")
    print("all checks passed")


if __name__ == "__main__":
    main()
