"""The connection under every verb: pymemcache's base client, its optional
authentication, and one request/reply exchange of an extended verb.

It uses pymemcache's base-client helpers (``_connect``, ``_raise_errors``
and the module's ``_readline``/``_readvalue``), present from pymemcache 3
(Debian 12 ships 3.5.2) to 4.
"""

from pymemcache.client import base as _base
from pymemcache.exceptions import MemcacheUnexpectedCloseError

from . import wire
from .errors import McdsError


class Reply:
    """Reads one reply: lines (an ERROR, CLIENT_ERROR or SERVER_ERROR line
    raises pymemcache's exception) and data blocks."""

    def __init__(self, client, name):
        self._client = client
        self._name = name
        self._buf = b""

    def line(self):
        self._buf, line = _base._readline(self._client.sock, self._buf)
        self._client._raise_errors(line, self._name)
        return line

    def block(self, size):
        self._buf, value = _base._readvalue(self._client.sock, self._buf, size)
        return value

    def rows(self, handle):
        """Calls handle(line) for every line up to END (the lines are not
        END); returns what the calls returned, in order, None left out."""
        out = []
        while True:
            line = self.line()
            if line == b"END":
                return out
            row = handle(line)
            if row is not None:
                out.append(row)

    def unexpected(self, line):
        """A line no reply of this verb holds: the connection is out of
        step with the server (it is closed by the caller)."""
        raise MemcacheUnexpectedCloseError("%s: unexpected reply %r" % (self._name, line))


class Connection(_base.Client):
    """pymemcache's Client, plus the exchange the extended verbs use. With
    username and password, every connection it opens first authenticates
    (a server started with -Y/--auth-file): memcached's text-protocol "set"
    whose data is "<user> <password>"; a refusal raises MemcacheClientError."""

    def __init__(self, server, *args, username=None, password=None, **kwargs):
        super().__init__(server, *args, **kwargs)
        self._mcds_credentials = None
        if username is not None:
            token = b"%s %s" % (wire.key(username, "username"), wire.key(password, "password"))
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
                raise MemcacheUnexpectedCloseError()
        except Exception:
            self.close()
            raise

    def _mcds_call(self, line, blocks=(), wait=None, read=None):
        """Sends line and its data blocks; returns read(Reply) or, without
        read, the one reply line. Any error in between closes the
        connection (the next call opens a new one), so a reply is never
        read as the answer to another request."""
        if self.sock is None:
            self._connect()
        out = [line, b"\r\n"]
        for block in blocks:
            out += [block, b"\r\n"]
        if wait is not None and self.timeout is not None:
            self.sock.settimeout(self.timeout + wait)
        reply = Reply(self, line.split(b" ", 1)[0].decode())
        try:
            self.sock.sendall(b"".join(out))
            result = read(reply) if read is not None else reply.line()
        except McdsError:
            # Full, NotFound, LimitExceeded: a whole reply was read.
            self._mcds_restore_timeout(wait)
            raise
        except Exception:
            self.close()
            raise
        self._mcds_restore_timeout(wait)
        return result

    def _mcds_restore_timeout(self, wait):
        if wait is not None and self.timeout is not None and self.sock is not None:
            self.sock.settimeout(self.timeout)

    def _mcds_simple(self, line, answers, blocks=()):
        """A one-line reply that must be one of answers (a dict from reply
        to result); any other line is a protocol error."""
        reply = self._mcds_call(line, blocks)
        if reply in answers:
            return answers[reply]
        return self._mcds_unexpected(line, reply)

    def _mcds_unexpected(self, line, reply):
        """A reply the verb of line never gives: the connection is out of
        step with the server, so it is closed."""
        self.close()
        raise MemcacheUnexpectedCloseError("%s: unexpected reply %r" % (
            line.split(b" ", 1)[0].decode(), reply))

    def _mcds_count(self, line, prefix, blocks=()):
        """A reply "<prefix><n>": n, or None for NOT_FOUND."""
        reply = self._mcds_call(line, blocks)
        if reply == b"NOT_FOUND":
            return None
        if reply.startswith(prefix) and reply[len(prefix):].isdigit():
            return int(reply[len(prefix):])
        return self._mcds_unexpected(line, reply)
