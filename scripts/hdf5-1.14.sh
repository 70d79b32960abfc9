#!/usr/bin/env bash
# Builds parallel HDF5 1.14.5 with the subfiling VFD (HDF5=1.14 builds use it), thread-safe
# (--enable-threadsafe --enable-unsupported: the Async VOL's Argobots threads call HDF5
# while the application does, and vol-async refuses a library without the global lock),
# from Debian trixie's source package, into $HDF5_114_PREFIX (default
# /opt/h5proxy/hdf5-1.14.5). A prefix that already holds a thread-safe build is reused; one
# built before thread safety was asked (its lib/libhdf5.settings says "Threadsafety: no")
# is rebuilt in place, once (about 4 minutes on 2 cores).
# --enable-unsupported is what lets --enable-threadsafe stand beside --enable-parallel's
# high-level library (hl stays built: its calls are not thread-safe, h5proxy does not use
# them, and the connectors' builds look for libhdf5_hl). The system's apt state is untouched:
# the source list, package lists and cache are private to a temporary directory.
# An autotools install has no .pc file, so the script writes $prefix/lib/pkgconfig/
# hdf5-openmpi.pc (and hdf5.pc, upstream's name): with that directory first in
# PKG_CONFIG_PATH, every `pkg-config hdf5-openmpi` of the build (cgo's `#cgo pkg-config`
# directives, the Makefile, CMake) names this HDF5 instead of the system's 1.10.8, and its
# Libs carry an rpath so programs load this libhdf5 and no other.
# Needs: mpicc (scripts/deps.sh), make, and network access to Debian's archive.
set -euo pipefail

prefix=${HDF5_114_PREFIX:-/opt/h5proxy/hdf5-1.14.5}

# write_pc writes the prefix's pkg-config files (also into a reused prefix that lacks them).
write_pc() {
  local version
  version=$(sed -n 's/^ *HDF5 Version: *//p' "$prefix/lib/libhdf5.settings")
  mkdir -p "$prefix/lib/pkgconfig"
  for name in hdf5-openmpi hdf5; do
    cat >"$prefix/lib/pkgconfig/$name.pc.tmp" <<PC
# Written by h5proxy's scripts/hdf5-1.14.sh: the autotools install has no .pc file.
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: HDF5
Description: Hierarchical Data Format 5 (HDF5) $version, parallel (OpenMPI), thread-safe, with the subfiling VFD
Version: $version
Requires: ompi
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lhdf5
PC
    mv "$prefix/lib/pkgconfig/$name.pc.tmp" "$prefix/lib/pkgconfig/$name.pc"
  done
}

# threadsafe says whether the prefix's build settings (the marker HDF5 installs beside the
# library) record a thread-safe build.
threadsafe() {
  grep -Eq '^ *Threadsafety: *yes' "$prefix/lib/libhdf5.settings" 2>/dev/null
}

if [ -f "$prefix/lib/libhdf5.so" ] && [ -f "$prefix/include/H5FDsubfiling.h" ]; then
  if threadsafe; then
    [ -f "$prefix/lib/pkgconfig/hdf5-openmpi.pc" ] || write_pc
    echo "hdf5-1.14: reusing $prefix (thread-safe)"
    exit 0
  fi
  echo "hdf5-1.14: $prefix was built without thread safety ($prefix/lib/libhdf5.settings): rebuilding it thread-safe"
fi

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=$keyring] $mirror trixie main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=-"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")

echo "hdf5-1.14: fetching Debian trixie's hdf5 source package (private apt state in $work)"
apt-get "${apt_opts[@]}" -qq update
(cd "$work/src" && apt-get "${apt_opts[@]}" -qq source --download-only hdf5)
orig=$(ls "$work"/src/hdf5_1.14.*.orig.tar.* | head -1)
case "$orig" in *1.14.5*) ;; *) echo "hdf5-1.14: expected 1.14.5, found $orig" >&2; exit 1 ;; esac
tar -xf "$orig" -C "$work/src"
srcdir=$(find "$work/src" -maxdepth 1 -type d -name 'hdf5-*' | head -1)

echo "hdf5-1.14: configure + make -j$(nproc) (about 4 minutes on 2 cores) into $prefix"
cd "$srcdir"
./configure --prefix="$prefix" --enable-parallel --enable-subfiling-vfd \
  --enable-threadsafe --enable-unsupported \
  --enable-build-mode=production --disable-tests --disable-fortran --disable-cxx \
  --enable-shared --disable-static CC=mpicc >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log" >&2; exit 1; }
# Only the parts h5proxy, its tests and the connectors' builds use are built and installed
# (a whole `make` also builds every other tool and hl's h5watch): the library with its
# libhdf5.settings (src); h5pcc and h5cc (bin: CMake's FindHDF5 asks h5pcc for the flags
# when it builds a connector); the three tools the tests run from $prefix/bin, h5dump, h5diff
# (with ph5diff) and h5ls (tools/lib is their library); h5fuse (utils); and the high-level
# library (hl/src, which the connectors' builds look for).
parts=(src bin tools/lib tools/src/h5diff tools/src/h5ls tools/src/h5dump utils hl/src)
for part in "${parts[@]}"; do
  make -C "$part" -j"$(nproc)" >>"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
done
for part in "${parts[@]}"; do
  make -C "$part" install >>"$work/install.log" 2>&1 || { tail -30 "$work/install.log" >&2; exit 1; }
done
threadsafe || { echo "hdf5-1.14: $prefix/lib/libhdf5.settings does not say Threadsafety: yes after the build" >&2; exit 1; }
write_pc
echo "hdf5-1.14: installed HDF5 $(pkg-config --modversion "$prefix/lib/pkgconfig/hdf5-openmpi.pc") into $prefix"
