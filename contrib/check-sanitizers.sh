#!/bin/sh
# check-sanitizers.sh: builds a copy of this tree with a sanitizer and runs
# the whole test suite against it.
#
#   contrib/check-sanitizers.sh thread    # ThreadSanitizer (data races)
#   contrib/check-sanitizers.sh address   # AddressSanitizer + UBSan
#
# The copy goes to a scratch directory (or $1's second argument), so the
# tree's own build is untouched. Any sanitizer report in a server's stderr
# fails its test block; tests tagged sanitizer:skip (they measure CPU time
# or memory) and the runs of C programs under valgrind are skipped.
# Extra arguments after the directory go to ./runtest (e.g. --single ...).
set -e
kind=${1:-thread}
case "$kind" in
    thread|address) ;;
    *) echo "usage: $0 thread|address [DIR] [runtest options]" >&2; exit 64 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/mcds-$kind.XXXXXX")}
[ $# -ge 2 ] && shift 2 || shift $#

echo "check-sanitizers: building a $kind-sanitized copy in $dir"
mkdir -p "$dir"
# The files git knows, as they are now (uncommitted changes included).
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf -) | (cd "$dir" && tar xf -)
cd "$dir"
autoreconf -fi >/dev/null
./configure --enable-sanitizers="$kind" >/dev/null
make -j"$(nproc)" >/dev/null
make -j"$(nproc)" -C client check TESTS= >/dev/null
exec ./runtest "$@"
