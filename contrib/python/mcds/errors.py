"""The exceptions of mcds beyond pymemcache's own.

pymemcache's exceptions keep their meaning: ``MemcacheClientError`` for a
``CLIENT_ERROR`` line (a bad argument, a key holding another type of
value), its subclass ``MemcacheIllegalInputError`` for input refused before
anything is sent (a bad key, a value that is not bytes), ``MemcacheServerError``
for a ``SERVER_ERROR`` (too large, out of memory, the log cannot be
written) and ``MemcacheUnknownCommandError`` for ``ERROR`` (a server
without the verb). The replies below are not errors on the wire but
outcomes a caller must not miss, so they raise too.
"""

from pymemcache.exceptions import MemcacheError


class McdsError(MemcacheError):
    """Base of the exceptions below."""


class Full(McdsError):
    """``NOT_STORED``: the queue or list is at its ``maxlen``; nothing was
    stored (a batch is all or nothing)."""


class NotFound(McdsError):
    """``NOT_FOUND`` where the call cannot happen without the thing it
    names: an increment or limit change of a missing object, an object
    whose parent is missing, a listing after a missing key, a scan that is
    over, closed or expired."""


class LimitExceeded(McdsError):
    """``EXCEEDED <key> <type> <period>``: an increment refused by the limit
    of object ``key`` for period type ``type`` (int) in ``period``; nothing
    changed. For ``ctincrn``, ``index`` is the position (from 0) of the
    increment refused; None for ``ctincr``."""

    def __init__(self, key, type_code, period, index=None):
        super().__init__("limit exceeded: %s type %d period %s%s" % (
            key.decode(errors="replace"), type_code, period.decode(errors="replace"),
            "" if index is None else " (increment %d)" % index))
        self.key = key
        self.type = type_code
        self.period = period
        self.index = index


class Conflict(McdsError):
    """``EXISTS`` from a table write with ``ver=``: the row's version is no
    longer the one given (another write came first); nothing changed."""
