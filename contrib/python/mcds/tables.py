"""The table verbs (doc/protocol.md, "9. Tables"): tcreate, tindex,
tdropindex, tdrop, tinsert, tput, tupdate, tdel, tget, tselect, tscan,
tnext and tclose.

A value is bytes (str is sent as UTF-8, an int as its decimal digits,
None as NULL); it travels in the request line escaped as the protocol
says (%XX), so any bytes are data and never a token or a command. Rows
read are ``Row(version, fields)``, fields a dict from the field's name
(str) to its value: bytes (an int field's decimal digits) or None.
"""

from collections import namedtuple

from pymemcache.exceptions import MemcacheIllegalInputError

from . import wire
from .errors import Conflict, NotFound

#: One row: its version (it changes on every write of the row) and its
#: fields (a dict: name -> bytes, or None for NULL).
Row = namedtuple("Row", "version fields")

#: One page of a selection or scan: its rows, the cursor to continue with
#: (0: complete) and the table (it places the cursor in a Pool).
TablePage = namedtuple("TablePage", "rows cursor table")

_MUST_ESCAPE = frozenset(list(range(0, 33)) + [0x25] + list(range(0x7f, 0x100)))


def tvalue(value):
    """A value as one token of a request line: None is NULL ("null"), the
    bytes "null" are "%6eull", the empty value is "%" alone, a space,
    control byte, '%' or byte from 0x80 is %XX; an int is its digits. Use
    it to write values into a tscan predicate."""
    if value is None:
        return b"null"
    if isinstance(value, bool):
        raise MemcacheIllegalInputError("a value must be bytes, str, int or None: %r" % (value,))
    if isinstance(value, int):
        return str(value).encode()
    value = wire.data(value)
    if value == b"null":
        return b"%6eull"
    if not value:
        return b"%"
    return b"".join(b"%%%02x" % b if b in _MUST_ESCAPE else bytes((b,)) for b in value)


def _name(value, what):
    """A field or index name, a field list: one token with no '='."""
    value = wire.token(value, what, 1024)
    if b"=" in value:
        raise MemcacheIllegalInputError("bad %s %r" % (what, value))
    return value


def _fields(fields):
    if not fields:
        raise MemcacheIllegalInputError("no field")
    return b"".join(b" %s=%s" % (_name(k, "field"), tvalue(v)) for k, v in fields.items())


def _field_list(fields):
    if fields is None:
        return b""
    if not isinstance(fields, (str, bytes)):
        fields = ",".join(fields)
    return b" fields=" + _name(fields, "fields")


class TableVerbs:
    """The table verbs of ``mcds.Client``."""

    def tcreate(self, table, schema):
        """Creates a table: schema is the rest of tcreate's line
        ("id:int,name:bytes key=id index=by_name:name"). True, or False if
        a table has that name (whatever its schema)."""
        line = b"tcreate %s %s" % (wire.key(table, "table"), wire.data(schema))
        if b"\r" in line or b"\n" in line:
            raise MemcacheIllegalInputError("tcreate: a schema is one line")
        return self._mcds_simple(line, {b"CREATED": True, b"EXISTS": False})

    def tdrop(self, table):
        """Deletes a table, its rows and indexes: True, or False if none."""
        return self._mcds_simple(b"tdrop " + wire.key(table, "table"),
                                 {b"DELETED": True, b"NOT_FOUND": False})

    def tindex(self, table, name, parts):
        """Adds an index (parts as in tcreate: "city+age:desc"), built in
        the background: True. NotFound when there is no table."""
        line = b"tindex %s %s %s" % (wire.key(table, "table"), _name(name, "index"),
                                     _name(parts, "parts"))
        return self._table_write(line, {b"OK": True}, "tindex")

    def tdropindex(self, table, name):
        """Drops an index: True, or False if there is no such index (or
        table)."""
        line = b"tdropindex %s %s" % (wire.key(table, "table"), _name(name, "index"))
        return self._mcds_simple(line, {b"DELETED": True, b"NOT_FOUND": False})

    def _table_write(self, line, answers, verb):
        """A write's one-line reply: "STORED <version>" is the version;
        answers maps the others; NOT_FOUND raises NotFound unless mapped."""
        reply = self._mcds_call(line)
        if reply.startswith(b"STORED ") and reply[7:].isdigit():
            return int(reply[7:])
        if reply in answers:
            result = answers[reply]
            if isinstance(result, Exception):
                raise result
            return result
        if reply == b"NOT_FOUND":
            raise NotFound("%s: no such table" % verb)
        return self._mcds_unexpected(line, reply)

    def tinsert(self, table, fields):
        """Stores a new row (fields: a dict; every key field given, the
        others NULL): its version, or None when a row has that key.
        NotFound when there is no table."""
        line = b"tinsert " + wire.key(table, "table") + _fields(fields)
        return self._table_write(line, {b"NOT_STORED": None}, "tinsert")

    def tput(self, table, fields):
        """Stores the row whole, replacing one with that key: its version.
        NotFound when there is no table."""
        return self._table_write(b"tput " + wire.key(table, "table") + _fields(fields), {}, "tput")

    def tupdate(self, table, fields, ver=None):
        """Changes the fields given of the row the key fields (all in
        fields) name: its new version, or None when there is no such row
        (or table). With ver, only if the row's version is still ver:
        Conflict otherwise (nothing changed)."""
        line = b"tupdate " + wire.key(table, "table") + _fields(fields) + wire.options(ver=ver)
        return self._table_write(line, {b"NOT_FOUND": None,
                                        b"EXISTS": Conflict("tupdate: the row's version is not %s" % ver)},
                                 "tupdate")

    def tdel(self, table, *key, ver=None):
        """Deletes the row with these key values (in the key's order): True,
        or False when there is none. With ver, Conflict when the row's
        version differs (nothing deleted)."""
        if not key:
            raise MemcacheIllegalInputError("tdel: no key value")
        line = b"tdel %s %s" % (wire.key(table, "table"), b" ".join(tvalue(k) for k in key))
        line += wire.options(ver=ver)
        reply = self._mcds_call(line)
        if reply == b"EXISTS":
            raise Conflict("tdel: the row's version is not %s" % ver)
        if reply in (b"DELETED", b"NOT_FOUND"):
            return reply == b"DELETED"
        return self._mcds_unexpected(line, reply)

    def _read_rows(self, reply, with_cursor):
        """ROWs up to END (with CURSOR before it if with_cursor): (rows,
        cursor); NOT_FOUND first raises NotFound."""
        rows, cursor = [], None
        while True:
            line = reply.line()
            if line == b"END" and (cursor is not None or not with_cursor):
                return rows, cursor
            parts = line.split(b" ")
            if line == b"NOT_FOUND" and not rows and cursor is None:
                raise NotFound("no such table or cursor")
            if parts[0] == b"ROW" and len(parts) == 3 and cursor is None:
                rows.append(self._read_row(reply, int(parts[1]), int(parts[2])))
            elif parts[0] == b"CURSOR" and len(parts) == 2 and with_cursor and cursor is None:
                cursor = int(parts[1])
            else:
                reply.unexpected(line)

    @staticmethod
    def _read_row(reply, version, nfields):
        fields = {}
        for _ in range(nfields):
            line = reply.line()
            parts = line.split(b" ")
            if parts[0] != b"F" or len(parts) != 3:
                reply.unexpected(line)
            name = parts[1].decode()
            fields[name] = None if parts[2] == b"null" else reply.block(int(parts[2]))
        return Row(version, fields)

    def tget(self, table, *key, fields=None):
        """The row with these key values (a Row; only the fields named, a
        list or "a,b", if fields is given), or None when there is none (or
        no table)."""
        if not key:
            raise MemcacheIllegalInputError("tget: no key value")
        line = b"tget %s %s" % (wire.key(table, "table"), b" ".join(tvalue(k) for k in key))
        line += _field_list(fields)

        def read(reply):
            first = reply.line()
            if first in (b"END", b"NOT_FOUND"):
                return None
            parts = first.split(b" ")
            if parts[0] != b"ROW" or len(parts) != 3:
                reply.unexpected(first)
            row = self._read_row(reply, int(parts[1]), int(parts[2]))
            end = reply.line()
            if end != b"END":
                reply.unexpected(end)
            return row
        return self._mcds_call(line, read=read)

    def _page(self, line, table):
        rows, cursor = self._mcds_call(line, read=lambda r: self._read_rows(r, True))
        return TablePage(rows, cursor, table)

    def tselect_page(self, table, index, eq=(), ge=None, gt=None, le=None, lt=None,
                     desc=False, count=None, fields=None, ttl=None, nocursor=False):
        """The first page of a selection through index ("primary" for the
        key): eq the values of its first parts, in order (None selects
        NULLs); ge/gt and le/lt bound the part after them; desc walks
        backwards; count rows a page (server default 100, at most 1000);
        fields the fields to return; ttl the cursor's lifetime unused
        (seconds); nocursor: this page only, no cursor kept (cursor 0: "the
        first count rows"). A TablePage; NotFound when there is no table."""
        line = b"tselect %s %s" % (wire.key(table, "table"), _name(index, "index"))
        line += b"".join(b" eq=" + tvalue(v) for v in eq)
        for op, value in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)):
            if value is not None:
                line += b" %s=%s" % (op.encode(), tvalue(value))
        if desc:
            line += b" desc"
        line += wire.options(count=count) + _field_list(fields) + wire.options(ttl=ttl)
        return self._page(line + (b" nocursor" if nocursor else b""), table)

    def tscan_page(self, table, where=None, count=None, fields=None, ttl=None, nocursor=False):
        """The first page of a predicate scan in primary key order: where
        is the predicate as tscan takes it ("age >= 30 and ( city = Paris
        or city is null )"; write values with tvalue); None: every row. A
        page examines at most 10,000 rows, so it may be empty and still
        have a cursor (nocursor: none kept, as tselect_page). A TablePage;
        NotFound when there is no table."""
        line = b"tscan " + wire.key(table, "table") + wire.options(count=count)
        line += _field_list(fields) + wire.options(ttl=ttl) + (b" nocursor" if nocursor else b"")
        if where is not None:
            where = wire.data(where)
            if b"\r" in where or b"\n" in where:
                raise MemcacheIllegalInputError("tscan: a predicate is one line")
            line += b" where " + where
        return self._page(line, table)

    def tnext(self, table, cursor, count=None):
        """The next page of a cursor of table's (any connection to its
        server may continue it): a TablePage; NotFound when the cursor is
        closed or expired."""
        line = b"tnext " + wire.integer(cursor, "cursor") + wire.options(count=count)
        return self._page(line, table)

    def tclose(self, table, cursor):
        """Closes a cursor of table's before its end: True, or False if
        there is none."""
        return self._mcds_simple(b"tclose " + wire.integer(cursor, "cursor"),
                                 {b"DELETED": True, b"NOT_FOUND": False})

    def _all_rows(self, page, count):
        try:
            while True:
                yield from page.rows
                if page.cursor == 0:
                    return
                page = self.tnext(page.table, page.cursor, count=count)
        finally:
            if page.cursor != 0:
                self.tclose(page.table, page.cursor)

    def tselect(self, table, index, **kwargs):
        """Every row of a selection (tselect_page's arguments), page by
        page: an iterator of Row. Leaving the loop early closes the cursor."""
        return self._all_rows(self.tselect_page(table, index, **kwargs), kwargs.get("count"))

    def tscan(self, table, where=None, count=None, fields=None, ttl=None):
        """Every row a predicate scan accepts, page by page: an iterator of
        Row. Leaving the loop early closes the cursor."""
        return self._all_rows(self.tscan_page(table, where, count, fields, ttl), count)
