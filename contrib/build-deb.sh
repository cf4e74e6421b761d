#!/bin/sh
# build-deb.sh: builds the Debian packages mcds-server, libmcds0,
# libmcds-dev and python3-mcds from this tree's make dist tarball, then runs
# lintian on them.
#
#   contrib/build-deb.sh [OUTDIR]
#
# Installs the packaging tools and build dependencies that are missing
# (needs root for that), configures the tree if it is not, makes the
# tarball, unpacks it in a scratch directory and runs
# "dpkg-buildpackage -us -uc" there (the test suite runs as part of the
# build unless DEB_BUILD_OPTIONS contains nocheck). The source package,
# the .debs and lintian's report (lintian.txt) land in OUTDIR, by default
# build-deb/ in the tree. Install with: apt-get install ./build-deb/*.deb
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
cd "$top"

# Packaging tools, then the Build-Depends of debian/control.
missing=""
for p in dpkg-dev debhelper fakeroot lintian build-essential autoconf \
         automake libtool pkg-config libevent-dev libmemcached-dev libssl-dev \
         procps tcl; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "build-deb: missing Debian packages:$missing" >&2
        echo "build-deb: run as root, or: sudo apt-get install$missing" >&2
        exit 1
    fi
    echo "build-deb: installing$missing"
    apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
make dist >/dev/null

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mcds-deb.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tar -xzf "mcds-$version.tar.gz" -C "$scratch"
(cd "$scratch/mcds-$version" && dpkg-buildpackage -us -uc)

mkdir -p "$out"
for f in "$scratch"/*; do
    [ -f "$f" ] && cp "$f" "$out/"
done
set -- "$out"/mcds_"$version"_*.changes
changes=$1
# lintian's exit status says whether it found errors; the report is kept.
lintian --info --display-info "$changes" >"$out/lintian.txt" 2>&1 || true
echo "build-deb: packages in $out:"
ls "$out"
echo "build-deb: lintian ($out/lintian.txt):"
cat "$out/lintian.txt"
