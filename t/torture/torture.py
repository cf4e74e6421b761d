#!/usr/bin/env python3
"""kill -9 crash-consistency torture test for mcds persistence.

Starts mcds-server on a data directory, runs K client threads that pipeline
batches of queue, list, tree-counter and cache changes over their own keys
(plus a few shared counters; a dead-letter queue pair, a queue read with
Kestrel's get /open, /close, /abort, a tree counter with a limit and a child
deleted and made again, TTLs set by touch), SIGKILLs the server mid-pipeline, restarts it on
the same directory with the same --fsync policy, and checks that every
acknowledged change is there (doc/persistence.md: every acknowledged change
survives kill -9 under every policy) and that the changes in flight at the
kill are there as a prefix of what each connection sent. See
t/torture/README.md. Python 3 standard library only.
"""

import argparse
import copy
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

POLICIES = ("always", "everysec", "no")
CT_COUNTER = 7                  # tree counter id defined in every directory
CT_TIME = "@1700000000"         # every increment goes to this day (type 104)
QUEUE_CAP = 60                  # messages a thread's queue may hold (qpeek reads 100)
LIST_MAXLEN = 200               # maxlen of the "a" lists (created by lcreate)
LIST_SOFT_CAP = 150             # pushes give way to pops above this length
LONG_LEASE = 600                # receipts of these leases are acked later
SHORT_LEASE = 1                 # these run out and the message comes back
READ_TIMEOUT = 20.0             # a reply that takes longer: the server hangs
START_TIMEOUT = 60.0            # a start-up (recovery) that takes longer fails
CONS_CAP = 50                   # messages a conservation queue pair may hold
CT_LIMIT = 5000                 # limit of ctl<t> on type 104 (its subtree counts in it)
CT_DAY = "20231114"             # CT_TIME's day, as EXCEEDED names it
TTL = 3600                      # the TTL touch gives
DEDUP_FRESH = 200               # seconds a push's dedup= id is pushed again after
                                # (the queues' window is the default 300 s)
REQUIRED_STATS = ("persist_replay_skipped", "persist_replay_quarantined",
                  "persist_recovery_damaged_bytes")


class Violation(Exception):
    pass


class ServerGone(Exception):
    """The connection ended (EOF, reset): the server was killed."""


def short(b, limit=160):
    """A readable, bounded rendering of bytes / structures for messages."""
    s = repr(b)
    if len(s) > limit:
        s = s[:limit] + "...(%d chars)" % len(s)
    return s


# ---------------------------------------------------------------------------
# Connections


class Conn:
    """A text-protocol connection with a buffered reader; every read bounded."""

    def __init__(self, port, timeout=READ_TIMEOUT):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.settimeout(timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        try:
            self.sock.sendall(data)
        except socket.timeout:
            raise
        except OSError as e:
            raise ServerGone(str(e))

    def _fill(self):
        try:
            d = self.sock.recv(262144)
        except socket.timeout:
            raise
        except OSError as e:
            raise ServerGone(str(e))
        if not d:
            raise ServerGone("EOF")
        if self.pos > 65536:
            del self.buf[:self.pos]
            self.pos = 0
        self.buf += d

    def readline(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def readexact(self, n):
        while len(self.buf) - self.pos < n:
            self._fill()
        d = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return d

    def read_block(self, n):
        d = self.readexact(n + 2)
        if d[-2:] != b"\r\n":
            raise Violation("data block of %d bytes not followed by \\r\\n: %s" % (n, short(d)))
        return d[:-2]

    def cmd(self, line, data=None):
        """One request, its first reply line."""
        out = line.encode() + b"\r\n"
        if data is not None:
            out += data + b"\r\n"
        self.send(out)
        return self.readline()


def is_error(line):
    return line == b"ERROR" or line.startswith(b"CLIENT_ERROR") or line.startswith(b"SERVER_ERROR")


def read_values(c, alone=None):
    """VALUE <key> <flags> <bytes> + data ... END -> list of (key, data);
    the line alone (lmove's NOT_STORED) when it comes first."""
    out = []
    while True:
        line = c.readline()
        if line == b"END":
            return out
        if alone is not None and line == alone and not out:
            return line
        if is_error(line):
            return ("error", line)
        p = line.split()
        if len(p) < 4 or p[0] != b"VALUE":
            raise Violation("bad value line %s" % short(line))
        out.append((p[1], c.read_block(int(p[3]))))


def read_qitems(c):
    """qpop/qpeek: [NOT_FOUND] ITEM <id> <flags> <bytes> <deliveries> + data ... END."""
    out = []
    notfound = False
    while True:
        line = c.readline()
        if line == b"END":
            return ("notfound" if notfound and not out else "items", out)
        if line == b"NOT_FOUND":
            notfound = True
            continue
        if is_error(line):
            return ("error", line)
        p = line.split()
        if len(p) != 5 or p[0] != b"ITEM":
            raise Violation("bad ITEM line %s" % short(line))
        data = c.read_block(int(p[3]))
        out.append((int(p[1]), int(p[2]), int(p[4]), data))


# ---------------------------------------------------------------------------
# Operations and the per-thread model
#
# An op is a dict: kind, key, wire (the request bytes), and kind-specific
# fields. simulate(model, op) applies the op to a model as the server must
# (assuming it was applied) and returns the predicted reply; the live path
# compares it with the reply read, the recovery check applies in-flight ops
# one by one to get the candidate states (prefixes).


def new_model(tid):
    m = {
        "tid": tid,
        "lists": {"L%da" % tid: None, "L%db" % tid: None},   # key -> None | {"items", "maxlen"}
        "cache": {"c%d_%d" % (tid, i): None for i in range(4)},
        "queues": {"q%da" % tid: new_queue(), "q%db" % tid: new_queue()},
        "ct": 0,                      # value of this thread's own leaf ct<tid>
        # q<t>d (lease=1 maxdeliver=2 dlq=q<t>dlq) and its dead-letter queue, as one
        # set of messages (conservation: each in exactly one of the two)
        "dq": {"created": False, "msgs": {}, "dlq_seen": False, "take": 0},
        # q<t>k, read through Kestrel's get /open, /close, /abort and plain get
        "kq": {"exists": False, "msgs": {}, "open": None, "take": 0},
        "ctl_own": 0,                 # increments accepted on ctl<tid> itself (limit CT_LIMIT)
        "ctc": 0,                     # value of its child ctc<tid> (None: deleted)
        # keys that touch gives a TTL (a list, a queue, a cache value): has it one?
        "ttl": {"L%db" % tid: False, "q%db" % tid: False, "c%d_0" % tid: False},
        "seq": 0,                     # next message / value sequence number
        # dedup= ids of acknowledged pushes to q<t>a (never deleted): id ->
        # {"ids": the message ids answered, "t": when (monotonic)}; a push
        # of one again must answer the same ids and add nothing
        "dedup": {},
    }
    return m


def new_queue():
    # msgs: seq -> {seq, data, id, lease (None|"long"|"short"|"unk"), rcpt, deliv}
    return {"exists": False, "msgs": {}, "pop_maybe": False}


def q_find_id(q, mid):
    for m in q["msgs"].values():
        if m["id"] == mid:
            return m
    return None


def simulate(model, op):
    """Apply op to model; return the predicted reply (or None if unpredictable)."""
    k = op["kind"]
    tt = model["ttl"]
    if op.get("key") in tt and (k in ("set", "delete", "ldelete", "qdel")
                                or k == "lcreate" and model["lists"][op["key"]] is None):
        tt[op["key"]] = False             # gone, or made again without a TTL
    if k == "qpush":
        q = model["queues"][op["key"]]
        q["exists"] = True
        q["msgs"][op["seq"]] = {"seq": op["seq"], "data": op["data"], "id": None,
                                "lease": None, "rcpt": None, "deliv": 0}
        return None                      # PUSHED <id>, id unknown in advance
    if k == "qpushn":
        q = model["queues"][op["key"]]
        q["exists"] = True
        for seq, data in zip(op["seqs"], op["datas"]):
            q["msgs"][seq] = {"seq": seq, "data": data, "id": None,
                              "lease": None, "rcpt": None, "deliv": 0}
        return None
    if k == "qrepush":
        return op["pred"]                # nothing queued: the first ids again
    if k == "qpause":
        return b"PAUSED" if model["queues"][op["key"]]["exists"] else b"NOT_FOUND"
    if k == "qrelease":
        q = model["queues"][op["key"]]
        mid = int(op["rcpt"].split(":")[0])
        m = q_find_id(q, mid)
        if m is not None and m["lease"] == "long" and m["rcpt"] == op["rcpt"]:
            m["lease"], m["rcpt"] = None, None
            return b"RELEASED"
        return b"NOT_FOUND"
    if k == "qpop":
        q = model["queues"][op["key"]]
        q["pop_maybe"] = True            # which messages it leased: only its reply says
        return None
    if k == "qack":
        q = model["queues"][op["key"]]
        pred = []
        for r in op["rcpts"]:
            mid = int(r.split(":")[0])
            m = q_find_id(q, mid)
            if m is not None and m["lease"] in ("long",) and m["rcpt"] == r:
                del q["msgs"][m["seq"]]
                pred.append(b"ACKED")
            else:
                pred.append(b"NOT_FOUND")
        return pred
    if k in ("rpushx", "lpushx") and model["lists"][op["key"]] is None:
        return b"NOT_FOUND"
    if k in ("rpush", "lpush", "rpushx", "lpushx"):
        lst = model["lists"][op["key"]]
        vals = op["vals"]
        if lst is None:
            lst = model["lists"][op["key"]] = {"items": [], "maxlen": 0}
        if lst["maxlen"] and len(lst["items"]) + len(vals) > lst["maxlen"]:
            return b"NOT_STORED"
        for v in vals:
            if k in ("rpush", "rpushx"):
                lst["items"].append(v)
            else:
                lst["items"].insert(0, v)
        return str(len(lst["items"])).encode()
    if k in ("lpop", "rpop"):
        lst = model["lists"][op["key"]]
        if lst is None:
            return []
        out = []
        for _ in range(op["count"]):
            if not lst["items"]:
                break
            out.append(lst["items"].pop(0) if k == "lpop" else lst["items"].pop())
        return out
    if k == "lmove_mk":
        # an lmove's first record when its destination is missing and its
        # source has an element: the destination's creation
        src = model["lists"][op["key"]]
        if src is not None and src["items"] and model["lists"][op["dst"]] is None:
            model["lists"][op["dst"]] = {"items": [], "maxlen": 0}
        return None
    if k == "lmove":
        src = model["lists"][op["key"]]
        if src is None or not src["items"]:
            return []
        dst = model["lists"][op["dst"]]
        if dst is not None and dst is not src and dst["maxlen"] and len(dst["items"]) >= dst["maxlen"]:
            return b"NOT_STORED"
        v = src["items"].pop(0) if op["se"] == "left" else src["items"].pop()
        if dst is None:
            dst = model["lists"][op["dst"]] = {"items": [], "maxlen": 0}
        if op["de"] == "left":
            dst["items"].insert(0, v)
        else:
            dst["items"].append(v)
        return [v]
    if k == "lmpop":
        for key in op["keys"]:
            lst = model["lists"][key]
            if lst is not None and lst["items"]:
                out = []
                while lst["items"] and len(out) < op["count"]:
                    out.append((key, lst["items"].pop(0) if op["end"] == "left" else lst["items"].pop()))
                return out
        return []
    if k == "lset":
        lst = model["lists"][op["key"]]
        if lst is None:
            return b"NOT_FOUND"
        n = len(lst["items"])
        i = op["index"]
        if i < -n or i >= n:
            return b"NOT_FOUND"
        lst["items"][i] = op["val"]
        return b"STORED"
    if k == "ltrim":
        lst = model["lists"][op["key"]]
        if lst is None:
            return b"NOT_FOUND"
        items = lst["items"]
        n = len(items)
        o = op["offset"]
        start = o if o >= 0 else max(0, n + o)
        kept = items[start:start + op["limit"]] if start < n else []
        lst["items"] = kept
        return str(n - len(kept)).encode()
    if k == "lrem":
        lst = model["lists"][op["key"]]
        if lst is None:
            return b"NOT_FOUND"
        items = lst["items"]
        c, v = op["count"], op["val"]
        if c >= 0:
            out, removed = [], 0
            for x in items:
                if x == v and (c == 0 or removed < c):
                    removed += 1
                else:
                    out.append(x)
        else:
            out, removed = [], 0
            for x in reversed(items):
                if x == v and removed < -c:
                    removed += 1
                else:
                    out.append(x)
            out.reverse()
        lst["items"] = out
        return str(removed).encode()
    if k == "linsert":
        lst = model["lists"][op["key"]]
        if lst is None or op["pivot"] not in lst["items"]:
            return b"NOT_FOUND"
        if lst["maxlen"] and len(lst["items"]) >= lst["maxlen"]:
            return b"NOT_STORED"
        i = lst["items"].index(op["pivot"])
        lst["items"].insert(i if op["where"] == "before" else i + 1, op["val"])
        return str(len(lst["items"])).encode()
    if k == "ldelete":
        if model["lists"][op["key"]] is None:
            return b"NOT_FOUND"
        model["lists"][op["key"]] = None
        return b"DELETED"
    if k == "lcreate":
        if model["lists"][op["key"]] is not None:
            return b"EXISTS"
        model["lists"][op["key"]] = {"items": [], "maxlen": op["maxlen"]}
        return b"CREATED"
    if k == "ctincr":
        if op["shared"]:
            return b"STORED"
        model["ct"] += op["delta"]
        return b"STORED"
    if k == "set":
        model["cache"][op["key"]] = op["val"]
        return b"STORED"
    if k in ("append",):
        cur = model["cache"][op["key"]]
        if cur is None:
            return b"NOT_STORED"
        model["cache"][op["key"]] = cur + op["val"]
        return b"STORED"
    if k == "incr":
        if op["shared"]:
            return None
        cur = model["cache"][op["key"]]
        if cur is None:
            return b"NOT_FOUND"
        if not re.fullmatch(rb"[1-9][0-9]{0,17}", cur):
            return b"CLIENT_ERROR cannot increment or decrement non-numeric value"
        new = str((int(cur) + op["delta"]) % (1 << 64)).encode()
        model["cache"][op["key"]] = new
        return new
    if k == "delete":
        if model["cache"][op["key"]] is None:
            return b"NOT_FOUND"
        model["cache"][op["key"]] = None
        return b"DELETED"
    r = simulate_more(model, op)
    if r is not NotImplemented:
        return r
    raise AssertionError("unknown op " + k)


def cons_msg(op, seq, data):
    return {"seq": seq, "data": data, "id": None, "lease": None, "rcpt": None, "q": None}


def simulate_more(model, op):
    """The dead-letter pair, the Kestrel queue, the limited tree counter."""
    k = op["kind"]
    if k == "dqcreate":
        d = model["dq"]
        was = d["created"]
        d["created"] = True
        return b"EXISTS" if was else b"CREATED"
    if k in ("dqpush", "kpush", "kset"):
        c = model["dq"] if k == "dqpush" else model["kq"]
        if k != "dqpush":
            c["exists"] = True
        c["msgs"][op["seq"]] = cons_msg(op, op["seq"], op["data"])
        return b"STORED" if k == "kset" else None
    if k == "dqpop":
        return None                      # what it leases: only its reply says
    if k == "dqack":
        d = model["dq"]
        mid = int(op["rcpt"].split(":")[0])
        for m in d["msgs"].values():
            if m["id"] == mid and m["lease"] == "long" and m["rcpt"] == op["rcpt"] and m["q"] == op["key"]:
                del d["msgs"][m["seq"]]
                return b"ACKED"
        return b"NOT_FOUND"
    if k == "dqredrive":
        return None                      # REDRIVEN <moved> 0: moves, changes no message
    if k == "dqkick":
        return b"KICKED 0" if model["dq"]["created"] else b"NOT_FOUND"
    if k == "kopen":
        kq = model["kq"]
        kq["open"] = "unk"               # which message: only its reply says
        return None
    if k == "kclose":
        kq = model["kq"]
        o = kq["open"]
        if o == "unk":
            kq["take"] += 1              # an open read in flight: one message may be gone
        elif o is not None:
            kq["msgs"].pop(o, None)
        kq["open"] = None
        return b"END"
    if k == "kabort":
        model["kq"]["open"] = None
        return b"END"
    if k == "kget":
        model["kq"]["take"] += 1         # takes one message for good, which: only its reply says
        return None
    if k == "ctlim":
        tot = model["ctl_own"] + (model["ctc"] or 0)
        if op["target"] == "ctc" and model["ctc"] is None:
            return b"NOT_FOUND"
        if op["delta"] > 0 and tot + op["delta"] > CT_LIMIT:
            return ("EXCEEDED ctl%d 104 %s" % (model["tid"], CT_DAY)).encode()
        if op["target"] == "ctc":
            model["ctc"] += op["delta"]
        else:
            model["ctl_own"] += op["delta"]
        return b"STORED"
    if k == "touch":
        key = op["key"]
        if key.startswith("L"):
            there = model["lists"][key] is not None
        elif key.startswith("q"):
            there = model["queues"][key]["exists"]
        else:
            there = model["cache"][key] is not None
        if not there:
            return b"NOT_FOUND"
        model["ttl"][key] = op["ttl"] != 0
        return b"TOUCHED"
    if k == "qdel":
        if not model["queues"][op["key"]]["exists"]:
            return b"NOT_FOUND"
        model["queues"][op["key"]] = new_queue()
        return b"DELETED"
    if k == "ctdel":
        if model["ctc"] is None:
            return b"NOT_FOUND"
        model["ctc"] = None
        return b"DELETED"
    if k == "ctobj":
        if model["ctc"] is not None:
            return b"EXISTS"
        model["ctc"] = 0
        return b"CREATED"
    return NotImplemented


def gen_more(rng, proj, model):
    """An op on the dead-letter pair, the Kestrel queue or the limited tree counter."""
    tid = proj["tid"]
    r = rng.random()
    if r < 0.45:                                            # q<t>d and q<t>dlq
        d = proj["dq"]
        key, dlq = "q%dd" % tid, "q%ddlq" % tid
        if not d["created"] or rng.random() < 0.01:
            return {"kind": "dqcreate", "key": key,
                    "wire": ("qcreate %s lease=1 maxdeliver=2 dlq=%s\r\n" % (key, dlq)).encode()}
        held = [m for m in d["msgs"].values() if m["lease"] == "long"]
        rr = rng.random()
        if held and (rr < 0.25 or len(d["msgs"]) >= CONS_CAP):
            m = rng.choice(held)
            return {"kind": "dqack", "key": m["q"], "rcpt": m["rcpt"],
                    "wire": ("qack %s %s\r\n" % (m["q"], m["rcpt"])).encode()}
        if rr < 0.33:
            return {"kind": "dqredrive", "key": dlq,
                    "wire": ("qredrive %s%s\r\n" % (dlq, "" if rng.random() < 0.7 else " %d" % rng.randint(1, 3))).encode()}
        if rr < 0.36:
            return {"kind": "dqkick", "key": key, "wire": ("qkick %s\r\n" % key).encode()}
        if rr < 0.65 or len(d["msgs"]) >= CONS_CAP:
            q = key if rng.random() < 0.7 else dlq
            lease = LONG_LEASE if rng.random() < 0.3 else SHORT_LEASE
            n = rng.randint(1, 3)
            return {"kind": "dqpop", "key": q, "count": n, "lease": lease,
                    "wire": ("qpop %s %d lease=%d\r\n" % (q, n, lease)).encode()}
        data = gen_value(rng, model, "d")
        return {"kind": "dqpush", "key": key, "data": data, "seq": model["seq"],
                "wire": ("qpush %s 0 0 %d\r\n" % (key, len(data))).encode() + data + b"\r\n"}
    if r < 0.75:                                            # q<t>k, Kestrel's reads
        kq = proj["kq"]
        key = "q%dk" % tid
        rr = rng.random()
        nready = len(kq["msgs"])
        if kq["exists"] and kq["open"] is not None:
            if rr < 0.6:
                return {"kind": "kclose", "key": key, "wire": ("get %s/close\r\n" % key).encode()}
            if rr < 0.9:
                return {"kind": "kabort", "key": key, "wire": ("get %s/abort\r\n" % key).encode()}
        elif kq["exists"] and nready and rr < 0.45:
            return {"kind": "kopen", "key": key, "wire": ("get %s/open\r\n" % key).encode()}
        elif kq["exists"] and nready and rr < 0.55:
            return {"kind": "kget", "key": key, "wire": ("get %s\r\n" % key).encode()}
        if nready >= CONS_CAP:
            if kq["open"] is not None:
                return {"kind": "kclose", "key": key, "wire": ("get %s/close\r\n" % key).encode()}
            return {"kind": "kget", "key": key, "wire": ("get %s\r\n" % key).encode()}
        data = gen_value(rng, model, "k")
        if kq["exists"] and rng.random() < 0.4:
            return {"kind": "kset", "key": key, "data": data, "seq": model["seq"],
                    "wire": ("set %s 0 0 %d\r\n" % (key, len(data))).encode() + data + b"\r\n"}
        return {"kind": "kpush", "key": key, "data": data, "seq": model["seq"],
                "wire": ("qpush %s 0 0 %d\r\n" % (key, len(data))).encode() + data + b"\r\n"}
    # ctl<t> (limit CT_LIMIT on type 104) and its child ctc<t>
    rr = rng.random()
    if rr < 0.06:
        return {"kind": "ctdel", "key": "ctc%d" % tid, "wire": ("delete ctc%d\r\n" % tid).encode(),
                "then_create": rng.random() < 0.7}
    if rr < 0.09 or proj["ctc"] is None and rr < 0.3:
        return {"kind": "ctobj", "key": "ctc%d" % tid,
                "wire": ("ctobj ctc%d parent=ctl%d\r\n" % (tid, tid)).encode()}
    target = "ctc" if rng.random() < 0.5 else "ctl"
    delta = rng.randint(1, 400) if rng.random() < 0.65 else -rng.randint(1, 300)
    key = "%s%d" % (target, tid)
    return {"kind": "ctlim", "key": key, "target": target, "delta": delta,
            "wire": ("ctincr %s %d 104 %s %d\r\n" % (key, CT_COUNTER, CT_TIME, delta)).encode()}


def rand_bytes(rng, n):
    if rng.random() < 0.1:
        return bytes(rng.getrandbits(8) for _ in range(n))
    return bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
                 for _ in range(n))


def gen_value(rng, model, tag):
    model["seq"] += 1
    head = ("%s%d.%d." % (tag, model["tid"], model["seq"])).encode()
    return head + rand_bytes(rng, rng.randint(0, 30))


def gen_op(rng, proj, model):
    """One op valid on the projected model proj (all earlier ops applied)."""
    tid = proj["tid"]
    rx = rng.random()
    if rx < 0.03:                                           # TTLs
        key = rng.choice(sorted(proj["ttl"]))
        rr = rng.random()
        if rr < 0.7:
            t = TTL if rng.random() < 0.85 else 0
            return {"kind": "touch", "key": key, "ttl": t, "wire": ("touch %s %d\r\n" % (key, t)).encode()}
        if key.startswith("q"):
            return {"kind": "qdel", "key": key, "wire": ("delete %s\r\n" % key).encode()}
        if key.startswith("L"):
            return {"kind": "ldelete", "key": key, "wire": ("delete %s\r\n" % key).encode(),
                    "then_create": True}
        if rr < 0.85:
            return {"kind": "delete", "key": key, "wire": ("delete %s\r\n" % key).encode()}
        val = gen_value(rng, model, "x")
        return {"kind": "set", "key": key, "val": val,
                "wire": ("set %s 0 0 %d\r\n" % (key, len(val))).encode() + val + b"\r\n"}
    if rx < 0.21:
        return gen_more(rng, proj, model)
    r = rng.random()
    if r < 0.20:                                            # queues
        key = rng.choice(sorted(proj["queues"]))
        q = proj["queues"][key]
        held = [m for m in q["msgs"].values() if m["lease"] == "long"]
        ready = len(q["msgs"]) - len(held)
        rr = rng.random()
        if held and rr < 0.07:
            m = rng.choice(held)
            return {"kind": "qrelease", "key": key, "rcpt": m["rcpt"],
                    "wire": ("qrelease %s %s\r\n" % (key, m["rcpt"])).encode()}
        if held and (rr < 0.35 or len(q["msgs"]) >= QUEUE_CAP):
            picks = rng.sample(held, min(len(held), 1 if rng.random() < 0.7 else rng.randint(2, 4)))
            rcpts = [m["rcpt"] for m in picks]
            return {"kind": "qack", "key": key, "rcpts": rcpts,
                    "wire": ("qack %s %s\r\n" % (key, " ".join(rcpts))).encode()}
        if ready > 0 and rr < 0.6 or len(q["msgs"]) >= QUEUE_CAP:
            n = rng.randint(1, 3)
            lease = LONG_LEASE if rng.random() < 0.75 else SHORT_LEASE
            return {"kind": "qpop", "key": key, "count": n, "lease": lease,
                    "wire": ("qpop %s %d lease=%d\r\n" % (key, n, lease)).encode()}
        if key.endswith("a") and rng.random() < 0.08:
            op = gen_queue_extra(rng, key, model)
            if op is not None:
                return op
        dedup = key.endswith("a") and rng.random() < 0.3
        if rng.random() < 0.2 and len(q["msgs"]) + 4 <= QUEUE_CAP:
            datas, seqs = [], []
            for _ in range(rng.randint(1, 4)):
                datas.append(gen_value(rng, model, "m"))
                seqs.append(model["seq"])
            did = "n%d.%d" % (model["tid"], seqs[0])
            wire = ("qpushn %s 0 0 1024 %s%s\r\n" % (key, " ".join(str(len(d)) for d in datas),
                                                     " dedup=" + did if dedup else "")).encode()
            wire += b"".join(d + b"\r\n" for d in datas)
            return {"kind": "qpushn", "key": key, "datas": datas, "seqs": seqs, "wire": wire,
                    "dedup": did if dedup else None}
        data = gen_value(rng, model, "m")
        seq = model["seq"]
        did = "s%d.%d" % (model["tid"], seq)
        return {"kind": "qpush", "key": key, "data": data, "seq": seq, "dedup": did if dedup else None,
                "wire": ("qpush %s 0 0 %d%s\r\n" % (key, len(data), " dedup=" + did if dedup else "")).encode()
                + data + b"\r\n"}
    if r < 0.55:                                            # lists
        key = rng.choice(sorted(proj["lists"]))
        lst = proj["lists"][key]
        is_a = key.endswith("a")
        if lst is None and is_a:
            return {"kind": "lcreate", "key": key, "maxlen": LIST_MAXLEN,
                    "wire": ("lcreate %s maxlen=%d\r\n" % (key, LIST_MAXLEN)).encode()}
        n = len(lst["items"]) if lst else 0
        rr = rng.random()
        if rr < 0.03:
            # delete then lcreate: the caller emits the lcreate right after
            return {"kind": "ldelete", "key": key, "wire": ("delete %s\r\n" % key).encode(),
                    "then_create": True}
        if rr < 0.40 and (n < LIST_SOFT_CAP or rng.random() < 0.05):
            # now and then an element the list holds already, for lrem/linsert
            vals = [rng.choice(lst["items"]) if lst and lst["items"] and rng.random() < 0.15
                    else gen_value(rng, model, "v") for _ in range(rng.randint(1, 3))]
            verb = "rpush" if rng.random() < 0.5 else "lpush"
            if rng.random() < 0.15:
                verb += "x"              # lpushx, rpushx: only to a list that exists
            wire = ("%s %s %s\r\n" % (verb, key, " ".join(str(len(v)) for v in vals))).encode()
            wire += b"".join(v + b"\r\n" for v in vals)
            return {"kind": verb, "key": key, "vals": vals, "wire": wire}
        if rr < 0.65 and rng.random() < 0.3:
            # lmove to the thread's other list, or onto itself (a rotation)
            other = [x for x in sorted(proj["lists"]) if x != key][0]
            dst = key if rng.random() < 0.2 else other
            se, de = rng.choice(["left", "right"]), rng.choice(["left", "right"])
            return {"kind": "lmove", "key": key, "dst": dst, "se": se, "de": de,
                    "wire": ("lmove %s %s %s %s\r\n" % (key, dst, se, de)).encode()}
        if rr < 0.65 and rng.random() < 0.15:
            keys = sorted(proj["lists"])
            if rng.random() < 0.5:
                keys.reverse()
            end, c = rng.choice(["left", "right"]), rng.randint(1, 3)
            return {"kind": "lmpop", "key": keys[0], "keys": keys, "end": end, "count": c,
                    "wire": ("lmpop %s %s count=%d\r\n" % (" ".join(keys), end, c)).encode()}
        if rr < 0.65:
            verb = "lpop" if rng.random() < 0.5 else "rpop"
            c = rng.randint(1, 2)
            return {"kind": verb, "key": key, "count": c,
                    "wire": ("%s %s %d\r\n" % (verb, key, c)).encode()}
        if rr < 0.70:
            off = rng.randint(-3, 3)
            lim = max(0, n - rng.randint(0, 4)) if rng.random() < 0.9 else rng.choice([0, 1, 10 ** 19])
            return {"kind": "ltrim", "key": key, "offset": off, "limit": lim,
                    "wire": ("ltrim %s %d %d\r\n" % (key, off, lim)).encode()}
        if rr < 0.80:
            val = rng.choice(lst["items"]) if n and rng.random() < 0.7 else gen_value(rng, model, "r")
            cnt = rng.choice([-2, -1, 0, 1, 2])
            return {"kind": "lrem", "key": key, "count": cnt, "val": val,
                    "wire": ("lrem %s %d %d\r\n" % (key, cnt, len(val))).encode() + val + b"\r\n"}
        if rr < 0.88:
            pivot = rng.choice(lst["items"]) if n and rng.random() < 0.8 else gen_value(rng, model, "p")
            val = gen_value(rng, model, "i")
            where = rng.choice(["before", "after"])
            return {"kind": "linsert", "key": key, "pivot": pivot, "val": val, "where": where,
                    "wire": ("linsert %s %s %d %d\r\n" % (key, where, len(pivot), len(val))).encode()
                    + pivot + b"\r\n" + val + b"\r\n"}
        idx = rng.randint(-n - 1, n) if n else rng.randint(-1, 1)
        val = gen_value(rng, model, "s")
        return {"kind": "lset", "key": key, "index": idx, "val": val,
                "wire": ("lset %s %d %d\r\n" % (key, idx, len(val))).encode() + val + b"\r\n"}
    if r < 0.70:                                            # tree counters
        shared = rng.random() < 0.4
        key = "ctshared" if shared else "ct%d" % tid
        d = rng.randint(1, 100)
        return {"kind": "ctincr", "key": key, "shared": shared, "delta": d,
                "wire": ("ctincr %s %d 104 %s %d\r\n" % (key, CT_COUNTER, CT_TIME, d)).encode()}
    # cache values
    rr = rng.random()
    if rr < 0.08:
        d = rng.randint(1, 1000)
        return {"kind": "incr", "key": "cshared", "shared": True, "delta": d,
                "wire": ("incr cshared %d\r\n" % d).encode()}
    key = rng.choice(sorted(proj["cache"]))
    cur = proj["cache"][key]
    numeric = cur is not None and re.fullmatch(rb"[1-9][0-9]{0,17}", cur) is not None
    if rr < 0.35 or cur is None and rr < 0.6:
        if rng.random() < 0.5:
            val = str(rng.randint(1, 99999)).encode()
        else:
            val = gen_value(rng, model, "x")
        return {"kind": "set", "key": key, "val": val,
                "wire": ("set %s 0 0 %d\r\n" % (key, len(val))).encode() + val + b"\r\n"}
    if rr < 0.55 and (cur is None or len(cur) < 600) and not (numeric and len(cur) > 12):
        if numeric and rng.random() < 0.8:
            val = str(rng.randint(1, 9)).encode()
        else:
            # never whitespace right after digits: "12 x" would read as 12
            val = b"z" + rand_bytes(rng, rng.randint(0, 20))
        return {"kind": "append", "key": key, "val": val,
                "wire": ("append %s 0 0 %d\r\n" % (key, len(val))).encode() + val + b"\r\n"}
    if rr < 0.85 and not (numeric and len(cur) > 15):
        d = rng.randint(1, 1000)
        return {"kind": "incr", "key": key, "shared": False, "delta": d,
                "wire": ("incr %s %d\r\n" % (key, d)).encode()}
    return {"kind": "delete", "key": key, "wire": ("delete %s\r\n" % key).encode()}


def gen_queue_extra(rng, key, model):
    """A pause of q<t>a (short, or a resume), or a push again of a dedup= id
    acknowledged recently; None when there is no such id."""
    if rng.random() < 0.3:
        secs = rng.choice(["0", "0", "0.1", "0.3"])
        return {"kind": "qpause", "key": key, "wire": ("qpause %s %s\r\n" % (key, secs)).encode()}
    now = time.monotonic()
    fresh = sorted(d for d, e in model["dedup"].items() if now - e["t"] < DEDUP_FRESH)
    if not fresh:
        return None
    did = rng.choice(fresh)
    ids = model["dedup"][did]["ids"]
    datas = [b"dup-" + gen_value(rng, model, "d") for _ in ids]
    if did.startswith("s"):
        wire = ("qpush %s 0 0 %d dedup=%s\r\n" % (key, len(datas[0]), did)).encode() + datas[0] + b"\r\n"
    else:
        wire = ("qpushn %s 0 0 1024 %s dedup=%s\r\n" % (key, " ".join(str(len(d)) for d in datas), did)).encode()
        wire += b"".join(d + b"\r\n" for d in datas)
    return {"kind": "qrepush", "key": key, "wire": wire,
            "pred": ("PUSHED " + " ".join(str(i) for i in ids)).encode()}


def gen_batch(rng, model):
    proj = copy.deepcopy(model)
    ops = []
    n = rng.randint(1, 50)
    while len(ops) < n:
        op = gen_op(rng, proj, model)
        ops.append(op)
        simulate(proj, op)
        if op.get("then_create") and op["kind"] == "ctdel":
            oc = {"kind": "ctobj", "key": op["key"],
                  "wire": ("ctobj %s parent=ctl%d\r\n" % (op["key"], proj["tid"])).encode()}
            ops.append(oc)
            simulate(proj, oc)
        elif op.get("then_create"):
            lc = {"kind": "lcreate", "key": op["key"],
                  "maxlen": LIST_MAXLEN if op["key"].endswith("a") else 0}
            lc["wire"] = (("lcreate %s maxlen=%d\r\n" % (op["key"], LIST_MAXLEN))
                          if lc["maxlen"] else ("lcreate %s\r\n" % op["key"])).encode()
            ops.append(lc)
            simulate(proj, lc)
    return ops


def read_reply(c, op):
    k = op["kind"]
    if k in ("qpop", "dqpop"):
        return read_qitems(c)
    if k in ("lpop", "rpop", "kopen", "kget", "lmpop"):
        return read_values(c)
    if k == "lmove":
        return read_values(c, b"NOT_STORED")
    if k == "qack":
        first = c.readline()
        if is_error(first):
            return [first]
        out = [first]
        for _ in range(len(op["rcpts"]) - 1):
            out.append(c.readline())
        return out
    return c.readline()


# ---------------------------------------------------------------------------
# The client threads


class Worker(threading.Thread):
    def __init__(self, run, tid, model, rng):
        super().__init__(daemon=True, name="torture-worker-%d" % tid)
        self.run_ = run
        self.tid = tid
        self.model = model
        self.rng = rng
        self.inflight = []           # ops sent whose reply was not read
        self.acked = 0
        self.shared_ct_acked = 0     # deltas acknowledged this cycle (ctshared)
        self.shared_incr_acked = 0   # deltas acknowledged this cycle (cshared)
        self.transcript = []         # (wire, reply) of this cycle, bounded
        self.error = None
        self.kinds = {}              # acknowledged ops by kind

    def note(self, wire, reply):
        self.transcript.append((wire, reply))
        if len(self.transcript) > 4000:
            del self.transcript[:1000]

    def run(self):
        try:
            self._run()
        except Violation as e:
            self.error = str(e)
        except Exception as e:  # a bug of the torture test itself: say so
            import traceback
            self.error = "torture worker %d crashed: %s\n%s" % (self.tid, e, traceback.format_exc())

    def _run(self):
        run = self.run_
        try:
            c = Conn(run.port)
        except OSError as e:
            if run.dead.is_set():
                return
            raise Violation("thread %d: cannot connect: %s" % (self.tid, e))
        try:
            while not run.stop.is_set():
                ops = gen_batch(self.rng, self.model)
                if run.dead.is_set():
                    return
                self.inflight = list(ops)
                try:
                    c.send(b"".join(op["wire"] for op in ops))
                except ServerGone:
                    return
                except socket.timeout:
                    if run.dead.is_set():
                        return
                    raise Violation("thread %d: the server did not take a %d-op batch within %ss"
                                    % (self.tid, len(ops), READ_TIMEOUT))
                for op in ops:
                    try:
                        reply = read_reply(c, op)
                    except ServerGone:
                        return
                    except socket.timeout:
                        if run.dead.is_set():
                            return
                        raise Violation("thread %d: no reply within %ss to %s (the server hangs)"
                                        % (self.tid, READ_TIMEOUT, short(op["wire"])))
                    self.note(op["wire"], reply)
                    self.apply_live(op, reply)
                    self.inflight.pop(0)
                    self.acked += 1
                    self.kinds[op["kind"]] = self.kinds.get(op["kind"], 0) + 1
        finally:
            c.close()

    def apply_live(self, op, reply):
        m = self.model
        k = op["kind"]
        where = "thread %d live reply to %s" % (self.tid, short(op["wire"], 100))
        if k == "qpush":
            mm = re.fullmatch(rb"PUSHED (\d+)", reply)
            if not mm:
                raise Violation("%s: expected PUSHED <id>, got %s" % (where, short(reply)))
            simulate(m, op)
            m["queues"][op["key"]]["msgs"][op["seq"]]["id"] = int(mm.group(1))
            if op.get("dedup"):
                m["dedup"][op["dedup"]] = {"ids": [int(mm.group(1))], "t": time.monotonic()}
            return
        if k == "qpushn":
            ids = reply.split()
            if len(ids) != len(op["datas"]) + 1 or ids[0] != b"PUSHED" or not all(x.isdigit() for x in ids[1:]):
                raise Violation("%s: expected PUSHED and %d ids, got %s" % (where, len(op["datas"]), short(reply)))
            simulate(m, op)
            for seq, mid in zip(op["seqs"], ids[1:]):
                m["queues"][op["key"]]["msgs"][seq]["id"] = int(mid)
            if op.get("dedup"):
                m["dedup"][op["dedup"]] = {"ids": [int(x) for x in ids[1:]], "t": time.monotonic()}
            return
        if k == "qpop":
            kind, items = reply
            if kind == "error":
                raise Violation("%s: %s" % (where, short(items)))
            q = m["queues"][op["key"]]
            if kind == "notfound" and q["exists"]:
                raise Violation("%s: NOT_FOUND but the queue exists in the model" % where)
            if len(items) > op["count"]:
                raise Violation("%s: %d items for count %d" % (where, len(items), op["count"]))
            for (mid, flags, deliv, data) in items:
                msg = q_find_id(q, mid)
                if msg is None:
                    raise Violation("%s: message %d (%s) is not in the model (acked or never pushed)"
                                    % (where, mid, short(data)))
                if msg["data"] != data or flags != 0:
                    raise Violation("%s: message %d holds %s flags %d, pushed %s"
                                    % (where, mid, short(data), flags, short(msg["data"])))
                if msg["lease"] == "long":
                    raise Violation("%s: message %d delivered again while its %ds lease %s runs"
                                    % (where, mid, LONG_LEASE, msg["rcpt"]))
                if deliv <= msg["deliv"]:
                    raise Violation("%s: message %d delivery count %d, was %d before"
                                    % (where, mid, deliv, msg["deliv"]))
                msg["lease"] = "long" if op["lease"] == LONG_LEASE else "short"
                msg["rcpt"] = "%d:%d" % (mid, deliv)
                msg["deliv"] = deliv
            return
        if self.apply_more(op, reply, where):
            return
        pred = simulate(m, op)
        if k == "ctincr" and op["shared"]:
            if reply != b"STORED":
                raise Violation("%s: expected STORED, got %s" % (where, short(reply)))
            self.shared_ct_acked += op["delta"]
            return
        if k == "incr" and op["shared"]:
            if not re.fullmatch(rb"\d+", reply):
                raise Violation("%s: expected a number, got %s" % (where, short(reply)))
            self.shared_incr_acked += op["delta"]
            return
        if k in ("lmove", "lmpop"):
            if isinstance(reply, tuple):
                raise Violation("%s: %s" % (where, short(reply[1])))
            if isinstance(pred, bytes) or isinstance(reply, bytes):
                if reply != pred:
                    raise Violation("%s: expected %s, got %s" % (where, short(pred), short(reply)))
                return
            got = [(key.decode(), d) for (key, d) in reply]
            if k == "lmove":
                pred = [(op["dst"], d) for d in pred]
            if got != pred:
                raise Violation("%s: expected %s, got %s" % (where, short(pred, 300), short(got, 300)))
            return
        if k in ("lpop", "rpop"):
            if isinstance(reply, tuple):
                raise Violation("%s: %s" % (where, short(reply[1])))
            got = [d for (_key, d) in reply]
            if got != pred:
                raise Violation("%s: expected elements %s, got %s" % (where, short(pred, 300), short(got, 300)))
            return
        if reply != pred:
            raise Violation("%s: expected %s, got %s" % (where, short(pred), short(reply)))
        if k == "ctlim" and reply.startswith(b"EXCEEDED"):
            self.kinds["(ctincr EXCEEDED)"] = self.kinds.get("(ctincr EXCEEDED)", 0) + 1


    def apply_more(self, op, reply, where):
        """Live replies of the dead-letter pair and the Kestrel queue whose
        prediction needs the reply; True when handled."""
        m = self.model
        k = op["kind"]
        if k in ("dqpush", "kpush"):
            mm = re.fullmatch(rb"PUSHED (\d+)", reply)
            if not mm:
                raise Violation("%s: expected PUSHED <id>, got %s" % (where, short(reply)))
            simulate(m, op)
            (m["dq"] if k == "dqpush" else m["kq"])["msgs"][op["seq"]]["id"] = int(mm.group(1))
            return True
        if k == "dqpop":
            kind, items = reply
            if kind != "items":
                raise Violation("%s: %s" % (where, short(items)))
            if len(items) > op["count"]:
                raise Violation("%s: %d items for count %d" % (where, len(items), op["count"]))
            d = m["dq"]
            if items and op["key"].endswith("dlq"):
                d["dlq_seen"] = True
                self.kinds["(dead letters popped)"] = self.kinds.get("(dead letters popped)", 0) + len(items)
            for (mid, flags, deliv, data) in items:
                msg = next((x for x in d["msgs"].values() if x["data"] == data), None)
                if msg is None:
                    raise Violation("%s: message %d (%s) is not in the model (acked or never pushed)"
                                    % (where, mid, short(data)))
                if msg["id"] is not None and msg["id"] != mid or flags != 0:
                    raise Violation("%s: message %s came back as id %d flags %d, pushed as id %s"
                                    % (where, short(data), mid, flags, msg["id"]))
                if msg["lease"] == "long":
                    raise Violation("%s: message %d delivered again while its %ds lease %s on %s runs"
                                    % (where, mid, LONG_LEASE, msg["rcpt"], msg["q"]))
                if not op["key"].endswith("dlq") and deliv > 2:
                    raise Violation("%s: message %d delivered a %dth time by a queue with maxdeliver=2"
                                    % (where, mid, deliv))
                msg["id"] = mid
                if op["lease"] == LONG_LEASE:
                    msg["lease"], msg["rcpt"], msg["q"] = "long", "%d:%d" % (mid, deliv), op["key"]
            return True
        if k == "dqredrive":
            d = m["dq"]
            mm = re.fullmatch(rb"REDRIVEN (\d+) (\d+)", reply)
            if reply == b"NOT_FOUND" and not d["dlq_seen"]:
                return True
            if not mm or int(mm.group(2)) != 0 or int(mm.group(1)) > len(d["msgs"]):
                raise Violation("%s: expected REDRIVEN <moved> 0 with at most %d moved%s, got %s"
                                % (where, len(d["msgs"]), "" if d["dlq_seen"] else " (or NOT_FOUND)",
                                   short(reply)))
            d["dlq_seen"] = True
            self.kinds["(messages redriven)"] = self.kinds.get("(messages redriven)", 0) + int(mm.group(1))
            return True
        if k in ("kopen", "kget"):
            if isinstance(reply, tuple):
                raise Violation("%s: %s" % (where, short(reply[1])))
            kq = m["kq"]
            if len(reply) > 1:
                raise Violation("%s: %d values" % (where, len(reply)))
            if not reply:
                ready = list(kq["msgs"].values())
                if ready:
                    raise Violation("%s: END, but the model has %d message(s) ready"
                                    % (where, len(ready)))
                return True
            key, data = reply[0]
            want = op["key"] + ("/open" if k == "kopen" else "")
            msg = next((x for x in kq["msgs"].values() if x["data"] == data), None)
            if key.decode() != want or msg is None:
                raise Violation("%s: VALUE %s %s: not %s, or not a message of the model (taken or never pushed)"
                                % (where, key, short(data), want))
            if k == "kopen":
                kq["open"] = msg["seq"]
            else:
                del kq["msgs"][msg["seq"]]
            return True
        return False


class Snapshotter(threading.Thread):
    def __init__(self, run, rng):
        super().__init__(daemon=True, name="torture-snapshot")
        self.run_ = run
        self.rng = rng
        self.count = 0
        self.error = None

    def run(self):
        run = self.run_
        try:
            c = Conn(run.port)
        except OSError:
            return
        try:
            while not run.stop.wait(self.rng.uniform(0.2, 1.0)):
                if run.dead.is_set():
                    return
                try:
                    line = c.cmd("snapshot")
                except (ServerGone, socket.timeout):
                    return
                if line == b"OK":
                    self.count += 1
                elif line != b"SERVER_ERROR a snapshot is being written":
                    self.error = "snapshot answered %s" % short(line)
                    return
        finally:
            c.close()


class RunState:
    def __init__(self, port):
        self.port = port
        self.stop = threading.Event()
        self.dead = threading.Event()


# ---------------------------------------------------------------------------
# Servers


try:
    import ctypes
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except Exception:               # not Linux, or no ctypes: servers are still killed at exit
    _PRCTL = None


def _pdeathsig():
    """In the child, before exec: die with the torture process, so that even a
    torture run killed with SIGKILL leaves no server behind (PR_SET_PDEATHSIG)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)


class Server:
    seq = 0

    def __init__(self, binary, data_dir, policy, workdir, verbose):
        Server.seq += 1
        self.stderr_path = os.path.join(workdir, "server.%d.stderr" % Server.seq)
        self.data_dir = data_dir
        self.policy = policy
        self.args = [binary, "-p", "0", "-U", "0", "-l", "127.0.0.1",
                     "--data-dir", data_dir, "--fsync", policy, "--persist-items",
                     "--snapshot-min-size", "1m", "--snapshot-growth", "10", "-m", "64"]
        if verbose:
            print("  start: %s" % " ".join(self.args), flush=True)
        self.errf = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL,
                                     stdout=self.errf, stderr=self.errf,
                                     preexec_fn=_pdeathsig, start_new_session=True)
        self.pid = self.proc.pid
        self.port = None
        LIVE_SERVERS.add(self)

    def stderr_text(self, tail=40):
        try:
            with open(self.stderr_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-tail:])

    def wait_ready(self):
        """Port from 'listening on 127.0.0.1:<port>', then a version answer."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                raise Violation("the server exited with status %s at start-up on %s (--fsync %s); its stderr:\n%s"
                                % (rc, self.data_dir, self.policy, self.stderr_text()))
            if self.port is None:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.stderr_text(400))
                if m:
                    self.port = int(m.group(1))
            if self.port is not None:
                try:
                    c = Conn(self.port, timeout=5)
                    try:
                        line = c.cmd("version")
                    finally:
                        c.close()
                    if line.startswith(b"VERSION "):
                        return
                except (OSError, ServerGone):
                    pass
            time.sleep(0.02)
        raise Violation("the server did not answer version within %ds on %s (--fsync %s); its stderr:\n%s"
                        % (START_TIMEOUT, self.data_dir, self.policy, self.stderr_text()))

    def kill9(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.reap(30)

    def reap(self, seconds):
        try:
            rc = self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            return None
        self.errf.close()
        LIVE_SERVERS.discard(self)
        return rc

    def stop_clean(self):
        """SIGTERM; the server must exit 0 within 20 s."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        rc = self.reap(20)
        if rc is None:
            self.kill9()
            raise Violation("the server did not exit within 20 s of SIGTERM; its stderr:\n%s" % self.stderr_text())
        if rc != 0:
            raise Violation("the server exited with status %s after SIGTERM; its stderr:\n%s" % (rc, self.stderr_text()))


LIVE_SERVERS = set()


def kill_all_servers():
    for s in list(LIVE_SERVERS):
        try:
            os.kill(s.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            s.proc.wait(10)
        except Exception:
            pass
        LIVE_SERVERS.discard(s)


# ---------------------------------------------------------------------------
# Reading the state back and checking it


def read_state(port, models, K):
    """Everything the checks need, read over one connection (read-only verbs)."""
    c = Conn(port)
    st = {"lists": {}, "cache": {}, "queues": {}, "ct": {}}
    try:
        for tid in range(K):
            m = models[tid]
            for key in m["lists"]:
                line = c.cmd("llen %s" % key)
                if line == b"NOT_FOUND":
                    st["lists"][key] = None
                    continue
                if not re.fullmatch(rb"\d+", line):
                    raise Violation("llen %s answered %s" % (key, short(line)))
                n = int(line)
                c.send(("lrange %s 0 1000\r\n" % key).encode())
                vals = read_values(c)
                if isinstance(vals, tuple):
                    raise Violation("lrange %s answered %s" % (key, short(vals[1])))
                items = [d for (_k, d) in vals]
                if len(items) != n:
                    raise Violation("list %s: llen %d but lrange gave %d elements" % (key, n, len(items)))
                st["lists"][key] = items
            keys = sorted(m["cache"])
            c.send(("get %s\r\n" % " ".join(keys)).encode())
            vals = read_values(c)
            if isinstance(vals, tuple):
                raise Violation("get answered %s" % short(vals[1]))
            got = {k.decode(): d for (k, d) in vals}
            for key in keys:
                st["cache"][key] = got.get(key)
            for key in m["queues"]:
                st["queues"][key] = read_queue(c, key)
            st["queues"]["q%dd" % tid], st["queues"]["q%ddlq" % tid] = read_pair(c, "q%dd" % tid, "q%ddlq" % tid)
            st["queues"]["q%dk" % tid] = read_queue(c, "q%dk" % tid)
            st["ct"]["ctc%d" % tid] = read_ct(c, "ctc%d" % tid)
        c.send(b"get cshared\r\n")
        vals = read_values(c)
        st["cshared"] = vals[0][1] if vals and not isinstance(vals, tuple) else None
        for key in ["ct%d" % t for t in range(K)] + ["ctl%d" % t for t in range(K)] + ["ctshared", "ctroot"]:
            st["ct"][key] = read_ct(c, key)
        st["ttl"] = read_ttls(c)
        st["stats"] = read_stats(c)
    finally:
        c.close()
    return st


def read_ttls(c):
    """kscan of the whole keyspace: key -> TTL left (-1: none)."""
    out = {}
    line = c.cmd("kscan 0 count=10000")
    for _ in range(10000):
        while line.startswith(b"KEY "):
            p = line.split()
            if len(p) != 4:
                raise Violation("kscan: %s" % short(line))
            out[p[1].decode()] = int(p[3])
            line = c.readline()
        p = line.split()
        if len(p) != 2 or p[0] != b"CURSOR" or c.readline() != b"END":
            raise Violation("kscan: %s" % short(line))
        if p[1] == b"0":
            return out
        line = c.cmd("kscan %s" % p[1].decode())
    raise Violation("kscan never ended")


def read_ct(c, key):
    line = c.cmd("ctget %s %d 107 1" % (key, CT_COUNTER))
    if line == b"NOT_FOUND":
        return None
    p = line.split()
    if len(p) != 7 or p[0] != b"VALUE" or c.readline() != b"END":
        raise Violation("ctget %s answered %s" % (key, short(line)))
    total = int(p[5])
    line = c.cmd("ctget %s %d 104 %s" % (key, CT_COUNTER, CT_TIME))
    p2 = line.split()
    if len(p2) != 7 or p2[0] != b"VALUE" or c.readline() != b"END":
        raise Violation("ctget %s (type 104) answered %s" % (key, short(line)))
    if int(p2[5]) != total:
        raise Violation("tree counter %s: the day period holds %s but all-time holds %d (they must be equal)"
                        % (key, p2[5].decode(), total))
    return total


def read_queue_once(c, key):
    c.send(("qstats %s\r\n" % key).encode())
    stats = {}
    while True:
        line = c.readline()
        if line == b"END":
            break
        if line == b"NOT_FOUND":
            return None
        p = line.split()
        if len(p) != 3 or p[0] != b"STAT":
            raise Violation("qstats %s: %s" % (key, short(line)))
        stats[p[1].decode()] = p[2].decode()
    c.send(("qpeek %s 100\r\n" % key).encode())
    kind, items = read_qitems(c)
    if kind == "error":
        raise Violation("qpeek %s answered %s" % (key, short(items)))
    ready = [(mid, deliv, data) for (mid, _f, deliv, data) in items]
    c.send(("qpending %s values 10000\r\n" % key).encode())
    pending = []
    while True:
        line = c.readline()
        if line == b"END":
            break
        p = line.split()
        if len(p) != 6 or p[0] != b"PENDING":
            raise Violation("qpending %s: %s" % (key, short(line)))
        data = c.read_block(int(p[3]))
        pending.append((int(p[1]), int(p[4]), int(p[5]), data))
    return stats, ready, pending


def norm_listing(got):
    """What must not change between two reads (lease times left and ages do)."""
    stats, ready, pending = got
    return ([stats[k] for k in ("ready", "delayed", "in_flight", "buried")], ready,
            [(mid, deliv, data) for (mid, deliv, _ms, data) in pending])


def read_queue(c, key):
    """{exists, ready: [(id, deliv, data)], pending: [(id, deliv, lease_ms, data)]}.
    A short lease running out between the reads moves a message from in flight
    to ready: read again until qstats, qpeek and qpending agree (bounded)."""
    for attempt in range(40):
        got = read_queue_once(c, key)
        if got is None:
            return {"exists": False, "ready": [], "pending": []}
        stats, ready, pending = got
        again = read_queue_once(c, key)
        if again is None:
            raise Violation("queue %s: qstats found it, then NOT_FOUND" % key)
        if norm_listing(again) != norm_listing(got):
            time.sleep(0.1)
            continue
        total = int(stats["ready"]) + int(stats["delayed"]) + int(stats["in_flight"]) + int(stats["buried"])
        if int(stats["delayed"]) or int(stats["buried"]):
            raise Violation("queue %s: %s delayed and %s buried messages (none were ever made)"
                            % (key, stats["delayed"], stats["buried"]))
        if total != len(ready) + len(pending) or int(stats["ready"]) != len(ready):
            raise Violation("queue %s: qstats says ready %s in_flight %s, qpeek/qpending list %d and %d"
                            % (key, stats["ready"], stats["in_flight"], len(ready), len(pending)))
        ids = [x[0] for x in ready] + [x[0] for x in pending]
        if len(set(ids)) != len(ids):
            raise Violation("queue %s: a message is listed twice: ids %s" % (key, short(sorted(ids), 400)))
        return {"exists": True, "ready": ready, "pending": pending}
    raise Violation("queue %s: qstats/qpeek/qpending never agreed in 40 reads" % key)


def norm_queue(q):
    return (q["exists"], q["ready"], [(mid, deliv, data) for (mid, deliv, _ms, data) in q["pending"]])


def read_pair(c, a, b):
    """Two queues read as one: a lease running out moves a message from a to
    its dead-letter queue b between the reads; read again until two reads of
    both agree (bounded)."""
    for attempt in range(40):
        x = (read_queue(c, a), read_queue(c, b))
        y = (read_queue(c, a), read_queue(c, b))
        if [norm_queue(q) for q in x] == [norm_queue(q) for q in y]:
            return x
        time.sleep(0.1)
    raise Violation("queues %s and %s: two reads of both never agreed in 40 tries" % (a, b))


def read_stats(c):
    c.send(b"stats\r\n")
    out = {}
    while True:
        line = c.readline()
        if line == b"END":
            return out
        p = line.split(None, 2)
        if len(p) == 3 and p[0] == b"STAT":
            out[p[1].decode()] = p[2].decode()


def queue_matches(q, obs):
    """Does the observed queue fit the candidate model queue q? (reason or None)"""
    if q["exists"] != obs["exists"]:
        return "exists %s, found %s" % (q["exists"], obs["exists"])
    found = {}
    for (mid, deliv, data) in obs["ready"]:
        found[data] = ("ready", mid, deliv)
    for (mid, deliv, _ms, data) in obs["pending"]:
        found[data] = ("in_flight", mid, deliv)
    want = {m["data"]: m for m in q["msgs"].values()}
    missing = [d for d in want if d not in found]
    extra = [d for d in found if d not in want]
    if missing or extra:
        return "missing %d message(s) %s, unexpected %d message(s) %s" % (
            len(missing), short(sorted(want[d]["seq"] for d in missing), 200),
            len(extra), short([(found[d][1], d) for d in extra], 200))
    for d, m in want.items():
        state, mid, deliv = found[d]
        if m["id"] is not None and m["id"] != mid:
            return "message seq %d has id %d, was pushed as %d" % (m["seq"], mid, m["id"])
        if m["lease"] == "long":
            if state != "in_flight" or deliv != m["deliv"]:
                return "message %d leased for %ds with receipt %s is %s with %d deliveries" % (
                    mid, LONG_LEASE, m["rcpt"], state, deliv)
        elif m["lease"] is None and not q["pop_maybe"] and state != "ready":
            return "message %d was never leased but is %s" % (mid, state)
    return None


def cons_matches(msgs, take, found, what):
    """Conservation: found (data -> (queue, state, id, deliv), or a problem
    string) holds every message of msgs but at most `take` (unknown messages an
    in-flight read may have taken), and nothing else."""
    if isinstance(found, str):
        return found
    want = {m["data"]: m for m in msgs.values()}
    missing = [d for d in want if d not in found]
    extra = [d for d in found if d not in want]
    if len(missing) > take or extra:
        return "%s: missing %d message(s) %s (at most %d may be gone), unexpected %d message(s) %s" % (
            what, len(missing), short(sorted(want[d]["seq"] for d in missing), 200), take,
            len(extra), short([(found[d][0], found[d][2], d) for d in extra], 200))
    for d, m in want.items():
        if d not in found:
            continue
        qn, state, mid, deliv = found[d]
        if m["id"] is not None and m["id"] != mid:
            return "%s: message seq %d has id %d, was pushed as %d" % (what, m["seq"], mid, m["id"])
        if m.get("lease") == "long" and (qn != m["q"] or state != "in_flight"):
            return "%s: message %d leased for %ds on %s with receipt %s is %s on %s" % (
                what, mid, LONG_LEASE, m["q"], m["rcpt"], state, qn)
    return None


def collect(queues):
    found = {}
    for qn, obs in queues:
        for (mid, deliv, data) in obs["ready"]:
            if data in found:
                return "message %d (%s) is there twice (%s and %s)" % (mid, short(data), found[data][0], qn)
            found[data] = (qn, "ready", mid, deliv)
        for (mid, deliv, _ms, data) in obs["pending"]:
            if data in found:
                return "message %d (%s) is there twice (%s and %s)" % (mid, short(data), found[data][0], qn)
            found[data] = (qn, "in_flight", mid, deliv)
    return found


def dq_matches(d, obs, obs_dlq, key):
    if d["created"] != obs["exists"]:
        return "queue %s: created %s, found %s" % (key, d["created"], obs["exists"])
    if d["dlq_seen"] and not obs_dlq["exists"]:
        return "queue %slq: it was there before, and is gone" % key
    return cons_matches(d["msgs"], d["take"], collect([(key, obs), (key + "lq", obs_dlq)]),
                        "queues %s + %slq" % (key, key))


def kq_matches(kq, obs, key):
    if kq["exists"] != obs["exists"]:
        return "queue %s: exists %s, found %s" % (key, kq["exists"], obs["exists"])
    # only Kestrel open reads ever lease on q<t>k, and a restart ends them
    # all (their connections are gone): nothing is in flight
    bad = list(obs["pending"])
    if bad:
        return "queue %s: %d message(s) in flight after the restart, though only Kestrel open reads " \
               "of connections now gone leased any: %s" % (key, len(bad), short(bad, 200))
    return cons_matches(kq["msgs"], kq["take"], collect([(key, obs)]), "queue %s" % key)


def atoms(op):
    """The log records of an op, as ops: a qpushn logs each message as a qpush
    does and a qack batch each message as a qack does (doc/persistence.md,
    protocol.md), so a crash may keep the first ones of them only."""
    if op["kind"] == "qpushn":
        return [{"kind": "qpush", "key": op["key"], "data": d, "seq": q, "wire": op["wire"]}
                for d, q in zip(op["datas"], op["seqs"])]
    if op["kind"] == "qack" and len(op["rcpts"]) > 1:
        return [dict(op, rcpts=[r]) for r in op["rcpts"]]
    if op["kind"] == "lmove":
        # a missing destination's creation is logged before the move (one
        # record: the element is in exactly one of the lists)
        return [dict(op, kind="lmove_mk"), op]
    return [op]


def check_thread(cyc, tid, model, inflight, st):
    """Candidate states for every prefix of the in-flight ops (counted in log
    records, see atoms); the keys that match each. Returns (consistent prefix
    lengths, per-key report, candidates, the records)."""
    recs = [a for op in inflight for a in atoms(op)]
    cands = [copy.deepcopy(model)]
    for c in cands:
        for q in c["queues"].values():
            q["pop_maybe"] = False
        c["kq"]["take"] = c["dq"]["take"] = 0
    cur = copy.deepcopy(cands[0])
    for op in recs:
        simulate(cur, op)
        cands.append(copy.deepcopy(cur))
    keys = []
    for key in sorted(model["lists"]):
        keys.append(("list", key))
    for key in sorted(model["cache"]):
        keys.append(("cache", key))
    for key in sorted(model["queues"]):
        keys.append(("queue", key))
    keys.append(("ct", "ct%d" % tid))
    keys.append(("dq", "q%dd" % tid))
    keys.append(("kq", "q%dk" % tid))
    keys.append(("ctl", "ctl%d" % tid))
    for key in sorted(model["ttl"]):
        keys.append(("ttl", key))
    per_key = {}
    for kind, key in keys:
        ok = set()
        reasons = {}
        for j, c in enumerate(cands):
            if kind == "list":
                lst = c["lists"][key]
                want = None if lst is None else lst["items"]
                got = st["lists"][key]
                r = None if want == got else "expected %s, found %s" % (short(want, 300), short(got, 300))
            elif kind == "cache":
                want = c["cache"][key]
                got = st["cache"][key]
                r = None if want == got else "expected %s, found %s" % (short(want), short(got))
            elif kind == "queue":
                r = queue_matches(c["queues"][key], st["queues"][key])
            elif kind == "dq":
                r = dq_matches(c["dq"], st["queues"][key], st["queues"][key + "lq"], key)
            elif kind == "kq":
                r = kq_matches(c["kq"], st["queues"][key], key)
            elif kind == "ttl":
                if key.startswith("L"):
                    there = c["lists"][key] is not None
                elif key.startswith("q"):
                    there = c["queues"][key]["exists"]
                else:
                    there = c["cache"][key] is not None
                want = ("a TTL" if c["ttl"][key] else "no TTL") if there else "no key"
                t = st["ttl"].get(key)
                got = "no key" if t is None else "no TTL" if t == -1 else "a TTL" if 0 < t <= TTL else "TTL %d" % t
                r = None if want == got else "expected %s, kscan found %s" % (want, got)
            elif kind == "ctl":
                got = (st["ct"]["ctl%d" % tid], st["ct"]["ctc%d" % tid])
                want = (c["ctl_own"] + (c["ctc"] or 0), c["ctc"])
                r = None if got == want else "expected (ctl%d, ctc%d) = %s, found %s" % (tid, tid, want, got)
            else:
                got = st["ct"][key]
                r = None if got == c["ct"] else "expected %d, found %s" % (c["ct"], got)
            if r is None:
                ok.add(j)
            else:
                reasons[j] = r
        per_key[(kind, key)] = (ok, reasons)
    common = set(range(len(cands)))
    for ok, _ in per_key.values():
        common &= ok
    return common, per_key, cands, recs


def ready_order_problem(key, obs):
    seqs = []
    for (mid, _d, data) in obs["ready"]:
        m = re.match(rb"m\d+\.(\d+)\.", data)
        if not m:
            return "queue %s: ready message %d holds %s, not a pushed message" % (key, mid, short(data))
        seqs.append(int(m.group(1)))
    if seqs != sorted(seqs):
        return "queue %s: ready messages out of push order: sequence numbers %s" % (key, short(seqs, 400))
    return None


def resolve(model, cand, st):
    """The model for the next cycle: the candidate that matched, with the
    queues as found (ids of in-flight pushes, leases taken by in-flight pops)."""
    new = copy.deepcopy(cand)
    for key, q in new["queues"].items():
        obs = st["queues"][key]
        bydata = {m["data"]: m for m in q["msgs"].values()}
        for (mid, deliv, data) in obs["ready"]:
            m = bydata[data]
            m["id"] = mid
            m["deliv"] = deliv
            if m["lease"] != "long":
                m["lease"], m["rcpt"] = None, None
        for (mid, deliv, ms, data) in obs["pending"]:
            m = bydata[data]
            m["id"] = mid
            if m["lease"] == "long":
                continue
            m["deliv"] = deliv
            m["rcpt"] = "%d:%d" % (mid, deliv)
            # a lease taken by a pop in flight at the kill, or a short one still running
            m["lease"] = "long" if ms > 60000 else "unk"
        q["pop_maybe"] = False
    tid = new["tid"]
    for c, names in ((new["dq"], ("q%dd" % tid, "q%ddlq" % tid)), (new["kq"], ("q%dk" % tid,))):
        found = collect([(qn, st["queues"][qn]) for qn in names])
        keep = {}
        for seq, m in c["msgs"].items():
            if m["data"] not in found:
                continue                 # taken by a read in flight
            qn, state, mid, deliv = found[m["data"]]
            m["id"] = mid
            ms = next((x[2] for x in st["queues"][qn]["pending"] if x[0] == mid), 0)
            if state == "in_flight" and ms > 60000:
                m["lease"], m["rcpt"], m["q"] = "long", "%d:%d" % (mid, deliv), qn
            else:
                m["lease"], m["rcpt"], m["q"] = None, None, None
            keep[seq] = m
        c["msgs"] = keep
        c["take"] = 0
    new["kq"]["open"] = None             # the connection that held it is gone
    new["dq"]["dlq_seen"] = st["queues"]["q%ddlq" % tid]["exists"]
    new["seq"] = max(new["seq"], model["seq"])
    return new


# ---------------------------------------------------------------------------
# The torture run


class Torture:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.rng = random.Random(self.seed)
        self.K = args.threads
        self.verbose = args.verbose
        self.base = tempfile.mkdtemp(prefix="mcds-torture.", dir=args.tmp_dir)
        self.dir_seq = 0
        self.per_policy = {p: 0 for p in POLICIES}
        self.kinds = {}
        self.cycles = 0
        self.keep = False
        self.server = None

    def log(self, msg):
        if self.verbose:
            print("  " + msg, flush=True)

    def fail(self, cyc, policy, msg, workers=None):
        text = "VIOLATION cycle %d policy %s: %s (seed %d)" % (cyc, policy, msg, self.seed)
        print(text, flush=True)
        if self.args.keep_dir:
            self.keep = True
            for w in workers or []:
                # this cycle's requests and replies, then what was in flight at the kill
                with open(os.path.join(self.base, "transcript.t%d" % w.tid), "wb") as f:
                    for wire, reply in w.transcript:
                        f.write(b">> " + wire.replace(b"\r\n", b"\\r\\n") + b"\n")
                        f.write(b"<< " + repr(reply).encode() + b"\n")
                    for op in w.inflight:
                        f.write(b">> " + op["wire"].replace(b"\r\n", b"\\r\\n") + b"\n")
                        f.write(b"<< (in flight at the kill)\n")
            print("kept: %s (data directory %s, copy taken right after the kill: %s, server stderr server.*.stderr)"
                  % (self.base, self.data_dir, os.path.join(self.base, "crash-copy")), flush=True)
        raise SystemExit(1)

    def new_dir(self):
        self.dir_seq += 1
        self.data_dir = os.path.join(self.base, "data.%d" % self.dir_seq)
        self.dir_left = self.rng.randint(3, 8)
        self.models = [new_model(t) for t in range(self.K)]
        self.shared_ct = 0
        self.shared_incr = 1000
        self.fresh = True
        self.log("new data directory %s for %d cycles" % (self.data_dir, self.dir_left))

    def setup(self, port):
        c = Conn(port)
        try:
            want = [("ctdef %d 104:0,107" % CT_COUNTER, b"CREATED"),
                    ("ctobj ctroot", b"CREATED"),
                    ("ctobj ctshared parent=ctroot", b"CREATED")]
            want += [("ctobj ct%d parent=ctroot" % t, b"CREATED") for t in range(self.K)]
            want += [("ctobj ctl%d parent=ctroot limits=%d:104:%d" % (t, CT_COUNTER, CT_LIMIT), b"CREATED")
                     for t in range(self.K)]
            want += [("ctobj ctc%d parent=ctl%d" % (t, t), b"CREATED") for t in range(self.K)]
            for line, exp in want:
                got = c.cmd(line)
                if got != exp:
                    raise Violation("setup: %s answered %s" % (line, short(got)))
            got = c.cmd("set cshared 0 0 4", b"1000")
            if got != b"STORED":
                raise Violation("setup: set cshared answered %s" % short(got))
        finally:
            c.close()

    def start(self, policy):
        s = Server(self.args.server, self.data_dir, policy, self.base, self.verbose)
        self.server = s
        s.wait_ready()
        return s

    def check_recovery(self, cyc, policy, workers, st, after_crash):
        """Checks the state read back; returns the resolved models."""
        for name in REQUIRED_STATS:
            if name not in st["stats"]:
                self.fail(cyc, policy, "stat %s is missing from stats (doc/persistence.md, Monitoring)" % name)
            if st["stats"][name] != "0":
                self.fail(cyc, policy, "stat %s is %s after the restart (want 0); server stderr:\n%s"
                          % (name, st["stats"][name], self.server.stderr_text()))
        what = "after kill -9" if after_crash else "after a restart with nothing in flight"
        new_models = []
        self.applied = [0, 0]
        ct_lo = ct_hi = self.shared_ct
        in_lo = in_hi = self.shared_incr
        for tid in range(self.K):
            model = self.models[tid]
            w = workers[tid] if workers else None
            inflight = w.inflight if w else []
            common, per_key, cands, recs = check_thread(cyc, tid, model, inflight, st)
            for (kind, key), (ok, reasons) in per_key.items():
                if not ok:
                    msg = ("%s: key %s (%s) matches no prefix of thread %d's %d op(s) in flight: "
                           "with none applied %s; with all applied %s; in flight: %s"
                           % (what, key, kind, tid, len(inflight), reasons.get(0),
                              reasons.get(len(recs)), short([op["wire"] for op in inflight], 600)))
                    self.fail(cyc, policy, msg, workers)
            if not common:
                desc = "; ".join("%s: %s" % (key, sorted(ok)) for (kind, key), (ok, _r) in per_key.items())
                self.fail(cyc, policy, "%s: thread %d's keys were restored to different prefixes of its %d op(s) "
                          "in flight (a later change there without an earlier one): prefixes per key: %s; in flight: %s"
                          % (what, tid, len(inflight), desc, short([op["wire"] for op in inflight], 600)),
                          workers)
            for key in model["queues"]:
                p = ready_order_problem(key, st["queues"][key])
                if p:
                    self.fail(cyc, policy, "%s: %s" % (what, p), workers)
            # shared counters: this thread's acknowledged deltas, plus those of its
            # in-flight ops up to a prefix length its own keys allow
            sct = [0]
            sin = [0]
            for op in recs:
                sct.append(sct[-1] + (op["delta"] if op["kind"] == "ctincr" and op["shared"] else 0))
                sin.append(sin[-1] + (op["delta"] if op["kind"] == "incr" and op["shared"] else 0))
            a_ct = w.shared_ct_acked if w else 0
            a_in = w.shared_incr_acked if w else 0
            ct_lo += a_ct + min(sct[j] for j in common)
            ct_hi += a_ct + max(sct[j] for j in common)
            in_lo += a_in + min(sin[j] for j in common)
            in_hi += a_in + max(sin[j] for j in common)
            new_models.append(resolve(model, cands[max(common)], st))
            self.applied[0] += min(common)
            self.applied[1] += max(common)
        # the brief bounds as well: [acknowledged sum, sent sum]
        sent_ct = self.shared_ct + sum((w.shared_ct_acked + sum(op["delta"] for op in w.inflight
                                        if op["kind"] == "ctincr" and op["shared"])) for w in (workers or []))
        got = st["ct"]["ctshared"]
        if got is None or not (ct_lo <= got <= ct_hi):
            self.fail(cyc, policy, "%s: key ctshared (tree counter %d, all time): expected between %d "
                      "(acknowledged, plus in-flight deltas the threads' own keys say were applied) and %d, "
                      "found %s (acknowledged only %d, sent %d)"
                      % (what, CT_COUNTER, ct_lo, ct_hi, got,
                         self.shared_ct + sum(w.shared_ct_acked for w in (workers or [])), sent_ct), workers)
        cs = st["cshared"]
        if cs is None or not re.fullmatch(rb"\d+", cs) or not (in_lo <= int(cs) <= in_hi):
            self.fail(cyc, policy, "%s: key cshared (cache value, incr by every thread): expected between %d and %d, found %s"
                      % (what, in_lo, in_hi, short(cs)), workers)
        kids = ([st["ct"]["ct%d" % t] for t in range(self.K)] + [st["ct"]["ctl%d" % t] for t in range(self.K)]
                + [st["ct"]["ctshared"]])
        if st["ct"]["ctroot"] != sum(kids):
            self.fail(cyc, policy, "%s: key ctroot (parent of every tree-counter leaf) holds %s, its children %s (sum %d)"
                      % (what, st["ct"]["ctroot"], kids, sum(kids)), workers)
        self.models = new_models
        self.shared_ct = got
        self.shared_incr = int(cs)

    def check_dir(self, cyc, policy):
        """--check-data-dir on the copy taken right after the kill."""
        try:
            r = subprocess.run([self.args.server, "--check-data-dir", self.copy_dir],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
        except subprocess.TimeoutExpired:
            self.fail(cyc, policy, "--check-data-dir %s took more than 60 s" % self.copy_dir)
        if r.returncode != 0:
            self.fail(cyc, policy, "--check-data-dir on the directory as the kill left it exited %d:\n%s"
                      % (r.returncode, r.stdout.decode("utf-8", "replace")))

    def cycle(self, cyc, policy, deadline):
        args = self.args
        if self.data_dir is None or self.dir_left <= 0:
            self.new_dir()
        self.dir_left -= 1
        try:
            s = self.start(policy)
            if self.fresh:
                self.setup(s.port)
                self.fresh = False
            else:
                # the previous cycle left it verified and stopped: the same state
                # must come back, under this cycle's policy
                st = read_state(s.port, self.models, self.K)
                self.check_recovery(cyc, policy, None, st, after_crash=False)
        except Violation as e:
            self.fail(cyc, policy, str(e))
        run = RunState(s.port)
        workers = []
        for tid in range(self.K):
            rng = random.Random("%d/%d/%d" % (self.seed, cyc, tid))
            workers.append(Worker(run, tid, self.models[tid], rng))
        snap = Snapshotter(run, random.Random("%d/%d/snap" % (self.seed, cyc)))
        for w in workers:
            w.start()
        snap.start()
        delay = self.rng.uniform(0.3, 3.0)
        t0 = time.monotonic()
        # sleep in small steps so a worker's violation ends the cycle early
        while time.monotonic() - t0 < delay:
            time.sleep(0.05)
            if any(w.error for w in workers) or s.proc.poll() is not None:
                break
        if s.proc.poll() is not None:
            run.stop.set()
            self.fail(cyc, policy, "the server died by itself (status %s) before the kill; its stderr:\n%s"
                      % (s.proc.returncode, s.stderr_text()))
        s.kill9()
        killed_after = time.monotonic() - t0
        run.dead.set()
        run.stop.set()
        for w in workers:
            w.join(READ_TIMEOUT + 10)
            if w.is_alive():
                self.fail(cyc, policy, "client thread %d did not finish after the kill" % w.tid)
        snap.join(READ_TIMEOUT + 10)
        errors = [w.error for w in workers if w.error]
        if snap.error:
            errors.append(snap.error)
        if errors:
            self.fail(cyc, policy, "; ".join(errors), workers)
        acked = sum(w.acked for w in workers)
        inflight = sum(len(w.inflight) for w in workers)
        # a copy of the directory as the kill left it (for --keep-dir and the checker)
        self.copy_dir = os.path.join(self.base, "crash-copy")
        shutil.rmtree(self.copy_dir, ignore_errors=True)
        shutil.copytree(self.data_dir, self.copy_dir)
        self.check_dir(cyc, policy)
        if args.self_test:
            self.sabotage(args.self_test, workers)
        try:
            s2 = self.start(policy)
            st = read_state(s2.port, self.models, self.K)
            self.check_recovery(cyc, policy, workers, st, after_crash=True)
            rec = "snapshot entries %s, log records %s, %s ms" % (
                st["stats"].get("persist_snapshot_entries_loaded"),
                st["stats"].get("persist_records_replayed"), st["stats"].get("persist_recovery_ms"))
            if self.rng.random() < 0.5:
                s2.stop_clean()
            else:
                s2.kill9()
        except Violation as e:
            self.fail(cyc, policy, str(e), workers)
        self.cycles += 1
        self.per_policy[policy] += 1
        for w in workers:
            for k, n in w.kinds.items():
                self.kinds[k] = self.kinds.get(k, 0) + n
        print("cycle %d policy %s killed after %.2fs: ops acked %d, in flight %d, ok%s"
              % (cyc, policy, killed_after, acked, inflight,
                 (" (in flight applied: %d..%d; snapshots taken on request %d; directory %d; recovery: %s)"
                  % (self.applied[0], self.applied[1], snap.count, self.dir_seq, rec)) if self.verbose else ""),
              flush=True)

    def sabotage(self, how, workers):
        """--self-test: break the directory or the model so that the checker must complain."""
        if how == "drop-log":
            logs = sorted(f for f in os.listdir(self.data_dir) if f.startswith("log."))
            victim = os.path.join(self.data_dir, logs[-1])
            # keep the file (a missing file stops the start-up) but lose its records
            with open(victim, "r+b") as f:
                f.truncate(0)
            print("self-test: emptied %s" % victim, flush=True)
        elif how == "delete-log":
            logs = sorted(f for f in os.listdir(self.data_dir) if f.startswith("log."))
            victim = os.path.join(self.data_dir, logs[-1])
            os.unlink(victim)
            print("self-test: deleted %s" % victim, flush=True)
        elif how == "model":
            # in-flight ops only add to ct0, so no prefix of them can match
            self.models[0]["ct"] += 1000000
            print("self-test: the model of thread 0 now says ct0 holds 1000000 more than was sent", flush=True)
        elif how == "cons":
            # a message that was never pushed: the queue pair q0d + q0dlq misses it
            self.models[0]["dq"]["msgs"][-1] = {"seq": -1, "data": b"never pushed", "id": None,
                                                "lease": None, "rcpt": None, "q": None}
            print("self-test: the model of thread 0 now holds a message q0d never got", flush=True)
        elif how == "ttl":
            # flip the TTL flag of every key of thread 0 that touch works on
            for key in self.models[0]["ttl"]:
                self.models[0]["ttl"][key] = not self.models[0]["ttl"][key]
            print("self-test: the model of thread 0 now says the opposite of each TTL", flush=True)
        elif how == "drop-ack":
            for w in workers:
                for q in w.model["queues"].values():
                    for msg in q["msgs"].values():
                        if msg["lease"] == "long":
                            msg["lease"] = None
                            print("self-test: forgot that message %s is leased" % msg["id"], flush=True)
                            return

    def main(self):
        args = self.args
        policies = args.policies
        t_start = time.monotonic()
        deadline = t_start + args.seconds
        self.data_dir = None
        self.dir_left = 0
        print("torture: seed %d, %d s, policies %s, %d client threads, server %s"
              % (self.seed, args.seconds, ",".join(policies), self.K, args.server), flush=True)
        cyc = 0
        while True:
            if args.cycles and cyc >= args.cycles:
                break
            if cyc > 0 and time.monotonic() > deadline - 8:
                break
            cyc += 1
            self.cycle(cyc, policies[(cyc - 1) % len(policies)], deadline)
        # the last directory: stop its last server (already stopped by the cycle)
        elapsed = time.monotonic() - t_start
        if self.verbose:
            print("  acknowledged ops by kind: %s" % ", ".join(
                "%s %d" % (k, n) for k, n in sorted(self.kinds.items())), flush=True)
        print("torture: %d cycles (always %d, everysec %d, no %d), 0 violations, seed %d, %.0f s"
              % (self.cycles, self.per_policy["always"], self.per_policy["everysec"],
                 self.per_policy["no"], self.seed, elapsed), flush=True)

    def cleanup(self):
        kill_all_servers()
        if not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description="kill -9 crash-consistency torture test for mcds persistence")
    p.add_argument("--server", default=os.path.join(REPO, "server", "mcds-server"),
                   help="mcds-server binary (default: server/mcds-server of this tree)")
    p.add_argument("--seconds", type=float, default=float(os.environ.get("TORTURE_SECONDS", 120)),
                   help="time bound of the run (default 120, or $TORTURE_SECONDS)")
    p.add_argument("--cycles", type=int, default=0, help="stop after this many cycles")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random, printed)")
    p.add_argument("--policies", default="always,everysec,no",
                   help="--fsync policies, rotated per cycle (default always,everysec,no)")
    p.add_argument("--threads", type=int, default=6, help="client threads (default 6)")
    p.add_argument("--keep-dir", action="store_true",
                   help="keep the scratch directory of a failing cycle and print its path")
    p.add_argument("--tmp-dir", default=None, help="where the scratch directory goes (default: $TMPDIR or /tmp)")
    p.add_argument("--self-test", choices=("drop-log", "delete-log", "model", "drop-ack", "cons", "ttl"), default=None,
                   help="after each kill, break the directory (drop-log: empty the newest log file; delete-log: remove it) "
                        "or the model (model: ct0 off by 1000000; drop-ack: forget a lease; cons: a message q0d "
                        "never got; ttl: every TTL of thread 0 flipped): the run must "
                        "report a violation and exit 1")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    args.policies = [x for x in args.policies.split(",") if x]
    for x in args.policies:
        if x not in POLICIES:
            p.error("unknown policy %r (always, everysec, no)" % x)
    if not args.policies:
        p.error("--policies is empty")
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2 ** 31)
    if args.seconds <= 0:
        p.error("--seconds must be positive")
    if not (os.path.isfile(args.server) and os.access(args.server, os.X_OK)):
        p.error("no executable server at %s" % args.server)
    args.server = os.path.abspath(args.server)
    return args


def main(argv):
    args = parse_args(argv)
    t = Torture(args)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt()
    # SIGINT too: a shell starts a background job with SIGINT ignored
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    # a watchdog: a run that overstays its bound by far is a hang, not a pass
    limit = args.seconds + 300

    def watchdog():
        time.sleep(limit)
        print("torture: still running %.0f s after the start (seed %d): a hang; giving up"
              % (limit, args.seed), flush=True)
        kill_all_servers()
        os._exit(1)
    threading.Thread(target=watchdog, daemon=True).start()

    try:
        t.main()
        rc = 0
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
    except KeyboardInterrupt:
        print("torture: interrupted (seed %d)" % args.seed, flush=True)
        rc = 130
    finally:
        t.cleanup()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
