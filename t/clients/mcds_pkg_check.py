#!/usr/bin/env python3
"""The package contrib/python/mcds against a running mcds-server
(t/unit/python_pkg.tcl): every call of every structure, its replies, its
errors, hostile input, and counts (what goes in comes out).

    mcds_pkg_check.py SRCDIR HOST PORT TIMEOUT

The server runs with -I 1m. Prints "ok - <what>" per check and "all checks
passed" at the end; exits 1 with a message at the first mismatch.
"""
import os
import random
import sys
import time

from pkg_checks import check, passed, raises


def until(what, fn, seconds):
    """Polls fn until it is true (a state the server reaches on its own
    clock, such as a lease running out); fails after seconds."""
    deadline = time.monotonic() + seconds
    while not fn():
        if time.monotonic() > deadline:
            sys.exit("FAIL %s: not reached in %s s" % (what, seconds))
        time.sleep(0.05)


def queues(c, mcds, E):
    check("qcreate, then EXISTS", [c.qcreate("pq:a", lease=30), c.qcreate("pq:a")], [True, False])
    ids = c.qpushn("pq:a", [b"x\r\ny", b"", "caf\u00e9", b"END\r\n"], flags=5, priority=7)
    check("qpushn: one id per message, increasing", [len(ids), ids == sorted(ids)], [4, True])
    got = c.qpop("pq:a", 10)
    check("qpushn's messages come out whole, in order, with their flags",
          [(m.id, m.flags, m.data) for m in got],
          list(zip(ids, [5] * 4, [b"x\r\ny", b"", "caf\u00e9".encode(), b"END\r\n"])))
    check("batch qack: one answer per receipt, a repeat and an unknown id NOT_FOUND",
          c.qack("pq:a", [got[0], got[1].receipt, got[0], 999999999]), [True, True, False, False])
    check("batch qtouch with lease=", c.qtouch("pq:a", [got[2], got[3]], lease=60), [True, True])
    check("batch qrelease with delay=", c.qrelease("pq:a", [got[2], got[3]], delay=0), [True, True])
    check("released: ready again, in order", [m.data for m in c.qpeek("pq:a", 5)],
          ["caf\u00e9".encode(), b"END\r\n"])
    check("qpeek id= (any state)", [m.id for m in c.qpeek("pq:a", id=ids[3])], [ids[3]])
    check("qpeek id= of no message", c.qpeek("pq:a", id=1), [])
    c.qpush("pq:a", b"later", delay=3600)
    check("qpeek delayed", [m.data for m in c.qpeek("pq:a", 5, delayed=True)], [b"later"])
    info = c.qinfo("pq:a", ids[2])
    check("qinfo: state, priority, flags, bytes, deliveries",
          [info["state"], info["priority"], info["flags"], info["bytes"], info["deliveries"]],
          ["ready", 7, 5, 5, 1])
    check("qinfo of an acked message: None", c.qinfo("pq:a", ids[0]), None)
    check("qinfo of no queue: None", c.qinfo("pq:none", 1), None)
    c.qpop("pq:a")
    p = c.qpending("pq:a", holders=True, values=True)
    check("qpending holders: this connection holds it",
          [(x.id, x.data, x.holder.split(" ")[1].startswith("tcp:")) for x in p],
          [(ids[2], "caf\u00e9".encode(), True)])

    # qpopany: the first queue with a message, its name on each message.
    c.qpush("pq:low", b"l1")
    got = c.qpopany(["pq:empty", "pq:low", "pq:a"], count=5)
    check("qpopany takes from the first queue with a message, all from it",
          [(m.queue, m.data) for m in got], [(b"pq:low", b"l1")])
    check("qpopany ack by the queue in the line", c.qack(got[0].queue, got[0]), True)
    check("qpopany with nothing ready: []", c.qpopany(["pq:empty", "pq:low"]), [])
    check("qpopany wait= on two queues, ends empty", c.qpopany(["pq:w1", "pq:w2"], wait=0.2), [])
    raises("qpopany: a later queue named like an option is refused before sending",
           E.MemcacheIllegalInputError, c.qpopany, ["pq:low", "count=2"])
    raises("qpopany: 17 queues is a CLIENT_ERROR", E.MemcacheClientError, c.qpopany,
           ["pq:%d" % i for i in range(17)])

    # Counts: every message pushed is popped once and acked once.
    sent = [b"m%d\r\n%s" % (i, b"z" * (i % 7)) for i in range(250)]
    pushed = []
    for i in range(0, 200, 50):
        pushed += c.qpushn("pq:count", sent[i:i + 50])
    pushed += [c.qpush("pq:count", m) for m in sent[200:]]
    seen = {}
    while True:
        batch = c.qpop("pq:count", 37)
        if not batch:
            break
        check_acks = c.qack("pq:count", [m.receipt for m in batch])
        if check_acks != [True] * len(batch):
            sys.exit("FAIL a batch ack answered %r" % check_acks)
        for m in batch:
            seen[m.id] = m.data
    s = c.qstats("pq:count")
    check("pushed = popped = acked, every message once and whole",
          [sorted(seen) == sorted(pushed), [seen[i] for i in pushed] == sent,
           s["pushed"], s["popped"], s["acked"], s["ready"], s["in_flight"]],
          [True, True, 250, 250, 250, 0, 0])

    # Full: qpushn is all or nothing, qpush answers None.
    c.qcreate("pq:cap", maxlen=3)
    c.qpush("pq:cap", b"1")
    raises("qpushn over maxlen raises Full", mcds.Full, c.qpushn, "pq:cap", [b"2", b"3", b"4"])
    check("... and queued none of them", c.qstats("pq:cap")["ready"], 1)
    check("qpush at maxlen answers None", [c.qpushn("pq:cap", [b"2", b"3"]) is not None,
                                           c.qpush("pq:cap", b"4")], [True, None])

    # Dead letters, redrive, buried messages and kick.
    c.qcreate("pq:r", maxdeliver=1)
    rid = c.qpush("pq:r", b"poison")
    c.qpop("pq:r", lease=0.1)
    until("the message dead-lettered", lambda: c.qstats("pq:r")["dead"] == 1, 30)
    check("the dead letter keeps its id", [m.id for m in c.qpeek("pq:r:dead")], [rid])
    check("qredrive: (moved, left)", c.qredrive("pq:r:dead"), (1, 0))
    check("redriven: back in its queue, deliveries from 0",
          [(m.id, m.deliveries) for m in c.qpeek("pq:r")], [(rid, 0)])
    check("qredrive of no queue: None", c.qredrive("pq:none:dead"), None)
    c.qcreate("pq:b", maxdeliver=1, dlq="pq:bdlq")
    c.set("pq:bdlq", b"a cache value")
    bid = c.qpush("pq:b", b"stuck")
    c.qpop("pq:b", lease=0.1)
    until("the message buried", lambda: c.qstats("pq:b")["buried"] == 1, 30)
    check("buried: qinfo says so", c.qinfo("pq:b", bid)["state"], "buried")
    check("qkick: one made ready", c.qkick("pq:b", 10), 1)
    check("qkick again: none", c.qkick("pq:b"), 0)
    check("qkick of no queue: None", c.qkick("pq:none"), None)

    # Deduplication ids: a push again answers the first id(s), adds nothing.
    check("qcreate dedup= (the window)", [c.qcreate("pq:d", dedup=2.5), c.qstats("pq:d")["dedup_window_ms"]],
          [True, 2500])
    d1 = c.qpush("pq:d", b"first", dedup="order-1")
    check("qpush dedup= again: the first id", c.qpush("pq:d", b"second", dedup=b"order-1"), d1)
    dn = c.qpushn("pq:d", [b"a", b"b"], dedup="batch-1")
    check("qpushn dedup= retried whole, one more: the first ids, then a new one",
          c.qpushn("pq:d", [b"x", b"y", b"c"], dedup="batch-1")[:2], dn)
    s = c.qstats("pq:d")
    check("dedup: pushed, deduplicated, remembered",
          [s["pushed"], s["deduplicated"], s["dedup_entries"], [m.data for m in c.qpeek("pq:d", 10)]],
          [4, 3, 4, [b"first", b"a", b"b", b"c"]])
    raises("a dedup id with a space is refused before sending", E.MemcacheIllegalInputError,
           c.qpush, "pq:d", b"x", dedup="a b")
    raises("a dedup id of 129 bytes is refused before sending", E.MemcacheIllegalInputError,
           c.qpush, "pq:d", b"x", dedup="k" * 129)
    check("a dedup id of 128 bytes is fine", isinstance(c.qpush("pq:d", b"k", dedup="k" * 128), int), True)

    # FIFO groups: one message of a group at a time, in push order.
    g1 = c.qpush("pq:g", b"a1", group="A")
    c.qpushn("pq:g", [b"a2", b"a3"], group=b"A", dedup="ga")
    c.qpush("pq:g", b"b1", group="B")
    s = c.qstats("pq:g")
    check("group=: the heads are ready, the rest wait", [s["ready"], s["grouped"], s["groups"]], [2, 2, 2])
    rounds = []
    while True:
        got = c.qpop("pq:g", 10)
        if not got:
            break
        rounds.append(sorted(m.data for m in got))
        for m in got:
            c.qack("pq:g", m.receipt)
    check("group=: each round one of each group, in push order", rounds, [[b"a1", b"b1"], [b"a2"], [b"a3"]])
    check("group=: every message acked once", [c.qstats("pq:g")["acked"], c.qstats("pq:g")["groups"]], [4, 0])
    raises("a grouped push with a delay is refused before sending", E.MemcacheIllegalInputError,
           c.qpush, "pq:g", b"x", delay=5, group="A")
    raises("a group id of 129 bytes is refused before sending", E.MemcacheIllegalInputError,
           c.qpush, "pq:g", b"x", group="g" * 129)
    check("qpush returns an id with a group", isinstance(g1, int), True)
    # Messages' ttls: past it, to the dead-letter queue, or dropped.
    check("qcreate expired=drop", [c.qcreate("pq:t", expired="drop"), c.qstats("pq:t")["expired"]],
          [True, "drop"])
    t1 = c.qpush("pq:t", b"brief", ttl=0.2)
    t2 = c.qpush("pq:t", b"long", ttl=1000, priority=5, dedup="t-2")
    check("qpush ttl= with dedup=: the first id again", c.qpush("pq:t", b"x", dedup="t-2", ttl=1000), t2)
    tn = c.qpushn("pq:t", [b"a", b"b"], ttl=0.2)
    check("qinfo ttl_ms_left", [0 < c.qinfo("pq:t", t2)["ttl_ms_left"] <= 1000000,
                                c.qinfo("pq:t", c.qpush("pq:t", b"plain"))["ttl_ms_left"]], [True, -1])
    until("the brief ones dropped", lambda: c.qstats("pq:t")["dropped"] == 3, 30)
    s = c.qstats("pq:t")
    check("ttl: pushed, dropped, expired_ttl, ready; none dead",
          [s["pushed"], s["dropped"], s["expired_ttl"], s["ready"], s["dead"], len(tn), t1 > 0],
          [5, 3, 3, 2, 0, 2, True])
    c.qpush("pq:td", b"to the dlq", ttl=0.2)
    until("expired=dead: to the dead-letter queue", lambda: c.qstats("pq:td")["dead"] == 1, 30)
    check("the dead letter is there", [m.data for m in c.qpeek("pq:td:dead")], [b"to the dlq"])
    raises("qpush with ttl=0: CLIENT_ERROR", E.MemcacheClientError, c.qpush, "pq:t", b"x", ttl=0)
    raises("qcreate with expired=later: CLIENT_ERROR", E.MemcacheClientError, c.qcreate, "pq:t2",
           expired="later")

    # Pauses: pops find nothing, pushes go on.
    check("qpause of no queue: None", c.qpause("pq:none", 5), None)
    check("qpause: True", c.qpause("pq:d", 60), True)
    check("paused: qpop finds nothing, qstats says so",
          [c.qpop("pq:d", 5), c.qstats("pq:d")["paused_ms_left"] > 50000], [[], True])
    check("qpause 0 resumes", [c.qpause("pq:d", 0), len(c.qpop("pq:d", 10))], [True, 5])
    raises("qpause with a bad time: CLIENT_ERROR", E.MemcacheClientError, c.qpause, "pq:d", -1)

    names = [q.name for q in mcds.iterate(c.qlist, count=2)]
    check("qlist pages through every queue, in name order",
          [names == sorted(names), {b"pq:a", b"pq:b", b"pq:r:dead", b"pq:count"} <= set(names)],
          [True, True])
    raises("qlist count=0 is a CLIENT_ERROR", E.MemcacheClientError, c.qlist, count=0)
    raises("batch qack of 101 receipts: too many ids", E.MemcacheClientError, c.qack, "pq:a",
           list(range(1, 102)))
    raises("batch qack of no receipt is refused before sending", E.MemcacheIllegalInputError,
           c.qack, "pq:a", [])
    raises("a bad receipt is refused before sending", E.MemcacheIllegalInputError, c.qack,
           "pq:a", "1:2 qpurge pq:a")
    raises("qpushn of no message is refused before sending", E.MemcacheIllegalInputError,
           c.qpushn, "pq:a", [])
    raises("qpushn over -I together: SERVER_ERROR", E.MemcacheServerError, c.qpushn, "pq:a",
           [b"x" * 600000, b"y" * 600000])


def apply_model(m, op, args):
    """What op does to the list model m; returns the reply it should give."""
    n = len(m)
    if op == "lpush":
        for v in args:
            m.insert(0, v)
        return len(m)
    if op == "rpush":
        m.extend(args)
        return len(m)
    if op in ("lpop", "rpop"):
        k = min(args[0], n)
        if op == "lpop":
            out = m[:k]
            del m[:k]
        else:
            out = m[::-1][:k]
            del m[n - k:]
        return out
    if op == "lset":
        i = args[0] + n if args[0] < 0 else args[0]
        if not 0 <= i < n:
            return False
        m[i] = args[1]
        return True
    if op == "linsert":
        if args[1] not in m:
            return None
        m.insert(m.index(args[1]) + (1 if args[0] == "after" else 0), args[2])
        return len(m)
    if op == "lrem":
        count, v = args
        places = [i for i, x in enumerate(m) if x == v]
        places = places[:count] if count > 0 else places[count:] if count < 0 else places
        for i in reversed(places):
            del m[i]
        return len(places)
    if op == "ltrim":
        start = max(args[0] + n if args[0] < 0 else args[0], 0)
        kept = m[start:start + args[1]]
        m[:] = kept
        return n - len(kept)
    raise ValueError(op)


def lists(c, mcds, E):
    check("lcreate, then EXISTS", [c.lcreate("pl:a", maxlen=5), c.lcreate("pl:a")], [True, False])
    check("lpush a b makes b a", [c.lpush("pl:a", b"a", b"b"), c.lrange("pl:a")],
          [2, [b"b", b"a"]])
    raises("a push past maxlen raises Full", mcds.Full, c.rpush, "pl:a", b"1", b"2", b"3", b"4")
    check("... and pushed nothing", c.llen("pl:a"), 2)
    check("filled up to maxlen", c.rpush("pl:a", b"c", b"d", b"e"), 5)
    raises("linsert at maxlen raises Full too", mcds.Full, c.linsert, "pl:a", "before", b"a",
           b"z")
    check("linsert of a missing pivot: None", [c.rpush("pl:b", b"a"),
                                               c.linsert("pl:b", "after", b"nope", b"z")], [1, None])
    check("missing list: llen, lindex, ltrim, lrem, lexists, lrange, lpop, lset",
          [c.llen("pl:none"), c.lindex("pl:none", 0), c.ltrim("pl:none", 0, 1),
           c.lrem("pl:none", 0, b"x"), c.lexists("pl:none", b"x"), c.lrange("pl:none"),
           c.lpop("pl:none"), c.lset("pl:none", 0, b"x")],
          [None, None, None, None, None, [], [], False])
    check("lpop wait= on an empty list ends empty", c.lpop("pl:waited", wait=0.2), [])

    # A random walk against a model: the list always equals the model.
    rng = random.Random(34)
    values = [b"a", b"b", b"", b"x\r\ny", b"END", b"VALUE k 0 3\r\nabc\r\nEND\r\n",
              bytes(range(256)), "\u00e9".encode()]
    model = []
    c.lcreate("pl:walk")
    for step in range(300):
        op = rng.choice(["lpush", "rpush", "lpop", "rpop", "lset", "linsert", "lrem", "ltrim"])
        if op in ("lpush", "rpush"):
            args = [rng.choice(values) for _ in range(rng.randint(1, 5))]
            got = getattr(c, op)("pl:walk", *args)
        elif op in ("lpop", "rpop"):
            args = [rng.randint(1, 4)]
            got = getattr(c, op)("pl:walk", args[0])
        elif op == "lset":
            args = [rng.randint(-len(model) - 2, len(model) + 1), rng.choice(values)]
            got = c.lset("pl:walk", *args)
        elif op == "linsert":
            args = [rng.choice(["before", "after"]), rng.choice(values), rng.choice(values)]
            got = c.linsert("pl:walk", *args)
        elif op == "lrem":
            args = [rng.randint(-2, 2), rng.choice(values)]
            got = c.lrem("pl:walk", *args)
        else:
            args = [rng.randint(-len(model) - 2, len(model)), rng.randint(len(model) // 2, 60)]
            got = c.ltrim("pl:walk", *args)
        want = apply_model(model, op, args)
        if got != want or c.lrange("pl:walk") != model:
            sys.exit("FAIL step %d %s%r: got %r, want %r; list %r, model %r" % (
                step, op, args, got, want, c.lrange("pl:walk"), model))
    check("300 random list steps: every reply and the list equal the model", True, True)
    check("lindex from both ends, llen, lexists",
          [c.lindex("pl:walk", 0) == (model[0] if model else None),
           c.lindex("pl:walk", -1) == (model[-1] if model else None),
           c.llen("pl:walk"), c.lexists("pl:walk", b"never")], [True, True, len(model), False])
    check("lrange with an offset and a limit", c.lrange("pl:walk", 1, 2), model[1:3])
    popped = c.rpop("pl:walk", 1000)
    check("rpop everything: tail first, the list empty but there",
          [popped == model[::-1], c.llen("pl:walk")], [True, 0])

    check("lpushx/rpushx: only to a list that exists",
          [c.lpushx("pl:mv-none", b"x"), c.llen("pl:mv-none"), c.rpush("pl:mv", b"a", b"b", b"c"),
           c.rpushx("pl:mv", b"d"), c.lpushx("pl:mv", b"z")], [None, None, 3, 4, 5])
    check("lmove: the element, in one step; a rotation; an empty source None",
          [c.lmove("pl:mv", "pl:mv2", "left", "right"), c.lmove("pl:mv", "pl:mv", "right", "left"),
           c.lrange("pl:mv"), c.lrange("pl:mv2"), c.lmove("pl:mv-none", "pl:mv2")],
          [b"z", b"d", [b"d", b"a", b"b", b"c"], [b"z"], None])
    c.lcreate("pl:mv-full", maxlen=1)
    c.rpush("pl:mv-full", b"f")
    raises("lmove into a list at its maxlen raises Full", mcds.Full, c.lmove, "pl:mv", "pl:mv-full")
    check("... and the element stays in the source", c.llen("pl:mv"), 4)
    check("lmpop: the first list with elements, named",
          [c.lmpop(["pl:mv-none", "pl:mv2", "pl:mv"], "left", count=5), c.lmpop(["pl:mv-none"], "left")],
          [(b"pl:mv2", [b"z"]), None])
    check("lmpop with a wait that runs out: None", c.lmpop(["pl:mv-none2"], "right", wait=0.2), None)
    c.rpush("pl:pos", b"a", b"b", b"a", b"c", b"a")
    check("lpos: first, all, from the tail, none, no list",
          [c.lpos("pl:pos", b"a"), c.lpos("pl:pos", b"a", count=0), c.lpos("pl:pos", b"a", rank=-1),
           c.lpos("pl:pos", b"q"), c.lpos("pl:none", b"a")], [[0], [0, 2, 4], [4], [], None])
    raises("lmove with an end other than left/right is refused before sending",
           E.MemcacheIllegalInputError, c.lmove, "pl:mv", "pl:mv2", "middle", "left")
    raises("lpos rank=0: CLIENT_ERROR", E.MemcacheClientError, c.lpos, "pl:pos", b"a", rank=0)
    raises("lpop count 0: CLIENT_ERROR", E.MemcacheClientError, c.lpop, "pl:a", 0)
    raises("lrange limit 1001: CLIENT_ERROR bad limit", E.MemcacheClientError, c.lrange, "pl:a",
           0, 1001)
    raises("65 values: ERROR", E.MemcacheUnknownCommandError, c.rpush, "pl:big",
           *([b"v"] * 65))
    raises("a value over -I: SERVER_ERROR", E.MemcacheServerError, c.rpush, "pl:a",
           b"x" * (2 * 1024 * 1024))
    raises("linsert where= other than before/after is refused before sending",
           E.MemcacheIllegalInputError, c.linsert, "pl:a", "middle", b"a", b"b")
    c.qpush("pl:queue", b"q")
    raises("a list verb on a queue: key holds another type", E.MemcacheClientError, c.rpush,
           "pl:queue", b"x")
    raises("a queue verb on a list: key holds another type", E.MemcacheClientError, c.qpush,
           "pl:a", b"x")
    raises("lpush of no value is refused before sending", E.MemcacheIllegalInputError,
           c.lpush, "pl:a")


def counters(c, mcds, E):
    check("ctdef, then EXISTS", [c.ctdef(7, [(104, 0), (105, 0)]), c.ctdef(7, "104")],
          [True, False])
    check("ctdef from codes and strings", c.ctdef(8, [104, "105:12:m"], aggregate=False,
                                                   quantize=3), True)
    check("ctcounter", c.ctcounter(8), mcds.Counter(8, "104:0,105:12:m", 0, 3, 0))
    check("ctcounter of none: None", c.ctcounter(9999), None)
    check("ctcounters pages by id", [x.id for x in mcds.iterate(c.ctcounters, count=1)], [7, 8])
    raises("types that do not nest: CLIENT_ERROR", E.MemcacheClientError, c.ctdef, 10,
           [104, 704, 105])
    check("ctobj: root, child with a limit, again EXISTS",
          [c.ctobj("pc:root"), c.ctobj("pc:kid", parent="pc:root", limits={(7, 104): 10}),
           c.ctobj("pc:kid2", parent="pc:root"), c.ctobj("pc:root")], [True, True, True, False])
    raises("ctobj with a missing parent raises NotFound", mcds.NotFound, c.ctobj, "pc:orphan",
           parent="pc:nobody")
    check("ctincr: STORED", c.ctincr("pc:kid", 7, 104, "20240301", 4), True)
    vals = c.ctincr("pc:kid2", 7, 104, 1709251200, 5, values=True)     # @ 2024-03-01 00:00 UTC
    check("ctincr values=: the object then its ancestors",
          [(v.key, v.period, v.value) for v in vals],
          [(b"pc:kid2", b"20240301", 5), (b"pc:root", b"20240301", 9)])
    e = raises("an increment over the limit raises LimitExceeded", mcds.LimitExceeded,
               c.ctincr, "pc:kid", 7, 104, "20240301", 7)
    check("... naming the object, type and period", (e.key, e.type, e.period),
          (b"pc:kid", 104, b"20240301"))
    check("... and nothing changed", c.ctget("pc:root", 7, 104, "20240301").value, 9)
    check("a negative delta is never refused", c.ctincr("pc:kid", 7, 104, "20240301", -100), True)
    check("ctget: rolled up into the month", c.ctget("pc:root", 7, 105, "202403")[4:], (-91, 0))
    check("ctget of a period never changed: 0 0", c.ctget("pc:root", 7, 104, "20230101")[4:], (0, 0))
    check("ctget of no object: None", c.ctget("pc:none", 7, 104, "20240301"), None)
    raises("ctincr of no object raises NotFound", mcds.NotFound, c.ctincr, "pc:none", 7, 104,
           "20240301", 1)
    raises("ctincr of a bad date: CLIENT_ERROR", E.MemcacheClientError, c.ctincr, "pc:kid", 7,
           104, "20210230", 1)
    raises("ctincr of a computed type: CLIENT_ERROR", E.MemcacheClientError, c.ctincr,
           "pc:kid", 7, 105, "202403", 1)
    c.ctobj("pc:nroot")
    c.ctobj("pc:na", parent="pc:nroot", limits={(7, 104): 10})
    c.ctobj("pc:nb", parent="pc:nroot")
    check("ctincrn: several increments as one", c.ctincrn([("pc:na", 7, 104, "20240302", 2),
                                                          ("pc:nb", 7, 104, "20240302", 3)]), True)
    vals = c.ctincrn([("pc:na", 7, 104, "20240302", 1), ("pc:nb", 7, 104, "20240302", 1)],
                     values=True)
    check("ctincrn values=: each increment's object, then its ancestors",
          [(v.key, v.value) for v in vals],
          [(b"pc:na", 3), (b"pc:nroot", 7), (b"pc:nb", 4), (b"pc:nroot", 7)])
    e = raises("ctincrn over a limit raises LimitExceeded with the increment's index",
               mcds.LimitExceeded, c.ctincrn, [("pc:nb", 7, 104, "20240302", 1),
                                               ("pc:na", 7, 104, "20240302", 8)])
    check("... naming it; nothing changed",
          (e.key, e.index, c.ctget("pc:nroot", 7, 104, "20240302").value), (b"pc:na", 1, 7))
    raises("ctincrn of a missing object raises NotFound", mcds.NotFound, c.ctincrn,
           [("pc:na", 7, 104, "20240302", 1), ("pc:none", 7, 104, "20240302", 1)])
    raises("ctincrn of no increments is refused before sending", E.MemcacheIllegalInputError,
           c.ctincrn, [])
    raises("ctincrn of a bad date: CLIENT_ERROR", E.MemcacheClientError, c.ctincrn,
           [("pc:na", 7, 104, "20210230", 1)])
    check("ctincrn's objects deleted (their subtree with them)", c.delete("pc:nroot"), True)
    info = c.ctinfo("pc:kid")
    check("ctinfo: parent, children, limits", [info.parent, info.children, info.limits],
          [b"pc:root", 0, {(7, 104): 10}])
    check("ctinfo of none: None", c.ctinfo("pc:none"), None)
    check("ctlimits replaces the limits", [c.ctlimits("pc:kid", limits=[(7, 104, 50)]),
                                           c.ctinfo("pc:kid").limits], [True, {(7, 104): 50}])
    check("ctraise raises them", [c.ctraise("pc:kid", {(7, 104): 5}),
                                  c.ctinfo("pc:kid").limits], [True, {(7, 104): 55}])
    check("ctraise with None removes one", [c.ctraise("pc:kid", {(7, 104): None}),
                                            c.ctinfo("pc:kid").limits], [True, {}])
    raises("ctlimits of no object raises NotFound", mcds.NotFound, c.ctlimits, "pc:none")
    check("ctchildren pages, most recent first",
          list(mcds.iterate(c.ctchildren, "pc:root", count=1)), [b"pc:kid2", b"pc:kid"])
    raises("ctchildren of no object raises NotFound", mcds.NotFound, c.ctchildren, "pc:none")
    vals = list(mcds.iterate(c.ctvalues, "pc:root", count=1))
    check("ctvalues pages through every non-zero value",
          [(v.type, v.period, v.value) for v in vals], [(104, b"20240301", -91),
                                                        (105, b"202403", -91)])
    check("ctvalues with filters", [v.period for v in c.ctvalues(
        "pc:root", counters=[7], type=104, periods=["20240301", "20240302"]).items],
        [b"20240301"])
    raises("ctvalues periods= without type=: CLIENT_ERROR", E.MemcacheClientError, c.ctvalues,
           "pc:root", periods="20240301")
    per = c.ctperiods(counters="7-7", type=104).items
    check("ctperiods", [(p.period, p.objects) for p in per], [(b"20240301", 3)])
    act = list(mcds.iterate(c.ctactive, since=0, count=2))
    check("ctactive lists the changed objects once each",
          sorted(a.key for a in act), [b"pc:kid", b"pc:kid2", b"pc:root"])
    raises("ctundef of a counter in use: CLIENT_ERROR", E.MemcacheClientError, c.ctundef, 7)
    check("ctundef of an unused counter, then again", [c.ctundef(8), c.ctundef(8)], [True, False])
    raises("a period with a space is refused before sending", E.MemcacheIllegalInputError,
           c.ctget, "pc:root", 7, 104, "2024 0301")
    raises("a bool delta is refused before sending", E.MemcacheIllegalInputError, c.ctincr,
           "pc:kid", 7, 104, "20240301", True)


def scans(c, mcds, E):
    for i in range(120):
        c.set("ps:key:%d" % i, b"v", expire=0 if i % 2 else 3600)
    keys = [k for k in c.kscan(count=7, match="ps:key:*")]
    check("kscan pages through every key that matches, each at least once",
          sorted(set(k.key for k in keys)) == sorted(b"ps:key:%d" % i for i in range(120)), True)
    check("... with its type and TTL", {(k.type, k.ttl == -1) for k in keys},
          {("string", True), ("string", False)})
    check("type=, maxttl= and minttl= filter on the server (no TTL passes minttl only)",
          [sorted(k.key for k in c.kscan(type="list", match="pl:a*")),
           len(set(k.key for k in c.kscan(match="ps:key:*", maxttl=7200))),
           len(set(k.key for k in c.kscan(match="ps:key:*", minttl=60)))],
          [[b"pl:a"], 60, 120])
    page = c.kscan_page(0, count=1, match="ps:*")
    check("a page's cursor continues the scan", page.cursor > 0, True)
    raises("filters when continuing: CLIENT_ERROR", E.MemcacheClientError, c.kscan_page,
           page.cursor, match="x*")
    check("kscanclose, then again", [c.kscanclose(page.cursor), c.kscanclose(page.cursor)],
          [True, False])
    raises("continuing a closed scan raises NotFound", mcds.NotFound, c.kscan_page, page.cursor)
    it = c.kscan(count=1, match="ps:*")
    next(it)
    it.close()
    check("leaving a scan early closes it on the server", True, True)
    raises("kscan count=0: CLIENT_ERROR", E.MemcacheClientError, c.kscan_page, 0, count=0)
    raises("a glob with a space is refused before sending", E.MemcacheIllegalInputError,
           c.kscan_page, 0, match="a *")


def hostile(c, mcds, E):
    for bad in ["bad key", "k\r\nflush_all", "", "k" * 251, "tab\tkey", b"nul\x00"]:
        raises("name %r refused before sending" % (bad[:20],), E.MemcacheIllegalInputError,
               c.qpush, bad, b"x")
    check("a 250-byte name works", c.qpush("q" * 250, b"x") > 0, True)
    evil = b"x\r\nflush_all\r\nqpurge ph:q\r\n"
    c.qpush("ph:q", evil)
    c.rpush("ph:l", evil, b"\r\n")
    check("data holding command lines is data: nothing flushed or purged",
          [c.qpop("ph:q")[0].data, c.lrange("ph:l"), c.get("ps:key:1")],
          [evil, [evil, b"\r\n"], b"v"])
    raises("data that is not bytes or str is refused", E.MemcacheIllegalInputError, c.qpush,
           "ph:q", 42)
    raises("a dlq= with a space is refused", E.MemcacheIllegalInputError, c.qcreate, "ph:d",
           maxdeliver=1, dlq="a b")
    raises("a lease that is not a number is refused", E.MemcacheIllegalInputError, c.qpop,
           "ph:q", lease="1 ack=5")
    check("the connection still works after every refusal", c.qpush("ph:q", b"ok") > 0, True)


def main():
    srcdir, host, port, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    sys.path.insert(0, os.path.join(srcdir, "contrib", "python"))
    import mcds
    import pymemcache.exceptions as E

    c = mcds.Client((host, port), timeout=timeout)
    for part in (queues, lists, counters, scans, hostile):
        part(c, mcds, E)
    passed()


if __name__ == "__main__":
    main()
