#!/bin/bash
# queue_groups.sh: FIFO message groups' throughput (doc/performance.md,
# "Queues"): the same producers and consumers on one queue, its messages
# in no group, or spread over 1, 10 and 1,000 FIFO groups (qpush group=).
# A group has one message in flight at a time, so one group serializes the
# consumers; many groups let them all work. Each row gets a fresh
# mcds-server (-t 2 -m 1024, in memory); mcds-bench runs -W queue with
# producers and blocking consumers; prints messages acked per second
# (median of the rounds) and the ratio to the ungrouped row.
#
#   contrib/bench/queue_groups.sh [--duration S] [--rounds R] [--mcds PATH]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mcds=$top/server/mcds-server
bench=$here/mcds-bench
duration=3
rounds=3
pin=
die() { echo "queue_groups.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --duration) duration=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --mcds) mcds=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
done
[ -x "$bench" ] || die "$bench is not built (make)"
[ -x "$mcds" ] || die "$mcds is not built"
# shellcheck source=lib.sh
. "$here/lib.sh"
bench_setup qgroups

hdr=$("$bench" --csv-header)
rowcol=$(col cycles_per_sec)
[ -n "$rowcol" ] || die "mcds-bench --csv-header has no cycles_per_sec"

# run GROUPS ROUND: one measurement into $raw as "GROUPS,ops/s".
run() {
    local groups=$1 opt=() line
    [ "$groups" = none ] || opt=(--groups "$groups")
    bench_start "$tmp/server.log" "$mcds" -p @PORT@ -t 2 -m 1024 -U 0 || die "mcds-server did not start"
    line=$(timeout $((duration + 30)) "$bench" -s "127.0.0.1:$srv_port" -W queue -t 2 -c 25 \
        --producers 5 --queues 1 -S 32 -d "$duration" -w 1 --csv "${opt[@]}" | tail -1)
    echo "$groups,$(echo "$line" | cut -d, -f"$rowcol")" >> "$raw"
    bench_cleanup_one
}

# bench_cleanup_one: stops the row's server.
bench_cleanup_one() {
    kill "$srv_pid" 2>/dev/null
    wait "$srv_pid" 2>/dev/null
    pids=()
}

for r in $(seq "$rounds"); do
    for g in none 1 10 1000; do run "$g" "$r"; done
done
base=$(grep '^none,' "$raw" | cut -d, -f2 | median '%.0f')
echo "| groups | messages acked/s (median of $rounds) | rounds | ratio to no group |"
echo "|---|---|---|---|"
for g in none 1 10 1000; do
    m=$(grep "^$g," "$raw" | cut -d, -f2 | median '%.0f')
    all=$(grep "^$g," "$raw" | cut -d, -f2 | tr '\n' ' ')
    echo "| $g | $m | $all| $(ratio "$m" "$base") |"
done
