#!/usr/bin/env bash
# repl_compare.sh: what replication costs a primary (doc/performance.md,
# "Replication"), and how long a full resync takes.
#
# Throughput: for each configuration a fresh primary (--data-dir, --fsync
# everysec, --persist-items, -t 2) with its replicas on loopback, every
# row of mcds-bench against the primary, several rounds (the configurations
# in turn within a round), medians and the ratio to "none":
#
#   none          the primary alone
#   async2        two replicas, asynchronous
#   sync1         one replica, --min-replicas-ack 1: a change is answered
#                 once the replica has written it
#   async2-sink   two sinks (repl_sink.py: replicas that apply nothing and
#                 acknowledge each frame at once), asynchronous
#   sync1-sink    one sink, --min-replicas-ack 1
#
# The replicas run on the same machine as the primary and the client: their
# applying of records takes the same cores, so async2 and sync1 measure the
# whole set-up on one machine. The sinks stand for replicas on machines of
# their own: what the primary itself spends on its replicas.
#
# Senders' CPU: for each configuration with replicas, the CPU time of the
# primary's sender threads (named mcds-repl-send) over that of the whole
# primary during each row, from /proc/PID/task: the share of the
# primary's work that goes to its replicas, which the client and the
# replicas sharing the cores do not blur (column "send%").
#
# Resync (--resync N): a primary holding N queued 32-byte messages in
# one queue writes a snapshot; a new replica is started and timed until it
# has caught up (repl_link up, its position the primary's): the seconds of
# a full resync of N messages (snapshot streamed, loaded by a restart in
# place, then the log).
#
#   repl_compare.sh [--rounds 3] [--duration 3] [--rows REGEX]
#                   [--configs "none async2 sync1"] [--resync 1000000]
#                   [--no-throughput] [--mcds PATH] [--bench PATH]
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rounds=3
duration=3
warmup=1
rows_re=.
configs="none async2 sync1 async2-sink sync1-sink"
resync=0
do_tput=1
mcds=$top/server/mcds-server
bench=$here/mcds-bench
pin=""

while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) rounds=$2; shift ;;
    --duration) duration=$2; shift ;;
    --rows) rows_re=$2; shift ;;
    --configs) configs=$2; shift ;;
    --resync) resync=$2; shift ;;
    --no-throughput) do_tput=0 ;;
    --mcds) mcds=$2; shift ;;
    --bench) bench=$2; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^set -u/d'; exit 0 ;;
    *) echo "repl_compare.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

die() { echo "repl_compare.sh: $*" >&2; exit 2; }
# shellcheck source=lib.sh
. "$here/lib.sh"
[ -x "$mcds" ] || die "mcds-server not found at $mcds (build it, or --mcds)"
[ -x "$bench" ] || die "mcds-bench not found at $bench (make -C contrib, or --bench)"
bench_setup repl
start_wait=60
cpu=$tmp/cpu.csv
: > "$cpu"

# The rows: name, then mcds-bench options (32 B keys preloaded for gets).
ROWS=(
    "getset-32|-r 9:1 -S 32 -P k32:"
    "set-32|-W set -S 32 -P k32:"
    "set-32-p16|-W set -S 32 -P k32: -D 16"
    "set-1k|-W set -S 1024 -P k1k:"
    "queue-32|-W queue -S 32 --queues 4"
    "queue-32-split|-W queue -S 32 --queues 1 --producers 1"
)

# caught_up PRIMARY_PORT REPLICA_PORT: the replica has all the primary wrote.
caught_up() {
    [ "$(stat_of "$2" repl_link)" = up ] &&
        [ "$(stat_of "$2" repl_position)" = "$(stat_of "$1" persist_log_position)" ]
}

wait_caught_up() {
    local i
    for ((i = 0; i < 6000; i++)); do
        caught_up "$1" "$2" 2>/dev/null && return 0
        sleep 0.05
    done
    die "the replica on port $2 did not catch up with $1"
}

# start_set CONFIG: a fresh primary (p_port) and its replicas (r_ports).
start_set() {
    local extra=() n=0 i sink=0
    case "$1" in
    none) n=0 ;;
    async2) n=2 ;;
    sync1) n=1; extra=(--min-replicas-ack 1 --min-replicas-timeout 5000) ;;
    async2-sink) n=2; sink=1 ;;
    sync1-sink) n=1; sink=1; extra=(--min-replicas-ack 1 --min-replicas-timeout 5000) ;;
    *) die "unknown configuration $1" ;;
    esac
    bench_start "$tmp/server.log" "$mcds" -p @PORT@ -l 127.0.0.1 -t 2 -m 1024 \
        --data-dir "$(mktemp -d "$tmp/p.XXXXXX")" --fsync everysec --persist-items "${extra[@]}" ||
        die "the primary did not start ($1): see above"
    p_port=$srv_port
    p_pid=$srv_pid
    r_ports=()
    if [ "$sink" = 1 ]; then
        for ((i = 0; i < n; i++)); do
            python3 "$here/repl_sink.py" 127.0.0.1 "$p_port" >>"$tmp/server.log" 2>&1 &
            pids+=("$!")
        done
        for ((i = 0; i < 100; i++)); do
            [ "$(stat_of "$p_port" repl_replicas)" = "$n" ] && return 0
            sleep 0.05
        done
        die "the sinks did not connect"
    fi
    for ((i = 0; i < n; i++)); do
        bench_start "$tmp/server.log" "$mcds" -p @PORT@ -l 127.0.0.1 -t 2 -m 1024 \
            --data-dir "$(mktemp -d "$tmp/r.XXXXXX")" --fsync everysec --persist-items \
            --replicaof "127.0.0.1:$p_port" || die "a replica did not start"
        r_ports+=("$srv_port")
        wait_caught_up "$p_port" "$srv_port"
    done
}

stop_set() {
    bench_cleanup_servers
}

# bench_cleanup_servers: stops every server started (lib.sh's list).
bench_cleanup_servers() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    pids=()
}

hdr=$("$bench" --csv-header)
c_ops=$(col ops_per_sec); c_p99=$(col p99_us); c_err=$(col errors)

# cpu_ticks PID: "<senders' ticks> <all ticks>" of the process's threads.
cpu_ticks() {
    local t comm send=0 all=0 u
    for t in /proc/"$1"/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        u=$(awk '{ print $14 + $15 }' "$t/stat" 2>/dev/null) || continue
        all=$((all + u))
        [ "$comm" = mcds-repl-send ] && send=$((send + u))
    done
    echo "$send $all"
}

throughput() {
    local r cfg row name args line c0 c1
    echo "machine: $(nproc) cores; client, primary and replicas share them"
    echo "servers: $mcds -t 2 -m 1024 --data-dir (fresh) --fsync everysec --persist-items; replicas alike"
    echo "client:  $bench -t 2 -c 25, warm-up $warmup s, $duration s measured, $rounds round(s), median"
    for r in $(seq "$rounds"); do
        for cfg in $configs; do
            start_set "$cfg"
            "$bench" -q -s "127.0.0.1:$p_port" -l 100000 -S 32 -P k32: -D 16 >/dev/null 2>&1
            for row in "${ROWS[@]}"; do
                name=${row%%|*}
                args=${row#*|}
                echo "$name" | grep -Eq -- "$rows_re" || continue
                c0=$(cpu_ticks "$p_pid")
                # shellcheck disable=SC2086
                line=$("$bench" -q --csv --label "$cfg:$name:$r" -s "127.0.0.1:$p_port" -t 2 -c 25 \
                    -d "$duration" -w "$warmup" $args 2>>"$tmp/bench.err" | tail -n 1)
                c1=$(cpu_ticks "$p_pid")
                echo "$line" >> "$raw"
                echo "$cfg:$name:$r $c0 $c1" | awk '{ s = $4 - $2; a = $5 - $3
                    printf "%s,%.1f\n", $1, (a > 0 ? 100 * s / a : 0) }' >> "$cpu"
            done
            for rp in "${r_ports[@]}"; do wait_caught_up "$p_port" "$rp"; done
            stop_set
            printf '.'
        done
    done
    echo
    printf '%-16s' row
    for cfg in $configs; do printf ' %12s %7s %9s %6s' "$cfg ops/s" ratio "p99 us" send%; done
    echo
    for row in "${ROWS[@]}"; do
        name=${row%%|*}
        echo "$name" | grep -Eq -- "$rows_re" || continue
        printf '%-16s' "$name"
        local base="" ops p99 err send
        for cfg in $configs; do
            ops=$(awk -F, -v p="$cfg:$name:" -v c="$c_ops" 'index($0, p) == 1 { print $c }' "$raw" | median "%.0f")
            p99=$(awk -F, -v p="$cfg:$name:" -v c="$c_p99" 'index($0, p) == 1 { print $c }' "$raw" | median "%.0f")
            err=$(awk -F, -v p="$cfg:$name:" -v c="$c_err" 'index($0, p) == 1 { s += $c } END { print s + 0 }' "$raw")
            send=$(awk -F, -v p="$cfg:$name:" 'index($0, p) == 1 { print $2 }' "$cpu" | median "%.1f")
            [ -z "$base" ] && base=$ops
            printf ' %12s %7s %9s %6s' "$ops" "$(ratio "$ops" "$base")" "$p99" "$send"
            [ "$err" != 0 ] && printf '(%s errors)' "$err"
        done
        echo
    done
}

resync_time() {
    local t0 t1 snap
    echo "resync: a primary holding $resync queued 32-byte messages; a new replica"
    bench_start "$tmp/server.log" "$mcds" -p @PORT@ -l 127.0.0.1 -t 2 -m 4096 \
        --data-dir "$(mktemp -d "$tmp/p.XXXXXX")" --fsync everysec || die "the primary did not start"
    p_port=$srv_port
    timeout 600 python3 "$here/queue_fill.py" mcds "$p_port" ready "$resync" 32 || die "filling the queue failed"
    snap=$(stat_of "$p_port" persist_snapshots)
    exec 3<>"/dev/tcp/127.0.0.1/$p_port"; printf 'snapshot\r\n' >&3; read -r -t 5 _ <&3; exec 3<&- 3>&-
    while [ "$(stat_of "$p_port" persist_snapshots)" = "$snap" ]; do sleep 0.1; done
    t0=$(date +%s.%N)
    bench_start "$tmp/server.log" "$mcds" -p @PORT@ -l 127.0.0.1 -t 2 -m 4096 \
        --data-dir "$(mktemp -d "$tmp/r.XXXXXX")" --fsync everysec --replicaof "127.0.0.1:$p_port" ||
        die "the replica did not start"
    wait_caught_up "$p_port" "$srv_port"
    t1=$(date +%s.%N)
    echo "resync: caught up in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" \
        "(the replica holds $(stat_of "$srv_port" queue_ready 2>/dev/null || echo '?') ready messages;" \
        "snapshot $(du -sh "$(dirname "$(ls "$tmp"/p.*/snap.* | head -n 1)")" | cut -f1) on disk)"
    stop_set
}

[ "$do_tput" = 1 ] && throughput
[ "$resync" -gt 0 ] && resync_time
exit 0
