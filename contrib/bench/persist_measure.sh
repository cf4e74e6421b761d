#!/usr/bin/env bash
# persist_measure.sh: what persistence costs in bytes and in time, for N
# queued messages (doc/performance.md, "Persistence").
#
#   1. fill:     mcds-server --data-dir (fresh) --fsync everysec; N messages of
#                S bytes pushed into one queue over one pipelined connection
#                (qpush ... noreply), timed; log bytes per message.
#   2. replay:   the server stopped (SIGTERM) and started again on the same
#                directory: start-up time and log records replayed per second
#                (from the server's first log line).
#   3. snapshot: while mcds-bench measures gets and sets on other keys, a
#                snapshot of the N messages is written (the snapshot verb):
#                the longest request latency seen during it against a run
#                without it, and the snapshot's duration and size.
#   4. reload:   the server stopped and started again: start-up time from the
#                snapshot, entries loaded per second.
#
# Every step is bounded by timeout(1); the server is stopped on any exit.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

messages=1000000
size=32
sthreads=2
memory=4096
bench=""
mcds=""
pin=""

usage() {
    cat <<EOF
usage: $0 [options]
  --messages N    messages queued (default $messages)
  --size S        bytes per message (default $size)
  --threads T     mcds-server threads (default $sthreads)
  --memory MB     mcds-server memory (default $memory)
  --bench PATH    mcds-bench (default: beside this script)
  --mcds PATH     mcds-server (default: server/mcds-server of the tree)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --messages) messages=$2; shift ;;
    --size) size=$2; shift ;;
    --threads) sthreads=$2; shift ;;
    --memory) memory=$2; shift ;;
    --bench) bench=$2; shift ;;
    --mcds) mcds=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "persist_measure.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

die() { echo "persist_measure.sh: $*" >&2; exit 2; }
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -n "$bench" ] || bench=$here/mcds-bench
[ -x "$bench" ] || die "mcds-bench not found; build it (make -C contrib) or pass --bench"
[ -n "$mcds" ] || mcds=$top/server/mcds-server
[ -x "$mcds" ] || die "mcds-server not found at $mcds; build it or pass --mcds"
command -v timeout >/dev/null || die "timeout(1) is needed (coreutils)"

bench_setup pmeasure
data=$tmp/data
port=""
pid=""

now_ms() { date +%s%3N; }

# start: starts mcds-server on $data; sets pid, port and up_ms (the ms it
# took until the port answered).
start() {
    local t0
    t0=$(now_ms)
    start_wait=60 bench_start "$tmp/server.log" "$mcds" -l 127.0.0.1 -p @PORT@ -t "$sthreads" \
        -m "$memory" --data-dir "$data" --fsync everysec --snapshot-min-size 0 ||
        die "could not start $mcds"
    up_ms=$(($(now_ms) - t0))
    pid=$srv_pid
    port=$srv_port
}

stop() {
    kill "$pid" 2>/dev/null
    timeout 120 tail --pid="$pid" -f /dev/null
    wait "$pid" 2>/dev/null
}

# ask LINE: sends one command and prints the reply up to END/OK/an error.
ask() {
    timeout 600 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "%s\r\n" "$2" >&3
        while IFS= read -r l <&3; do
            l=${l%$'"'"'\r'"'"'}
            echo "$l"
            case "$l" in END|OK|ERROR|*_ERROR*) break ;; esac
        done' _ "$port" "$1"
}

stat() { ask stats | awk -v n="$1" '$2 == n { print $3 }'; }
qstat() { ask "qstats pm" | awk -v n="$1" '$2 == n { print $3 }'; }

# fill: N qpush noreply over one connection, then qstats to wait for them.
fill() {
    timeout 900 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        awk -v n="$2" -v s="$3" "BEGIN {
            v = sprintf(\"%0\" s \"d\", 0)
            for (i = 0; i < n; i++) printf \"qpush pm 0 0 %d noreply\r\n%s\r\n\", s, v
            printf \"qstats pm\r\n\"
        }" >&3
        while IFS= read -r l <&3; do
            case "$l" in END*) break ;; esac
        done' _ "$port" "$messages" "$size"
}

log_bytes() { du -cb "$data"/log.* 2>/dev/null | awk 'END { print $1 + 0 }'; }

# probe SECS: a light get/set load on other keys; prints p99_us,max_us.
probe() {
    local line
    line=$(timeout -k 5 $(($1 + 40)) "$bench" -q --csv -s "127.0.0.1:$port" -t 1 -c 4 \
        -d "$1" -w 0.5 -W mixed -k 1000 -P probe: 2>>"$tmp/bench.err" | tail -n 1)
    echo "$line" | cut -d, -f"$(col p99_us),$(col max_us)"
}

# restart_report TITLE WHAT UNIT: restarts the server on $data and reports
# how long it took and how fast it loaded: the count is the number before
# WHAT in the server's "loaded in" line. The queue must be whole again.
restart_report() {
    local line rec_ms n
    stop
    start
    line=$(grep "loaded in" "$tmp/server.log" | tail -n 1)
    rec_ms=$(echo "$line" | sed -n 's/.*loaded in \([0-9]*\) ms.*/\1/p')
    n=$(echo "$line" | sed -n "s/.*[ (]\([0-9]*\) $2.*/\1/p")
    [ "$(qstat ready)" = "$messages" ] || { echo "after the restart the queue is not whole" >&2; status=1; }
    echo
    echo "== $1"
    echo "start-up:          $up_ms ms until the port answered; recovery $rec_ms ms"
    echo "loaded:            $n $3, $(awk -v n="$n" -v t="$rec_ms" \
        'BEGIN { printf "%.2f", n / (t ? t : 1) / 1000 }') M $3/s"
}

hdr=$("$bench" --csv-header)
status=0

echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
    "Linux $(uname -r); data on $(df -h "$tmp" | awk 'NR == 2 { print $1 " (" $6 ")" }')"
echo "server:  $mcds -t $sthreads -m $memory --data-dir (fresh) --fsync everysec" \
    "($("$mcds" -V 2>/dev/null | head -1))"
echo "load:    $messages messages of $size bytes in one queue; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo

start
t0=$(now_ms)
fill || die "filling the queue failed"
fill_ms=$(($(now_ms) - t0))
ready=$(qstat ready)
[ "$ready" = "$messages" ] || { echo "only $ready of $messages messages are queued" >&2; status=1; }
lb=$(log_bytes)
echo "== fill"
echo "pushed:            $messages in $fill_ms ms ($(awk -v n="$messages" -v t="$fill_ms" \
    'BEGIN { printf "%.0f", n * 1000 / (t ? t : 1) }') messages/s, one pipelined connection)"
echo "log:               $lb bytes, $(awk -v b="$lb" -v n="$messages" 'BEGIN { printf "%.1f", b / n }') bytes per message"

restart_report "replay of the log" "log records replayed" records
probe_secs=$(awk -v n="$messages" 'BEGIN { s = int(n / 250000) + 3; print s }')
base=$(probe "$probe_secs")
( sleep 1; ask snapshot >"$tmp/snap.reply" ) &
during=$(probe "$probe_secs")
wait $!
for _ in $(seq 600); do
    [ "$(stat persist_snapshot_in_progress)" = 0 ] && break
    sleep 0.1
done
snap_ms=$(stat persist_last_snapshot_ms)
snap_bytes=$(stat persist_snapshot_bytes)
echo
echo "== snapshot while serving (a get/set probe: 1 thread, 4 connections, $probe_secs s)"
echo "snapshot:          $(cat "$tmp/snap.reply"), $snap_ms ms, $snap_bytes bytes" \
    "($(awk -v b="$snap_bytes" -v n="$messages" 'BEGIN { printf "%.1f", b / n }') bytes per message)"
echo "probe p99,max us:  without a snapshot $base; during the snapshot $during"

restart_report "load of the snapshot" "entries)" entries
stop
if [ -s "$tmp/bench.err" ]; then
    echo
    echo "mcds-bench said:"
    sort "$tmp/bench.err" | uniq -c | head -20
fi
exit $status
