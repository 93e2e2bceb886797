#!/bin/sh
# shadowbind quick start: install what is missing (Debian 12, as root),
# build, and run the main job on a shipped example.
#   sh bootstrap.sh            install, build, allocate examples/binpack-worst-case.trace
#   sh bootstrap.sh --deps     only install what is missing
set -eu
cd "$(dirname "$0")"
need=""
# One Debian package per line, alphabetical.
PACKAGES="
g++
gcc
gnuplot-nox
help2man
libc6-dev
libcairo2-dev
libcmocka-dev
libfontconfig-dev
libglpk-dev
libgmp-dev
libhwloc-dev
libjansson-dev
libopenmpi-dev
libzstd-dev
make
openmpi-bin
pkgconf
"
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
	echo "bootstrap: installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0
echo "bootstrap: building"
make -s -j"$(nproc)" all
echo
echo "\$ bin/allocate --cpus 2 examples/binpack-worst-case.trace"
bin/allocate --cpus 2 examples/binpack-worst-case.trace
