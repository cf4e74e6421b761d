#!/usr/bin/env bash
# tail_counts.sh: what a server does per request, beside its latency.
#
# Starts the servers named on the command line, and for each row and round
# runs mcds-bench against each in turn (the first one rotates), while
# `perf stat` counts the server's system calls and context switches and
# /proc/<pid>/task/*/status gives each thread's voluntary and involuntary
# switches. Prints, per run: ops/s, p50, p99, and per request the counts
# of epoll_wait, epoll_ctl, read, writes (write + writev + sendmsg), futex,
# context switches, and the switches of the threads that serve no
# connection (listener, clock, hash, timers: wake-ups with nothing to do
# for a client). Counts do not depend much on the machine's load; the
# times do, so compare servers within one run (they are interleaved).
# For mcds, `stats` before and after each run gives the waits served per
# request (park_wakes) and the share of them served from another thread
# than the waiter's worker (park_wakes_remote / park_wakes).
#
#   contrib/bench/tail_counts.sh [options] NAME=KIND:PATH ...
#
# KIND is mcds, memcached or redis. Example: two mcds builds and memcached
# on the cache rows, then redis on the queue rows:
#
#   contrib/bench/tail_counts.sh --rows 'set-32|getset' \
#       main=mcds:/work/main/server/mcds-server new=mcds:server/mcds-server \
#       mc=memcached:/usr/bin/memcached
#   contrib/bench/tail_counts.sh --rows q1 new=mcds:server/mcds-server \
#       redis=redis:/usr/bin/redis-server
#
# Rows a server cannot run (queue rows on memcached, cache rows on redis)
# are skipped for it. Needs perf (linux-perf) with syscall tracepoints;
# without them only the /proc figures are printed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
duration=4
warmup=1
rounds=3
sthreads=2
bthreads=2
conns=25
rows_re=.
pin=""
bench=$here/mcds-bench

usage() {
    cat <<EOF
usage: $0 [options] NAME=KIND:PATH ...
  --duration S       measured seconds per run (default $duration)
  --warmup S         unmeasured seconds before each run (default $warmup)
  --rounds N         runs per row and server (default $rounds)
  --threads T        server threads (-t of mcds and memcached; default $sthreads)
  --bench-threads N  mcds-bench threads (default $bthreads)
  --conns N          mcds-bench connections per thread (default $conns)
  --rows REGEX       rows to run (default all): set-32 getset-32 getset-1k q1 q1-take q50 split
  --pin SRV:CLI      taskset the servers to SRV and mcds-bench to CLI
  --bench PATH       mcds-bench (default $bench)
EOF
}

servers=()
while [ $# -gt 0 ]; do
    case "$1" in
    --duration) duration=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --threads) sthreads=$2; shift ;;
    --bench-threads) bthreads=$2; shift ;;
    --conns) conns=$2; shift ;;
    --rows) rows_re=$2; shift ;;
    --pin) pin=$2; shift ;;
    --bench) bench=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *=*:*) servers+=("$1") ;;
    *) echo "tail_counts.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

die() { echo "tail_counts.sh: $*" >&2; exit 2; }
# shellcheck source=lib.sh
. "$here/lib.sh"

[ ${#servers[@]} -gt 0 ] || die "name at least one server, NAME=KIND:PATH"
[ -x "$bench" ] || die "mcds-bench not found at $bench (make -C contrib)"
bench_setup tail

# The rows: name, kinds that run it, mcds-bench options (mcds and
# memcached), options for redis.
ROWS=(
    "set-32|mcds memcached|-W set -S 32 -P s32:|"
    "getset-32|mcds memcached|-r 9:1 -S 32 -P s32:|"
    "getset-1k|mcds memcached|-r 9:1 -S 1024 -P s1k:|"
    "q1|mcds redis|-W queue --queues 1 -S 32|-p redis -W queue --queues 1 -S 32"
    "q1-take|mcds redis|-W queue-take --queues 1 -S 32|-p redis -W queue-take --queues 1 -S 32"
    "q50|mcds redis|-W queue --queues 50 -S 32|-p redis -W queue --queues 50 -S 32"
    "split|mcds redis|-W queue --queues 1 -S 32 --producers 5|-p redis -W queue --queues 1 -S 32 --producers 5"
)

EVENTS="syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_read,syscalls:sys_enter_recvfrom"
EVENTS="$EVENTS,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_sendmsg"
EVENTS="$EVENTS,syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield,context-switches,cpu-migrations"
# a futex call that waits (FUTEX_WAIT_PRIVATE: a contended mutex) is counted apart
FUTEX_WAIT=(-e syscalls:sys_enter_futex --filter "op == 128")
have_perf=0
if command -v perf >/dev/null && perf stat -e "$EVENTS" "${FUTEX_WAIT[@]}" -- true >/dev/null 2>&1; then
    have_perf=1
fi

# start_server KIND PATH: sets srv_pid and srv_port, or dies.
start_server() {
    local kind=$1 bin=$2 args
    case "$kind" in
    mcds) args=(-l 127.0.0.1 -p @PORT@ -t "$sthreads" -m 1024) ;;
    memcached) args=(-l 127.0.0.1 -p @PORT@ -t "$sthreads" -m 1024 -U 0)
        [ "$(id -u)" = 0 ] && args+=(-u root) ;;
    redis) args=(--port @PORT@ --bind 127.0.0.1 --save '' --appendonly no) ;;
    *) die "unknown kind $kind (mcds, memcached, redis)" ;;
    esac
    bench_start "$tmp/server.log" "${srv_pin[@]}" "$bin" "${args[@]}" || die "could not start $bin"
}

# threads PID: "tid comm voluntary nonvoluntary" per thread.
threads() {
    local t
    for t in /proc/"$1"/task/*; do
        printf '%s %s %s %s\n' "${t##*/}" "$(tr -d ' ' < "$t/comm")" \
            "$(awk '/^voluntary_ctxt/ { print $2 }' "$t/status")" \
            "$(awk '/^nonvoluntary_ctxt/ { print $2 }' "$t/status")"
    done | sort
}

# wakes PORT: "park_wakes park_wakes_remote" of an mcds server, or "- -".
wakes() {
    { exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'stats\r\nquit\r\n' >&3 && timeout 2 cat <&3; } 2>/dev/null |
        tr -d '\r' | awk '$2 == "park_wakes" { w = $3 } $2 == "park_wakes_remote" { r = $3 }
            END { if (w == "") print "- -"; else print w, r }'
}

hdr=$("$bench" --csv-header)
c_ops=$(col ops); c_ops_s=$(col ops_per_sec); c_p50=$(col p50_us); c_p99=$(col p99_us)
c_err=$(col errors); c_cyc99=$(col cycle_p99_us)

# run NAME PID PORT ARGS...: one measured run, one output line.
run() {
    local name=$1 pid=$2 port=$3 line ops perf_pid=""
    shift 3
    threads "$pid" > "$tmp/before"
    read -r wk0 wr0 < <(wakes "$port")
    if [ "$have_perf" = 1 ]; then
        perf stat -x, -e "$EVENTS" "${FUTEX_WAIT[@]}" -p "$pid" -o "$tmp/perf" -- \
            sleep "$(awk -v w="$warmup" -v d="$duration" 'BEGIN { print w + d }')" &
        perf_pid=$!
    fi
    line=$(timeout -k 5 $((${duration%.*} + ${warmup%.*} + 30)) "${cli_pin[@]}" "$bench" -q --csv \
        -s "127.0.0.1:$port" -t "$bthreads" -c "$conns" -d "$duration" -w "$warmup" "$@" | tail -n 1)
    [ -n "$perf_pid" ] && wait "$perf_pid"
    threads "$pid" > "$tmp/after"
    read -r wk1 wr1 < <(wakes "$port")
    ops=$(echo "$line" | cut -d, -f"$c_ops")
    if [ -z "$ops" ] || [ "$ops" = 0 ]; then
        printf '%-10s %-10s FAILED\n' "$row" "$name"
        return
    fi
    # whole-run counts are over warm-up + window: scale ops to match
    ops=$(awk -v o="$ops" -v w="$warmup" -v d="$duration" 'BEGIN { printf "%d", o * (w + d) / d }')
    {
        echo "$line" | awk -F, -v a="$c_ops_s" -v b="$c_p50" -v c="$c_p99" -v e="$c_err" -v y="$c_cyc99" \
            '{ printf "%s %s %s %s %s ", $a, $b, $c, ($y == "" ? "-" : $y), $e }'
        if [ "$have_perf" = 1 ]; then
            awk -F, -v ops="$ops" '$3 ~ /futex/ && ($3 in v) { fw = $1; next }
                $3 ~ /epoll_wait|epoll_ctl|_read$|futex|yield|context|migr/ { v[$3] = $1 }
                $3 ~ /_read$|recvfrom/ { rd += $1 }
                $3 ~ /_write|sendmsg/ { w += $1 }
                $3 ~ /_write$/ { pw = $1 }
                END { printf "%.3f %.4f %.3f %.3f %.4f %.4f %.4f %.4f %.4f %.4f ",
                      v["syscalls:sys_enter_epoll_wait"] / ops, v["syscalls:sys_enter_epoll_ctl"] / ops,
                      rd / ops, w / ops, pw / ops,
                      v["syscalls:sys_enter_futex"] / ops, fw / ops,
                      v["syscalls:sys_enter_sched_yield"] / ops, v["context-switches"] / ops,
                      v["cpu-migrations"] / ops }' "$tmp/perf"
        fi
        # the busiest threads serve clients; the others should sleep
        join "$tmp/before" "$tmp/after" | awk -v ops="$ops" '{ d = ($6 - $3) + ($7 - $4); n++
                tid[n] = $1; vol[n] = $6 - $3; inv[n] = $7 - $4; all[n] = d }
            END { for (i = 1; i <= n; i++) { if (all[i] > 0.001 * ops) { wv += vol[i]; wi += inv[i] }
                                             else other += all[i] }
                  printf "%.4f %.4f %.5f ", wv / ops, wi / ops, other / ops }'
        # ops counts the warm-up too, as the stats delta does
        awk -v ops="$ops" -v a="$wk0" -v b="$wk1" -v c="$wr0" -v d="$wr1" 'BEGIN {
            if (a == "-" || b - a <= 0) print "- -"
            else printf "%.4f %.3f\n", (b - a) / ops, (d - c) / (b - a) }'
    } | awk -v r="$row" -v n="$name" '{ printf "%-10s %-10s", r, n; for (i = 1; i <= NF; i++) printf " %9s", $i; print "" }'
}

echo "machine: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%F %T UTC')"
echo "client:  mcds-bench -t $bthreads -c $conns, ${warmup}s warm-up + ${duration}s; servers -t $sthreads${pin:+; pinned $pin}"
echo "cyc99us: queue rows, p99 of a message from push queued to ack answered (or taken)"
echo "per request: ew = epoll_wait, ectl = epoll_ctl, rd = read+recvfrom, wr = write+writev+sendmsg,"
echo "  write = write alone (mcds and memcached: notify pipes; redis: its replies),"
echo "  fx = futex, fxwait = futex waits (FUTEX_WAIT_PRIVATE: a contended mutex), yield = sched_yield, cs = context switches, mig = migrations (perf stat on the server);"
echo "  vol/inv = voluntary/involuntary switches of the serving threads, idle = switches of the others;"
echo "  wk = waits served (mcds park_wakes), wkrem = share of them served from another thread"
printf '%-10s %-10s %9s %9s %9s %9s %9s' row server ops/s p50us p99us cyc99us errors
[ "$have_perf" = 1 ] && printf ' %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s' ew ectl rd wr write fx fxwait yield cs mig
printf ' %9s %9s %9s %9s %9s\n' vol inv idle wk wkrem

names=(); kinds=(); spids=(); sports=()
for s in "${servers[@]}"; do
    kind=${s#*=}; kind=${kind%%:*}
    start_server "$kind" "${s#*:}"
    names+=("${s%%=*}"); kinds+=("$kind"); spids+=("$srv_pid"); sports+=("$srv_port")
done

# The cache rows need their keys: 100,000 of 32 B and of 1 KB.
for i in "${!names[@]}"; do
    [ "${kinds[$i]}" = redis ] && continue
    for sz in 32:s32: 1024:s1k:; do
        echo "${ROWS[*]}" | grep -q "P ${sz#*:}" || continue
        "$bench" -q -s "127.0.0.1:${sports[$i]}" -l 100000 -S "${sz%%:*}" -P "${sz#*:}" -D 16 ||
            die "loading ${names[$i]} failed"
    done
done

n=${#names[@]}
for r in "${ROWS[@]}"; do
    IFS='|' read -r row rkinds args rargs <<< "$r"
    echo "$row" | grep -Eq -- "$rows_re" || continue
    for round in $(seq "$rounds"); do
        for k in $(seq 0 $((n - 1))); do
            i=$(( (k + round - 1) % n ))
            case " $rkinds " in *" ${kinds[$i]} "*) ;; *) continue ;; esac
            a=$args
            [ "${kinds[$i]}" = redis ] && a=$rargs
            # shellcheck disable=SC2086
            run "${names[$i]}" "${spids[$i]}" "${sports[$i]}" $a
        done
    done
done
