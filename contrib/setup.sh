#!/bin/sh
# setup.sh: installs the Debian packages mcds needs (when some are missing;
# needs root for that), then configures and builds the whole tree.
#
#   contrib/setup.sh          what building and running needs (compiler,
#                             autotools, libevent, libmemcached, libssl-dev)
#   contrib/setup.sh --test   that, and what the test suite uses (tcl,
#                             procps, groff-base, memcached,
#                             libmemcached-tools, valgrind,
#                             python3-pymemcache, nutcracker, openssl,
#                             tcl-tls, prometheus, nodejs, npm,
#                             node-typescript)
#   contrib/setup.sh --fuzz   that, and clang with libFuzzer for make fuzz
#                             (doc/fuzzing.md; not needed by make check)
#
# Used by the README's two commands and by .ci/run.
set -e
cd "$(dirname "$0")/.."

# libssl-dev: TLS (-Z) is built with OpenSSL; and Debian 12's
# libmemcached.pc requires libcrypto's .pc file, but libmemcached-dev does
# not depend on it, so configure cannot find libmemcached without it.
BUILD_PKGS="build-essential autoconf automake libtool pkg-config libevent-dev
libmemcached-dev libssl-dev"
# procps: the suite stops servers with kill(1), which a minimal Debian
# (debootstrap's minbase, the debian:12 container image) lacks; groff-base:
# t/unit/docs.tcl formats the man pages; openssl (the command) and tcl-tls:
# t/unit/tls.tcl makes its certificates and speaks TLS; prometheus:
# t/integration/prometheus.tcl scrapes the metrics listener with it.
# nodejs, npm, node-typescript: t/unit/node_client.tcl runs contrib/node's
# tests, npm pack and tsc on its declarations (each skipped, saying why,
# without); a node or npm already on the PATH (NodeSource's nodejs, which
# conflicts with Debian's npm) is kept. keepalived: t/integration/
# failover.tcl checks the example configuration with keepalived -t.
TEST_PKGS="tcl procps groff-base libmemcached-tools memcached valgrind
python3-pymemcache nutcracker openssl tcl-tls prometheus nodejs npm node-typescript
keepalived"
# make fuzz: clang and its libFuzzer and sanitizer runtimes.
FUZZ_PKGS="clang libclang-rt-14-dev"

case "$1" in
"") PKGS=$BUILD_PKGS ;;
--test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
--fuzz) PKGS="$BUILD_PKGS $TEST_PKGS $FUZZ_PKGS" ;;
-h|--help)
    sed -n '2,15s/^# \{0,1\}//p' "$0"
    exit 0 ;;
*)
    echo "usage: contrib/setup.sh [--test|--fuzz]" >&2
    exit 64 ;;
esac

missing=""
for p in $PKGS; do
    # A node or npm that is already there stays (NodeSource's nodejs has npm
    # inside, and Debian's npm package conflicts with it).
    case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "setup: these Debian packages are missing:$missing" >&2
        echo "setup: run as root, or: sudo apt-get install$missing" >&2
        exit 1
    fi
    echo "setup: installing$missing"
    apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"
