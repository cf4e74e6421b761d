"""The queue verbs (doc/protocol.md, "3. Queues"): qcreate, qpush, qpushn,
qpop, qpopany, qack/qrelease/qtouch (one receipt or a batch), qpeek,
qpending, qstats, qinfo, qpurge, qpause, qredrive, qkick and qlist.

Messages are bytes in and bytes out: no serde is applied to queue data.
"""

from collections import namedtuple

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .errors import Full

#: One delivered (or peeked) message. ``receipt`` names this delivery for
#: qack/qrelease/qtouch: once its lease has run out it acts on nothing.
#: ``queue`` is the queue it came from (set by ``qpopany``, else None).
Message = namedtuple("Message", "id flags data deliveries receipt queue", defaults=(None,))

#: One in-flight message of ``qpending``: ``lease_ms_left`` is -1 for a
#: message held by a Kestrel open read; ``holder`` (with ``holders=True``)
#: the connection holding the lease, as ``qinfo`` names it.
Pending = namedtuple("Pending", "id flags size deliveries lease_ms_left data holder",
                     defaults=(None,))

#: One queue of ``qlist``.
QueueEntry = namedtuple("QueueEntry", "name ready delayed in_flight buried waiters")

#: A page of a listing: its rows, and ``more``, what to pass as ``after=``
#: for the next page (None: this was the last). See ``mcds.iterate``.
Page = namedtuple("Page", "items more")

_POPANY_OPTIONS = (b"count=", b"lease=", b"wait=")
DEDUP_MAX = 128     # most bytes of a deduplication id
GROUP_MAX = 128     # most bytes of a FIFO group id


def _push_options(dedup, group, delay):
    """ b" dedup=<id> group=<id>" for a push's options (None: left out);
    a grouped push takes no delay."""
    out = b""
    if dedup is not None:
        out += b" dedup=" + wire.token(dedup, "dedup", DEDUP_MAX)
    if group is not None:
        if delay:
            raise MemcacheIllegalInputError("a grouped message cannot be delayed")
        out += b" group=" + wire.token(group, "group", GROUP_MAX)
    return out


def _stats(reply):
    """STAT lines up to END as a dict, or None for NOT_FOUND."""
    stats = {}
    while True:
        line = reply.line()
        if line == b"END":
            return stats
        if line == b"NOT_FOUND" and not stats:
            return None
        if not line.startswith(b"STAT "):
            reply.unexpected(line)
        _, name, value = line.split(b" ", 2)
        stats[name.decode()] = wire.maybe_int(value)


class QueueVerbs:
    """The queue verbs of ``mcds.Client``."""

    # ---- reading ITEM lines ----

    def _read_items(self, reply, with_queue=False):
        """ITEM lines and their data up to END: a list of Message."""
        def item(line):
            parts = line.split(b" ")
            if parts[0] != b"ITEM" or len(parts) != (6 if with_queue else 5):
                reply.unexpected(line)
            mid, flags, size, deliveries = (int(p) for p in parts[1:5])
            queue = parts[5] if with_queue else None
            return Message(mid, flags, reply.block(size), deliveries,
                           "%d:%d" % (mid, deliveries), queue)
        return reply.rows(item)

    def _items(self, line, wait=None):
        return self._mcds_call(line, wait=wait, read=self._read_items)

    # ---- creating and pushing ----

    def qcreate(self, queue, lease=None, maxdeliver=None, maxlen=None, dlq=None, maxage=None,
                dedup=None, expired=None):
        """Creates a queue: True, or False if it exists (options unchanged).
        dedup: how long (seconds) a push's deduplication id is remembered.
        expired: "dead" (the default) or "drop", where a message past its
        ttl or maxage goes."""
        line = b"qcreate " + wire.key(queue, "queue") + wire.options(
            lease=lease, maxdeliver=maxdeliver, maxlen=maxlen, maxage=maxage, dedup=dedup,
            expired=expired)
        if dlq is not None:
            line += b" dlq=" + wire.key(dlq, "dlq")
        return self._mcds_simple(line, {b"CREATED": True, b"EXISTS": False})

    def qpush(self, queue, data, flags=0, delay=0, priority=None, dedup=None, group=None, ttl=None):
        """Queues data (bytes): its id, or None when the queue is at its
        maxlen. delay follows exptime rules; lower priority comes first.
        With dedup (1..128 bytes, no space or control byte), a push of an id
        the queue still remembers queues nothing and returns the first
        push's id: push again with the same id after a lost reply. With
        group (likewise), the message joins that FIFO group: a group's
        messages are delivered one at a time, in push order, the next once
        the one before is acked (no delay then). With ttl (seconds, a
        fraction allowed), the message not acked that long after its push
        goes to the dead-letter queue, or away (qcreate expired=)."""
        data = wire.data(data)
        line = b"qpush %s %s %s %d" % (wire.key(queue, "queue"), wire.integer(flags, "flags"),
                                      wire.integer(delay, "delay"), len(data))
        if priority is not None:
            line += b" " + wire.integer(priority, "priority")
        line += _push_options(dedup, group, delay) + wire.options(ttl=ttl)
        reply = self._mcds_call(line, [data])
        if reply.startswith(b"PUSHED "):
            return int(reply[7:])
        if reply == b"NOT_STORED":
            return None
        return self._mcds_unexpected(line, reply)

    def qpushn(self, queue, messages, flags=0, delay=0, priority=1024, dedup=None, group=None,
               ttl=None):
        """Queues every message of a list in one request, all or nothing:
        their ids, in order. Raises Full when the queue's maxlen cannot
        take them all (none queued). With dedup, message i is remembered as
        (dedup, i): a batch pushed again whole queues only what is missing,
        and the ids are those of the first push where it had one. With
        group, the batch joins that FIFO group in order. ttl is each
        message's, as for qpush."""
        blocks = [wire.data(m) for m in messages]
        if not blocks:
            raise MemcacheIllegalInputError("qpushn: no messages")
        line = b"qpushn %s %s %s %s " % (wire.key(queue, "queue"), wire.integer(flags, "flags"),
                                         wire.integer(delay, "delay"),
                                         wire.integer(priority, "priority"))
        line += b" ".join(b"%d" % len(b) for b in blocks) + _push_options(dedup, group, delay) \
            + wire.options(ttl=ttl)
        reply = self._mcds_call(line, blocks)
        if reply.startswith(b"PUSHED "):
            return [int(i) for i in reply[7:].split(b" ")]
        if reply == b"NOT_STORED":
            raise Full("qpushn: %s is at its maxlen" % queue)
        return self._mcds_unexpected(line, reply)

    # ---- taking ----

    def qpop(self, queue, count=1, lease=None, wait=None, ack=None):
        """Leases up to count messages: a list of Message. With wait (seconds)
        waits for one; with ack (a receipt) acks it first, and then returns
        (acked, messages) where acked says whether that ack held."""
        line = b"qpop %s %s" % (wire.key(queue, "queue"), wire.integer(count, "count"))
        line += wire.options(lease=lease, wait=wait)
        if ack is None:
            return self._items(line, wait=wait)

        def read(reply):
            first = reply.line()
            if first not in (b"ACKED", b"NOT_FOUND"):
                reply.unexpected(first)
            return first == b"ACKED", self._read_items(reply)
        return self._mcds_call(line + b" ack=" + wire.receipt(ack), wait=wait, read=read)

    def qpopany(self, queues, count=None, lease=None, wait=None):
        """Pops from the first of queues (in order) with a message ready, up
        to count messages all from that queue: a list of Message whose
        ``queue`` names it (bytes). With wait, waits on all of them."""
        names = [wire.key(q, "queue") for q in queues]
        if not names:
            raise MemcacheIllegalInputError("qpopany: no queue")
        for name in names[1:]:
            if name.startswith(_POPANY_OPTIONS):
                raise MemcacheIllegalInputError(
                    "qpopany: a queue named like an option can only come first: %r" % name)
        line = b"qpopany " + b" ".join(names) + wire.options(count=count, lease=lease, wait=wait)
        return self._mcds_call(line, wait=wait,
                               read=lambda reply: self._read_items(reply, with_queue=True))

    # ---- acting on deliveries ----

    def _receipts(self, verb, ok, queue, receipts, extra, option):
        """One receipt: True/False. A list or tuple of them (the batch
        form): a list of True/False, one per receipt, in order."""
        line = b"%s %s " % (verb, wire.key(queue, "queue"))
        if isinstance(receipts, Message) or not isinstance(receipts, (list, tuple)):
            line += wire.receipt(receipts)
            if extra is not None:
                line += b" " + wire.number(extra, option)
            return self._mcds_simple(line, {ok: True, b"NOT_FOUND": False})
        if not receipts:
            raise MemcacheIllegalInputError("%s: no receipt" % verb.decode())
        line += b" ".join(wire.receipt(r) for r in receipts)
        if extra is not None:
            line += b" %s=%s" % (option.encode(), wire.number(extra, option))

        def read(reply):
            out = []
            for _ in receipts:
                line = reply.line()
                if line not in (ok, b"NOT_FOUND"):
                    reply.unexpected(line)
                out.append(line == ok)
            return out
        return self._mcds_call(line, read=read)

    def qack(self, queue, receipt):
        """Acks a delivery: True, or False (unknown, or no longer yours).
        A list of receipts acks each: a list of True/False."""
        return self._receipts(b"qack", b"ACKED", queue, receipt, None, None)

    def qrelease(self, queue, receipt, delay=None):
        """Gives a delivery back (after delay): True, or False as qack."""
        return self._receipts(b"qrelease", b"RELEASED", queue, receipt, delay, "delay")

    def qtouch(self, queue, receipt, lease=None):
        """Extends a lease to lease seconds from now: True, or False as qack."""
        return self._receipts(b"qtouch", b"TOUCHED", queue, receipt, lease, "lease")

    # ---- reading without taking ----

    def qpeek(self, queue, count=1, id=None, delayed=False):
        """The next count ready messages, not leased (a list of Message);
        with delayed=True the next count delayed ones, earliest due first;
        with id= that one message whatever its state ([] when none)."""
        line = b"qpeek " + wire.key(queue, "queue")
        if id is not None:
            line += b" id=" + wire.integer(id, "id")
        elif delayed:
            line += b" delayed " + wire.integer(count, "count")
        else:
            line += b" " + wire.integer(count, "count")
        return self._items(line)

    def qpending(self, queue, count=None, values=False, holders=False):
        """In-flight messages, earliest lease end first: a list of Pending
        (data is None unless values; holder is None unless holders)."""
        line = b"qpending " + wire.key(queue, "queue")
        line += (b" values" if values else b"") + (b" holders" if holders else b"")
        if count is not None:
            line += b" " + wire.integer(count, "count")

        def read(reply):
            def row(line):
                parts = line.split(b" ", 6)
                if parts[0] != b"PENDING" or len(parts) != (7 if holders else 6):
                    reply.unexpected(line)
                mid, flags, size, deliveries, left = (int(p) for p in parts[1:6])
                data = reply.block(size) if values else None
                holder = parts[6].decode() if holders else None
                return Pending(mid, flags, size, deliveries, left, data, holder)
            return reply.rows(row)
        return self._mcds_call(line, read=read)

    def qstats(self, queue):
        """The queue's figures as a dict (numbers as int), or None."""
        return self._mcds_call(b"qstats " + wire.key(queue, "queue"), read=_stats)

    def qinfo(self, queue, id):
        """One message's figures (state, priority, deliveries, age_ms,
        holder ...) as a dict, or None when there is no such message."""
        line = b"qinfo %s %s" % (wire.key(queue, "queue"), wire.integer(id, "id"))
        return self._mcds_call(line, read=_stats)

    def qlist(self, count=None, after=None):
        """One page of the server's queues in name order: a Page of
        QueueEntry (names as bytes); pass ``page.more`` as after= for the
        next, or use ``mcds.iterate(client.qlist)``."""
        line = b"qlist" + wire.options(count=count)
        if after is not None:
            line += b" after=" + wire.key(after, "after")

        def read(reply):
            more = None
            items = []
            while True:
                line = reply.line()
                if line == b"END":
                    return Page(items, more)
                parts = line.split(b" ")
                if parts[0] == b"MORE" and len(parts) == 2:
                    more = parts[1]
                elif parts[0] == b"QUEUE" and len(parts) == 7:
                    items.append(QueueEntry(parts[1], *(int(p) for p in parts[2:])))
                else:
                    reply.unexpected(line)
        return self._mcds_call(line, read=read)

    # ---- removing and moving ----

    def qpurge(self, queue):
        """Drops every ready, delayed and buried message: how many, or None
        for no such queue."""
        return self._mcds_count(b"qpurge " + wire.key(queue, "queue"), b"PURGED ")

    def qpause(self, queue, seconds):
        """Pauses the queue's deliveries for seconds (a float allowed; 0
        resumes): pops find nothing, pushes go on. True, or None for no such
        queue."""
        line = b"qpause %s %s" % (wire.key(queue, "queue"), wire.number(seconds, "seconds"))
        return self._mcds_simple(line, {b"PAUSED": True, b"NOT_FOUND": None})

    def qredrive(self, dlq, count=None):
        """Sends up to count ready dead letters back to their queues:
        (moved, left), or None for no such queue."""
        line = b"qredrive " + wire.key(dlq, "queue")
        if count is not None:
            line += b" " + wire.integer(count, "count")
        reply = self._mcds_call(line)
        parts = reply.split(b" ")
        if parts[0] == b"REDRIVEN" and len(parts) == 3:
            return int(parts[1]), int(parts[2])
        if reply == b"NOT_FOUND":
            return None
        return self._mcds_unexpected(line, reply)

    def qkick(self, queue, count=None):
        """Makes up to count buried messages ready again: how many, or None
        for no such queue."""
        line = b"qkick " + wire.key(queue, "queue")
        if count is not None:
            line += b" " + wire.integer(count, "count")
        return self._mcds_count(line, b"KICKED ")
