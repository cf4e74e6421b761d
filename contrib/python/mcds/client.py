"""``mcds.Client``: one server, every memcached command of pymemcache and
every extended verb of mcds-server, each family in its own module."""

from .connection import Connection
from .counters import CounterVerbs
from .lists import ListVerbs
from .queues import QueueVerbs
from .scan import ScanVerbs
from .tables import TableVerbs


class Client(QueueVerbs, ListVerbs, CounterVerbs, ScanVerbs, TableVerbs, Connection):
    """pymemcache's Client (get, set, cas, incr, ... work as before) with
    mcds-server's queues, lists, tree counters, key scans and tables.

    ``Client(("127.0.0.1", 11211), timeout=5, username=None, password=None)``:
    the other arguments are pymemcache's. A blocking call (``wait=``)
    lengthens the socket timeout by the wait for that one call."""


def iterate(call, *args, **kwargs):
    """Every item of a paged listing (qlist, ctcounters, ctchildren,
    ctvalues, ctperiods, ctactive), calling it again with after= set to
    each page's ``more`` until none is left."""
    while True:
        page = call(*args, **kwargs)
        yield from page.items
        if page.more is None:
            return
        kwargs["after"] = page.more
