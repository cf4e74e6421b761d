#!/usr/bin/env bash
# compare.sh: mcds-server against Debian's memcached, side by side.
#
# Starts both servers with the same threads and memory on free loopback
# ports, runs every workload row on both, alternating which goes first, for
# several rounds, and prints the medians and the ratios mcds/memcached for
# throughput (higher is better) and p99 latency (lower is better).  Then a
# memory test: fresh servers, N items of 100 bytes loaded into each, bytes per
# item = (VmRSS after - VmRSS before) / N.
#
# Nothing is pinned: client and servers share the machine's cores, and the
# report says so.  See doc/performance.md for how to read and reproduce it.
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
items=1000000
rows_re=.
do_tput=1
do_mem=1
bench=""
mcds=""
memcached=/usr/bin/memcached
against_memcached=0
durable=""
raw_out=""
pin=""
tls=""

usage() {
    cat <<EOF
usage: $0 [options]
  --duration S         measured seconds per run (default $duration)
  --warmup S           unmeasured seconds before each run (default $warmup)
  --rounds N           runs per row and server; the median is reported (default $rounds)
  --threads T          server threads, both servers (-t, default $sthreads)
  --memory MB          server memory, both servers (-m, default $memory)
  --bench-threads N    mcds-bench threads (default $bthreads)
  --conns N            mcds-bench connections per thread (default $conns)
  --items N            items of the memory test (default $items)
  --rows REGEX         only the rows whose name matches (default all)
  --no-memory          skip the memory test
  --memory-only        only the memory test
  --quick              --duration 1 --warmup 0.5 --rounds 1 --items 100000
  --bench PATH         mcds-bench (default: beside this script, or in the build tree)
  --mcds PATH          mcds-server (default: server/mcds-server of the tree)
  --memcached PATH     memcached (default $memcached)
  --durable POLICY     run mcds durable: a fresh --data-dir per start,
                       --fsync POLICY (always|everysec|no) and --persist-items
                       (with --memcached pointing at an mcds-server, this
                       compares durable mcds with in-memory mcds)
  --against-memcached  compare memcached with itself (proves the script
                       before mcds-server exists)
  --raw FILE           also write every run's CSV line to FILE
  --pin SRV:CLI        pin servers to CPU list SRV and mcds-bench to CLI with
                       taskset (e.g. --pin 1:0); default: nothing is pinned
  --tls a|b|both       these servers run with -Z (a throwaway certificate made
                       with openssl) and mcds-bench speaks TLS to them; their
                       names get "-tls"; no memory test (with --memcached
                       pointing at mcds-server, "--tls a" compares mcds with
                       TLS and without)
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
    --items) items=$2; shift ;;
    --rows) rows_re=$2; shift ;;
    --no-memory) do_mem=0 ;;
    --memory-only) do_tput=0 ;;
    --quick) duration=1; warmup=0.5; rounds=1; items=100000 ;;
    --bench) bench=$2; shift ;;
    --mcds) mcds=$2; shift ;;
    --memcached) memcached=$2; shift ;;
    --against-memcached) against_memcached=1 ;;
    --durable) durable=$2; shift ;;
    --raw) raw_out=$2; shift ;;
    --pin) pin=$2; shift ;;
    --tls) tls=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

die() { echo "compare.sh: $*" >&2; exit 2; }
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# ---- the programs ----

if [ -z "$bench" ]; then
    for b in "$here/mcds-bench" "$top/contrib/bench/mcds-bench" "$PWD/contrib/bench/mcds-bench"; do
        [ -x "$b" ] && { bench=$b; break; }
    done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
    die "mcds-bench not found; build it (make -C contrib) or pass --bench"
fi
[ -x "$memcached" ] || die "memcached not found at $memcached (apt-get install memcached)"
if [ "$against_memcached" = 1 ]; then
    a_name="memcached-A"
    a_bin=$memcached
else
    a_name=mcds
    if [ -z "$mcds" ]; then
        for b in "$top/server/mcds-server" "$PWD/server/mcds-server"; do
            [ -x "$b" ] && { mcds=$b; break; }
        done
    fi
    if [ -z "$mcds" ] || [ ! -x "$mcds" ]; then
        die "mcds-server not found; build it, pass --mcds, or use --against-memcached"
    fi
    a_bin=$mcds
fi
b_name=memcached
# another server under --memcached (in-memory mcds, an older build) is named by its file
[ "$(basename "$memcached")" = memcached ] || b_name="$(basename "$memcached")-B"
case "$durable" in
""|always|everysec|no) ;;
*) die "--durable takes always, everysec or no" ;;
esac
a_tls=""
b_tls=""
case "$tls" in
"") ;;
a) a_tls=--tls ;;
b) b_tls=--tls ;;
both) a_tls=--tls; b_tls=--tls ;;
*) die "--tls takes a, b or both" ;;
esac
[ -n "$a_tls" ] && a_name="$a_name-tls"
[ -n "$b_tls" ] && b_name="$b_name-tls"
[ -n "$tls" ] && do_mem=0               # its stats are read in plain text
[ -n "$durable" ] && a_name="$a_name-$durable"

bench_setup compare

# --tls: one self-signed certificate for the TLS servers (mcds-bench does
# not check it).
if [ -n "$tls" ]; then
    command -v openssl >/dev/null || die "--tls needs the openssl command (apt-get install openssl)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=localhost -keyout "$tmp/tls.key" -out "$tmp/tls.crt" 2>/dev/null ||
        die "openssl could not make a certificate"
fi

# ---- servers ----


# server_args BINARY ROLE: memcached's options shared by both servers, and
# for A (ROLE a) the persistence options of --durable.
server_args() {
    local args="-l 127.0.0.1 -t $sthreads -m $memory"
    if [ "$2" = a ] && [ -n "$durable" ]; then
        args="$args --data-dir $(mktemp -d "$tmp/data.XXXXXX") --fsync $durable --persist-items"
    elif [ "$1" = "$memcached" ] && [ "${b_name%-tls}" = memcached ]; then
        args="$args -U 0"
        [ "$(id -u)" = 0 ] && args="$args -u root"
    fi
    if { [ "$2" = a ] && [ -n "$a_tls" ]; } || { [ "$2" = b ] && [ -n "$b_tls" ]; }; then
        args="$args -Z -o ssl_chain_cert=$tmp/tls.crt,ssl_key=$tmp/tls.key"
    fi
    echo "$args"
}

# start_server BINARY ROLE: sets srv_pid and srv_port, or dies.
start_server() {
    local bin=$1 role=$2
    # shellcheck disable=SC2046
    bench_start "$tmp/server.log" "${srv_pin[@]}" "$bin" -p @PORT@ $(server_args "$bin" "$role") ||
        die "could not start $bin"
}

stop_server() {
    local p=$1 keep=() q
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    for q in "${pids[@]}"; do [ "$q" != "$p" ] && keep+=("$q"); done
    pids=("${keep[@]}")
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# ---- bench runs ----

hdr=$("$bench" --csv-header)
c_ops=$(col ops_per_sec); c_p99=$(col p99_us); c_err=$(col errors); c_stored=$(col stored)

# run_bench LABEL PORT ARGS...: appends the CSV line to $raw, prints it.
# The label's server name says whether it speaks TLS (--tls).
run_bench() {
    local label=$1 port=$2 line side_tls=$b_tls
    shift 2
    case "$label" in "$a_name":*) side_tls=$a_tls ;; esac
    # shellcheck disable=SC2086 # empty or --tls
    line=$("${cli_pin[@]}" "$bench" -q --csv --label "$label" -s "127.0.0.1:$port" \
        -t "$bthreads" -c "$conns" $side_tls "$@" 2>>"$tmp/bench.err" | tail -n 1)
    case "$line" in "$label",*) ;; *) line="$label,FAILED" ;; esac
    echo "$line" >> "$raw"
    echo "$line"
}

# The rows: name, then mcds-bench options.  Keys of each value size have
# their own prefix, so the loaded 32 B keys stay 32 B.
ROWS=(
    "getset-32|-r 9:1 -S 32 -P k32:"
    "getset-32-p16|-r 9:1 -S 32 -P k32: -D 16"
    "getset-32-meta|-r 9:1 -S 32 -P k32: -p meta"
    "getset-32-meta-p16|-r 9:1 -S 32 -P k32: -p meta -D 16"
    "set-32|-W set -S 32 -P k32:"
    "set-32-p16|-W set -S 32 -P k32: -D 16"
    "mget10-32|-W get -m 10 -S 32 -P k32:"
    "mget10-32-p8|-W get -m 10 -S 32 -P k32: -D 8"
    "mget100-32|-W get -m 100 -S 32 -P k32:"
    "mget100-32-meta|-W get -m 100 -S 32 -P k32: -p meta"
    "getset-1k|-r 9:1 -S 1024 -P k1k:"
    "getset-1k-p16|-r 9:1 -S 1024 -P k1k: -D 16"
    "set-1k|-W set -S 1024 -P k1k:"
    "getset-100k|-r 9:1 -S 102400 -P k100k: -k 2000"
    "set-100k|-W set -S 102400 -P k100k: -k 2000"
)
# What to load before the rows: size, prefix, keys.
PRELOADS=("32 k32: 100000" "1024 k1k: 100000" "102400 k100k: 2000")

# median FORMAT: the median of the numbers on stdin, or NA.
# rows_use PREFIX: does a selected row use keys of this prefix?
rows_use() {
    local row
    for row in "${ROWS[@]}"; do
        echo "${row%%|*}" | grep -Eq -- "$rows_re" || continue
        case "${row#*|} " in *"-P $1 "*) return 0 ;; esac
    done
    return 1
}


# field ROW SIDE COLUMN: the values of one column over the rounds.
field() {
    awk -F, -v p="$2:$1:" -v c="$3" 'index($0, p) == 1 && $2 != "FAILED" { print $c }' "$raw"
}


machine() {
    echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
        "$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
    echo "servers: $a_name = $a_bin; $b_name = $memcached ($("$memcached" -V 2>/dev/null))"
    echo "         both: -t $sthreads -m $memory, on 127.0.0.1"
    [ -n "$durable" ] && echo "         $a_name: --data-dir (fresh) --fsync $durable --persist-items"
    [ -n "$tls" ] && echo "         TLS ($tls): -Z with a P-256 self-signed certificate; mcds-bench --tls" \
        "($(openssl version 2>/dev/null))"
    echo "client:  $bench -t $bthreads -c $conns ($((bthreads * conns)) connections)," \
        "warm-up $warmup s, $duration s measured, $rounds round(s), median reported"
    if [ -n "$pin" ]; then
        echo "note:    pinned with taskset: servers on CPUs ${pin%%:*}, mcds-bench on CPUs ${pin#*:}."
    else
        echo "note:    client and servers share the same $(nproc) cores; nothing is pinned," \
            "so ratios matter more than absolute figures."
    fi
}

status=0

throughput() {
    local a_pid a_port b_pid b_port row name args r pre size prefix keys first side stored
    start_server "$a_bin" a; a_pid=$srv_pid; a_port=$srv_port
    start_server "$memcached" b; b_pid=$srv_pid; b_port=$srv_port
    echo "== throughput: $a_name on port $a_port, $b_name on port $b_port"

    for pre in "${PRELOADS[@]}"; do
        read -r size prefix keys <<<"$pre"
        rows_use "$prefix" || continue
        for side in "$a_name:$a_port" "$b_name:$b_port"; do
            stored=$(run_bench "${side%%:*}:load-$size:1" "${side#*:}" -l "$keys" \
                -S "$size" -P "$prefix" -D 16 | cut -d, -f"$c_stored")
            if [ "$stored" != "$keys" ]; then
                echo "warning: ${side%%:*} stored ${stored:-none} of $keys keys of $size B" >&2
                status=1
            fi
        done
    done

    for row in "${ROWS[@]}"; do
        name=${row%%|*}
        args=${row#*|}
        echo "$name" | grep -Eq -- "$rows_re" || continue
        for r in $(seq "$rounds"); do
            # Alternate which server goes first.
            if [ $((r % 2)) = 1 ]; then first=a; else first=b; fi
            for side in $first $([ $first = a ] && echo b || echo a); do
                if [ "$side" = a ]; then
                    # shellcheck disable=SC2086
                    run_bench "$a_name:$name:$r" "$a_port" -d "$duration" -w "$warmup" $args >/dev/null
                else
                    # shellcheck disable=SC2086
                    run_bench "$b_name:$name:$r" "$b_port" -d "$duration" -w "$warmup" $args >/dev/null
                fi
            done
        done
        printf '.'
    done
    echo
    stop_server "$a_pid"
    stop_server "$b_pid"

    echo
    local w=$(( ${#a_name} > ${#b_name} ? ${#a_name} + 7 : ${#b_name} + 7 ))
    printf '%-20s %*s %*s %6s %*s %*s %6s %6s\n' row "$w" "$a_name ops/s" \
        "$w" "$b_name ops/s" ratio "$w" "$a_name p99us" "$w" "$b_name p99us" ratio errors
    for row in "${ROWS[@]}"; do
        name=${row%%|*}
        echo "$name" | grep -Eq -- "$rows_re" || continue
        local ao bo ap bp errs fails
        ao=$(field "$name" "$a_name" "$c_ops" | median %.0f)
        bo=$(field "$name" "$b_name" "$c_ops" | median %.0f)
        ap=$(field "$name" "$a_name" "$c_p99" | median %.1f)
        bp=$(field "$name" "$b_name" "$c_p99" | median %.1f)
        errs=$( { field "$name" "$a_name" "$c_err"; field "$name" "$b_name" "$c_err"; } |
                awk '{ s += $1 } END { print s + 0 }')
        fails=$(grep -c ":$name:[0-9]*,FAILED" "$raw")
        [ "$fails" -gt 0 ] && errs="$errs+${fails}F"
        [ "$errs" != 0 ] && status=1
        printf '%-20s %*s %*s %6s %*s %*s %6s %6s\n' "$name" "$w" "$ao" "$w" "$bo" \
            "$(ratio "$ao" "$bo")" "$w" "$ap" "$w" "$bp" "$(ratio "$ap" "$bp")" "$errs"
    done
    echo "(ops/s: requests per second, a multi-get is one request; p99 in microseconds;"
    echo " ratio = $a_name / $b_name: above 1 is better for ops/s, below 1 is better for p99)"
}

# mem_one NAME BINARY ROLE: prints "NAME before after bytes/item curr_items".
mem_one() {
    local name=$1 bin=$2 role=$3 pid port before after line stored curr
    start_server "$bin" "$role"; pid=$srv_pid; port=$srv_port
    sleep 0.5
    before=$(rss_kb "$pid")
    line=$(run_bench "$name:mem:1" "$port" -l "$items" -S 100 -P mem: -D 16)
    stored=$(echo "$line" | cut -d, -f"$c_stored")
    sleep 1                             # let background work (hash growth) settle
    after=$(rss_kb "$pid")
    curr=$(stat_of "$port" curr_items)
    stop_server "$pid"
    [ "$stored" = "$items" ] && [ "$curr" = "$items" ] || status=1
    printf '%-12s %12s %12s %12s %12s %12s\n' "$name" "$before" "$after" \
        "$(awk -v a="$after" -v b="$before" -v n="$items" 'BEGIN { printf "%.1f", (a - b) * 1024 / n }')" \
        "${stored:-NA}" "${curr:-NA}"
}

memory_test() {
    echo
    echo "== memory: $items items of 100 bytes, keys mem:<n>"
    printf '%-12s %12s %12s %12s %12s %12s\n' server "RSS before kB" "RSS after kB" \
        "bytes/item" stored curr_items
    mem_one "$a_name" "$a_bin" a > "$tmp/mem.a"
    cat "$tmp/mem.a"
    mem_one "$b_name" "$memcached" b > "$tmp/mem.b"
    cat "$tmp/mem.b"
    echo "ratio $a_name/$b_name bytes per item: $(ratio "$(awk '{ print $4 }' "$tmp/mem.a")" \
        "$(awk '{ print $4 }' "$tmp/mem.b")") (below 1 is better)"
}

machine
[ "$do_tput" = 1 ] && throughput
[ "$do_mem" = 1 ] && memory_test
[ -n "$raw_out" ] && { echo "$hdr" > "$raw_out"; cat "$raw" >> "$raw_out"; }
[ -s "$tmp/bench.err" ] && { echo; echo "mcds-bench said:"; sort "$tmp/bench.err" | uniq -c | head -20; }
exit $status
