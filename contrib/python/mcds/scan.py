"""Key scans (doc/protocol.md, "7. Key scans"): kscan pages, an iterator
over a whole scan, and kscanclose.
"""

from collections import namedtuple

from . import wire
from .errors import NotFound

#: One key of a scan: its type ("string", "queue", "list" ...) and the
#: seconds of TTL left (-1: none). key is bytes.
ScanKey = namedtuple("ScanKey", "key type ttl")

#: One page: its keys and the cursor to continue with (0: the scan is over).
ScanPage = namedtuple("ScanPage", "keys cursor")


class ScanVerbs:
    """The key-scan verbs of ``mcds.Client``."""

    def kscan_page(self, cursor=0, count=None, match=None, type=None, minttl=None,
                   maxttl=None):
        """One page: cursor 0 starts a scan with the filters given (match: a
        shell glob; type: "string", "queue" or "list"; minttl/maxttl:
        seconds), any other cursor continues that scan (filters are given
        only when starting). A ScanPage; NotFound when the scan is over,
        closed or expired."""
        start = cursor
        line = b"kscan " + wire.integer(cursor, "cursor") + wire.options(count=count)
        if match is not None:
            line += b" match=" + wire.token(match, "match", 1024)
        if type is not None:
            line += b" type=" + wire.token(type, "type", 32)
        line += wire.options(minttl=minttl, maxttl=maxttl)

        def read(reply):
            keys, cursor = [], None
            while True:
                line = reply.line()
                parts = line.split(b" ")
                if line == b"END" and cursor is not None:
                    return ScanPage(keys, cursor)
                if line == b"NOT_FOUND" and not keys:
                    raise NotFound("kscan: no scan %d" % start)
                if parts[0] == b"KEY" and len(parts) == 4:
                    keys.append(ScanKey(parts[1], parts[2].decode(), int(parts[3])))
                elif parts[0] == b"CURSOR" and len(parts) == 2:
                    cursor = int(parts[1])
                else:
                    reply.unexpected(line)
        return self._mcds_call(line, read=read)

    def kscan(self, count=None, match=None, type=None, minttl=None, maxttl=None):
        """Every key that passes the filters, page by page: an iterator of
        ScanKey. A key may come twice (a page seen while the table grows).
        Leaving the loop early closes the scan on the server."""
        page = self.kscan_page(0, count=count, match=match, type=type, minttl=minttl,
                               maxttl=maxttl)
        try:
            while True:
                yield from page.keys
                if page.cursor == 0:
                    return
                page = self.kscan_page(page.cursor, count=count)
        finally:
            if page.cursor != 0:
                self.kscanclose(page.cursor)

    def kscanclose(self, cursor):
        """Closes a scan: True, or False if there is none."""
        return self._mcds_simple(b"kscanclose " + wire.integer(cursor, "cursor"),
                                 {b"DELETED": True, b"NOT_FOUND": False})
