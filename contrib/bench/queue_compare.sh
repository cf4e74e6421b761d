#!/usr/bin/env bash
# queue_compare.sh: mcds-server's queues against Redis 7 and beanstalkd.
#
# Starts the three servers on free loopback ports (mcds-server -t T; Redis
# and beanstalkd are single-threaded, with nothing written to disk), then,
# for every row and round, runs mcds-bench's queue workloads on each target
# in turn (the first target rotates from round to round):
#
#   mcds         qpush + qpop + qack                  (-W queue)
#   mcds-ackpop  qpush + qpop ack=<previous id>: the reliable cycle in two
#                round trips  (-W queue --ack-with-pop)
#   mcds-take    qpush + get <queue>, Kestrel's take  (-W queue-take)
#   redis-rpop   LPUSH + RPOP                         (-p redis -W queue-take)
#   redis-lmove  LPUSH + LMOVE to a processing list + LREM from it
#                (Redis's reliable queue; BLMOVE when consumers block)
#                                                     (-p redis -W queue)
#   beanstalkd   put + reserve-with-timeout + delete  (-p beanstalk -W queue)
#
# With --durable the targets are the durable ones instead, all on the push +
# pop + ack cycle, each server writing to a fresh directory:
#
#   mcds              in memory, as above (the reference)
#   mcds-everysec     --data-dir --fsync everysec
#   mcds-always       --data-dir --fsync always (group commit)
#   redis-aof-es      appendonly yes, appendfsync everysec (LPUSH + LMOVE + LREM)
#   redis-aof-always  appendonly yes, appendfsync always
#   beanstalkd-binlog -b DIR (fsync at most every 50 ms, its default)
#   beanstalkd-f0     -b DIR -f 0 (fsync after every write)
#
# and prints the medians of cycles/s (messages acked or taken per second)
# and of a message's p99 latency (its push queued to its ack answered), with
# the ratios of mcds (push + pop + ack) to the others.  Every run uses fresh
# queue names.  Nothing is pinned unless --pin says so: client and servers
# share the machine's cores, and the report says so.  Every mcds-bench run is
# bounded by timeout(1), and the servers are stopped on any exit.
# See doc/performance.md, "Queues".
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

duration=5
warmup=1
rounds=3
sthreads=2
memory=1024
bthreads=2
conns=25
rows_re=.
targets_re=.
bench=""
mcds=""
redis=/usr/bin/redis-server
beanstalkd=/usr/bin/beanstalkd
raw_out=""
pin=""
durable=0

usage() {
    cat <<EOF
usage: $0 [options]
  --duration S         measured seconds per run (default $duration)
  --warmup S           unmeasured seconds before each run (default $warmup)
  --rounds N           runs per row and target; the median is reported (default $rounds)
  --threads T          mcds-server threads (-t, default $sthreads); Redis and
                       beanstalkd are single-threaded
  --memory MB          mcds-server memory (-m, default $memory)
  --bench-threads N    mcds-bench threads (default $bthreads)
  --conns N            mcds-bench connections per thread (default $conns)
  --rows REGEX         only the rows whose name matches (default all)
  --targets REGEX      only the targets whose name matches (default all:
                       mcds mcds-ackpop mcds-take redis-rpop redis-lmove
                       beanstalkd)
  --durable            the durable targets (see the top of this script)
                       instead of the in-memory ones
  --quick              --duration 1 --warmup 0.5 --rounds 1
  --bench PATH         mcds-bench (default: beside this script)
  --mcds PATH          mcds-server (default: server/mcds-server of the tree)
  --redis PATH         redis-server (default $redis)
  --beanstalkd PATH    beanstalkd (default $beanstalkd)
  --raw FILE           also write every run's CSV line to FILE
  --pin SRV:CLI        pin servers to CPU list SRV and mcds-bench to CLI with
                       taskset (e.g. --pin 1:0); default: nothing is pinned
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --duration) duration=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --threads) sthreads=$2; shift ;;
    --memory) memory=$2; shift ;;
    --bench-threads) bthreads=$2; shift ;;
    --conns) conns=$2; shift ;;
    --rows) rows_re=$2; shift ;;
    --targets) targets_re=$2; shift ;;
    --quick) duration=1; warmup=0.5; rounds=1 ;;
    --durable) durable=1 ;;
    --bench) bench=$2; shift ;;
    --mcds) mcds=$2; shift ;;
    --redis) redis=$2; shift ;;
    --beanstalkd) beanstalkd=$2; shift ;;
    --raw) raw_out=$2; shift ;;
    --pin) pin=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "queue_compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

die() { echo "queue_compare.sh: $*" >&2; exit 2; }
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# ---- the programs ----

if [ -z "$bench" ]; then
    for b in "$here/mcds-bench" "$top/contrib/bench/mcds-bench"; do
        [ -x "$b" ] && { bench=$b; break; }
    done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
    die "mcds-bench not found; build it (make -C contrib) or pass --bench"
fi
if [ -z "$mcds" ]; then
    mcds=$top/server/mcds-server
fi
[ -x "$mcds" ] || die "mcds-server not found at $mcds; build it or pass --mcds"
[ -x "$redis" ] || die "redis-server not found at $redis (apt-get install redis-server)"
[ -x "$beanstalkd" ] || die "beanstalkd not found at $beanstalkd (apt-get install beanstalkd)"
command -v timeout >/dev/null || die "timeout(1) is needed (coreutils)"

bench_setup qcompare

# ---- servers ----


# server_cmd KIND PORT DIR: sets cmd, the command line of one server kind.
server_cmd() {
    local port=$2 dir=$3
    local m=("$mcds" -l 127.0.0.1 -p "$port" -t "$sthreads" -m "$memory")
    local r=("$redis" --bind 127.0.0.1 --port "$port" --save '' --daemonize no --dir "$dir")
    local b=("$beanstalkd" -l 127.0.0.1 -p "$port")
    case "$1" in
    mcds) cmd=("${m[@]}") ;;
    mcds_es) cmd=("${m[@]}" --data-dir "$dir" --fsync everysec) ;;
    mcds_al) cmd=("${m[@]}" --data-dir "$dir" --fsync always) ;;
    redis) cmd=("${r[@]}" --appendonly no) ;;
    redis_es) cmd=("${r[@]}" --appendonly yes --appendfsync everysec) ;;
    redis_al) cmd=("${r[@]}" --appendonly yes --appendfsync always) ;;
    beanstalkd) cmd=("${b[@]}") ;;
    bs_bin) cmd=("${b[@]}" -b "$dir") ;;
    bs_f0) cmd=("${b[@]}" -b "$dir" -f 0) ;;
    esac
}

# start_server KIND: sets srv_port, or dies.
start_server() {
    local kind=$1 cmd dir
    dir=$(mktemp -d "$tmp/$kind.XXXXXX")
    server_cmd "$kind" @PORT@ "$dir"
    bench_start "$tmp/$kind.log" "${srv_pin[@]}" "${cmd[@]}" || die "could not start $kind"
}

# ---- bench runs ----

hdr=$("$bench" --csv-header)
c_cps=$(col cycles_per_sec); c_p99=$(col cycle_p99_us); c_err=$(col errors)
if [ -z "$c_cps" ] || [ -z "$c_p99" ]; then
    die "$bench has no queue workloads (cycles_per_sec)"
fi

# Seconds a run may take: warm-up, window, the drain (--timeout 2), startup.
run_limit=$(awk -v w="$warmup" -v d="$duration" 'BEGIN { printf "%d", w + d + 2 + 30 }')

# run_bench LABEL PORT ARGS...: appends the CSV line to $raw.
run_bench() {
    local label=$1 port=$2 line
    shift 2
    line=$(timeout -k 5 "$run_limit" "${cli_pin[@]}" "$bench" -q --csv --label "$label" \
        -s "127.0.0.1:$port" -t "$bthreads" -c "$conns" -d "$duration" -w "$warmup" \
        "$@" 2>>"$tmp/bench.err" | tail -n 1)
    case "$line" in "$label",*) ;; *) line="$label,FAILED" ;; esac
    echo "$line" >> "$raw"
}

# The targets: name, server kind, mcds-bench options; and the ratios shown:
# label, numerator target, denominator target.
if [ "$durable" = 1 ]; then
TARGETS=(
    "mcds|mcds|-W queue"
    "mcds-everysec|mcds_es|-W queue"
    "mcds-always|mcds_al|-W queue"
    "redis-aof-es|redis_es|-p redis -W queue"
    "redis-aof-always|redis_al|-p redis -W queue"
    "beanstalkd-binlog|bs_bin|-p beanstalk -W queue"
    "beanstalkd-f0|bs_f0|-p beanstalk -W queue"
)
PAIRS=(
    "es/mem|mcds-everysec|mcds"
    "es/redis-es|mcds-everysec|redis-aof-es"
    "es/bs-binlog|mcds-everysec|beanstalkd-binlog"
    "al/redis-al|mcds-always|redis-aof-always"
    "al/bs-f0|mcds-always|beanstalkd-f0"
)
else
TARGETS=(
    "mcds|mcds|-W queue"
    "mcds-ackpop|mcds|-W queue --ack-with-pop"
    "mcds-take|mcds|-W queue-take"
    "redis-rpop|redis|-p redis -W queue-take"
    "redis-lmove|redis|-p redis -W queue"
    "beanstalkd|beanstalkd|-p beanstalk -W queue"
)
PAIRS=(
    "mcds/rpop|mcds|redis-rpop"
    "mcds/lmove|mcds|redis-lmove"
    "mcds/beanstalkd|mcds|beanstalkd"
    "take/rpop|mcds-take|redis-rpop"
    "ackpop/lmove|mcds-ackpop|redis-lmove"
)
fi
# The rows: name, then mcds-bench options on top of the target's.
ROWS=(
    "q1|--queues 1 -S 32"
    "q50|--queues 50 -S 32"
    "q1-p4|--queues 1 -S 32 -D 4"
    "q1-1k|--queues 1 -S 1024"
    "split|--queues 1 -S 32 --producers 5"
)

sel_targets=()
for t in "${TARGETS[@]}"; do
    echo "${t%%|*}" | grep -Eq -- "$targets_re" && sel_targets+=("$t")
done
sel_rows=()
for r in "${ROWS[@]}"; do
    echo "${r%%|*}" | grep -Eq -- "$rows_re" && sel_rows+=("$r")
done
[ ${#sel_targets[@]} -gt 0 ] || die "--targets $targets_re selects no target"
[ ${#sel_rows[@]} -gt 0 ] || die "--rows $rows_re selects no row"


# field ROW TARGET COLUMN: the values of one column over the rounds.
field() {
    awk -F, -v p="$2:$1:" -v c="$3" 'index($0, p) == 1 && $2 != "FAILED" { print $c }' "$raw"
}


machine() {
    echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
        "$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
    echo "servers: mcds = $mcds -t $sthreads -m $memory ($("$mcds" -V 2>/dev/null | head -1))"
    echo "         redis = $redis --save '' ($("$redis" --version | awk '{ print $3 }'), single-threaded)"
    echo "         beanstalkd = $beanstalkd ($("$beanstalkd" -v 2>&1 | head -1), single-threaded)"
    if [ "$durable" = 1 ]; then
        echo "         durable targets: each server writes to a fresh directory on" \
            "$(df -h "$tmp" | awk 'NR == 2 { print $1 " (" $6 ")" }') (see the top of this script)"
    else
        echo "         nothing written to disk (Redis: --appendonly no; beanstalkd: no binlog)"
    fi
    echo "         all on 127.0.0.1"
    echo "client:  $bench -t $bthreads -c $conns ($((bthreads * conns)) connections)," \
        "warm-up $warmup s, $duration s measured, $rounds round(s), median reported"
    if [ -n "$pin" ]; then
        echo "note:    pinned with taskset: servers on CPUs ${pin%%:*}, mcds-bench on CPUs ${pin#*:}."
    else
        echo "note:    this machine has $(nproc) cores and client and server share them;" \
            "nothing is pinned, so ratios matter more than absolute figures."
    fi
    echo "load:    $(loadavg) (1, 5, 15 min) at the start; $(date -u '+%Y-%m-%d %H:%M UTC')"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

status=0
machine

# One server of each kind the selected targets use.
kinds=()
ports_desc=""
for t in "${sel_targets[@]}"; do
    rest=${t#*|}
    kind=${rest%%|*}
    case " ${kinds[*]} " in *" $kind "*) continue ;; esac
    kinds+=("$kind")
    start_server "$kind"
    printf -v "port_$kind" '%s' "$srv_port"
    ports_desc="$ports_desc $kind $srv_port,"
done
echo "ports:  ${ports_desc%,}"

nt=${#sel_targets[@]}
run_no=0
for row in "${sel_rows[@]}"; do
    name=${row%%|*}
    args=${row#*|}
    for r in $(seq "$rounds"); do
        # Rotate which target goes first.
        for k in $(seq 0 $((nt - 1))); do
            t=${sel_targets[$(( (k + r - 1) % nt ))]}
            tname=${t%%|*}
            rest=${t#*|}
            kind=${rest%%|*}
            targs=${rest#*|}
            port_var=port_$kind
            # acks ride on pops only in whole cycles, not with producers
            case "$targs $args" in *--ack-with-pop*--producers*) continue ;; esac
            run_no=$((run_no + 1))
            # shellcheck disable=SC2086
            run_bench "$tname:$name:$r" "${!port_var}" $targs $args -P "b$run_no."
        done
    done
    printf '.'
done
echo

# ---- the tables ----

tnames=()
for t in "${sel_targets[@]}"; do tnames+=("${t%%|*}"); done
has() { local n; for n in "${tnames[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
# The ratios whose two targets both ran.
sel_pairs=()
for p in "${PAIRS[@]}"; do
    rest=${p#*|}
    has "${rest%%|*}" && has "${rest#*|}" && sel_pairs+=("$p")
done

# table TITLE COLUMN FORMAT
table() {
    local title=$1 c=$2 f=$3 row name t p rest
    echo
    echo "$title"
    printf '%-8s' row
    for t in "${tnames[@]}"; do printf ' %12s' "$t"; done
    for p in "${sel_pairs[@]}"; do printf ' %12s' "${p%%|*}"; done
    echo
    for row in "${sel_rows[@]}"; do
        name=${row%%|*}
        printf '%-8s' "$name"
        declare -A med=()
        for t in "${tnames[@]}"; do
            med[$t]=$(field "$name" "$t" "$c" | median "$f")
            printf ' %12s' "${med[$t]}"
        done
        for p in "${sel_pairs[@]}"; do
            rest=${p#*|}
            printf ' %12s' "$(ratio "${med[${rest%%|*}]}" "${med[${rest#*|}]}")"
        done
        unset med
        echo
    done
}

table "== cycles/s (messages acked, or taken, per second; median; higher is better)" "$c_cps" %.0f
table "== p99 latency of a message in µs, push queued -> ack answered (median; lower is better)" "$c_p99" %.0f

errs=$(awk -F, -v c="$c_err" '$2 != "FAILED" { s += $c } END { print s + 0 }' "$raw")
fails=$(grep -c ',FAILED$' "$raw")
echo
rows_desc=$(for r in "${sel_rows[@]}"; do printf '%s = %s; ' "${r%%|*}" "${r#*|}"; done)
echo "rows:    ${rows_desc%; }"
echo "         q50: one queue per connection; split: per thread 5 producers and 20 consumers"
echo "         (blocking pops: qpop wait=1, BLMOVE/BRPOP 1, reserve-with-timeout 1)"
if [ "$durable" = 1 ]; then
echo "ratios:  es = mcds-everysec, al = mcds-always (qpush + qpop + qack, each logged);"
echo "         redis-*: LPUSH + LMOVE + LREM with the AOF; bs-*: put + reserve + delete"
echo "         with the binlog"
else
echo "ratios:  mcds (qpush + qpop + qack) / the other; mcds/rpop compares a reliable cycle"
echo "         with Redis's unacknowledged one; take/rpop compares like with like"
echo "         (mcds-take: qpush + get <queue>, which pops for good); ackpop/lmove:"
echo "         the reliable cycle with the ack on the next pop (qpop ack=) against"
echo "         Redis's reliable LPUSH + LMOVE + LREM"
fi
echo "errors:  $errs over all runs; failed runs: $fails"
echo "load:    $(loadavg) (1, 5, 15 min) at the end; other work on the machine skews the figures"
if [ "$errs" != 0 ] || [ "$fails" != 0 ]; then
    status=1
fi
[ -n "$raw_out" ] && { echo "$hdr" > "$raw_out"; cat "$raw" >> "$raw_out"; }
if [ -s "$tmp/bench.err" ]; then
    echo
    echo "mcds-bench said:"
    sort "$tmp/bench.err" | uniq -c | head -20
fi
exit $status
