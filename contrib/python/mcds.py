"""mcds: mcds-server's queues for Python, on top of pymemcache.

``mcds.Client`` is a ``pymemcache.client.base.Client`` (every memcached
command works as before: get, set, cas, incr, ...) that also speaks the
queue verbs of mcds-server (doc/protocol.md, "Queues"):

    from mcds import Client
    c = Client(("127.0.0.1", 11211))
    c.qcreate("jobs", lease=30, maxdeliver=5)
    c.qpush("jobs", b"resize 42.jpg")
    for m in c.qpop("jobs", wait=10):
        work(m.data)
        c.qack("jobs", m.receipt)

Messages are bytes in and bytes out: no serde is applied to queue data.
A blocking pop (``wait=``) lengthens the socket timeout by the wait for that
one call. Errors are pymemcache's: ``MemcacheClientError`` for a
``CLIENT_ERROR`` (a bad argument), ``MemcacheServerError`` for a
``SERVER_ERROR`` (too large, out of memory, the log cannot be written),
``MemcacheUnknownCommandError`` for ``ERROR`` (a server without queues).

It uses pymemcache's base-client helpers (``_connect``, ``_raise_errors``
and the module's ``_readline``/``_readvalue``), present from pymemcache 3
(Debian 12 ships 3.5.2) to 4.
"""

from collections import namedtuple

from pymemcache.client import base as _base
from pymemcache.exceptions import MemcacheUnexpectedCloseError

__all__ = ["Client", "Message", "Pending"]

#: One delivered (or peeked) message. ``receipt`` names this delivery for
#: qack/qrelease/qtouch: once its lease has run out it acts on nothing.
Message = namedtuple("Message", "id flags data deliveries receipt")

#: One in-flight message of ``qpending``: ``lease_ms_left`` is -1 for a
#: message held by a Kestrel open read.
Pending = namedtuple("Pending", "id flags size deliveries lease_ms_left data")


def _key(key):
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not key or len(key) > 250 or any(b <= 32 or b == 127 for b in key):
        raise _base.MemcacheIllegalInputError("bad key %r" % (key,))
    return key


def _num(v):
    """A number as the protocol writes it: an int, or seconds with a fraction."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _base.MemcacheIllegalInputError("not a number: %r" % (v,))
    if isinstance(v, float):
        return ("%.3f" % v).rstrip("0").rstrip(".").encode()
    return str(v).encode()


def _receipt(r):
    """A receipt ("41:2", or a Message) or a bare id (41)."""
    if isinstance(r, Message):
        r = r.receipt
    if isinstance(r, int) and not isinstance(r, bool):
        return str(r).encode()
    if isinstance(r, str) and r.replace(":", "", 1).isdigit():
        return r.encode()
    raise _base.MemcacheIllegalInputError("not a receipt or id: %r" % (r,))


def _options(**opts):
    return b"".join(b" %s=%s" % (k.encode(), _num(v) if k != "dlq" else _key(v))
                    for k, v in opts.items() if v is not None)


class Client(_base.Client):
    """pymemcache's Client with mcds-server's queue verbs. With username and
    password, every connection it opens first authenticates (a server
    started with -Y/--auth-file): memcached's text-protocol "set" whose data
    is "<user> <password>"; a refusal raises MemcacheClientError."""

    def __init__(self, server, *args, username=None, password=None, **kwargs):
        super().__init__(server, *args, **kwargs)
        self._mcds_credentials = None
        if username is not None:
            token = b"%s %s" % (_key(username), _key(password))
            self._mcds_credentials = b"set auth 0 0 %d\r\n%s\r\n" % (len(token), token)

    def _connect(self):
        super()._connect()
        if self._mcds_credentials is None:
            return
        try:
            self.sock.sendall(self._mcds_credentials)
            _, line = _base._readline(self.sock, b"")
            self._raise_errors(line, "auth")
            if line != b"STORED":
                raise _base.MemcacheUnexpectedCloseError()
        except Exception:
            self.close()
            raise

    # ---- one exchange ----

    def _mcds_call(self, line, data=None, wait=None, read=None):
        """Sends line (and a data block), returns read(self, buf) or the
        reply line. The connection is closed on any error in between."""
        if self.sock is None:
            self._connect()
        out = line + b"\r\n"
        if data is not None:
            out += data + b"\r\n"
        if wait is not None and self.timeout is not None:
            self.sock.settimeout(self.timeout + wait)
        try:
            self.sock.sendall(out)
            if read is not None:
                result = read(b"")
            else:
                _, result = _base._readline(self.sock, b"")
                self._raise_errors(result, line.split(b" ", 1)[0].decode())
        except Exception:
            self.close()
            raise
        if wait is not None and self.timeout is not None and self.sock is not None:
            self.sock.settimeout(self.timeout)
        return result

    def _mcds_lines(self, name, prefix, with_data, buf=b""):
        """Reads "<prefix> <fields...>" lines (each with a data block when
        with_data says so for its fields) up to END: a list of
        (fields, data), plus the lines before the first such line."""
        head, rows = [], []
        while True:
            buf, line = _base._readline(self.sock, buf)
            self._raise_errors(line, name)
            if line == b"END":
                return head, rows
            parts = line.split(b" ")
            if parts[0] != prefix:
                if rows:
                    raise MemcacheUnexpectedCloseError()
                head.append(line)
                continue
            fields = [int(p) for p in parts[1:]]
            data = None
            if with_data(fields):
                buf, data = _base._readvalue(self.sock, buf, fields[2])
            rows.append((fields, data))

    def _mcds_items(self, name, line, wait=None):
        def read(buf):
            return self._mcds_lines(name, b"ITEM", lambda f: True, buf)
        head, rows = self._mcds_call(line, wait=wait, read=read)
        items = [Message(f[0], f[1], d, f[3], "%d:%d" % (f[0], f[3])) for f, d in rows]
        return head, items

    # ---- the queue verbs ----

    def qcreate(self, queue, lease=None, maxdeliver=None, maxlen=None, dlq=None, maxage=None):
        """Creates a queue: True, or False if it exists (options unchanged)."""
        line = b"qcreate " + _key(queue) + _options(lease=lease, maxdeliver=maxdeliver,
                                                    maxlen=maxlen, dlq=dlq, maxage=maxage)
        return self._mcds_call(line) == b"CREATED"

    def qpush(self, queue, data, flags=0, delay=0, priority=None):
        """Queues data (bytes): its id, or None when the queue is at its
        maxlen. delay follows exptime rules; lower priority comes first."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        line = b"qpush %s %s %s %d" % (_key(queue), _num(flags), _num(delay), len(data))
        if priority is not None:
            line += b" " + _num(priority)
        reply = self._mcds_call(line, data)
        if reply.startswith(b"PUSHED "):
            return int(reply[7:])
        return None

    def qpop(self, queue, count=1, lease=None, wait=None, ack=None):
        """Leases up to count messages: a list of Message. With wait (seconds)
        waits for one; with ack (a receipt) acks it first, and then returns
        (acked, messages) where acked says whether that ack held."""
        line = b"qpop %s %s" % (_key(queue), _num(count)) + _options(lease=lease, wait=wait)
        if ack is not None:
            line += b" ack=" + _receipt(ack)
        head, items = self._mcds_items("qpop", line, wait=wait)
        if ack is not None:
            return (head[:1] == [b"ACKED"]), items
        return items

    def _qreceipt_verb(self, verb, ok, queue, receipt, extra=None):
        line = b"%s %s %s" % (verb, _key(queue), _receipt(receipt))
        if extra is not None:
            line += b" " + _num(extra)
        return self._mcds_call(line) == ok

    def qack(self, queue, receipt):
        """Acks a delivery: True, or False (unknown, or no longer yours)."""
        return self._qreceipt_verb(b"qack", b"ACKED", queue, receipt)

    def qrelease(self, queue, receipt, delay=None):
        """Gives a delivery back (after delay): True, or False as qack."""
        return self._qreceipt_verb(b"qrelease", b"RELEASED", queue, receipt, delay)

    def qtouch(self, queue, receipt, lease=None):
        """Extends a lease to lease seconds from now: True, or False as qack."""
        return self._qreceipt_verb(b"qtouch", b"TOUCHED", queue, receipt, lease)

    def qpeek(self, queue, count=1):
        """The next count ready messages, not leased: a list of Message."""
        return self._mcds_items("qpeek", b"qpeek %s %s" % (_key(queue), _num(count)))[1]

    def qpending(self, queue, count=None, values=False):
        """In-flight messages, earliest lease end first: a list of Pending
        (data is None unless values)."""
        line = b"qpending " + _key(queue) + (b" values" if values else b"")
        if count is not None:
            line += b" " + _num(count)

        def read(buf):
            return self._mcds_lines("qpending", b"PENDING", lambda f: values, buf)[1]
        rows = self._mcds_call(line, read=read)
        return [Pending(f[0], f[1], f[2], f[3], f[4], d) for f, d in rows]

    def qstats(self, queue):
        """The queue's figures as a dict (numbers as int), or None."""
        def read(buf):
            stats = {}
            while True:
                buf, line = _base._readline(self.sock, buf)
                self._raise_errors(line, "qstats")
                if line in (b"END", b"NOT_FOUND"):
                    return stats if line == b"END" else None
                _, name, value = line.split(b" ", 2)
                stats[name.decode()] = int(value) if value.isdigit() else value.decode()
        return self._mcds_call(b"qstats " + _key(queue), read=read)

    def qpurge(self, queue):
        """Drops every ready, delayed and buried message: how many, or None
        for no such queue."""
        reply = self._mcds_call(b"qpurge " + _key(queue))
        return int(reply[7:]) if reply.startswith(b"PURGED ") else None
