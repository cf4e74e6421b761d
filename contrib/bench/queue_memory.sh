#!/usr/bin/env bash
# queue_memory.sh: resident bytes per queued message, mcds-server against
# Redis 7 lists and beanstalkd (doc/performance.md, "Queue memory").
#
# For every target, message size and state, a fresh server gets N messages
# pushed pipelined into one queue (queue_fill.py, one connection), and the
# script prints (VmRSS after - VmRSS before) * 1024 / N, and the server's
# CPU time (user + system, from /proc) over the fill per message, a
# measure of the work a push (and, in flight, a pop) costs that depends
# less than throughput on what else runs on a shared machine:
#
#   ready     pushed with no delay, never delivered
#   delayed   pushed with a delay of an hour
#   inflight  pushed, then leased for a day (mcds qpop 100 at a time;
#             beanstalkd reserve); Redis has no leases: not measured
#   grouped   mcds only, not in the default states: pushed into one FIFO
#             group (qpush group=g), so all but the first wait behind it
#   ttl, ttl-delayed  (mcds only, not run by default) ready and delayed,
#             each message pushed with ttl=86400
#
#   contrib/bench/queue_memory.sh [--count N] [--sizes "32 1024"]
#       [--states "ready delayed inflight"] [--targets "mcds redis beanstalkd"]
#       [--mcds PATH] [--redis PATH] [--beanstalkd PATH] [--limit SECS]
#
# Each fill is bounded by timeout(1) (--limit, default 300 s); the servers
# are stopped on any exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
count=1000000
sizes="32 1024"
states="ready delayed inflight"
targets="mcds redis beanstalkd"
mcds=$top/server/mcds-server
redis=/usr/bin/redis-server
beanstalkd=/usr/bin/beanstalkd
limit=300
pin=
die() { echo "queue_memory.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --count) count=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --states) states=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --mcds) mcds=$2; shift 2 ;;
    --redis) redis=$2; shift 2 ;;
    --beanstalkd) beanstalkd=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
done
command -v python3 >/dev/null || die "python3 is needed"
command -v timeout >/dev/null || die "timeout(1) is needed (coreutils)"
# shellcheck source=lib.sh
. "$here/lib.sh"
bench_setup qmemory

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# cpu_ticks PID: user + system clock ticks of a process so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# start KIND: sets port and pid of a fresh server, or dies.
start() {
    local kind=$1 cmd
    case "$kind" in
    mcds) cmd=("$mcds" -l 127.0.0.1 -p @PORT@ -m 8192) ;;
    redis) cmd=("$redis" --bind 127.0.0.1 --port @PORT@ --save '' --appendonly no --daemonize no) ;;
    beanstalkd) cmd=("$beanstalkd" -l 127.0.0.1 -p @PORT@) ;;
    esac
    bench_start "$tmp/$kind.log" "${cmd[@]}" || die "could not start $kind"
    port=$srv_port
    pid=$srv_pid
}

stop() {
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pids=()
}

# one KIND STATE SIZE: prints one row.
one() {
    local kind=$1 state=$2 size=$3 proto before after rc t0 t1
    case "$kind" in mcds) proto=mcds ;; redis) proto=redis ;; *) proto=beanstalk ;; esac
    start "$kind"
    sleep 0.3
    before=$(rss_kb "$pid")
    t0=$(cpu_ticks "$pid")
    timeout "$limit" python3 "$here/queue_fill.py" "$proto" "$port" "$state" "$count" "$size"
    rc=$?
    t1=$(cpu_ticks "$pid")
    sleep 1
    after=$(rss_kb "$pid")
    stop
    printf '%-11s %-9s %6s %12s %12s %10s %10s %s\n' "$kind" "$state" "$size" "$before" "$after" \
        "$(awk -v a="$after" -v b="$before" -v n="$count" 'BEGIN { printf "%.1f", (a - b) * 1024 / n }')" \
        "$(awk -v a="$t1" -v b="$t0" -v n="$count" -v hz="$hz" 'BEGIN { printf "%.2f", (a - b) * 1e6 / hz / n }')" \
        "$([ "$rc" = 0 ] && echo ok || echo "FAILED($rc)")"
}

echo "machine: $(nproc) cores, $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mcds:    $mcds -m 8192 ($("$mcds" -V 2>/dev/null | head -1))"
echo "redis:   $redis --save '' ($("$redis" --version | awk '{ print $3 }')); beanstalkd: $beanstalkd"
echo "$count messages per run, pipelined on one connection, one queue"
printf '%-11s %-9s %6s %12s %12s %10s %10s %s\n' server state bytes "RSS before kB" "RSS after kB" bytes/msg \
    "cpu us/msg" status
for kind in $targets; do
    for size in $sizes; do
        for state in $states; do
            [ "$kind" = redis ] && [ "$state" != ready ] && continue
            [ "$kind" != mcds ] && [ "$state" = grouped ] && continue
            [ "$kind" != mcds ] && [ "${state#ttl}" != "$state" ] && continue
            one "$kind" "$state" "$size"
        done
    done
done
