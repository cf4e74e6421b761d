"""One entry of a Pool's server list that names a replica set
(``"primary:port=replica:port=..."``): which member a call goes to, and
when it is tried again elsewhere.

* Writes, and every call not in READ_CALLS, go to the shard's current
  primary: the entry's first address at first (its service address).
* A call is tried again only when it surely was not applied: the
  connection could not be opened (refused, unreachable, connect timeout),
  or the server refused it as a replica (``SERVER_ERROR read-only
  replica[ of H:P]``) or as a stale one (``SERVER_ERROR stale replica:
  ...``). A refusal that names its primary sends the call there next (no
  pause before the first such redirect); otherwise the members are tried
  in list order, the service address last, and each further round starts
  100 ms later from the current primary. Past the retry timeout the call
  raises the current primary's last error (what it would have raised
  without replicas). A member, or a named primary, that answers
  becomes the shard's current primary.
* Anything else (a connection lost after the request was written, a
  timeout waiting for the reply, ``SERVER_ERROR changed on the primary,
  not confirmed by enough replicas``) is raised as it is: the change may
  have been made.
* With read_replicas, the calls of READ_CALLS go to the members other
  than the current primary in turn; one that cannot be connected to or
  refuses as stale is skipped, and the primary answers when none can.
* A member that cannot be connected to or refuses as stale is marked down
  for reconnect_delay seconds: the reads skip it meanwhile (a machine that
  is down and silent costs one connect timeout, not one per read). The
  first read after that tries it again: an answer clears the mark, a
  failure marks it again for twice as long, up to DOWN_CAP (or
  reconnect_delay when longer). Calls on the primary ignore the marks
  (they still set and clear them); reconnect_delay 0 marks nothing.

A connection kept from an earlier call is checked before it is used: one
that has become readable while idle was closed by its server (a server
killed or restarted), so it is closed and a new one opened, whose failure
to connect is then a connect failure like any other.
"""

import select
import time

from pymemcache.exceptions import MemcacheServerError, MemcacheUnexpectedCloseError

#: Pool calls that read and may go to a replica with read_replicas. Not
#: here: gets (its cas is the primary's), calls that open or continue a
#: cursor (tselect_page, tscan_page, tnext, tclose, kscan: a cursor lives
#: on the server that opened it), and every write.
READ_CALLS = frozenset(("get", "qpeek", "qpending", "qstats", "qinfo", "llen", "lrange",
                        "lindex", "lexists", "tget", "tselect", "tscan", "ctinfo",
                        "ctchildren", "ctget", "ctvalues"))

#: Seconds between two rounds over the members.
PAUSE = 0.1

#: Members of one entry at most (its first address included).
MAX_MEMBERS = 8

#: Seconds a member stays marked down at most (unless reconnect_delay is
#: longer).
DOWN_CAP = 30.0

_READ_ONLY = b"read-only replica"
_STALE = b"stale replica:"     # link not up, or behind longer than --replica-max-lag


class _Retry(Exception):
    """A try that surely changed nothing: error is what the caller gets if
    no other try succeeds; named the primary a refusal named (or None);
    read_only whether it was the read-only refusal."""

    def __init__(self, error, named=None, read_only=False):
        super().__init__(str(error))
        self.error = error
        self.named = named
        self.read_only = read_only


def refusal_primary(text):
    """The (host, port) a "read-only replica of HOST:PORT" refusal names,
    or None when HOST:PORT is not an address ("x", a bad port, a space)."""
    if len(text) > 300 or not text.isascii():
        return None
    text = text.decode()
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
    else:
        host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    if any(ch <= " " or ch in "[]" for ch in host):
        return None
    return host, int(port)


def _refusal(error):
    """A _Retry for a replica's refusal, or None for any other SERVER_ERROR."""
    text = error.args[0] if error.args and isinstance(error.args[0], bytes) else b""
    if text == _READ_ONLY:
        return _Retry(error, read_only=True)
    if text.startswith(_READ_ONLY + b" of "):
        return _Retry(error, refusal_primary(text[len(_READ_ONLY) + 4:]), read_only=True)
    if text.startswith(_STALE):
        return _Retry(error)
    return None


def _closed_by_peer(sock):
    """Whether an idle connection has something to read: its server
    closed it (or sent what nobody asked for)."""
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True


class Shard:
    """The members of one entry (addresses: (host, port) or a socket path),
    a Client for each address used, and the current primary."""

    def __init__(self, members, make_client, read_replicas, retry_timeout, reconnect_delay):
        self.members = list(members)
        self.primary = self.members[0]
        self._make_client = make_client
        self._clients = {}
        self._others = []
        self._read_replicas = read_replicas
        self._retry_timeout = retry_timeout
        self._reconnect_delay = reconnect_delay
        self._down = {}         # address: (until, seconds) of its mark
        self._next_read = 0

    def client(self, address):
        """The Client of an address (made at its first use)."""
        if address not in self._clients:
            if address not in self.members:
                self._keep_other(address)
            self._clients[address] = self._make_client(address)
        return self._clients[address]

    def _keep_other(self, address):
        """A refusal may name any address: the Clients of the last
        MAX_MEMBERS addresses outside the list are kept, no more."""
        self._others.append(address)
        while len(self._others) > MAX_MEMBERS:
            old = next(a for a in self._others if a != self.primary)
            self._others.remove(old)
            self._clients.pop(old).close()
            self._down.pop(old, None)

    def call(self, name, args, kwargs):
        """Client.<name>(*args, **kwargs) where it belongs. An entry
        without replicas calls its one server, as a plain Pool does."""
        if len(self.members) == 1:
            return getattr(self.client(self.primary), name)(*args, **kwargs)
        if self._read_replicas and name in READ_CALLS:
            return self._read(name, args, kwargs)
        return self._on_primary(name, args, kwargs)

    def close(self):
        for client in self._clients.values():
            client.close()

    def is_down(self, address):
        """Whether reads leave address alone now (marked down)."""
        mark = self._down.get(address)
        return mark is not None and time.monotonic() < mark[0]

    def _failed(self, address):
        """address could not be reached, or refused as stale: marked down
        for reconnect_delay, or twice its last mark when that one is over
        (the try after it failed), up to DOWN_CAP. A try made while it is
        marked (a call on the primary) leaves the mark as it is."""
        if not self._reconnect_delay:
            return
        now = time.monotonic()
        mark = self._down.get(address)
        if mark is None:
            seconds = self._reconnect_delay
        elif now < mark[0]:
            return
        else:
            seconds = min(mark[1] * 2, max(DOWN_CAP, self._reconnect_delay))
        self._down[address] = (now + seconds, seconds)

    def _try(self, address, name, args, kwargs):
        try:
            result = self._try_once(address, name, args, kwargs)
        except _Retry as retry:
            if not retry.read_only:
                self._failed(address)
            raise
        self._down.pop(address, None)
        return result

    def _try_once(self, address, name, args, kwargs):
        client = self.client(address)
        if client.sock is not None and _closed_by_peer(client.sock):
            client.close()
        if client.sock is None:
            try:
                client._connect()
            except (OSError, MemcacheUnexpectedCloseError) as e:
                raise _Retry(e) from None
        try:
            return getattr(client, name)(*args, **kwargs)
        except MemcacheServerError as e:
            retry = _refusal(e)
            if retry is None:
                self._down.pop(address, None)       # it answered
                raise
            raise retry from None

    def _round(self):
        """The addresses of one round: the current primary, the other
        members in list order, the service address last."""
        service = self.members[0]
        out = [self.primary]
        out += [m for m in self.members[1:] if m != self.primary]
        if service != self.primary:
            out.append(service)
        return out

    def _on_primary(self, name, args, kwargs):
        deadline = time.monotonic() + self._retry_timeout
        pending = self._round()
        redirected = False
        error = None        # the current primary's last: what the call raises
        while True:
            target = pending.pop(0)
            try:
                result = self._try(target, name, args, kwargs)
            except _Retry as retry:
                if target == self.primary or error is None:
                    error = retry.error
                pause = 0.0
                if retry.named is not None and retry.named != target:
                    pause = PAUSE if redirected else 0.0
                    redirected = True
                    pending.insert(0, retry.named)
                elif not pending:
                    pause = PAUSE
                    pending = self._round()
                if time.monotonic() + pause >= deadline:
                    raise error from None
                time.sleep(pause)
                continue
            self.primary = target
            return result

    def _read(self, name, args, kwargs):
        replicas = [m for m in self.members if m != self.primary]
        start = self._next_read % len(replicas)
        self._next_read = start + 1
        for i in range(len(replicas)):
            target = replicas[(start + i) % len(replicas)]
            if self.is_down(target):
                continue
            try:
                return self._try(target, name, args, kwargs)
            except _Retry as retry:
                if retry.read_only:
                    break       # a read only a primary serves (a Kestrel get)
        return self._on_primary(name, args, kwargs)
