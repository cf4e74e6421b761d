"""mcds: mcds-server's queues, lists, tree counters, key scans and tables for
Python, on top of pymemcache (3.5 or newer; nothing else outside the
standard library).

``mcds.Client`` is a ``pymemcache.client.base.Client`` (every memcached
command works as before: get, set, cas, incr, ...) that also speaks the
extended verbs of mcds-server (doc/protocol.md); ``mcds.Pool`` spreads
keys over several servers exactly as libmcds does (doc/clients.md):

    import mcds
    c = mcds.Client(("127.0.0.1", 11211), timeout=5)
    c.qcreate("jobs", lease=30, maxdeliver=5)
    c.qpush("jobs", b"resize 42.jpg")
    for m in c.qpop("jobs", wait=10):
        work(m.data)
        c.qack("jobs", m.receipt)

What each reply becomes:

* a yes/no reply is a bool (CREATED/EXISTS, ACKED/NOT_FOUND, ...);
* a read of something missing is None (qstats, qinfo, llen, lindex,
  ctcounter, ctinfo, ctget), as is a count-reporting change of a missing
  structure (qpurge, qredrive, qkick, ltrim, lrem; lexists);
* a table write is the row's new version (tinsert: None when a row has
  the key; tupdate: None when there is no such row); ``mcds.Conflict``
  when a ver= no longer matches;
* ``mcds.Full`` for NOT_STORED at a maxlen (qpushn, lpush, rpush, linsert;
  qpush keeps answering None, as it always has), ``mcds.LimitExceeded``
  for a ctincr refused by a limit, ``mcds.NotFound`` for a change or
  listing that needs a missing object or scan;
* pymemcache's exceptions for errors: ``MemcacheClientError`` (a
  CLIENT_ERROR: a bad argument, a key holding another type of value; its
  subclass ``MemcacheIllegalInputError`` when the client refuses the input
  before sending anything), ``MemcacheServerError`` (a SERVER_ERROR),
  ``MemcacheUnknownCommandError`` (ERROR: a server without the verb).

Modules: connection (the exchange, authentication), queues, lists,
counters (tree counters), scan (kscan), tables (rows, indexes, cursors), pool and ketama (placement), replicas (replica sets:
writes to the primary, reads to replicas), wire
(how arguments are checked and written), errors.
"""

from .client import Client, iterate
from .counters import Active, Counter, Object, Period, Value
from .errors import Conflict, Full, LimitExceeded, McdsError, NotFound
from .ketama import Continuum
from .pool import Pool, route_key
from .queues import Message, Page, Pending, QueueEntry
from .scan import ScanKey, ScanPage
from .tables import Row, TablePage, tvalue

__all__ = ["Client", "Pool", "iterate", "route_key", "Continuum",
           "Message", "Pending", "QueueEntry", "Page", "Value", "Counter", "Object",
           "Period", "Active", "ScanKey", "ScanPage", "Row", "TablePage", "tvalue",
           "McdsError", "Full", "NotFound", "LimitExceeded", "Conflict"]
