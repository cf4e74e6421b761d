#!/bin/bash
# list_compare.sh: list workloads on mcds-server and Redis, same client
# (list-bench), same machine, same run; prints each phase's ops/s on both
# and the ratio mcds/redis, and the memory per element (doc/performance.md,
# "Lists"). Every phase is bounded by a count and by --secs.
#
#   contrib/bench/list_compare.sh [--elements N] [--secs S] [--rounds R]
#                                 [--mcds PATH] [--redis PATH]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mcds=$top/server/mcds-server
redis=$(command -v redis-server || true)
bench=$here/list-bench
elements=1000000
secs=3
rounds=1
pin=
die() { echo "list_compare.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --elements) elements=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --mcds) mcds=$2; shift 2 ;;
    --redis) redis=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
done
[ -x "$bench" ] || die "$bench is not built (make)"
[ -x "$mcds" ] || die "$mcds is not built"
[ -n "$redis" ] && [ -x "$redis" ] || die "redis-server not found (apt-get install redis-server)"
# shellcheck source=lib.sh
. "$here/lib.sh"
bench_setup lcompare

# start KIND: sets port and pid of a fresh server, or dies.
start() {
    local kind=$1 cmd
    case "$kind" in
    mcds) cmd=("$mcds" -l 127.0.0.1 -p @PORT@ -m 4096) ;;
    redis) cmd=("$redis" --bind 127.0.0.1 --port @PORT@ --save '' --appendonly no --daemonize no) ;;
    esac
    bench_start "$tmp/$kind.log" "${cmd[@]}" || die "could not start $kind"
    port=$srv_port
    pid=$srv_pid
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
echo "mcds:    $mcds -m 4096 ($("$mcds" -V 2>/dev/null | head -1))"
echo "redis:   $redis --save '' --appendonly no ($("$redis" --version | cut -d' ' -f3))"
echo "client:  $bench, one connection, 64 requests in flight, $elements elements of 32 bytes, phases capped at $secs s"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the start; $(date -u '+%Y-%m-%d %H:%M UTC')"
for r in $(seq "$rounds"); do
    for kind in mcds redis; do
        start "$kind"
        timeout $((120 + 20 * secs)) "$bench" -p "$kind" -s "127.0.0.1:$port" -n "$elements" \
            -P "$pid" -t "$secs" > "$tmp/$kind.$r.out" || die "list-bench against $kind failed"
        kill "$pid"; wait "$pid" 2>/dev/null
    done
done
printf '%-16s %12s %12s %10s\n' phase mcds redis mcds/redis
for phase in $(awk '$1 !~ /^rss/ { print $1 }' "$tmp/mcds.1.out"); do
    m=$(cat "$tmp"/mcds.*.out | awk -v p="$phase" '$1 == p { print $4 }' | median '%.0f')
    x=$(cat "$tmp"/redis.*.out | awk -v p="$phase" '$1 == p { print $4 }' | median '%.0f')
    printf '%-16s %12s %12s %10s\n' "$phase" "$m" "$x" "$(ratio "$m" "$x")"
done
for kind in mcds redis; do
    grep '^rss' "$tmp/$kind.1.out" | sed "s/^/$kind: /"
done
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
