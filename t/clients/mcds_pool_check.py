#!/usr/bin/env python3
"""mcds.Pool against libmemcached (t/unit/python_pkg.tcl).

    mcds_pool_check.py ketama SRCDIR KETAMA_CHECK
    mcds_pool_check.py live SRCDIR KETAMA_CHECK SERVER SERVER ...

KETAMA_CHECK is t/clients/ketama_check.c built against libmemcached: it
prints the server memcached_server_by_key picks with libmcds's settings.
"ketama" compares the Pool's choice with it for 2,000 keys on several
server lists (weights, the default port and others, names and addresses);
"live" sends structures and keys through a Pool over running servers
(SERVER: host:port[:weight]) and checks, on each server, that it holds
exactly what libmemcached places there. Prints "ok - <what>" per check and
"all checks passed"; exits 1 at the first mismatch.
"""
import os
import random
import subprocess
import sys


def check(what, got, want):
    if got != want:
        sys.exit("FAIL %s: got %r, want %r" % (what, got, want))
    print("ok - %s" % what)


def keys(n):
    """n keys: plain, prefixed, UTF-8 (bytes over 127), {tag}s, 1 to 250 bytes."""
    rng = random.Random(2024)
    alphabet = "abcxyz0189:_-{}/\u00e9\u4e2d"
    out = ["key:%d" % i for i in range(n // 2)]
    while len(out) < n:
        k = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 3, 12, 40, 80])))
        if len(k.encode()) <= 250:
            out.append(k)
    out.append("k" * 250)
    return out


def libmemcached_choice(program, servers, names):
    """{name: "host:port"} as libmemcached places each name."""
    text = "".join(n + "\n" for n in names)
    run = subprocess.run([program] + servers, input=text.encode(), stdout=subprocess.PIPE,
                         check=True)
    lines = run.stdout.decode().splitlines()
    if len(lines) != len(names):
        sys.exit("FAIL %s answered %d lines for %d keys" % (program, len(lines), len(names)))
    return {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in lines}


def tags(mcds):
    """route_key reads a {tag} as libmcds's route_key (client/xconn.c) does."""
    cases = {"jobs": b"jobs", "{jobs}": b"jobs", "{jobs}:dead": b"jobs", "a{b}c{d}": b"b",
             "{}": b"{}", "x{}y{z}": b"x{}y{z}", "a{b": b"a{b", "}a{b}": b"b"}
    check("{tag}s: the first { and the next }, not empty",
          {k: mcds.route_key(k) for k in cases}, cases)


def agree_on_keys(mcds, program):
    lists = [
        ["127.0.0.1:11211", "127.0.0.1:11212", "127.0.0.1:21211"],
        ["127.0.0.1:11211", "127.0.0.1:22122:3", "localhost:5000"],
        ["10.0.0.1:7000:2", "10.0.0.2:7000:5", "cache.example:11211:1", "10.0.0.4:11211:9"],
        ["alpha:1", "beta:2"],
        ["only:11211"],
    ]
    names = keys(2000)
    for servers in lists:
        want = libmemcached_choice(program, servers, names)
        pool = mcds.Pool(servers)
        got = {n: "%s:%d" % pool.server_for_key(n) for n in names}
        bad = [n for n in names if got[n] != want[n]]
        check("%d keys on %s: the Pool picks libmemcached's server for every one (%d differ)"
              % (len(names), ",".join(servers), len(bad)), bad, [])
        used = sorted(set(want.values()))
        check("... and the keys spread over every server", len(used), len(servers))


def live(mcds, program, servers):
    pool = mcds.Pool(servers, timeout=10)
    queues = ["pool:q:%d" % i for i in range(60)] + ["{grp%d}:q" % i for i in range(10)]
    lists = ["pool:l:%d" % i for i in range(60)] + ["{grp%d}:l" % i for i in range(10)]
    plain = ["pool:k:%d" % i for i in range(100)] + ["{grp1}:k"]
    for q, l in zip(queues, lists):
        pool.qpush(q, b"m:" + q.encode())
        pool.rpush(l, b"e")
    for k in plain:
        pool.set(k, k.encode())
    # libmemcached's choice for each structure's tag (libmcds's placement)
    # and for each plain key's whole text.
    route = {n: mcds.route_key(n).decode() for n in queues + lists}
    by_tag = libmemcached_choice(program, servers, sorted(set(route.values())))
    by_key = libmemcached_choice(program, servers, plain)
    where = {n: by_tag[route[n]] for n in queues + lists}
    where.update(by_key)
    for index, client in enumerate(pool.clients):
        here = "%s:%d" % pool.servers[index][:2]
        found = {k.key.decode() for k in client.kscan(match="pool:*")} | \
                {k.key.decode() for k in client.kscan(match="{grp*")}
        expect = {n for n, server in where.items() if server == here}
        check("server %s holds exactly the %d keys libmemcached places there"
              % (here, len(expect)), sorted(found), sorted(expect))
    check("a tagged queue and its list share a server",
          pool.server_for("{grp3}:q"), pool.server_for("{grp3}:l"))
    got = [pool.qpop(q)[0].data for q in queues]
    check("every message comes back through the Pool", got, [b"m:" + q.encode() for q in queues])
    check("qpopany over queues of one tag", [m.data for m in pool.qpopany(
        ["{grp4}:none", "{grp4}:q"])], [])
    check("pool.kscan sees the keys of every server",
          len({k.key for k in pool.kscan(match="pool:k:*")}), 100)
    check("ctdef defines the counter on every server", [pool.ctdef(31, [104]),
                                                        pool.ctdef(31, [104])], [True, False])
    pool.ctobj("{tree}root", group="{tree}")
    pool.ctobj("{tree}kid", parent="{tree}root", group="{tree}")
    pool.ctincr("{tree}kid", 31, 104, "20240301", 3, group="{tree}")
    check("a tree placed by its group sums up its children",
          pool.ctget("{tree}root", 31, 104, "20240301", group="{tree}").value, 3)
    on = [c.ctinfo("{tree}root") is not None for c in pool.clients]
    check("... on the group's server only",
          [pool.servers[i][:2] for i, yes in enumerate(on) if yes], [pool.server_for("{tree}")])
    pool.close()


def main():
    mode, srcdir, program = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, os.path.join(srcdir, "contrib", "python"))
    import mcds
    if mode == "ketama":
        tags(mcds)
        agree_on_keys(mcds, program)
    else:
        live(mcds, program, sys.argv[4:])
    print("all checks passed")


if __name__ == "__main__":
    main()
