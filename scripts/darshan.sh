#!/bin/bash
# Builds Darshan 3.5.0 (runtime with its HDF5 module, and darshan-util: darshan-parser,
# darshan-dxt-parser, darshan-convert) into $DARSHAN (default /opt/h5proxy/darshan), for
# internal/darshan's tests against the real parser and scripts/darshan-fixtures.sh.
# Optional: h5proxy reads and writes Darshan logs without it. Needs git, autotools,
# libtool, zlib and bzip2 headers, mpicc and parallel HDF5 (scripts/deps.sh).
set -euo pipefail
DARSHAN=${DARSHAN:-/opt/h5proxy/darshan}
VERSION=${DARSHAN_VERSION:-3.5.0}
if [ -x "$DARSHAN/bin/darshan-parser" ]; then echo "darshan: $DARSHAN has it"; exit 0; fi
apt-get -o DPkg::Lock::Timeout=900 install -y autoconf automake libtool zlib1g-dev libbz2-dev >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
git clone -q --depth 1 --branch "$VERSION" https://github.com/darshan-hpc/darshan.git "$W/src"
# Darshan's configure finds HDF5 by its h5dump under --with-hdf5: Debian splits the
# parallel HDF5 over /usr/bin, /usr/include/hdf5/openmpi and its lib directory.
mkdir -p "$W/hdf5/bin"
ln -s "$(command -v h5dump)" "$W/hdf5/bin/h5dump"
ln -s /usr/include/hdf5/openmpi "$W/hdf5/include"
ln -s /usr/lib/x86_64-linux-gnu/hdf5/openmpi "$W/hdf5/lib"
cd "$W/src" && ./prepare.sh >/dev/null
mkdir build && cd build
../configure -q --prefix="$DARSHAN" --with-log-path-by-env=DARSHAN_LOGPATH --with-jobid-env=NONE \
    --enable-hdf5-mod --with-hdf5="$W/hdf5" CC=mpicc
make -s -j"$(nproc)" && make -s install
echo "darshan: installed $VERSION in $DARSHAN"
