"""The tree-counter verbs (doc/protocol.md, "5. Tree counters"): ctdef,
ctcounter, ctcounters, ctundef, ctobj, ctlimits, ctraise, ctinfo,
ctchildren, ctincr, ctincrn, ctget, ctvalues, ctperiods and ctactive.

A period type is its code (an int: 104 is one day); a time or period is
text in the type's format ("2021031514") or an int of Unix seconds (sent
as "@<seconds>"). Keys and periods read back are bytes.
"""

from collections import namedtuple

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .errors import LimitExceeded, NotFound
from .queues import Page

#: One value: the period's ``value`` (rounded to the quantization step)
#: and the rest, ``fraction``; their sum is the exact total.
Value = namedtuple("Value", "key counter type period value fraction")

#: A counter's definition: ``types`` as written ("104:30,305:0:m").
Counter = namedtuple("Counter", "id types aggregate quantize objects")

#: An object: parent is None for a root; limits maps (counter, type) to max.
Object = namedtuple("Object", "key parent quantize children changed limits")

#: An active period of ``ctperiods``: how many objects hold a value in it.
Period = namedtuple("Period", "counter type period objects")

#: An object of ``ctactive`` and the Unix time an increment last reached it.
Active = namedtuple("Active", "key changed")


def _time(value, what="time"):
    """A time or period: text as given, or an int of Unix seconds."""
    if isinstance(value, int) and not isinstance(value, bool):
        return b"@" + wire.integer(value, what)
    return wire.token(value, what, 32)


def _types(types):
    """ctdef's list: a str as given, or a list of codes, "code:keep[:m]"
    strings or (code, keep[, manual]) tuples."""
    if isinstance(types, str):
        return wire.token(types, "types", 1024)
    out = []
    for t in types:
        if isinstance(t, tuple):
            code, keep, *manual = t
            text = b"%s:%s" % (wire.integer(code, "type"), wire.integer(keep, "keep"))
            out.append(text + (b":m" if manual and manual[0] else b""))
        elif isinstance(t, int):
            out.append(wire.integer(t, "type"))
        else:
            out.append(wire.token(t, "type", 32))
    return wire.token(b",".join(out), "types", 1024)


def _limits(limits):
    """limits=: a dict {(counter, type): max} or a list of (counter, type,
    max); a max of None removes (ctraise) or leaves out the limit."""
    items = limits.items() if isinstance(limits, dict) else (((c, t), m) for c, t, m in limits)
    out = []
    for (counter, type_code), top in items:
        top = b"-" if top is None else wire.integer(top, "max")
        out.append(b"%s:%s:%s" % (wire.integer(counter, "counter"), wire.integer(type_code, "type"), top))
    return b" limits=" + b",".join(out) if out else b""


def _list_option(name, value):
    """counters=/periods=: a str as given ("1-5"), or a list joined by commas."""
    if value is None:
        return b""
    if not isinstance(value, (str, bytes)):
        value = b",".join(_time(v, name) if name == "periods" else wire.integer(v, name)
                          for v in value)
    return b" %s=%s" % (name.encode(), wire.token(value, name, 8192))


def _value(line, reply):
    parts = line.split(b" ")
    if parts[0] != b"VALUE" or len(parts) != 7:
        reply.unexpected(line)
    return Value(parts[1], int(parts[2]), int(parts[3]), parts[4], int(parts[5]), int(parts[6]))


def _page(reply, prefix, row, missing=None):
    """Rows "<prefix> ..." up to END with an optional MORE line: a Page.
    NOT_FOUND as the first line raises NotFound(missing)."""
    items, more = [], None
    while True:
        line = reply.line()
        if line == b"END":
            return Page(items, more)
        if line == b"NOT_FOUND" and not items and missing is not None:
            raise NotFound(missing)
        parts = line.split(b" ", 1)
        if parts[0] == b"MORE" and len(parts) == 2:
            more = parts[1]
        elif parts[0] == prefix:
            items.append(row(line))
        else:
            reply.unexpected(line)


class CounterVerbs:
    """The tree-counter verbs of ``mcds.Client``."""

    # ---- counters ----

    def ctdef(self, counter, types, aggregate=None, quantize=None):
        """Defines a counter storing the period types given: True, or False
        if the id is taken (its settings unchanged)."""
        line = b"ctdef %s %s" % (wire.integer(counter, "counter"), _types(types))
        if aggregate is not None:
            line += b" aggregate=%d" % (1 if aggregate else 0)
        line += wire.options(quantize=quantize)
        return self._mcds_simple(line, {b"CREATED": True, b"EXISTS": False})

    def ctcounter(self, counter):
        """A counter's definition (Counter), or None if there is none."""
        def read(reply):
            line = reply.line()
            if line == b"NOT_FOUND":
                return None
            found = self._counter_row(line, reply)
            if reply.line() != b"END":
                reply.unexpected(line)
            return found
        return self._mcds_call(b"ctcounter " + wire.integer(counter, "counter"), read=read)

    @staticmethod
    def _counter_row(line, reply):
        parts = line.split(b" ")
        if parts[0] != b"COUNTER" or len(parts) != 6:
            reply.unexpected(line)
        opts = dict(p.split(b"=", 1) for p in parts[3:])
        return Counter(int(parts[1]), parts[2].decode(), int(opts[b"aggregate"]),
                       int(opts[b"quantize"]), int(opts[b"objects"]))

    def ctcounters(self, count=None, after=None):
        """One page of the counters by id: a Page of Counter (more: an int)."""
        line = b"ctcounters" + wire.options(count=count, after=after)

        def read(reply):
            page = _page(reply, b"COUNTER", lambda l: self._counter_row(l, reply))
            return Page(page.items, None if page.more is None else int(page.more))
        return self._mcds_call(line, read=read)

    def ctundef(self, counter):
        """Deletes a counter no object uses: True, or False if there is none."""
        return self._mcds_simple(b"ctundef " + wire.integer(counter, "counter"),
                                 {b"DELETED": True, b"NOT_FOUND": False})

    # ---- objects ----

    def ctobj(self, key, parent=None, quantize=None, limits=None):
        """Creates an object: True, or False if it exists (nothing changes).
        NotFound when the parent does not exist."""
        line = b"ctobj " + wire.key(key)
        if parent is not None:
            line += b" parent=" + wire.key(parent, "parent")
        line += wire.options(quantize=quantize) + (_limits(limits) if limits else b"")
        reply = self._mcds_call(line)
        if reply in (b"CREATED", b"EXISTS"):
            return reply == b"CREATED"
        if reply == b"NOT_FOUND":
            raise NotFound("ctobj: no parent %r" % (parent,))
        return self._mcds_unexpected(line, reply)

    def _stored(self, line, key):
        reply = self._mcds_call(line)
        if reply == b"STORED":
            return True
        if reply == b"NOT_FOUND":
            raise NotFound("no object %r" % (key,))
        return self._mcds_unexpected(line, reply)

    def ctlimits(self, key, quantize=None, limits=None):
        """Sets the object's limits to exactly limits (none if left out) and,
        if given, its quantization step: True; NotFound for no object."""
        line = b"ctlimits " + wire.key(key) + wire.options(quantize=quantize)
        return self._stored(line + (_limits(limits) if limits else b""), key)

    def ctraise(self, key, limits):
        """Raises each limit given by its amount (None removes it): True;
        NotFound for no object."""
        if not limits:
            raise MemcacheIllegalInputError("ctraise: no limits")
        return self._stored(b"ctraise " + wire.key(key) + _limits(limits), key)

    def ctinfo(self, key):
        """The object (Object), or None if there is none."""
        def read(reply):
            line = reply.line()
            if line == b"NOT_FOUND":
                return None
            parts = line.split(b" ")
            if parts[0] != b"OBJECT" or len(parts) != 6:
                reply.unexpected(line)
            limits = {}
            for row in reply.rows(lambda l: l.split(b" ")):
                if row[0] != b"LIMIT" or len(row) != 4:
                    reply.unexpected(b" ".join(row))
                limits[(int(row[1]), int(row[2]))] = int(row[3])
            parent = None if parts[2] == b"-" else parts[2]
            return Object(parts[1], parent, int(parts[3]), int(parts[4]), int(parts[5]), limits)
        return self._mcds_call(b"ctinfo " + wire.key(key), read=read)

    def ctchildren(self, key, count=None, after=None):
        """One page of the object's children, most recent first: a Page of
        keys. NotFound for no object (or no such after= child)."""
        line = b"ctchildren " + wire.key(key) + wire.options(count=count)
        if after is not None:
            line += b" after=" + wire.key(after, "after")
        return self._mcds_call(line, read=lambda r: _page(
            r, b"CHILD", lambda l: l.split(b" ", 1)[1], "ctchildren %r" % (key,)))

    # ---- values ----

    def ctincr(self, key, counter, type, time, delta, values=False):
        """Adds delta to the period of type holding time, in the object, the
        coarser types and (aggregating counters) the ancestors: True, or
        with values=True the new values (a list of Value, the object's
        first). LimitExceeded when a limit refuses it, NotFound for no
        object; nothing changes then."""
        line = b"ctincr %s %s %s %s %s" % (
            wire.key(key), wire.integer(counter, "counter"), wire.integer(type, "type"),
            _time(time), wire.integer(delta, "delta"))
        if values:
            line += b" values"

        def read(reply):
            first = reply.line()
            if first == b"STORED" and not values:
                return True
            if first == b"NOT_FOUND":
                raise NotFound("ctincr: no object %r" % (key,))
            parts = first.split(b" ")
            if parts[0] == b"EXCEEDED" and len(parts) == 4:
                raise LimitExceeded(parts[1], int(parts[2]), parts[3])
            if not values:
                reply.unexpected(first)
            return [_value(first, reply)] + reply.rows(lambda l: _value(l, reply))
        return self._mcds_call(line, read=read)

    def ctincrn(self, increments, values=False):
        """Several increments as one unit: increments is a list of (key,
        counter, type, time, delta), 1 to 100 of them, applied all or none
        (each checked against the values the ones before it leave) and
        logged as one record. True, or with values=True the new values (a
        list of Value: for each increment its object's, then its
        ancestors'). LimitExceeded (with .index) when a limit refuses one,
        NotFound when one's object is missing; nothing changes then."""
        increments = list(increments)
        if not 1 <= len(increments) <= 100:
            raise MemcacheIllegalInputError("ctincrn takes 1 to 100 increments")
        parts = [b"ctincrn"]
        for key, counter, type_code, time, delta in increments:
            parts.append(b"%s %s %s %s %s" % (
                wire.key(key), wire.integer(counter, "counter"), wire.integer(type_code, "type"),
                _time(time), wire.integer(delta, "delta")))
        if values:
            parts.append(b"values")
        line = b" ".join(parts)

        def read(reply):
            first = reply.line()
            if first == b"STORED" and not values:
                return True
            parts = first.split(b" ")
            if parts[0] == b"NOT_FOUND" and len(parts) == 2:
                n = int(parts[1]) - 1
                raise NotFound("ctincrn: no object %r (increment %d)" % (increments[n][0], n))
            if parts[0] == b"EXCEEDED" and len(parts) == 5:
                raise LimitExceeded(parts[1], int(parts[2]), parts[3], int(parts[4]) - 1)
            if not values:
                reply.unexpected(first)
            if first == b"END":
                return []
            return [_value(first, reply)] + reply.rows(lambda l: _value(l, reply))
        return self._mcds_call(line, read=read)

    def ctget(self, key, counter, type, period):
        """One period's Value (0 0 when never changed), or None for no object."""
        line = b"ctget %s %s %s %s" % (wire.key(key), wire.integer(counter, "counter"),
                                       wire.integer(type, "type"), _time(period, "period"))

        def read(reply):
            first = reply.line()
            if first == b"NOT_FOUND":
                return None
            found = _value(first, reply)
            end = reply.line()
            if end != b"END":
                reply.unexpected(end)
            return found
        return self._mcds_call(line, read=read)

    @staticmethod
    def _filters(counters, type, periods, scan, count, after):
        line = _list_option("counters", counters)
        line += wire.options(type=type) + _list_option("periods", periods)
        line += wire.options(scan=scan, count=count)
        if after is not None:
            line += b" after=" + wire.token(after, "after", 64)
        return line

    def ctvalues(self, key, counters=None, type=None, periods=None, scan=None, count=None,
                 after=None):
        """One page of the object's non-zero values: a Page of Value (more:
        "counter:type:period" bytes). NotFound for no object."""
        line = b"ctvalues " + wire.key(key) + self._filters(counters, type, periods, scan,
                                                            count, after)
        return self._mcds_call(line, read=lambda r: _page(
            r, b"VALUE", lambda l: _value(l, r), "ctvalues %r" % (key,)))

    def ctperiods(self, counters=None, type=None, periods=None, scan=None, count=None,
                  after=None):
        """One page of the active periods: a Page of Period."""
        line = b"ctperiods" + self._filters(counters, type, periods, scan, count, after)

        def row(line):
            p = line.split(b" ")
            return Period(int(p[1]), int(p[2]), p[3], int(p[4]))
        return self._mcds_call(line, read=lambda r: _page(r, b"PERIOD", row))

    def ctactive(self, since=None, count=None, after=None):
        """One page of the objects changed at or after since (Unix seconds;
        default the last 24 hours), most recent first: a Page of Active.
        NotFound when the after= object does not exist."""
        line = b"ctactive" + wire.options(since=since, count=count)
        if after is not None:
            line += b" after=" + wire.key(after, "after")

        def row(line):
            p = line.split(b" ")
            return Active(p[1], int(p[2]))
        return self._mcds_call(line, read=lambda r: _page(r, b"ACTIVE", row, "ctactive after"))
