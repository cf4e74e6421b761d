#!/usr/bin/env python3
"""pymemcache used as a Kestrel client against an existing queue.

    kestrel_pymemcache.py HOST PORT QUEUE [TIMEOUT_SECONDS]

The queue QUEUE must exist and be empty (the caller creates it with
qcreate). Only plain memcached commands are sent, through Debian's
python3-pymemcache (base.Client, text protocol): set enqueues, get takes,
get QUEUE/peek, /open, /close, /close/open, /abort, /t=<ms> (woken by a
set from a second client), flags through pymemcache's pickle serde, and an
ordinary key with a slash beside the queue. Prints "ok - <check>" per
passed check and exits 1 with "FAIL: <check>: <what>" at the first
mismatch. It leaves the queue empty, with one message pushed and taken
through the serde last; the caller checks the queue's counters.
"""
import sys
import threading
import time

try:
    from pymemcache.client.base import Client
    from pymemcache import serde
except ImportError as e:  # the unit checks the import first
    print("FAIL: import pymemcache: %s" % e)
    sys.exit(1)

check = "setup"


def fail(msg):
    print("FAIL: %s: %s" % (check, msg))
    sys.stdout.flush()
    sys.exit(1)


def eq(what, got, want):
    if got != want:
        fail("%s: got %r, expected %r" % (what, got, want))


def ok():
    print("ok - %s" % check)
    sys.stdout.flush()


def main():
    global check
    if len(sys.argv) not in (4, 5):
        print("usage: kestrel_pymemcache.py HOST PORT QUEUE [TIMEOUT_SECONDS]", file=sys.stderr)
        sys.exit(2)
    host, port, q = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    timeout = float(sys.argv[4]) if len(sys.argv) == 5 else 5.0
    c = Client((host, port), connect_timeout=timeout, timeout=timeout, default_noreply=False)

    check = "set enqueues, get takes in order"
    eq("set", c.set(q, b"one"), True)
    eq("set with an exptime", c.set(q, b"two", expire=100), True)
    eq("set", c.set(q, b"three"), True)
    eq("get", c.get(q), b"one")
    eq("get", c.get(q), b"two")
    eq("get", c.get(q), b"three")
    eq("get of the empty queue", c.get(q), None)
    ok()

    check = "/peek does not take"
    c.set(q, b"p")
    eq("peek", c.get(q + "/peek"), b"p")
    eq("peek again", c.get(q + "/peek"), b"p")
    eq("get", c.get(q), b"p")
    eq("peek of the empty queue", c.get(q + "/peek"), None)
    ok()

    check = "/open then /close"
    c.set(q, b"job1")
    eq("open", c.get(q + "/open"), b"job1")
    eq("close", c.get(q + "/close"), None)
    eq("get after close", c.get(q), None)
    ok()

    check = "/close/open loop"
    for v in (b"a", b"b", b"c"):
        c.set(q, v)
    got = [c.get(q + "/open")]
    while True:
        v = c.get(q + "/close/open")
        if v is None:
            break
        got.append(v)
        if len(got) > 10:
            fail("the loop does not end: %r" % got)
    eq("items", got, [b"a", b"b", b"c"])
    eq("queue empty", c.get(q + "/peek"), None)
    ok()

    check = "/abort gives the item back"
    c.set(q, b"retry")
    eq("open", c.get(q + "/open"), b"retry")
    eq("abort", c.get(q + "/abort"), None)
    eq("get again", c.get(q), b"retry")
    ok()

    check = "/t=<ms> waits, and is woken by a set from another client"
    eq("empty wait", c.get(q + "/t=200"), None)
    other = Client((host, port), connect_timeout=timeout, timeout=timeout, default_noreply=False)

    def later():
        time.sleep(0.3)
        other.set(q, b"late")

    t = threading.Thread(target=later)
    t.start()
    eq("woken", c.get(q + "/t=%d" % int(timeout * 1000)), b"late")
    t.join()
    eq("queue empty", c.get(q + "/peek"), None)
    ok()

    check = "an ordinary key with a slash beside the queue"
    eq("set", c.set("py-user/42", b"v42"), True)
    eq("get", c.get("py-user/42"), b"v42")
    eq("miss", c.get("py-nosuch/open"), None)
    c.set(q, b"m")
    eq("get_many", c.get_many([q, "py-user/42"]), {q: b"m", "py-user/42": b"v42"})
    ok()

    check = "flags through pymemcache's pickle serde"
    s = Client((host, port), connect_timeout=timeout, timeout=timeout, default_noreply=False,
               serde=serde.pickle_serde)
    eq("set", s.set(q, {"job": 7, "args": [1, 2]}), True)
    eq("get", s.get(q), {"job": 7, "args": [1, 2]})
    ok()

    print("all checks passed")


if __name__ == "__main__":
    main()
