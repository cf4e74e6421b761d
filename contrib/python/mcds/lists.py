"""The list verbs (doc/protocol.md, "6. Lists"): lcreate, lpush, rpush,
lpushx, rpushx, lpop, rpop, lmpop, lmove, llen, lrange, lindex, lset,
linsert, ltrim, lrem, lexists and lpos.

Elements are bytes in and bytes out (str is sent as UTF-8). Every value
travels as a length on the command line and a data block after it, so
any bytes, "\\r\\n" included, are data and never a command.
"""

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .errors import Full


class ListVerbs:
    """The list verbs of ``mcds.Client``."""

    def _read_values(self, reply):
        """VALUE lines and their data up to END: a list of bytes."""
        def value(line):
            parts = line.split(b" ")
            if parts[0] != b"VALUE" or len(parts) != 4:
                reply.unexpected(line)
            return reply.block(int(parts[3]))
        return reply.rows(value)

    def _values(self, line, wait=None):
        return self._mcds_call(line, wait=wait, read=self._read_values)

    def _length(self, line, blocks, full_name):
        """A reply "<n>" (the new length): n; NOT_STORED raises Full;
        NOT_FOUND is None."""
        reply = self._mcds_call(line, blocks)
        if reply.isdigit():
            return int(reply)
        if reply == b"NOT_STORED":
            raise Full("%s is at its maxlen" % (full_name,))
        if reply == b"NOT_FOUND":
            return None
        return self._mcds_unexpected(line, reply)

    def lcreate(self, key, maxlen=None):
        """Creates an empty list: True, or False if it exists (its maxlen
        unchanged). maxlen caps its length (0: no cap)."""
        line = b"lcreate " + wire.key(key) + wire.options(maxlen=maxlen)
        return self._mcds_simple(line, {b"CREATED": True, b"EXISTS": False})

    def _push(self, verb, key, values):
        blocks = [wire.data(v) for v in values]
        if not blocks:
            raise MemcacheIllegalInputError("%s: no value" % verb)
        line = b"%s %s " % (verb.encode(), wire.key(key))
        line += b" ".join(b"%d" % len(b) for b in blocks)
        return self._length(line, blocks, key)

    def lpush(self, key, *values):
        """Pushes values (1 to 64) at the head, each in turn (lpush(k, a, b)
        makes the list b a): the new length. All or nothing: Full when the
        list's maxlen cannot take them all."""
        return self._push("lpush", key, values)

    def rpush(self, key, *values):
        """Pushes values (1 to 64) at the tail: the new length (Full as lpush)."""
        return self._push("rpush", key, values)

    def _pop(self, verb, key, count, wait):
        line = b"%s %s" % (verb, wire.key(key))
        if count is not None:
            line += b" " + wire.integer(count, "count")
        return self._values(line + wire.options(wait=wait), wait=wait)

    def lpop(self, key, count=None, wait=None):
        """Removes and returns up to count (1..1000, default 1) elements from
        the head: a list of bytes ([] for an empty or missing list). With
        wait (seconds) an empty list waits for a push."""
        return self._pop(b"lpop", key, count, wait)

    def rpop(self, key, count=None, wait=None):
        """As lpop, from the tail (tail first)."""
        return self._pop(b"rpop", key, count, wait)

    def llen(self, key):
        """The number of elements, or None when there is no list."""
        return self._mcds_count(b"llen " + wire.key(key), b"")

    def lrange(self, key, offset=0, limit=1000):
        """Up to limit (0..1000) elements from offset (negative: from the
        tail) towards the tail: a list of bytes."""
        return self._values(b"lrange %s %s %s" % (wire.key(key), wire.integer(offset, "offset"),
                                                  wire.integer(limit, "limit")))

    def lindex(self, key, index):
        """The element at index (bytes), or None when out of range or no list."""
        values = self._values(b"lindex %s %s" % (wire.key(key), wire.integer(index, "index")))
        return values[0] if values else None

    def lset(self, key, index, value):
        """Replaces the element at index: True, or False when out of range
        or no list."""
        value = wire.data(value)
        line = b"lset %s %s %d" % (wire.key(key), wire.integer(index, "index"), len(value))
        return self._mcds_simple(line, {b"STORED": True, b"NOT_FOUND": False}, [value])

    def linsert(self, key, where, pivot, value):
        """Inserts value before or after (where: "before" or "after") the
        first element equal to pivot: the new length, or None when no
        element equals pivot or there is no list; Full at maxlen."""
        if where not in ("before", "after"):
            raise MemcacheIllegalInputError("linsert: where must be 'before' or 'after'")
        pivot, value = wire.data(pivot), wire.data(value)
        line = b"linsert %s %s %d %d" % (wire.key(key), where.encode(), len(pivot), len(value))
        return self._length(line, [pivot, value], key)

    def ltrim(self, key, offset, limit):
        """Keeps limit elements from offset, removes the rest: how many were
        removed, or None when there is no list."""
        return self._mcds_count(b"ltrim %s %s %s" % (wire.key(key), wire.integer(offset, "offset"),
                                                     wire.integer(limit, "limit")), b"")

    def lrem(self, key, count, value):
        """Removes elements equal to value: the first count from the head
        (count > 0), the last -count from the tail (< 0), or all (0). How
        many were removed, or None when there is no list."""
        value = wire.data(value)
        line = b"lrem %s %s %d" % (wire.key(key), wire.integer(count, "count"), len(value))
        return self._mcds_count(line, b"", [value])

    def lexists(self, key, value):
        """True if an element equals value, else False; None when there is
        no list."""
        value = wire.data(value)
        line = b"lexists %s %d" % (wire.key(key), len(value))
        return self._mcds_simple(line, {b"1": True, b"0": False, b"NOT_FOUND": None}, [value])

    def lpushx(self, key, *values):
        """As lpush, but only to a list that exists: the new length, or None
        (nothing created) when there is none."""
        return self._push("lpushx", key, values)

    def rpushx(self, key, *values):
        """As rpush, but only to a list that exists (None when there is none)."""
        return self._push("rpushx", key, values)

    @staticmethod
    def _end(end, what):
        if end not in ("left", "right"):
            raise MemcacheIllegalInputError("%s must be 'left' or 'right'" % what)
        return end.encode()

    def lmove(self, src, dst, src_end="left", dst_end="right", wait=None):
        """Moves one element from src's end to dst's end in one step (Redis's
        LMOVE; with wait, BLMOVE): the element (bytes), or None when src is
        empty or missing (or the wait ran out). Full when dst is at its
        maxlen (the element stays in src)."""
        line = b"lmove %s %s %s %s" % (wire.key(src), wire.key(dst), self._end(src_end, "src_end"),
                                       self._end(dst_end, "dst_end"))
        line += wire.options(wait=wait)

        def read(reply):
            first = reply.line()
            if first == b"END":
                return None
            if first == b"NOT_STORED":
                raise Full("%s is at its maxlen" % (dst,))
            parts = first.split(b" ")
            if parts[0] != b"VALUE" or len(parts) != 4:
                reply.unexpected(first)
            value = reply.block(int(parts[3]))
            end = reply.line()
            if end != b"END":
                reply.unexpected(end)
            return value
        return self._mcds_call(line, wait=wait, read=read)

    def lmpop(self, keys, end="left", count=None, wait=None):
        """Pops up to count elements from the first of keys (up to 64) that
        has any (Redis's LMPOP; with wait, BLMPOP): (key, [bytes, ...]), or
        None when every list is empty or missing."""
        keys = list(keys)
        if not keys:
            raise MemcacheIllegalInputError("lmpop: no key")
        line = b"lmpop " + b" ".join(wire.key(k) for k in keys) + b" " + self._end(end, "end")
        line += wire.options(count=count, wait=wait)

        def read(reply):
            got, name = [], None

            def value(l):
                nonlocal name
                parts = l.split(b" ")
                if parts[0] != b"VALUE" or len(parts) != 4:
                    reply.unexpected(l)
                name = parts[1]
                return reply.block(int(parts[3]))
            got = reply.rows(value)
            return (name, got) if got else None
        return self._mcds_call(line, wait=wait, read=read)

    def lpos(self, key, value, rank=None, count=None, maxlen=None):
        """The positions (from the head) of elements equal to value: a list
        of ints ([] for none; at most one without count, count=0 for all up
        to 1000), or None when there is no list."""
        value = wire.data(value)
        line = b"lpos %s %d" % (wire.key(key), len(value))
        line += wire.options(rank=rank, count=count, maxlen=maxlen)

        def read(reply):
            first = reply.line()
            if first == b"NOT_FOUND":
                return None
            out = []
            while first != b"END":
                if not first.isdigit():
                    reply.unexpected(first)
                out.append(int(first))
                first = reply.line()
            return out
        return self._mcds_call(line, [value], read=read)
