#!/bin/bash
# hitratio_compare.sh: the hit ratio of mcds-server and memcached at the
# same -m, the same request stream (hitratio), fresh servers per case;
# prints each case's ratios and mcds - memcached in points
# (doc/performance.md, "Hit ratio at equal memory").
#
#   contrib/bench/hitratio_compare.sh [--memory MB] [--requests N] [--keys N]
#                                     [--mcds PATH] [--memcached PATH] [--only REGEX]
#
# Cases: 100-byte values without TTL; 100-byte values with a TTL mix;
# 50..2000-byte values without TTL and with the TTL mix, all with keys
# Zipf(1.0) over --keys at -m --memory; then, with 50..2000-byte values
# and no TTL, to keep a policy from fitting one stream: Zipf 0.8 and 1.2;
# a fifth of the requests a scan looping over 1,000,000 other keys (and
# the same with 100-byte values); and a quarter of --memory. --only runs
# the cases whose name matches REGEX (grep -E). The first fifth of the
# requests warms the cache and is not counted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mcds=$top/server/mcds-server
memcached=/usr/bin/memcached
tool=$here/hitratio
memory=64
requests=5000000
keys=2000000
pin=
only=
die() { echo "hitratio_compare.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --memory) memory=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --mcds) mcds=$2; shift 2 ;;
    --memcached) memcached=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) die "unknown option $1" ;;
    esac
done
[ -x "$tool" ] || die "$tool is not built (make -C contrib)"
[ -x "$mcds" ] || die "$mcds is not built"
[ -x "$memcached" ] || die "memcached not found at $memcached (apt-get install memcached)"
# shellcheck source=lib.sh
. "$here/lib.sh"
bench_setup hitratio

# start BINARY MB EXTRA...: sets port and pid of a fresh server, or dies.
start() {
    local bin=$1 mb=$2
    shift 2
    bench_start "$tmp/server.log" "$bin" -p @PORT@ -l 127.0.0.1 -t 2 -m "$mb" "$@" ||
        die "could not start $bin"
    port=$srv_port
    pid=$srv_pid
}

# ratio_of BINARY MB ARGS...: the hit ratio on a fresh server at -m MB.
ratio_of() {
    local bin=$1 mb=$2 extra=() r
    shift 2
    [ "$bin" = "$memcached" ] && extra=(-U 0)
    [ "$(id -u)" = 0 ] && extra+=(-u root)
    start "$bin" "$mb" "${extra[@]}"
    r=$(timeout 600 "$tool" -p "$port" --keys "$keys" --requests "$requests" \
        --warmup $((requests / 5)) "$@" | awk '{ print $6 }')
    kill "$pid"
    wait "$pid" 2>/dev/null
    echo "${r:-NA}"
}

echo "hit ratio at -m $memory (unless the case says), $keys keys Zipf(1.0) (unless the case says)," \
    "$requests requests ($((requests / 5)) not counted), multi-gets of 100, a set after each miss"
printf '%-40s %8s %10s %8s\n' case mcds memcached points
while IFS='|' read -r name share args; do
    mb=$((memory / share))
    name=${name//@MB@/$mb}
    [ -z "$only" ] || grep -qE -- "$only" <<<"$name" || continue
    # shellcheck disable=SC2086
    a=$(ratio_of "$mcds" "$mb" $args)
    # shellcheck disable=SC2086
    b=$(ratio_of "$memcached" "$mb" $args)
    printf '%-40s %8s %10s %8s\n' "$name" "$a" "$b" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN { if (a == "NA" || b == "NA") print "NA"; else printf "%+.2f", (a - b) * 100 }')"
done <<'CASES'
100 B, no TTL|1|--ttls 0:1
100 B, TTLs 0/5/30 s (6:2:2)|1|--ttls 0:6,5:2,30:2
50..2000 B, no TTL|1|--min-size 50 --max-size 2000 --ttls 0:1
50..2000 B, TTLs 0/5/30 s (6:2:2)|1|--min-size 50 --max-size 2000 --ttls 0:6,5:2,30:2
50..2000 B, Zipf 0.8|1|--min-size 50 --max-size 2000 --zipf 0.8
50..2000 B, Zipf 1.2|1|--min-size 50 --max-size 2000 --zipf 1.2
50..2000 B, 20 % scan of 1M keys|1|--min-size 50 --max-size 2000 --scan 0.2:1000000
100 B, 20 % scan of 1M keys|1|--scan 0.2:1000000
50..2000 B, -m @MB@|4|--min-size 50 --max-size 2000
CASES
