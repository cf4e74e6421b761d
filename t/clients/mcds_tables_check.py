#!/usr/bin/env python3
"""The table calls of contrib/python/mcds against a running mcds-server
(t/unit/python_tables.tcl): rows with versions, any bytes, selections
through an index against a model, cursors, scans, errors and hostile
input, and a Pool of several servers.

    mcds_tables_check.py SRCDIR HOST:PORT [HOST:PORT ...]

Prints "ok - <what>" per check and "all checks passed" at the end; exits
1 with a message at the first mismatch.
"""
import os
import random
import sys
import time

from pkg_checks import check, passed, raises


sys.path.insert(0, os.path.join(sys.argv[1], "contrib", "python"))
import mcds  # noqa: E402
from pymemcache.exceptions import (MemcacheClientError,  # noqa: E402
                                   MemcacheIllegalInputError)

SCHEMA = "id:int,name:bytes,city:bytes,age:int key=id index=by_city:city+age:desc"


def rows_check(c):
    t = "pt:users"
    c.tdrop(t)
    check("tcreate", c.tcreate(t, SCHEMA), True)
    check("tcreate again", c.tcreate(t, "x:int key=x"), False)
    v1 = c.tinsert(t, {"id": 1, "name": "Alice", "city": "Paris", "age": 34})
    check("tinsert gives a version", isinstance(v1, int) and v1 > 0, True)
    check("tinsert of a taken key", c.tinsert(t, {"id": 1, "name": "Bob"}), None)
    row = c.tget(t, 1)
    check("tget", row, mcds.Row(v1, {"id": b"1", "name": b"Alice", "city": b"Paris", "age": b"34"}))
    check("tget fields=", c.tget(t, 1, fields=["name", "age"]).fields, {"name": b"Alice", "age": b"34"})
    v2 = c.tupdate(t, {"id": 1, "age": 35}, ver=v1)
    check("tupdate with the version read", v2 > v1, True)
    raises("tupdate with a stale version", mcds.Conflict, c.tupdate, t, {"id": 1, "age": 36}, ver=v1)
    check("tupdate of no row", c.tupdate(t, {"id": 9, "age": 1}), None)
    odd = b"a b%c\x00d\r\nend \xff"
    c.tput(t, {"id": 1, "name": odd, "city": None})
    check("any bytes, NULLs", c.tget(t, 1).fields,
          {"id": b"1", "name": odd, "city": None, "age": None})
    c.tupdate(t, {"id": 1, "name": "null", "city": ""})
    got = c.tget(t, 1).fields
    check("the bytes null and the empty value are not NULL", (got["name"], got["city"]), (b"null", b""))
    raises("tdel with a stale version", mcds.Conflict, c.tdel, t, 1, ver=1)
    check("tdel", c.tdel(t, 1), True)
    check("tdel of no row", c.tdel(t, 1), False)
    check("tget of no row", c.tget(t, 1), None)
    check("tdrop", c.tdrop(t), True)
    check("tdrop of no table", c.tdrop(t), False)
    c.tcreate(t, "k:bytes,v:int key=k")
    c.tinsert(t, {"k": "", "v": 1})
    c.tinsert(t, {"k": "null", "v": 2})
    check("an empty key value", c.tget(t, "").fields, {"k": b"", "v": b"1"})
    check("the key value null", c.tget(t, b"null").fields, {"k": b"null", "v": b"2"})
    check("tdel of an empty key value", (c.tdel(t, ""), c.tdel(t, "")), (True, False))
    c.tdrop(t)


def open_cursors(c, table):
    """The ids of table's cursors in tcursors."""
    lines = c._mcds_call(b"tcursors", read=lambda r: r.rows(lambda line: line))
    return sorted(line.split(b" ")[1] for line in lines if line.split(b" ")[2] == table.encode())


def select_check(c):
    t = "pt:model"
    c.tdrop(t)
    c.tcreate(t, SCHEMA)
    rng = random.Random(7)
    cities = ["Paris", "Lyon", "Nice", None, "Saint Malo", "100%"]
    model = {}
    for i in range(400):
        row = {"id": i, "name": "n%d" % i, "city": rng.choice(cities), "age": rng.randrange(0, 90)}
        c.tinsert(t, row)
        model[i] = row
    for i in rng.sample(range(400), 60):           # moves in the index
        model[i]["age"] = rng.randrange(0, 90)
        c.tupdate(t, {"id": i, "age": model[i]["age"]})
    for i in rng.sample(range(400), 40):
        c.tdel(t, i)
        del model[i]

    def want(city, lo=None, hi=None, desc=False):
        rows = [r for r in model.values() if r["city"] == city and
                (lo is None or r["age"] >= lo) and (hi is None or r["age"] < hi)]
        # the index: city, then age descending, then the key
        rows.sort(key=lambda r: (-r["age"], r["id"]), reverse=desc)
        return [r["id"] for r in rows]

    for city in cities:
        got = [int(r.fields["id"]) for r in c.tselect(t, "by_city", eq=[city], count=7)]
        check("tselect eq=%s, pages of 7, against the model" % city, got, want(city))
    got = [int(r.fields["id"]) for r in c.tselect(t, "by_city", eq=["Paris"], ge=30, lt=60, count=5)]
    check("tselect a range, against the model", got, want("Paris", 30, 60))
    got = [int(r.fields["id"]) for r in c.tselect(t, "by_city", eq=["Lyon"], desc=True)]
    check("tselect desc, against the model", got, want("Lyon", desc=True))
    page = c.tselect_page(t, "primary", count=3, fields="id")
    check("a page and its cursor", (len(page.rows), page.cursor != 0, page.table), (3, True, t))
    check("rows with fields=", page.rows[0].fields, {"id": b"%d" % sorted(model)[0]})
    nxt = c.tnext(t, page.cursor, count=2)
    check("tnext continues", [int(r.fields["id"]) for r in nxt.rows], sorted(model)[3:5])
    check("tclose", c.tclose(t, nxt.cursor), True)
    raises("tnext of a closed cursor", mcds.NotFound, c.tnext, t, nxt.cursor)
    check("tclose of a closed cursor", c.tclose(t, nxt.cursor), False)
    page = c.tselect_page(t, "primary", count=3, nocursor=True)
    check("nocursor: the first rows, cursor 0", ([int(r.fields["id"]) for r in page.rows], page.cursor),
          (sorted(model)[:3], 0))
    before = open_cursors(c, t)
    it = c.tselect(t, "primary", count=2)
    next(it)
    check("a cursor is open", len(open_cursors(c, t)), len(before) + 1)
    it.close()                                    # leaves early
    check("an iterator left early closes its cursor", open_cursors(c, t), before)

    where = "city = %s and age >= 45" % mcds.tvalue("Saint Malo").decode()
    got = sorted(int(r.fields["id"]) for r in c.tscan(t, where, count=10))
    check("tscan a predicate, against the model", got,
          sorted(i for i, r in model.items() if r["city"] == "Saint Malo" and r["age"] >= 45))
    got = sorted(int(r.fields["id"]) for r in c.tscan(t, "city is null or city prefix %s" %
                                                      mcds.tvalue("100%").decode()))
    check("tscan is null, prefix with an escaped value", got,
          sorted(i for i, r in model.items() if r["city"] in (None, "100%")))
    raises("tscan a bad predicate", MemcacheClientError, c.tscan_page, t, "age >=")
    check("tindex", c.tindex(t, "by_age", "age+id"), True)
    for _ in range(500):                          # built in the background
        try:
            got = [int(r.fields["id"]) for r in c.tselect(t, "by_age", ge=80)]
            break
        except MemcacheClientError as e:
            if b"being built" not in str(e).encode():
                raise
            time.sleep(0.01)
    check("a selection through an index added later", got,
          [i for i, r in sorted(model.items(), key=lambda kv: (kv[1]["age"], kv[0])) if r["age"] >= 80])
    check("tdropindex", (c.tdropindex(t, "by_age"), c.tdropindex(t, "by_age")), (True, False))
    c.tdrop(t)


def errors_check(c):
    t = "pt:none"
    c.tdrop(t)
    raises("tinsert into no table", mcds.NotFound, c.tinsert, t, {"id": 1})
    raises("tselect of no table", mcds.NotFound, c.tselect_page, t, "primary")
    check("tget of no table", c.tget(t, 1), None)
    raises("a refused schema", MemcacheClientError, c.tcreate, t, "id:float key=id")
    c.tcreate(t, SCHEMA)
    raises("no such field", MemcacheClientError, c.tinsert, t, {"id": 1, "shoe": 1})
    raises("a bad int", MemcacheClientError, c.tput, t, {"id": 1, "age": "old"})
    raises("a field name with a space", MemcacheIllegalInputError, c.tinsert, t, {"id": 1, "a b": 1})
    raises("a field name with =", MemcacheIllegalInputError, c.tinsert, t, {"id=1 name": 1})
    raises("no fields", MemcacheIllegalInputError, c.tinsert, t, {})
    raises("a schema of two lines", MemcacheIllegalInputError, c.tcreate, t, "a:int key=a\r\nflush_all")
    raises("a predicate of two lines", MemcacheIllegalInputError, c.tscan_page, t, "age = 1\r\nflush_all")
    raises("a bool value", MemcacheIllegalInputError, c.tinsert, t, {"id": True})
    raises("no key value", MemcacheIllegalInputError, c.tdel, t)
    check("the connection still answers", c.tget(t, 1), None)
    c.tdrop(t)


def pool_check(servers):
    pool = mcds.Pool(servers)
    names = ["pt:pool:%d" % i for i in range(12)]
    for n in names:
        pool.tdrop(n)
        pool.tcreate(n, SCHEMA)
        for i in range(5):
            pool.tinsert(n, {"id": i, "name": n})
    where = {}
    for n in names:
        where[n] = [i for i, cl in enumerate(pool.clients) if cl.tget(n, 0) is not None]
    check("each table on one server", all(len(v) == 1 for v in where.values()), True)
    check("the server libmcds picks", all(pool.clients[where[n][0]] is pool.client_for(n) for n in names),
          True)
    check("tables spread over the servers", len({v[0] for v in where.values()}) > 1, True)
    got = 0
    for n in names:
        page = pool.tselect_page(n, "primary", count=2)
        got += len(page.rows)
        while page.cursor:
            page = pool.tnext(n, page.cursor, count=2)
            got += len(page.rows)
    check("cursors continued on their table's server", got, 60)
    for n in names:
        pool.tdrop(n)
    pool.close()


def main():
    host, port = sys.argv[2].rsplit(":", 1)
    c = mcds.Client((host, int(port)), timeout=10)
    rows_check(c)
    select_check(c)
    errors_check(c)
    if len(sys.argv) > 3:
        pool_check(sys.argv[2:])
    c.close()
    passed()


main()
