#!/usr/bin/env bash
# Builds the HDF5 VOL connectors h5proxy runs under (docs/modes.md, "Real connectors"):
# Argobots, the Async VOL (hpc-io/vol-async), the Cache VOL (hpc-io/vol-cache) and the
# log-based VOL (DataLib-ECP/vol-log-based), against the thread-safe parallel HDF5 1.14.5
# of scripts/hdf5-1.14.sh ($HDF5_114_PREFIX), into $VOL_PREFIX (default
# /opt/h5proxy/vol-1.14.5). Each one is skipped when $VOL_PREFIX already holds its marker.
#
# Sources: a source tree given by path (ARGOBOTS_SRC, VOL_ASYNC_SRC, VOL_CACHE_SRC,
# VOL_LOG_SRC: a checkout, or any directory holding the repository's files; it is copied,
# never built in place), else the public repository at the pinned tag below, cloned where
# the machine has a network. None of them is in any of this project's package registries,
# so none is fetched by `make deps`: `make vol-connectors` runs this script, and tests that
# need a connector say so by name when it is absent.
#
# VOL_ASYNC_PATCH=FILE applies a local patch (patch -p1, from the top of the vol-async tree)
# before building it, for testing a fix of the connector in a prefix of its own
# (docs/modes.md, "A lost wake-up in the Async VOL"); the marker records the patch's
# checksum, so a prefix built with another patch, or none, is rebuilt. No patch ships here.
#
# Needs: mpicc and cmake (scripts/deps.sh), autoconf, automake, libtool and git (make
# vol-connectors installs them first; checked below when the script is run by itself).
set -euo pipefail

hdf5=${HDF5_114_PREFIX:-/opt/h5proxy/hdf5-1.14.5}
prefix=${VOL_PREFIX:-/opt/h5proxy/vol-1.14.5}
jobs=$(nproc 2>/dev/null || echo 2)

# The versions the issue's runs used (vol-async 1.8.1 over Argobots 1.2), and the Cache
# and log VOLs' releases that build against HDF5 1.14.
argobots_tag=${ARGOBOTS_TAG:-v1.2}
async_tag=${VOL_ASYNC_TAG:-v1.8.1}
cache_tag=${VOL_CACHE_TAG:-v1.2.1}
log_tag=${VOL_LOG_TAG:-logvol.1.4.0}

if ! grep -Eq '^ *Threadsafety: *yes' "$hdf5/lib/libhdf5.settings" 2>/dev/null; then
  echo "vol-connectors: $hdf5 is not a thread-safe HDF5 1.14 build (lib/libhdf5.settings); the Async VOL's threads need one: run HDF5_114_PREFIX=$hdf5 bash scripts/hdf5-1.14.sh first" >&2
  exit 1
fi

for tool in autoreconf automake libtoolize cmake mpicc; do
  command -v "$tool" >/dev/null ||
    { echo "vol-connectors: $tool not found: run make vol-connectors (it installs autoconf, automake, libtool and git), or install it" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$prefix/share/h5proxy-vol"

# source NAME VAR URL TAG: puts the source tree of NAME in $work/NAME, from $VAR's
# directory when set, else a shallow clone of URL at TAG.
source_tree() {
  local name=$1 var=$2 url=$3 tag=$4 dir=${!2:-}
  if [ -n "$dir" ]; then
    [ -d "$dir" ] || { echo "vol-connectors: $var=$dir is not a directory" >&2; exit 1; }
    cp -a "$dir/." "$work/$name"
    echo "vol-connectors: $name from $dir"
  else
    echo "vol-connectors: $name: cloning $url at $tag (or give its source tree as $var=DIR)"
    git clone -q --depth 1 --branch "$tag" "$url" "$work/$name" ||
      { echo "vol-connectors: cannot clone $url (no network?): give its source tree as $var=DIR" >&2; exit 1; }
  fi
}

# built NAME: the marker of a finished install of NAME (with the HDF5 it was built against).
built() { [ -f "$prefix/share/h5proxy-vol/$1" ] && grep -qx "hdf5=$hdf5" "$prefix/share/h5proxy-vol/$1"; }
mark() { echo "hdf5=$hdf5" >"$prefix/share/h5proxy-vol/$1"; }

# run LOG CMD...: runs a build step quietly, showing the log's tail when it fails.
run() {
  local log=$work/$1.log
  shift
  "$@" >>"$log" 2>&1 || { tail -40 "$log" >&2; echo "vol-connectors: failed: $*" >&2; exit 1; }
}

export PKG_CONFIG_PATH="$hdf5/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export HDF5_DIR=$hdf5 HDF5_ROOT=$hdf5 ABT_DIR=$prefix HDF5_VOL_DIR=$prefix
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_C_COMPILER=mpicc
  -DCMAKE_PREFIX_PATH="$hdf5;$prefix" -DHDF5_ROOT="$hdf5" -DHDF5_PREFER_PARALLEL=ON
  -DCMAKE_INSTALL_RPATH="$prefix/lib;$hdf5/lib" -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DBUILD_TESTING=OFF)

if built argobots; then echo "vol-connectors: argobots: reusing $prefix"; else
  source_tree argobots ARGOBOTS_SRC https://github.com/pmodels/argobots.git "$argobots_tag"
  cd "$work/argobots"
  [ -x configure ] || run argobots ./autogen.sh
  run argobots ./configure --prefix="$prefix" CC=mpicc
  run argobots make -j"$jobs"
  run argobots make install
  mark argobots
fi

# The vol-async marker's patch line: the checksum of VOL_ASYNC_PATCH, "none" without one.
async_patch=none
if [ -n "${VOL_ASYNC_PATCH:-}" ]; then
  [ -f "$VOL_ASYNC_PATCH" ] || { echo "vol-connectors: VOL_ASYNC_PATCH=$VOL_ASYNC_PATCH is not a file" >&2; exit 1; }
  async_patch=$(sha256sum "$VOL_ASYNC_PATCH" | cut -d' ' -f1)
fi
# A marker from before this option has no patch line: built unpatched.
async_marked() {
  local m=$prefix/share/h5proxy-vol/vol-async
  grep -qx "patch=$async_patch" "$m" || { [ "$async_patch" = none ] && ! grep -q '^patch=' "$m"; }
}
if built vol-async && async_marked; then echo "vol-connectors: vol-async: reusing $prefix"; else
  source_tree vol-async VOL_ASYNC_SRC https://github.com/hpc-io/vol-async.git "$async_tag"
  if [ "$async_patch" != none ]; then
    run vol-async patch -d "$work/vol-async" -p1 -i "$(realpath "$VOL_ASYNC_PATCH")"
    echo "vol-connectors: vol-async patched with $VOL_ASYNC_PATCH"
  fi
  # ENABLE_WRITE_MEMCPY: the connector copies a write's buffer, as h5proxy's async.write_memcpy=YES does.
  run vol-async cmake -S "$work/vol-async" -B "$work/vol-async/build" "${cmake_args[@]}" -DENABLE_WRITE_MEMCPY=ON
  run vol-async cmake --build "$work/vol-async/build" -j "$jobs"
  run vol-async cmake --install "$work/vol-async/build"
  mark vol-async
  echo "patch=$async_patch" >>"$prefix/share/h5proxy-vol/vol-async"
fi

# vol-cache 1.2.1 without NDEBUG: its my_malloc (utils/debug.c, which the connector's
# malloc macro calls) returns the pointer only inside #ifndef NDEBUG, so a Release build's
# -DNDEBUG makes every allocation return garbage and the connector crash in its init
# (H5VL_cache_ext_init, at HDF5's start; its own write_cache.exe too). -O2 alone keeps the
# optimisation; the marker's second line rebuilds a connector built with NDEBUG before.
if built vol-cache && grep -qx "ndebug=off" "$prefix/share/h5proxy-vol/vol-cache"; then echo "vol-connectors: vol-cache: reusing $prefix"; else
  source_tree vol-cache VOL_CACHE_SRC https://github.com/hpc-io/vol-cache.git "$cache_tag"
  run vol-cache cmake -S "$work/vol-cache" -B "$work/vol-cache/build" "${cmake_args[@]}" -DCMAKE_C_FLAGS_RELEASE=-O2 -DCMAKE_CXX_FLAGS_RELEASE=-O2
  run vol-cache cmake --build "$work/vol-cache/build" -j "$jobs"
  run vol-cache cmake --install "$work/vol-cache/build"
  mark vol-cache
  echo "ndebug=off" >>"$prefix/share/h5proxy-vol/vol-cache"
fi

if built vol-log; then echo "vol-connectors: vol-log: reusing $prefix"; else
  source_tree vol-log VOL_LOG_SRC https://github.com/DataLib-ECP/vol-log-based.git "$log_tag"
  cd "$work/vol-log"
  [ -x configure ] || run vol-log autoreconf -i
  run vol-log ./configure --prefix="$prefix" --with-hdf5="$hdf5" --enable-shared --disable-static CC=mpicc CXX=mpicxx \
    LDFLAGS="-Wl,-rpath,$hdf5/lib"
  # The connector library only: the examples' Makefile downloads HDF5's examples with wget.
  run vol-log make -C src -j"$jobs"
  run vol-log make -C src install
  mark vol-log
fi

echo "vol-connectors: installed into $prefix/lib: $(cd "$prefix/lib" && ls libabt.so libh5async.so libcache_new_h5api.so libH5VL_log.so libh5cache_vol.so 2>/dev/null | tr '\n' ' ')"
echo "vol-connectors: HDF5_PLUGIN_PATH=$prefix/lib  HDF5_VOL_CONNECTOR=\"async under_vol=0;under_info={}\""
