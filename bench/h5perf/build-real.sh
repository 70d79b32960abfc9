#!/bin/sh
# build-real.sh [DIR] builds HDF5 1.10.8's parallel h5perf (the program `h5proxy h5perf`
# mimics) from Debian's source tarball into DIR (default /tmp/h5perf-real): DIR/h5perf.
# Nothing it downloads or builds belongs in the repository.
#
# h5perf in standalone mode is pio_perf.c + pio_engine.c (tools/src/h5perf), the timers of
# tools/lib/io_timer.c and the helpers of tools/test/perform/pio_standalone.c, compiled
# with -DSTANDALONE against the installed parallel HDF5 (h5pcc.openmpi, or mpicc with
# pkg-config hdf5-openmpi). io_timer.c includes the library's private H5private.h, which
# is not installed: a small H5private.h in DIR/shim stands in with pio_standalone.h (and
# the one attribute macro io_timer.c uses that pio_standalone.h lacks).
set -eu
dir=${1:-/tmp/h5perf-real}
url=http://deb.debian.org/debian/pool/main/h/hdf5/hdf5_1.10.8+repack1.orig.tar.gz
top=hdf5-1.10.8+repack1
mkdir -p "$dir"
cd "$dir"
tarball=$(basename "$url")
[ -s "$tarball" ] || curl -sSfL -o "$tarball" "$url"
tar xzf "$tarball" "$top/tools/src/h5perf" "$top/tools/lib/io_timer.c" "$top/tools/lib/io_timer.h" \
	"$top/tools/test/perform/pio_standalone.c" "$top/tools/test/perform/pio_standalone.h"
mkdir -p shim
printf '#include "pio_standalone.h"\n#ifndef H5_ATTR_PURE\n#define H5_ATTR_PURE\n#endif\n' >shim/H5private.h
if command -v h5pcc.openmpi >/dev/null 2>&1; then
	cc="h5pcc.openmpi" flags=""
else
	cc="mpicc" flags=$(pkg-config --cflags --libs hdf5-openmpi)
fi
# shellcheck disable=SC2086 # flags is a word list
$cc -O2 -DSTANDALONE -Ishim -I"$top/tools/src/h5perf" -I"$top/tools/lib" -I"$top/tools/test/perform" \
	"$top/tools/src/h5perf/pio_perf.c" "$top/tools/src/h5perf/pio_engine.c" \
	"$top/tools/lib/io_timer.c" "$top/tools/test/perform/pio_standalone.c" \
	-o h5perf $flags -lm
rm -f pio_perf.o pio_engine.o io_timer.o pio_standalone.o
echo "$dir/h5perf"
