#!/usr/bin/env bash
# Builds the real openPMD-api 8a write benchmark (h5bench's h5bench_openpmd_write:
# examples/8a_benchmark_write_parallel.cpp) with MPI and the system's parallel HDF5
# 1.10.8, into $OPENPMD_PREFIX (default /opt/h5proxy/openpmd), so that h5proxy's openpmd
# built-in can be compared with the program under Darshan (docs/fidelity-notes.md, the
# openPMD bullets). Opt-in: `make openpmd` runs it; neither `make deps` nor CI does, and
# nothing of openPMD-api enters this repository.
#
# Source: a source tree given by path (OPENPMD_SRC: a checkout, or any directory holding
# the repository's files), else $OPENPMD_PREFIX/src when a previous run left one, else the
# public repository at the commit h5bench pins as its openpmd submodule (0.15.1), cloned
# into $OPENPMD_PREFIX/src where the machine has a network. The tree must be 0.15.1
# (its CMakeLists.txt's project version). 0.15.1 ships nlohmann-json and toml11 in
# share/openPMD/thirdParty, so the build downloads nothing. No ADIOS, no Python, no tests,
# no command-line tools; of the examples only 8a.
#
# The build directory ($OPENPMD_PREFIX/build) is kept: the library is about 50 C++ files,
# an hour at -j2 on a loaded 2-core machine, and a run that is stopped resumes where it
# stopped. The program stays linked to the build's library (its build-tree run path), and
# is copied to $OPENPMD_PREFIX/bin/h5bench_openpmd_write (h5bench's name).
#
# Needs: g++ with Open MPI (mpicxx), cmake, libhdf5-openmpi-dev (scripts/deps.sh), git for
# a clone. OPENPMD_JOBS sets the build's jobs (default: the cores).
set -euo pipefail

prefix=${OPENPMD_PREFIX:-/opt/h5proxy/openpmd}
jobs=${OPENPMD_JOBS:-$(nproc 2>/dev/null || echo 2)}
# h5bench's openpmd submodule (hpc-io/h5bench, `git ls-tree HEAD openpmd`): Release 0.15.1.
commit=${OPENPMD_COMMIT:-32cb87d1b0012493287204d7a8c78af9a1141710}
version=0.15.1
url=https://github.com/openPMD/openPMD-api.git
build=$prefix/build
exe=$prefix/bin/h5bench_openpmd_write
stamp=$prefix/share/h5proxy-openpmd

if [ -x "$exe" ] && [ "$(cat "$stamp" 2>/dev/null)" = "version=$version" ]; then
  echo "openpmd: reusing $exe"
  exit 0
fi

is_tree() { [ -f "$1/examples/8a_benchmark_write_parallel.cpp" ] && [ -f "$1/CMakeLists.txt" ]; }

# The source the build directory was configured from, when it holds a configured build.
src=""
if [ -f "$build/CMakeCache.txt" ]; then
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  is_tree "$src" || src=""
fi
if [ -n "${OPENPMD_SRC:-}" ]; then
  is_tree "$OPENPMD_SRC" ||
    { echo "openpmd: OPENPMD_SRC=$OPENPMD_SRC holds no examples/8a_benchmark_write_parallel.cpp (not an openPMD-api tree)" >&2; exit 1; }
  if [ -n "$src" ] && [ "$(cd "$OPENPMD_SRC" && pwd -P)" != "$(cd "$src" && pwd -P)" ]; then
    echo "openpmd: $build was configured from $src, not OPENPMD_SRC=$OPENPMD_SRC: remove $build to start again" >&2
    exit 1
  fi
  src=$OPENPMD_SRC
elif [ -z "$src" ]; then
  src=$prefix/src
  if ! is_tree "$src"; then
    echo "openpmd: cloning $url at $commit into $src (or give its source tree as OPENPMD_SRC=DIR)"
    rm -rf "$src"
    mkdir -p "$prefix"
    { git clone -q "$url" "$src" && git -C "$src" checkout -q "$commit"; } ||
      { echo "openpmd: cannot clone $url (no network?): give its source tree as OPENPMD_SRC=DIR" >&2; exit 1; }
  fi
fi
got=$(sed -n 's/^project(openPMD VERSION \([0-9.]*\)).*/\1/p' "$src/CMakeLists.txt")
[ "$got" = "$version" ] ||
  { echo "openpmd: $src is openPMD-api ${got:-of no version}, h5bench pins $version ($commit)" >&2; exit 1; }
echo "openpmd: openPMD-api $version from $src, building in $build"

mkdir -p "$build"
log=$build/h5proxy-build.log
run() { "$@" >>"$log" 2>&1 || { tail -40 "$log" >&2; echo "openpmd: failed: $* (log: $log)" >&2; exit 1; }; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  run cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DHDF5_PREFER_PARALLEL=ON \
    -DopenPMD_USE_MPI=ON -DopenPMD_USE_HDF5=ON -DopenPMD_USE_ADIOS2=OFF -DopenPMD_USE_ADIOS1=OFF -DopenPMD_USE_PYTHON=OFF \
    -DopenPMD_USE_INTERNAL_JSON=ON -DopenPMD_USE_INTERNAL_TOML11=ON \
    -DopenPMD_BUILD_TESTING=OFF -DopenPMD_BUILD_CLI_TOOLS=OFF -DopenPMD_BUILD_EXAMPLES=ON
  grep -q 'HDF5: ON' "$log" && grep -q 'MPI: ON' "$log" ||
    { tail -40 "$log" >&2; rm -f "$build/CMakeCache.txt"; echo "openpmd: cmake found no parallel HDF5 or no MPI (libhdf5-openmpi-dev, mpicxx)" >&2; exit 1; }
fi
run cmake --build "$build" -j "$jobs" --target 8a_benchmark_write_parallel
install -D -m 755 "$build/bin/8a_benchmark_write_parallel" "$exe"
mkdir -p "$(dirname "$stamp")"
echo "version=$version" >"$stamp"
echo "openpmd: installed $exe (h5bench's name); run it as h5bench does: mpirun -np N $exe DIR/openpmd.input"
