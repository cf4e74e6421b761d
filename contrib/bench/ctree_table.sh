#!/bin/sh
# ctree_table.sh: the thesis's Table B.1 at equal guarantees, mcds against
# PostgreSQL 15 and Redis 7 on this machine in one run
# (doc/performance.md, "Tree counters").
#
#   contrib/bench/ctree_table.sh [SECONDS]      # each cell runs SECONDS (default 3)
#
# Builds contrib/bench/ctree_bench (needs libpq-dev and libhiredis-dev),
# starts two mcds servers from this tree (--data-dir with --fsync no, and
# with --fsync always), one PostgreSQL cluster in a scratch directory (as
# the postgres user: run as root) and one redis-server, then, for each
# hierarchy of Table B.1, each R (increments a request: 1, 10, 100), 1 and
# 8 connections and both durability levels, runs the same seeded request
# stream against each system and prints a Markdown table of requests per
# second and their ratios. Every run checks the roots' totals afterwards.
#
# Durability levels, the same on every system:
#   log, no sync   mcds --fsync no; PostgreSQL synchronous_commit=off;
#                  Redis appendonly yes, appendfsync no
#                  (each writes its log and answers before the disk has it)
#   fsync          mcds --fsync always; synchronous_commit=on;
#                  appendfsync always (a reply waits for its fsync)
# Atomicity, the same on every system: a request of R increments is one
# unit (mcds one ctincrn, PostgreSQL one statement, Redis one script).
set -eu
secs=${1:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/contrib/bench/ctree_bench
pgbin=/usr/lib/postgresql/15/bin
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ctree-table.XXXXXX")
chmod 755 "$scratch"

for need in "$pgbin/initdb" redis-server redis-cli; do
    command -v "$need" >/dev/null 2>&1 || [ -x "$need" ] || {
        echo "ctree_table: $need is missing (apt-get install postgresql redis-server)" >&2; exit 1; }
done
cc -O2 -o "$bench" "$top/contrib/bench/ctree_bench.c" \
    $(pkg-config --cflags --libs libpq hiredis) -lpthread || {
    echo "ctree_table: cannot build ctree_bench (apt-get install libpq-dev libhiredis-dev)" >&2; exit 1; }

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    [ -d "$scratch/pg/data" ] && runuser -u postgres -- "$pgbin/pg_ctl" -D "$scratch/pg/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap cleanup EXIT

# mcds: one server per durability level.
mport_nosync=$(free_port)
mkdir "$scratch/m1" "$scratch/m2"
"$top/server/mcds-server" -p "$mport_nosync" -m 4096 --data-dir "$scratch/m1" --fsync no >/dev/null 2>&1 &
pids="$pids $!"
mport_fsync=$(free_port)
"$top/server/mcds-server" -p "$mport_fsync" -m 4096 --data-dir "$scratch/m2" --fsync always >/dev/null 2>&1 &
pids="$pids $!"

# Redis: append-only file on; appendfsync set per level.
rport=$(free_port)
mkdir "$scratch/redis"
redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly yes --appendfsync no \
    --dir "$scratch/redis" >/dev/null 2>&1 &
pids="$pids $!"

# PostgreSQL: synchronous_commit set per connection.
pport=$(free_port)
mkdir "$scratch/pg"
chown postgres:postgres "$scratch/pg"
runuser -u postgres -- "$pgbin/initdb" -D "$scratch/pg/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$pgbin/pg_ctl" -D "$scratch/pg/data" -w -l "$scratch/pg/log" \
    -o "-p $pport -k $scratch/pg -c shared_buffers=256MB -c client_min_messages=warning" start >/dev/null
pg="host=$scratch/pg port=$pport user=postgres dbname=postgres"
sleep 1

# run SYSTEM LEVEL LAYERS R CONNS [options]: one line of ctree_bench
# (objects of each hierarchy named apart: h<i>o<n>).
run() {
    sys=$1 level=$2 layers=$3 r=$4 conns=$5
    shift 5
    case "$sys.$level" in
    mcds.nosync) addr=127.0.0.1:$mport_nosync ;;
    mcds.fsync) addr=127.0.0.1:$mport_fsync ;;
    redis.*) addr=127.0.0.1:$rport
             redis-cli -p "$rport" config set appendfsync "$([ "$level" = fsync ] && echo always || echo no)" >/dev/null ;;
    postgres.nosync) addr="$pg options='-c synchronous_commit=off'" ;;
    postgres.fsync) addr="$pg options='-c synchronous_commit=on'" ;;
    esac
    "$bench" "$sys" "$addr" --layers "$layers" --r "$r" --conns "$conns" --seconds "$secs" \
        --seed "$r$conns" --prefix "$prefix" --check "$@"
}

echo "| layers | R | conns | durability | mcds req/s | PostgreSQL req/s | Redis req/s | mcds / PG | mcds / Redis | p99 ms mcds / PG / Redis |"
echo "|---|---|---|---|---|---|---|---|---|---|"
h=0
for layers in 10,100,1000 100,1000,10000 10,100,1000,10000; do
    h=$((h + 1))
    prefix=h${h}o
    run mcds nosync "$layers" 1 1 --setup --requests 1 >/dev/null
    run mcds fsync "$layers" 1 1 --setup --requests 1 >/dev/null
    run postgres nosync "$layers" 1 1 --setup --requests 1 >/dev/null
    run redis nosync "$layers" 1 1 --setup --requests 1 >/dev/null
    for r in 1 10 100; do
        for conns in 1 8; do
            for level in nosync fsync; do
                m=$(run mcds "$level" "$layers" "$r" "$conns")
                p=$(run postgres "$level" "$layers" "$r" "$conns")
                d=$(run redis "$level" "$layers" "$r" "$conns")
                for line in "$m" "$p" "$d"; do
                    case "$line" in *" ok") ;; *) echo "ctree_table: a run failed: $line" >&2; exit 1 ;; esac
                done
                echo "$layers $r $conns $level $m | $p | $d" | awk -F'|' '{
                    split($1, a, " "); split($2, b, " "); split($3, c, " ");
                    lev = a[4] == "fsync" ? "fsync each request" : "log, no sync";
                    printf "| %s | %s | %s | %s | %d | %d | %d | %.1f× | %.1f× | %s / %s / %s |\n",
                        a[1], a[2], a[3], lev, a[10], b[6], c[6], a[10] / b[6], a[10] / c[6], a[13], b[9], c[9] }'
            done
        done
    done
done
