"""The ketama continuum of libmemcached 1.0.18, as libmcds builds it.

libmcds opens a server list with ``MEMCACHED_BEHAVIOR_KETAMA`` set to 1
(client/handle.c), and libmemcached then places a key like this:

* The key's hash is Bob Jenkins' one-at-a-time hash (libhashkit's default),
  each byte read as a C ``char`` (signed on x86: bytes over 127 count as
  negative numbers).
* Without weights (every server's weight 1; a weight not given is 1), each
  server gets 100 points, the one-at-a-time hash of ``"<host>:<port>-<i>"``
  for i = 0..99, or ``"<host>-<i>"`` when the port is 11211 (the default).
* As soon as one server has a weight above 1 the continuum is weighted:
  each server gets ``floor(weight / total * 160 / 4 * servers) * 4`` points
  (in C ``float`` arithmetic), four from each MD5 of the same labels
  (the digest read as four little-endian 32-bit numbers).
* A key goes to the first point at or above its hash, the first point of
  all when there is none; with a single server there is nothing to choose.

t/clients/ketama_check.c prints libmemcached's own choice for thousands of
keys; t/unit/python_pkg.tcl checks that this module agrees on every one.
"""

import bisect
import hashlib
import math
import struct

DEFAULT_PORT = 11211
POINTS_PER_SERVER = 100
POINTS_PER_SERVER_KETAMA = 160


def one_at_a_time(data):
    """libhashkit's one-at-a-time hash of bytes (chars signed, as on x86)."""
    value = 0
    for byte in data:
        if byte > 127:
            byte += 0xFFFFFF00          # a negative char, cast to uint32_t
        value = (value + byte) & 0xFFFFFFFF
        value = (value + (value << 10)) & 0xFFFFFFFF
        value ^= value >> 6
    value = (value + (value << 3)) & 0xFFFFFFFF
    value ^= value >> 11
    value = (value + (value << 15)) & 0xFFFFFFFF
    return value


def _f32(x):
    """x rounded to a C float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def weighted_points(weight, total_weight, servers):
    """The points libmemcached gives one server of a weighted continuum."""
    pct = _f32(_f32(weight) / _f32(total_weight))
    per = _f32(_f32(_f32(pct * POINTS_PER_SERVER_KETAMA) / 4) * _f32(servers))
    return int(math.floor(per + 0.0000000001)) * 4


def label(host, port, i):
    """The text hashed for a server's i-th point."""
    if port == DEFAULT_PORT:
        return b"%s-%d" % (host.encode(), i)
    return b"%s:%d-%d" % (host.encode(), port, i)


class Continuum:
    """The points of a server list; ``index(key)`` is the server's place in
    the list, as ``memcached_server_by_key`` would choose it.

    ``servers`` is a list of (host, port, weight); a Unix socket is its path
    with port 0."""

    def __init__(self, servers):
        if not servers:
            raise ValueError("a continuum needs at least one server")
        self.count = len(servers)
        weighted = any(w > 1 for _, _, w in servers)
        total = sum(w for _, _, w in servers)
        points = []
        for index, (host, port, weight) in enumerate(servers):
            if weighted:
                n = weighted_points(weight, total, len(servers)) // 4
                points.extend(self._md5_points(host, port, n, index))
            else:
                points.extend((one_at_a_time(label(host, port, i)), index)
                              for i in range(POINTS_PER_SERVER))
        points.sort(key=lambda p: p[0])
        self._values = [v for v, _ in points]
        self._owners = [i for _, i in points]

    @staticmethod
    def _md5_points(host, port, n, index):
        for i in range(n):
            digest = hashlib.md5(label(host, port, i)).digest()
            for value in struct.unpack("<4I", digest):
                yield value, index

    def index(self, key):
        """The server (its place in the list) for key (bytes)."""
        if self.count == 1:
            return 0
        at = bisect.bisect_left(self._values, one_at_a_time(key))
        if at == len(self._values):
            at = 0
        return self._owners[at]
