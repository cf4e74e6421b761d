# lib.sh: shell pieces shared by the scripts of contrib/bench (sourced,
# not run). The caller defines die() and sets pin (SERVER_CPUS:CLIENT_CPUS or
# empty) before calling bench_setup NAME.

# bench_setup NAME: taskset prefixes srv_pin/cli_pin, the scratch dir $tmp
# with the raw CSV $raw, the server pid list $pids, and the exit trap that
# stops every server (TERM, then KILL after 5 s) and removes $tmp.
bench_setup() {
    srv_pin=()
    cli_pin=()
    if [ -n "$pin" ]; then
        case "$pin" in *:*) ;; *) die "--pin wants SERVER_CPUS:CLIENT_CPUS, e.g. 1:0" ;; esac
        command -v taskset >/dev/null || die "--pin needs taskset (util-linux)"
        srv_pin=(taskset -c "${pin%%:*}")
        cli_pin=(taskset -c "${pin#*:}")
    fi
    tmp=$(mktemp -d "/tmp/mcds-$1.XXXXXX") || die "mktemp failed"
    raw=$tmp/raw.csv
    : > "$raw"
    pids=()
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM HUP
}

# shellcheck disable=SC2317  # run by the trap
bench_cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    pids=()
    rm -rf "$tmp"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# bench_start LOG CMD...: starts CMD on a free port, every @PORT@ in its
# words replaced by the port, its output appended to LOG, and waits up to
# $start_wait seconds (default 5) for the port to answer. Sets srv_pid and
# srv_port and adds the pid to pids; returns 1 (LOG printed) if it did not
# come up on 5 ports in a row. The command is started directly, so
# srv_pid is the server itself (a taskset or valgrind prefix execs it).
bench_start() {
    local log=$1 port pid w i cmd
    shift
    for _ in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 40000))
        port_busy "$port" && continue
        cmd=()
        for w in "$@"; do cmd+=("${w//@PORT@/$port}"); done
        "${cmd[@]}" >>"$log" 2>&1 &
        pid=$!
        for ((i = 0; i < ${start_wait:-5} * 50; i++)); do
            port_busy "$port" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.02
        done
        if kill -0 "$pid" 2>/dev/null && port_busy "$port"; then
            pids+=("$pid")
            srv_pid=$pid
            srv_port=$port
            return 0
        fi
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    cat "$log" >&2
    return 1
}

# col NAME: the column number of NAME in the CSV header $hdr.
col() { echo "$hdr" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }

# median FORMAT: the median of the numbers on stdin, or NA.
median() { sort -g | awk -v f="$1" '{ v[NR] = $1 } END {
    if (NR == 0) { print "NA"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf f "\n", m }'; }

# ratio A B: A / B with two decimals, or NA.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "NA" || b == "NA" || b + 0 == 0) print "NA"; else printf "%.2f", a / b }'; }

# stat_of PORT NAME: one value of "stats" of the server on 127.0.0.1:PORT.
stat_of() {
    local line v rest
    exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'stats\r\n' >&3
    while IFS= read -r -t 5 line <&3; do
        line=${line%$'\r'}
        [ "$line" = END ] && break
        read -r _ v rest <<<"$line"
        [ "$v" = "$2" ] && echo "$rest"
    done
    exec 3<&- 3>&-
}
