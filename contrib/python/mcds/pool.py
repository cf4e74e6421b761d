"""``mcds.Pool``: several servers, each key sent where libmcds sends it.

libmcds opens a server list with libmemcached's ketama (see ketama.py) and
places a plain key (get, set ...) by the whole key, and a structure (a
queue, a list, a tree of counters) by its name, or by the text between the
first "{" and the next "}" when the name holds a non-empty one (twemproxy's
hash tag): so "{jobs}" and its dead letters "{jobs}:dead" share a server.
A Pool built from the same server list, in the same order and with the
same weights, makes the same choices (t/unit/python_pkg.tcl proves it
against libmemcached itself).
"""

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .client import Client
from .ketama import Continuum

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


def parse_server(server):
    """(host, port, weight) from (host, port), (host, port, weight),
    "host:port[:weight]" or a Unix socket path "/path" (port 0)."""
    if isinstance(server, str) and server.startswith("/"):
        return server, 0, 1
    if isinstance(server, str):
        parts = server.split(":")
        if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[1:]):
            raise ValueError("bad server %r: host:port[:weight] (IPv6: a tuple)" % server)
        server = (parts[0],) + tuple(int(p) for p in parts[1:])
    host, port, *weight = server
    weight = weight[0] if weight else 1
    if not host or not 0 < port < 65536 or not 0 < weight < 2 ** 32:
        raise ValueError("bad server %r" % (server,))
    return host, port, weight


def _forward(name, placement):
    def call(self, *args, **kwargs):
        if placement == "group":
            client = self.client_for(kwargs.pop("group"))
        elif placement == "name":
            client = self.client_for(args[0])
        else:
            client = self.client_for_key(args[0])
        return getattr(client, name)(*args, **kwargs)
    call.__name__ = name
    call.__doc__ = "Client.%s on the server that %s." % (name, {
        "key": "owns the key", "name": "owns the name (its {tag})",
        "group": "owns group= (its {tag})"}[placement])
    return call


class Pool:
    """Clients for several servers, each call sent to the server libmcds
    would pick. ``Pool([("h1", 11211), ("h2", 11212, 2), "h3:11213"], **kw)``:
    kw goes to every Client (timeout=, username= ...)."""

    def __init__(self, servers, **client_kwargs):
        self.servers = [parse_server(s) for s in servers]
        self._continuum = Continuum(self.servers)
        self.clients = [Client(h if p == 0 else (h, p), **client_kwargs)
                        for h, p, _ in self.servers]

    def server_for_key(self, key):
        """(host, port) of the server that holds a plain key."""
        host, port, _ = self.servers[self._continuum.index(wire.key(key))]
        return host, port

    def server_for(self, name):
        """(host, port) of the server that holds a structure (by its tag)."""
        host, port, _ = self.servers[self._continuum.index(route_key(name))]
        return host, port

    def client_for_key(self, key):
        """The Client of the server that holds a plain key."""
        return self.clients[self._continuum.index(wire.key(key))]

    def client_for(self, name):
        """The Client of the server that holds a structure (by its tag)."""
        return self.clients[self._continuum.index(route_key(name))]

    def qpopany(self, queues, **kwargs):
        """Client.qpopany on the server of the queues, which must all be on
        one server (give them one {tag})."""
        clients = {id(self.client_for(q)): self.client_for(q) for q in queues}
        if len(clients) != 1:
            raise MemcacheIllegalInputError("qpopany: the queues are on different servers; "
                                            "give them one {tag}")
        return next(iter(clients.values())).qpopany(queues, **kwargs)

    def ctdef(self, counter, types, **kwargs):
        """Defines a counter on every server (definitions are global): True
        if every server created it, False if one had it already."""
        return all([c.ctdef(counter, types, **kwargs) for c in self.clients])

    def ctundef(self, counter):
        """Deletes a counter on every server: True if one had it."""
        return any([c.ctundef(counter) for c in self.clients])

    def kscan(self, **kwargs):
        """Client.kscan on every server in turn: one iterator of ScanKey."""
        for client in self.clients:
            yield from client.kscan(**kwargs)

    def close(self):
        """Closes every connection."""
        for client in self.clients:
            client.close()


for _name in KEY_CALLS:
    setattr(Pool, _name, _forward(_name, "key"))
for _name in NAME_CALLS:
    setattr(Pool, _name, _forward(_name, "name"))
for _name in GROUP_CALLS:
    setattr(Pool, _name, _forward(_name, "group"))
del _name
