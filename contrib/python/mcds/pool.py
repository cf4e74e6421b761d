"""``mcds.Pool``: several servers, each key sent where libmcds sends it.

libmcds opens a server list with libmemcached's ketama (see ketama.py) and
places a plain key (get, set ...) by the whole key, and a structure (a
queue, a list, a tree of counters) by its name, or by the text between the
first "{" and the next "}" when the name holds a non-empty one (twemproxy's
hash tag): so "{jobs}" and its dead letters "{jobs}:dead" share a server.
A Pool built from the same server list, in the same order and with the
same weights, makes the same choices (t/unit/python_pkg.tcl proves it
against libmemcached itself). An entry may name a replica set
("P:port=R:port"): it is placed by its first address, and replicas.py
routes each call among its members.
"""

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .client import Client
from .ketama import Continuum
from .replicas import MAX_MEMBERS, Shard

#: Calls whose first argument is a plain key, placed by the whole key.
KEY_CALLS = ("get", "gets", "set", "add", "replace", "append", "prepend", "cas",
             "delete", "incr", "decr", "touch", "gat", "gats")

#: Calls whose first argument names a queue, a list or a table, placed by
#: its tag (a table's cursor calls, tnext and tclose, name the table too).
NAME_CALLS = ("qcreate", "qpush", "qpushn", "qpop", "qack", "qrelease", "qtouch",
              "qpeek", "qpending", "qstats", "qinfo", "qpurge", "qredrive", "qkick",
              "lcreate", "lpush", "rpush", "lpop", "rpop", "llen", "lrange", "lindex",
              "lset", "linsert", "ltrim", "lrem", "lexists",
              "tcreate", "tdrop", "tindex", "tdropindex", "tinsert", "tput", "tupdate",
              "tdel", "tget", "tselect_page", "tscan_page", "tnext", "tclose", "tselect",
              "tscan")

#: Tree-counter calls about objects: placed by the group= keyword (the
#: tree's placement key, its root's key for example), as libmcds does.
GROUP_CALLS = ("ctobj", "ctlimits", "ctraise", "ctinfo", "ctchildren", "ctincr",
               "ctget", "ctvalues")


def route_key(name):
    """The part of a structure's name that places it: the text between the
    first "{" and the next "}" when not empty, else the whole name."""
    name = wire.key(name, "name")
    start = name.find(b"{")
    if start < 0:
        return name
    end = name.find(b"}", start + 1)
    if end > start + 1:
        return name[start + 1:end]
    return name


def _address(text, weighted):
    """(host, port, weight) from "host:port[:weight]", "[IPv6]:port[:weight]"
    or a Unix socket path "/path" (port 0); weighted: whether a weight may
    be given."""
    if text.startswith("/"):
        return text, 0, 1
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]:")
        parts = [host] + rest.split(":") if sep else []
    else:
        parts = text.split(":")
    if len(parts) not in ((2, 3) if weighted else (2,)) or not all(p.isdigit() for p in parts[1:]) \
            or any(c <= " " or c in "[]\x7f" for c in parts[0]):
        raise ValueError("bad server %r: host:port%s, [IPv6]:port or /path" % (
            text, "[:weight]" if weighted else " (a replica takes no weight)"))
    return _checked((parts[0],) + tuple(int(p) for p in parts[1:]))


def _checked(server):
    host, port, *weight = server
    weight = weight[0] if weight else 1
    if not host or not 0 < port < 65536 or not 0 < weight < 2 ** 32:
        raise ValueError("bad server %r" % (server,))
    return host, port, weight


def parse_server(server):
    """(host, port, weight) from (host, port), (host, port, weight),
    "host:port[:weight]", "[IPv6]:port[:weight]" or a Unix socket path
    "/path" (port 0)."""
    if isinstance(server, str):
        return _address(server, True)
    return _checked(tuple(server))


def parse_entry(entry):
    """The members of one entry of a server list, each (host, port,
    weight): a server as parse_server takes it, or a replica set as a
    string, its service address then each replica after "="
    ("10.0.0.9:11211:2=10.0.0.2:11211=10.0.0.3:11211"): a weight only on
    the first, at most 8 members. ValueError for anything else."""
    if not isinstance(entry, str) or "=" not in entry:
        return [parse_server(entry)]
    parts = entry.split("=")
    if len(parts) > MAX_MEMBERS:
        raise ValueError("bad server %r: more than %d members" % (entry, MAX_MEMBERS))
    return [_address(parts[0], True)] + [_address(p, False) for p in parts[1:]]


def parse_servers(servers):
    """A server list: entries as parse_entry takes them, in a list or
    comma-separated in one string. ValueError when one entry is bad."""
    if isinstance(servers, str):
        servers = servers.split(",")
    entries = [parse_entry(s) for s in servers]
    if not entries:
        raise ValueError("give at least one server")
    return entries


def _check_seconds(name, value, most):
    """ValueError unless value is a number of seconds from 0 to most."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= most:
        raise ValueError("%s must be 0 to %d seconds: %r" % (name, most, value))


def _where(member):
    host, port, _ = member
    return host if port == 0 else (host, port)


def _forward(name, placement):
    def call(self, *args, **kwargs):
        if placement == "group":
            shard = self._shard_for(route_key(kwargs.pop("group")))
        elif placement == "name":
            shard = self._shard_for(route_key(args[0]))
        else:
            shard = self._shard_for(wire.key(args[0]))
        return shard.call(name, args, kwargs)
    call.__name__ = name
    call.__doc__ = "Client.%s on the server that %s." % (name, {
        "key": "owns the key", "name": "owns the name (its {tag})",
        "group": "owns group= (its {tag})"}[placement])
    return call


class Pool:
    """Clients for several servers, each call sent to the server libmcds
    would pick. ``Pool([("h1", 11211), ("h2", 11212, 2), "h3:11213"], **kw)``
    (or one string, "h1:11211,h2:11212:2"): kw goes to every Client
    (timeout=, username= ...).

    An entry "P:port=R:port[=R2:port...]" is a replica set (replicas.py):
    keys are placed by P as if the entry were "P:port"; writes go to the
    set's current primary and follow a promotion (retried only when surely
    not applied, for at most retry_timeout seconds, default 5; 0: never);
    with read_replicas=True, reads go to its replicas (which may not have
    the caller's last write yet), those that could not be reached or
    refused as stale left alone for reconnect_delay seconds (default 2,
    doubling at each failed try after it up to 30; 0: every read tries
    every replica). The Clients of a replica set default to
    noreply=False (a noreply write is not seen refused, so it could not
    follow a promotion); default_noreply= in kw overrides it."""

    def __init__(self, servers, read_replicas=False, retry_timeout=5.0, reconnect_delay=2.0,
                 **client_kwargs):
        _check_seconds("retry_timeout", retry_timeout, 3600)
        _check_seconds("reconnect_delay", reconnect_delay, 86400)
        entries = parse_servers(servers)
        self.servers = [members[0] for members in entries]
        self._continuum = Continuum(self.servers)
        self.shards = []
        for members in entries:
            kwargs = dict(client_kwargs)
            if len(members) > 1:
                kwargs.setdefault("default_noreply", False)
            self.shards.append(Shard([_where(m) for m in members],
                                     lambda where, kw=kwargs: Client(where, **kw),
                                     bool(read_replicas), float(retry_timeout),
                                     float(reconnect_delay)))

    @property
    def clients(self):
        """The Client of each entry's current primary, in list order."""
        return [s.client(s.primary) for s in self.shards]

    def _shard_for(self, key):
        return self.shards[self._continuum.index(key)]

    def server_for_key(self, key):
        """(host, port) of the server that holds a plain key (an entry's
        first address)."""
        host, port, _ = self.servers[self._continuum.index(wire.key(key))]
        return host, port

    def server_for(self, name):
        """(host, port) of the server that holds a structure (by its tag)."""
        host, port, _ = self.servers[self._continuum.index(route_key(name))]
        return host, port

    def shard_for_key(self, key):
        """The Shard (replicas.py) that holds a plain key: its members and
        its current primary."""
        return self._shard_for(wire.key(key))

    def shard_for(self, name):
        """The Shard that holds a structure (by its tag)."""
        return self._shard_for(route_key(name))

    def client_for_key(self, key):
        """The Client of the server that holds a plain key (of its entry's
        current primary: calls made on it are neither routed nor retried)."""
        shard = self.shard_for_key(key)
        return shard.client(shard.primary)

    def client_for(self, name):
        """The Client of the server that holds a structure (by its tag)."""
        shard = self.shard_for(name)
        return shard.client(shard.primary)

    def qpopany(self, queues, **kwargs):
        """Client.qpopany on the server of the queues, which must all be on
        one server (give them one {tag})."""
        shards = {id(self.shard_for(q)): self.shard_for(q) for q in queues}
        if len(shards) != 1:
            raise MemcacheIllegalInputError("qpopany: the queues are on different servers; "
                                            "give them one {tag}")
        return next(iter(shards.values())).call("qpopany", (queues,), kwargs)

    def ctdef(self, counter, types, **kwargs):
        """Defines a counter on every server (definitions are global): True
        if every server created it, False if one had it already."""
        return all([s.call("ctdef", (counter, types), kwargs) for s in self.shards])

    def ctundef(self, counter):
        """Deletes a counter on every server: True if one had it."""
        return any([s.call("ctundef", (counter,), {}) for s in self.shards])

    def kscan(self, **kwargs):
        """Client.kscan on every server (each entry's current primary) in
        turn: one iterator of ScanKey."""
        for client in self.clients:
            yield from client.kscan(**kwargs)

    def close(self):
        """Closes every connection."""
        for shard in self.shards:
            shard.close()


for _name in KEY_CALLS:
    setattr(Pool, _name, _forward(_name, "key"))
for _name in NAME_CALLS:
    setattr(Pool, _name, _forward(_name, "name"))
for _name in GROUP_CALLS:
    setattr(Pool, _name, _forward(_name, "group"))
del _name
