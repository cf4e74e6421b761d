#!/usr/bin/python3
"""ctree_compare.py: tree counters in mcds against PostgreSQL 15 (a plpgsql
upsert procedure, one transaction per request) and Redis 7 (a Lua script on
hashes), in the same run on the same machine: the thesis's Table B.1 setting.

  contrib/bench/ctree_compare.py [--requests N] [--pg-increments N] [--rows all|quick]

Hierarchies of layers [10,100,1000], [100,1000,10000], [10,100,1000,10000];
10 counters storing hour, day, month, year and all time; a request is R = 1,
10 or 100 increments of a random leaf, random counter, period type hour,
random hour of 2021. Every system gets the same seeded request stream, from
this one Python client (one connection, one request at a time, R increments
per request sent together). Each reports milliseconds per 10000 requests (as
the thesis does), increments per second, and p99 per request.

PostgreSQL is bounded by --pg-increments per row (default 100000): with R=100
it runs 1000 requests and its ms/10000 requests is scaled from them (said in
the output). Servers: mcds-server from the tree (in memory, no --data-dir),
redis-server (no RDB, no AOF), PostgreSQL 15 in a scratch cluster with
synchronous_commit=off (fsync still on) — the closest each gets to "in
memory". Needs python3-psycopg2 and python3-redis (Debian packages) and root
(to run PostgreSQL as the postgres user). Every server is stopped at the end.
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import psycopg2
import redis

HERE = os.path.dirname(os.path.abspath(__file__))
MCDS = os.path.join(HERE, "..", "..", "server", "mcds-server")
PGBIN = "/usr/lib/postgresql/15/bin"
HIERARCHIES = [[10, 100, 1000], [100, 1000, 10000], [10, 100, 1000, 10000]]
COUNTERS = 10
YEAR0 = 1609459200                      # 2021-01-01 00:00:00 UTC
HOURS = 365 * 24


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("port %d never opened" % port)


def tree(layers):
    """Objects "o<i>" with parents; returns (names, parent map, leaves)."""
    names, parent, prev = [], {}, []
    for size in layers:
        layer = ["o%d" % (len(names) + i) for i in range(size)]
        for i, o in enumerate(layer):
            parent[o] = prev[i * len(prev) // size] if prev else None
        names += layer
        prev = layer
    return names, parent, prev


def workload(leaves, r, nreq, seed):
    rnd = random.Random(seed)
    reqs = []
    for _ in range(nreq):
        batch = []
        for _ in range(r):
            t = YEAR0 + rnd.randrange(HOURS) * 3600
            batch.append((leaves[rnd.randrange(len(leaves))], 1 + rnd.randrange(COUNTERS),
                          time.strftime("%Y%m%d%H", time.gmtime(t)), 1 + rnd.randrange(100)))
        reqs.append(batch)
    return reqs


def summary(lat, nreq_total, r):
    lat = sorted(lat)
    total = sum(lat)
    return {"ms10k": total / len(lat) * 10000 * 1000, "incr_s": len(lat) * r / total,
            "p99_ms": lat[int(len(lat) * 0.99) - 1] * 1000, "measured": len(lat)}


# ---- mcds ----

class Mcds:
    name = "mcds"

    def start(self, tmp):
        self.port = free_port()
        self.proc = subprocess.Popen([MCDS, "-p", str(self.port), "-l", "127.0.0.1", "-m", "2048", "-t", "2"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s, s.makefile("rb")

    def setup(self, names, parent):
        """A fresh server for every row (so memory and values are this row's)."""
        self.stop()
        self.start(None)
        s, f = self.connect()
        self.s, self.f = s, f
        self.call(["ctdef %d 103,104,105,106,107" % c for c in range(1, COUNTERS + 1)])
        lines = ["ctobj %s%s" % (o, " parent=" + parent[o] if parent[o] else "") for o in names]
        for i in range(0, len(lines), 1000):
            self.call(lines[i:i + 1000])
        self.mem0 = self.stat("total_malloced")
        assert self.mem0 is not None

    def call(self, lines):
        self.s.sendall(("".join(l + "\r\n" for l in lines)).encode())
        for _ in lines:
            line = self.f.readline()
            if not (line.startswith(b"STORED") or line.startswith(b"CREATED") or line.startswith(b"EXISTS")):
                raise RuntimeError("mcds answered %r" % line)

    def request(self, batch):
        self.call(["ctincr %s %d 103 %s %d" % (o, c, h, d) for o, c, h, d in batch])

    def stat(self, name):
        self.s.sendall(b"stats slabs\r\n")
        val = None
        while True:
            line = self.f.readline().decode().strip()
            if line == "END":
                return val
            parts = line.split()
            if parts[1] == name:
                val = int(parts[2])

    def values(self):
        n, after = 0, ""
        while True:
            self.s.sendall(("ctperiods count=10000 scan=10000000%s\r\n" % after).encode())
            more = None
            while True:
                line = self.f.readline().decode().strip()
                if line == "END":
                    break
                if line.startswith("MORE "):
                    more = line.split()[1]
                else:
                    n += int(line.split()[4])
            if more is None:
                return n
            after = " after=" + more

    def memory(self):
        return self.stat("total_malloced") - self.mem0, self.values()

    def stop(self):
        if getattr(self, "s", None) is not None:
            self.s.close()
            self.s = None
        self.proc.terminate()
        self.proc.wait(10)


# ---- Redis + Lua ----

LUA = """
local delta = tonumber(ARGV[3])
local hour = ARGV[2]
local periods = {"103:" .. hour, "104:" .. string.sub(hour, 1, 8), "105:" .. string.sub(hour, 1, 6),
                 "106:" .. string.sub(hour, 1, 4), "107:1"}
local o = KEYS[1]
while o do
  for _, p in ipairs(periods) do
    redis.call("HINCRBY", "v:" .. o, ARGV[1] .. ":" .. p, delta)
  end
  o = redis.call("HGET", "parent", o)
  if not o then break end
end
return 1
"""


class Redis:
    name = "redis"

    def start(self, tmp):
        self.port = free_port()
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", tmp],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def setup(self, names, parent):
        self.r = redis.Redis(port=self.port)
        self.r.flushall()
        pairs = {o: p for o, p in parent.items() if p}
        if pairs:
            self.r.hset("parent", mapping=pairs)
        self.sha = self.r.script_load(LUA)
        self.mem0 = self.r.info("memory")["used_memory"]

    def request(self, batch):
        p = self.r.pipeline(transaction=False)
        for o, c, h, d in batch:
            p.evalsha(self.sha, 1, o, c, h, d)
        p.execute()

    def memory(self):
        n = sum(self.r.hlen(k) for k in self.r.scan_iter("v:*", count=1000))
        return self.r.info("memory")["used_memory"] - self.mem0, n

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


# ---- PostgreSQL ----

PG_SCHEMA = """
CREATE TABLE objects (id text PRIMARY KEY, parent text);
CREATE TABLE stats (object text, counter int, ptype int, period text, value bigint NOT NULL,
                    PRIMARY KEY (object, counter, ptype, period));
CREATE FUNCTION ct_incr(leaf text, ctr int, hour text, delta bigint) RETURNS void AS $$
DECLARE
    o text := leaf;
    pt int;
    per text;
BEGIN
    WHILE o IS NOT NULL LOOP
        FOREACH pt IN ARRAY ARRAY[103, 104, 105, 106, 107] LOOP
            per := CASE pt WHEN 103 THEN hour WHEN 104 THEN substr(hour, 1, 8)
                           WHEN 105 THEN substr(hour, 1, 6) WHEN 106 THEN substr(hour, 1, 4) ELSE '1' END;
            INSERT INTO stats VALUES (o, ctr, pt, per, delta)
                ON CONFLICT (object, counter, ptype, period) DO UPDATE SET value = stats.value + delta;
        END LOOP;
        SELECT parent INTO o FROM objects WHERE id = o;
    END LOOP;
END $$ LANGUAGE plpgsql;
"""


class Postgres:
    name = "postgres"

    def start(self, tmp):
        self.dir = os.path.join(tmp, "pg")
        os.mkdir(self.dir)
        shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_pg + [PGBIN + "/initdb", "-D", self.dir + "/data", "-A", "trust", "-U", "postgres"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(as_pg + [PGBIN + "/pg_ctl", "-D", self.dir + "/data", "-w", "-l", self.dir + "/log",
                                "-o", "-p %d -k %s -c synchronous_commit=off -c shared_buffers=256MB"
                                % (self.port, self.dir), "start"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def setup(self, names, parent):
        if getattr(self, "c", None) is not None:
            self.c.close()
        self.c = psycopg2.connect(host=self.dir, port=self.port, user="postgres", dbname="postgres")
        cur = self.c.cursor()
        cur.execute("DROP TABLE IF EXISTS stats; DROP TABLE IF EXISTS objects; DROP FUNCTION IF EXISTS ct_incr;")
        cur.execute(PG_SCHEMA)
        cur.executemany("INSERT INTO objects VALUES (%s, %s)", [(o, parent[o]) for o in names])
        self.c.commit()
        self.cur = cur

    def request(self, batch):
        self.cur.execute("".join(self.cur.mogrify("SELECT ct_incr(%s, %s, %s, %s);", b).decode() for b in batch))
        self.c.commit()

    def memory(self):
        self.cur.execute("SELECT pg_total_relation_size('stats'), count(*) FROM stats")
        row = self.cur.fetchone()
        self.c.commit()         # no transaction left open to block the next DROP
        return row

    def stop(self):
        self.c.close()
        subprocess.run(["runuser", "-u", "postgres", "--", PGBIN + "/pg_ctl", "-D", self.dir + "/data", "-m",
                        "fast", "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_row(sys_, layers, r, nreq, seed):
    names, parent, leaves = tree(layers)
    sys_.setup(names, parent)
    reqs = workload(leaves, r, nreq, seed)
    lat = []
    for b in reqs:
        t0 = time.perf_counter()
        sys_.request(b)
        lat.append(time.perf_counter() - t0)
    return summary(lat, nreq, r)


def mcds_parallel(m, layers, r, nreq, conns, seed):
    """nreq requests of R increments spread over conns connections, each
    sending all of its lines at once from a thread while another thread
    reads its replies (the bytes are built before the clock starts): what
    the server sustains when clients pipeline."""
    import threading
    names, parent, leaves = tree(layers)
    m.setup(names, parent)
    reqs = workload(leaves, r, nreq, seed)
    socks = [m.connect()[0] for _ in range(conns)]
    blobs = ["".join("ctincr %s %d 103 %s %d\r\n" % x for b in reqs[i::conns] for x in b).encode()
             for i in range(conns)]
    errors = []

    def read(sock, n):
        got, stored = 0, 0
        while got < n:
            d = sock.recv(1 << 20)
            if not d:
                errors.append("connection closed")
                return
            got += d.count(b"\n")
            stored += d.count(b"STORED")
        if stored != n:
            errors.append("a ctincr failed")
    threads = [threading.Thread(target=read, args=(socks[i], blobs[i].count(b"\n"))) for i in range(conns)]
    threads += [threading.Thread(target=socks[i].sendall, args=(blobs[i],)) for i in range(conns)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = time.perf_counter() - t0
    for s in socks:
        s.close()
    if errors:
        raise RuntimeError(errors[0])
    return {"ms10k": total / nreq * 10000 * 1000, "incr_s": nreq * r / total, "p99_ms": float("nan"),
            "measured": nreq}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=10000)
    ap.add_argument("--pg-increments", type=int, default=100000)
    ap.add_argument("--parallel-requests", type=int, default=10000)
    ap.add_argument("--rows", default="all", help="all, quick, or the hierarchies by index: 0,2")
    args = ap.parse_args()
    rows = [(h, r) for h in HIERARCHIES for r in (1, 10, 100)]
    if args.rows == "quick":
        rows = [(HIERARCHIES[0], 1), (HIERARCHIES[0], 10)]
    elif args.rows != "all":
        rows = [(HIERARCHIES[int(i)], r) for i in args.rows.split(",") for r in (1, 10, 100)]
    tmp = tempfile.mkdtemp(prefix="ctree-bench.")
    os.chmod(tmp, 0o755)
    systems = [Mcds(), Redis(), Postgres()]
    started = []
    try:
        for s in systems:
            s.start(tmp)
            started.append(s)
        print("layers,R,system,requests,ms_per_10000_requests,increments_per_s,p99_ms")
        mem = {}
        for layers, r in rows:
            for s in systems:
                n = args.requests
                if s.name == "postgres":
                    n = min(n, max(100, args.pg_increments // r))
                res = run_row(s, layers, r, n, seed=len(layers) * 1000 + r)
                print("%s,%d,%s,%d,%.0f,%.0f,%.3f" % ("/".join(map(str, layers)), r, s.name, res["measured"],
                                                      res["ms10k"], res["incr_s"], res["p99_ms"]), flush=True)
                if r == 100 and layers == rows[-1][0]:
                    mem[s.name] = s.memory()
        m = systems[0]
        for conns in (1, 8):
            res = mcds_parallel(m, HIERARCHIES[2], 10, args.parallel_requests, conns, seed=77)
            print("%s,%d,mcds-%dconns-pipelined,%d,%.0f,%.0f,NA" % ("/".join(map(str, HIERARCHIES[2])), 10, conns,
                                                                 res["measured"], res["ms10k"], res["incr_s"]))
        for name, (b, n) in mem.items():
            print("memory,%s,%d values,%.1f bytes per value" % (name, n, b / max(n, 1)))
    finally:
        for s in started:
            try:
                s.stop()
            except Exception as e:          # keep stopping the others
                print("stopping %s: %s" % (s.name, e), file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
