#!/usr/bin/env python3
"""pymemcache against a memcached-compatible server.

    pymemcache_check.py HOST PORT [TIMEOUT_SECONDS]

Uses Debian's python3-pymemcache (base.Client, text protocol): set/get,
gets/cas, incr/decr, delete, get_many/gets_many, touch, add, replace,
append/prepend, noreply writes, a large binary value, Python objects
through a serde (their flags travel through the server), stats and version.
Prints "ok - <check>" per passed check and exits 1 with
"FAIL: <check>: <what>" at the first mismatch. Keys start with "py-"; it
leaves py-touched (TTL 5000 s), py-int (42, flags 2) and py-text (flags 16)
behind for the caller to check over the text protocol.
"""
import sys

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
        shown = repr(got)
        if len(shown) > 200:
            shown = shown[:200] + "...(%d chars)" % len(shown)
        fail("%s: got %s, expected %r" % (what, shown, want if len(repr(want)) <= 200 else "..."))


def ok():
    print("ok - %s" % check)
    sys.stdout.flush()


def main():
    global check
    if len(sys.argv) not in (3, 4):
        print("usage: pymemcache_check.py HOST PORT [TIMEOUT_SECONDS]", file=sys.stderr)
        sys.exit(2)
    host, port = sys.argv[1], int(sys.argv[2])
    timeout = float(sys.argv[3]) if len(sys.argv) == 4 else 5.0
    # default_noreply=False: every storage command waits for its reply, so
    # add/replace/append report what the server said.
    c = Client((host, port), connect_timeout=timeout, timeout=timeout, default_noreply=False)

    check = "version and stats"
    v = c.version()
    if not v:
        fail("empty version")
    st = c.stats()
    if b"pid" not in st or b"curr_items" not in st:
        fail("stats lack pid or curr_items: %r" % sorted(st)[:20])
    ok()

    check = "set/get"
    eq("set", c.set("py-a", b"hello"), True)
    eq("get", c.get("py-a"), b"hello")
    eq("get of a missing key", c.get("py-missing"), None)
    eq("get with a default", c.get("py-missing", default=b"dflt"), b"dflt")
    eq("set again", c.set("py-a", b"world", expire=0), True)
    eq("get", c.get("py-a"), b"world")
    binval = bytes(range(256)) * 4 + b"\r\nEND\r\n"
    eq("set of binary bytes", c.set("py-bin", binval), True)
    eq("get of binary bytes", c.get("py-bin"), binval)
    eq("set of an empty value", c.set("py-empty", b""), True)
    eq("get of an empty value", c.get("py-empty"), b"")
    ok()

    check = "a 500 KB value"
    big = bytes((i * 7 + i // 256) & 0xFF for i in range(500 * 1024))
    eq("set", c.set("py-big", big), True)
    eq("get", c.get("py-big"), big)
    ok()

    check = "gets/cas: success, conflict, missing key"
    c.set("py-cas", b"v1")
    val, cas1 = c.gets("py-cas")
    eq("gets value", val, b"v1")
    if not cas1:
        fail("gets gave no CAS token: %r" % (cas1,))
    eq("cas with the current token", c.cas("py-cas", b"v2", cas1), True)
    eq("get after cas", c.get("py-cas"), b"v2")
    eq("cas with a stale token", c.cas("py-cas", b"v3", cas1), False)
    eq("get after a refused cas", c.get("py-cas"), b"v2")
    val, cas2 = c.gets("py-cas")
    if cas2 == cas1:
        fail("CAS token unchanged after a successful cas")
    eq("cas of a missing key", c.cas("py-cas-missing", b"x", cas2), None)
    eq("gets of a missing key", c.gets("py-cas-missing"), (None, None))
    ok()

    check = "incr/decr"
    eq("incr of a missing key", c.incr("py-n", 1), None)
    c.set("py-n", b"10")
    eq("incr", c.incr("py-n", 5), 15)
    eq("decr", c.decr("py-n", 3), 12)
    eq("decr below zero stops at 0", c.decr("py-n", 100), 0)
    eq("incr after the floor", c.incr("py-n", 7), 7)
    eq("decr of a missing key", c.decr("py-missing", 1), None)
    c.set("py-n", b"18446744073709551615")
    eq("incr wraps at 2^64", c.incr("py-n", 1), 0)
    c.set("py-notnum", b"abc")
    try:
        c.incr("py-notnum", 1)
        fail("incr of a non-numeric value did not raise")
    except Exception as e:  # MemcacheClientError
        if "non-numeric" not in str(e):
            fail("incr of a non-numeric value raised %r" % e)
    eq("the value after a refused incr", c.get("py-notnum"), b"abc")
    ok()

    check = "delete"
    c.set("py-del", b"x")
    eq("delete of an existing key", c.delete("py-del", noreply=False), True)
    eq("get after delete", c.get("py-del"), None)
    eq("delete of a missing key", c.delete("py-del", noreply=False), False)
    eq("delete_many", c.delete_many(["py-a", "py-nothere"], noreply=False), True)
    eq("get after delete_many", c.get("py-a"), None)
    ok()

    check = "get_many and gets_many of 100 keys"
    want = {}
    for i in range(100):
        k = "py-m%03d" % i
        want[k] = ("value-%d-" % i).encode() + b"x" * (i * 11)
    eq("set_many (failed keys)", c.set_many(want), [])
    got = c.get_many(list(want) + ["py-m-missing-%d" % i for i in range(10)])
    eq("get_many returned keys", sorted(got), sorted(want))
    for k in want:
        eq("get_many value of %s" % k, got[k], want[k])
    gm = c.gets_many(list(want)[:20])
    eq("gets_many count", len(gm), 20)
    tokens = set()
    for k, (val, cas) in gm.items():
        eq("gets_many value of %s" % k, val, want[k])
        tokens.add(cas)
    eq("distinct CAS tokens", len(tokens), 20)
    eq("get_many of no present key", c.get_many(["py-none1", "py-none2"]), {})
    ok()

    check = "touch"
    c.set("py-touch", b"t", expire=100)
    eq("touch of an existing key", c.touch("py-touch", 1000, noreply=False), True)
    eq("get after touch", c.get("py-touch"), b"t")
    eq("touch of a missing key", c.touch("py-touch-missing", 1000, noreply=False), False)
    eq("get after touch of a missing key", c.get("py-touch-missing"), None)
    # An absolute time just past 30 days lies in 1970: the item expires.
    eq("touch to a past time", c.touch("py-touch", 2592001, noreply=False), True)
    eq("get after touch to a past time", c.get("py-touch"), None)
    c.set("py-touched", b"keep")
    eq("touch", c.touch("py-touched", 5000, noreply=False), True)
    ok()

    check = "add/replace"
    eq("add of a new key", c.add("py-add", b"1"), True)
    eq("add of an existing key", c.add("py-add", b"2"), False)
    eq("get after a refused add", c.get("py-add"), b"1")
    eq("replace of an existing key", c.replace("py-add", b"3"), True)
    eq("get after replace", c.get("py-add"), b"3")
    eq("replace of a missing key", c.replace("py-repl-missing", b"4"), False)
    eq("get after a refused replace", c.get("py-repl-missing"), None)
    ok()

    check = "append/prepend"
    c.set("py-ap", b"middle")
    eq("append", c.append("py-ap", b"-end"), True)
    eq("prepend", c.prepend("py-ap", b"start-"), True)
    eq("get", c.get("py-ap"), b"start-middle-end")
    eq("append to a missing key", c.append("py-ap-missing", b"x"), False)
    eq("prepend to a missing key", c.prepend("py-ap-missing", b"x"), False)
    eq("get after refused appends", c.get("py-ap-missing"), None)
    ok()

    check = "noreply writes, then reads"
    for i in range(30):
        c.set("py-q%d" % i, ("q%d" % i).encode(), noreply=True)
    c.delete("py-q0", noreply=True)
    c.incr("py-n", 1, noreply=True)
    got = c.get_many(["py-q%d" % i for i in range(30)])
    eq("noreply set keys", sorted(got), sorted("py-q%d" % i for i in range(1, 30)))
    eq("a noreply set value", got["py-q29"], b"q29")
    # (incr by 0 reads the number: memcached may keep a shrunk counter
    # space-padded to its old length, here the 20 digits of 2^64-1.)
    eq("the counter after a noreply incr", c.incr("py-n", 0), 1)
    ok()

    check = "Python objects through pymemcache's serde (flags round-trip)"
    s = Client((host, port), connect_timeout=timeout, timeout=timeout,
               serde=serde.pickle_serde, default_noreply=False)
    obj = {"list": [1, 2, 3], "text": "h\u00e9llo", "nested": {"n": None}}
    eq("set of a dict", s.set("py-obj", obj), True)
    eq("get of a dict", s.get("py-obj"), obj)
    eq("set of an int", s.set("py-int", 42), True)
    eq("get of an int", s.get("py-int"), 42)
    eq("set of a str", s.set("py-text", "caf\u00e9"), True)
    eq("get of a str", s.get("py-text"), "caf\u00e9")
    eq("incr of the int through the raw client", c.incr("py-int", 1), 43)
    eq("get of the incremented int", s.get("py-int"), 43)
    eq("decr back", c.decr("py-int", 1), 42)
    s.close()
    ok()

    c.close()
    print("all checks passed")


if __name__ == "__main__":
    main()
