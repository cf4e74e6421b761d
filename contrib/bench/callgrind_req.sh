#!/usr/bin/env bash
# callgrind_req.sh: user-space instructions per request of mcds-server, a
# figure that does not depend on the machine's load (doc/performance.md,
# "Pipelined headroom"). The server runs under valgrind --tool=callgrind
# with one worker thread and instrumentation off; 1000 keys are stored, then
# instrumentation is switched on for a pipelined mcds-bench run (one
# thread, 4 connections, 16 requests in flight each) and off again. The
# instructions counted are divided by the requests mcds-bench saw answered.
#
#   contrib/bench/callgrind_req.sh [--workload get|set|mixed] [--protocol text|meta]
#       [--multiget N] [--seconds S] [--server PATH] [--out FILE]
#
# Then `callgrind_annotate FILE` shows where they go.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mcds=$top/server/mcds-server
bench=$here/mcds-bench
workload=get
protocol=text
multiget=1
seconds=6
out=""

die() { echo "callgrind_req.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --workload) workload=$2; shift 2 ;;
    --protocol) protocol=$2; shift 2 ;;
    --multiget) multiget=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --server) mcds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown option $1" ;;
    esac
done
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
    die "valgrind is needed (apt-get install valgrind)"
[ -x "$mcds" ] || die "$mcds is not built"
[ -x "$bench" ] || die "$bench is not built (make -C contrib)"
. "$here/lib.sh"
pin=""
bench_setup callgrind_req
[ -n "$out" ] || out=/tmp/callgrind_req.$$.out

start_wait=30
bench_start "$tmp/server.log" valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file="$out" "$mcds" -p @PORT@ -l 127.0.0.1 -t 1 -U 0 ||
    die "the server did not start"
pid=$srv_pid
port=$srv_port
timeout 120 "$bench" -s "127.0.0.1:$port" -W load -l 1000 -k 1000 -q >/dev/null ||
    die "loading the keys failed"
callgrind_control -i on "$pid" >/dev/null 2>&1
hdr=$("$bench" --csv-header)
line=$(timeout $((seconds + 60)) "$bench" -s "127.0.0.1:$port" -W "$workload" -p "$protocol" \
    -m "$multiget" -k 1000 -t 1 -c 4 -D 16 -d "$seconds" -w 0 -q --csv | tail -1)
callgrind_control -i off "$pid" >/dev/null 2>&1
kill "$pid"
wait "$pid" 2>/dev/null
requests=$(echo "$line" | cut -d, -f"$(col ops)")
total=$(awk '/^totals:/ { print $2 }' "$out")
[ -n "$requests" ] && [ "$requests" -gt 0 ] && [ -n "$total" ] || die "no figures (see $tmp/server.log)"
echo "workload $workload protocol $protocol multiget $multiget: $requests requests," \
    "$total instructions, $((total / requests)) per request (profile: $out)"
