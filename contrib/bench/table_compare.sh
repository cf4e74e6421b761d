#!/usr/bin/env bash
# table_compare.sh: issue 31's indexed-table workload, mcds against
# Tarantool, Redis 7 and PostgreSQL 15 at equal durability, in one run
# (doc/performance.md, "Indexed tables").
#
#   contrib/bench/table_compare.sh [--rows N] [--conns C] [--seconds S]
#       [--levels "memory fsync"] [--systems "mcds tarantool redis postgres"]
#       [--ops LIST] [--mcds PATH] [--limit SECS]
#
# Debian packages it needs (run as root: PostgreSQL runs as its user):
#   apt-get install tarantool redis-server postgresql-15 libpq-dev \
#       libhiredis-dev
#
# For each durability level, a fresh server of each system gets the table
# (rows (id, a, b, c, d); indexes (a, b), (c, id), (b, c, a); --rows rows,
# default 1,000,000) loaded by contrib/bench/table_bench, then the same
# seeded closed-loop request stream of each operation (insert, get, p10,
# p100, range, update, scan, getscan: table_bench.c says what each does) for
# --seconds (default 3) on --conns connections (default 4), every answer
# checked. It prints one Markdown table of requests per second, p99 and
# ratios, and one of the bytes per row the table and its indexes take:
# VmRSS after the load minus before, per row (PostgreSQL: the table's and
# its indexes' relation size instead: its memory is a buffer cache) and
# the server's own count of the same bytes.
#
# Each run of table_bench (a load, or one system's operations) is bounded
# by timeout(1) (--limit, default 900 s); the servers are stopped on any
# exit.
#
# Durability levels (the table's rows say which):
#   memory  nothing is synced: mcds without --data-dir, Tarantool
#           wal_mode='none', Redis appendonly no (all three in memory
#           only); PostgreSQL fsync=off, synchronous_commit=off,
#           full_page_writes=off (it writes its WAL, never syncs it)
#   fsync   a write's reply waits for its fsync: mcds --data-dir --fsync
#           always; Tarantool wal_mode='fsync'; Redis appendonly yes,
#           appendfsync always; PostgreSQL's defaults (fsync=on,
#           synchronous_commit=on)
# A system that cannot run a level (its load fails) gets "-" and a note.
# Atomicity, the same on every system: a row and its three index entries
# change together (mcds one verb, Tarantool one request on a space,
# Redis one script, PostgreSQL one statement).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rows=1000000
conns=4
secs=3
levels="memory fsync"
systems="mcds tarantool redis postgres"
ops=insert,get,p10,p100,range,update,scan,getscan
mcds=$top/server/mcds-server
pgbin=/usr/lib/postgresql/15/bin
limit=900
pin=
die() { echo "table_compare.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --rows) rows=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --levels) levels=$2; shift 2 ;;
    --systems) systems=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --mcds) mcds=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
done
for need in "$pgbin/initdb" redis-server tarantool runuser timeout; do
    command -v "$need" >/dev/null 2>&1 || [ -x "$need" ] ||
        die "$need is missing (apt-get install tarantool redis-server postgresql-15)"
done
[ -x "$mcds" ] || die "no mcds server at $mcds (--mcds PATH)"
# shellcheck source=lib.sh
. "$here/lib.sh"
bench_setup tables
chmod 755 "$tmp"
bench=$tmp/table_bench
cc -O2 -o "$bench" "$here/table_bench.c" "$here"/tbench_*.c $(pkg-config --cflags --libs libpq hiredis) -lpthread ||
    die "cannot build table_bench (apt-get install libpq-dev libhiredis-dev)"
start_wait=30

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

cat >"$tmp/init.lua" <<'EOF'
box.cfg{listen = os.getenv('TT_PORT'), wal_mode = os.getenv('TT_WAL'), work_dir = os.getenv('TT_DIR'),
        memtx_memory = 4 * 1024 * 1024 * 1024, checkpoint_interval = 0, log_level = 4}
box.schema.user.grant('guest', 'read,write,execute', 'universe', nil, {if_not_exists = true})
local s = box.schema.space.create('rows', {id = 512, if_not_exists = true})
s:format({{'id', 'integer'}, {'a', 'integer'}, {'b', 'string'}, {'c', 'integer'}, {'d', 'string'}})
s:create_index('pk', {parts = {'id'}, if_not_exists = true})
s:create_index('ab', {parts = {'a', 'b'}, unique = false, if_not_exists = true})
s:create_index('c', {parts = {'c', 'id'}, if_not_exists = true})
s:create_index('bca', {parts = {'b', 'c', 'a'}, unique = false, if_not_exists = true})
-- the predicate compares bytes: string.sub would make a string a row
function scan(p)
    local out, n, pb = {}, #p, {string.byte(p, 1, -1)}
    for _, t in s:pairs() do
        local d, k = t[5], 1
        while k <= n and string.byte(d, k) == pb[k] do k = k + 1 end
        if k > n then out[#out + 1] = t[1] end
    end
    return out
end
function mem()
    local m = box.info.memory()
    return m.data + m.index
end
EOF

# start_level LEVEL: one server of each system for LEVEL; sets addr_SYS and
# pid_SYS.
start_level() {
    local level=$1 d=$tmp/$1 wal pgopts
    mkdir -p "$d/mcds" "$d/redis" "$d/tt" "$d/pg"
    chown postgres:postgres "$d/pg"
    if [ "$level" = fsync ]; then
        bench_start "$d/mcds.log" "$mcds" -p @PORT@ -U 0 -m 16384 --data-dir "$d/mcds" --fsync always
    else
        bench_start "$d/mcds.log" "$mcds" -p @PORT@ -U 0 -m 16384
    fi || die "mcds did not start"
    addr_mcds=127.0.0.1:$srv_port pid_mcds=$srv_pid
    if [ "$level" = fsync ]; then
        bench_start "$d/redis.log" redis-server --port @PORT@ --bind 127.0.0.1 --save "" --appendonly yes \
            --appendfsync always --dir "$d/redis"
    else
        bench_start "$d/redis.log" redis-server --port @PORT@ --bind 127.0.0.1 --save "" --appendonly no \
            --dir "$d/redis"
    fi || die "redis did not start"
    addr_redis=127.0.0.1:$srv_port pid_redis=$srv_pid
    [ "$level" = fsync ] && wal=fsync || wal=none
    TT_WAL=$wal TT_DIR=$d/tt bench_start_tt "$d/tt.log" || die "tarantool did not start"
    addr_tarantool=127.0.0.1:$srv_port pid_tarantool=$srv_pid
    runuser -u postgres -- "$pgbin/initdb" -D "$d/pg/data" -A trust -U postgres >/dev/null ||
        die "initdb failed"
    pgopts="-c shared_buffers=1GB -c client_min_messages=warning -c max_wal_size=4GB"
    [ "$level" = memory ] && pgopts="$pgopts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    pgport=$((20000 + RANDOM % 40000))
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$d/pg/data" -w -l "$d/pg/log" \
        -o "-p $pgport -k $d/pg $pgopts" start >/dev/null || die "postgres did not start"
    pgdata=$d/pg/data
    addr_postgres="host=$d/pg port=$pgport user=postgres dbname=postgres"
    pid_postgres=$(head -1 "$pgdata/postmaster.pid")
}

# bench_start_tt LOG: Tarantool on a free port (TT_PORT), as bench_start.
bench_start_tt() {
    bench_start "$1" env TT_PORT=@PORT@ TT_WAL="$TT_WAL" TT_DIR="$TT_DIR" tarantool "$tmp/init.lua"
}

stop_level() {
    local p
    for p in "$pid_mcds" "$pid_redis" "$pid_tarantool"; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1
    pids=()
    rm -rf "${tmp:?}/$1"
}
# shellcheck disable=SC2317  # run by the trap
stop_pg_on_exit() {
    [ -n "${pgdata:-}" ] && runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1
    bench_cleanup
}
trap stop_pg_on_exit EXIT

out=$tmp/out
: >"$out"
for level in $levels; do
    start_level "$level"
    for sys in $systems; do
        eval "addr=\$addr_$sys pid=\$pid_$sys"
        before=$(rss_kb "$pid")
        if ! timeout "$limit" "$bench" "$sys" "$addr" --rows "$rows" --conns "$conns" --load --ops none >"$tmp/load" 2>&1; then
            echo "$level $sys unavailable: $(tr '\n' ' ' <"$tmp/load")" >>"$out"
            continue
        fi
        after=$(rss_kb "$pid")
        sed "s/^/$level /" "$tmp/load" >>"$out"
        echo "$level $sys rss $before $after" >>"$out"
        timeout "$limit" "$bench" "$sys" "$addr" --rows "$rows" --conns "$conns" --seconds "$secs" --ops "$ops" \
            --check |
            sed "s/^/$level /" >>"$out" 2>&1
    done
    stop_level "$level"
done

# The tables, from lines "LEVEL SYSTEM OP conns requests seconds req/s
# rows/s p50 p99 check", "LEVEL SYSTEM load ...", "LEVEL SYSTEM mem B A" and
# "LEVEL SYSTEM rss B A" (kB). A rate is requests / seconds (two decimals
# under 100: a scan of a large table takes seconds). Ratios: the first system's rate over each
# other's; "memory, no sync" is the memory level (PostgreSQL's WAL is
# written, never synced).
awk -v systems="$systems" -v rows="$rows" -v conns="$conns" '
    BEGIN { ns = split(systems, sy, " ") }
    $3 == "mem" { mem[$1, $2] = ($5 - $4) / rows; next }
    $3 == "rss" { rss[$1, $2] = ($5 - $4) * 1024 / rows; next }
    $3 == "load" { load[$1, $2] = $7; next }
    $3 == "unavailable:" { note[++nn] = $0; next }
    { rate[$1, $2, $3] = $6 > 0 ? $5 / $6 : 0; p99[$1, $2, $3] = $10; ok[$1, $2, $3] = $11
      if (!(($1, $3) in seen)) { seen[$1, $3] = 1; order[++n] = $1 SUBSEP $3 } }
    END {
        printf "| operation | durability |"
        for (i = 1; i <= ns; i++) printf " %s req/s |", sy[i]
        for (i = 2; i <= ns; i++) printf " %s / %s |", sy[1], sy[i]
        p99head = systems
        gsub(/ /, " / ", p99head)
        printf " p99 ms %s |\n|---|---|", p99head
        for (i = 1; i <= 2 * ns; i++) printf "---|"
        printf "\n"
        for (k = 1; k <= n; k++) {
            split(order[k], lo, SUBSEP)
            lev = lo[1] == "fsync" ? "fsync each write" : "memory, no sync"
            printf "| %s | %s |", lo[2], lev
            for (i = 1; i <= ns; i++) {
                c = lo[1] SUBSEP sy[i] SUBSEP lo[2]
                printf " %s%s |", (c in rate) ? sprintf(rate[c] >= 100 ? "%.0f" : "%.2f", rate[c]) : "-",
                    (c in ok && ok[c] != "ok") ? " " ok[c] : ""
            }
            for (i = 2; i <= ns; i++) {
                a = lo[1] SUBSEP sy[1] SUBSEP lo[2]; b = lo[1] SUBSEP sy[i] SUBSEP lo[2]
                printf " %s |", (a in rate && b in rate && rate[b] > 0) ? sprintf("%.1f×", rate[a] / rate[b]) : "-"
            }
            printf " "
            for (i = 1; i <= ns; i++) {
                c = lo[1] SUBSEP sy[i] SUBSEP lo[2]
                printf "%s%s", (c in p99) ? p99[c] : "-", i < ns ? " / " : " |\n"
            }
        }
        printf "\n| durability | system | load rows/s (%d conns) | RSS bytes/row | own count bytes/row |\n", conns
        printf "|---|---|---|---|---|\n"
        for (l = 1; l <= 2; l++) {
            lv = l == 1 ? "memory" : "fsync"
            for (i = 1; i <= ns; i++) {
                c = lv SUBSEP sy[i]
                if (!(c in load)) continue
                printf "| %s | %s | %s | %s | %s |\n", lv == "fsync" ? "fsync each write" : "memory, no sync", sy[i],
                    load[c], sy[i] == "postgres" ? "-" : sprintf("%.0f", rss[c]), sprintf("%.0f", mem[c])
            }
        }
        for (k = 1; k <= nn; k++) print "\nnote: " note[k]
    }' "$out"
