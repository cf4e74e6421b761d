#!/bin/sh
# setup.sh: installs the Debian packages mcds needs (when some are missing;
# needs root for that), then configures and builds the whole tree.
#
#   contrib/setup.sh          what building and running needs (compiler,
#                             autotools, libevent, libmemcached)
#   contrib/setup.sh --test   that, and what the test suite uses (tcl,
#                             memcached, libmemcached-tools, valgrind,
#                             python3-pymemcache, nutcracker)
#
# Used by the README's two commands and by .ci/run.
set -e
cd "$(dirname "$0")/.."

BUILD_PKGS="build-essential autoconf automake libtool pkg-config libevent-dev
libmemcached-dev"
TEST_PKGS="tcl libmemcached-tools memcached valgrind python3-pymemcache
nutcracker"

case "$1" in
"") PKGS=$BUILD_PKGS ;;
--test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
-h|--help)
    sed -n '2,11s/^# \{0,1\}//p' "$0"
    exit 0 ;;
*)
    echo "usage: contrib/setup.sh [--test]" >&2
    exit 64 ;;
esac

missing=""
for p in $PKGS; do
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
