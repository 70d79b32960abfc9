#!/usr/bin/env bash
# Builds the real openPMD-api 8a write benchmark (h5bench's h5bench_openpmd_write:
# examples/8a_benchmark_write_parallel.cpp) with MPI and the system's parallel HDF5
# 1.10.8, into $OPENPMD_PREFIX (default /opt/h5proxy/openpmd), so that h5proxy's openpmd
# built-in can be compared with the program under Darshan (docs/fidelity-notes.md, the
# openPMD bullets). Opt-in: `make openpmd` runs it; neither `make deps` nor CI does, and
# nothing of openPMD-api enters this repository.
#
# Source: a source tree given by path (OPENPMD_SRC: a checkout, or any directory holding
# the repository's files; it is copied, never built in place), else the public repository
# at the commit h5bench pins as its openpmd submodule (0.15.1), cloned where the machine
# has a network. 0.15.1 ships nlohmann-json and toml11 in share/openPMD/thirdParty, so the
# build downloads nothing. No ADIOS, no Python, no tests; of the examples only 8a.
#
# Needs: mpicxx (g++), cmake, libhdf5-openmpi-dev (scripts/deps.sh), git for a clone.
# About 50 C++ files: tens of minutes at -j2; OPENPMD_JOBS sets the jobs.
set -euo pipefail

prefix=${OPENPMD_PREFIX:-/opt/h5proxy/openpmd}
jobs=${OPENPMD_JOBS:-$(nproc 2>/dev/null || echo 2)}
# h5bench's openpmd submodule (hpc-io/h5bench, `git ls-tree HEAD openpmd`): Release 0.15.1.
commit=${OPENPMD_COMMIT:-32cb87d1b0012493287204d7a8c78af9a1141710}
url=https://github.com/openPMD/openPMD-api.git
exe=$prefix/bin/h5bench_openpmd_write

if [ -x "$exe" ] && [ "$(cat "$prefix/share/h5proxy-openpmd" 2>/dev/null)" = "commit=$commit" ]; then
  echo "openpmd: reusing $exe"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${OPENPMD_SRC:-}" ]; then
  [ -f "$OPENPMD_SRC/examples/8a_benchmark_write_parallel.cpp" ] ||
    { echo "openpmd: OPENPMD_SRC=$OPENPMD_SRC holds no examples/8a_benchmark_write_parallel.cpp (not an openPMD-api tree)" >&2; exit 1; }
  cp -a "$OPENPMD_SRC/." "$work/src"
  echo "openpmd: source from $OPENPMD_SRC"
else
  echo "openpmd: cloning $url at $commit (or give its source tree as OPENPMD_SRC=DIR)"
  { git clone -q "$url" "$work/src" && git -C "$work/src" checkout -q "$commit"; } ||
    { echo "openpmd: cannot clone $url (no network?): give its source tree as OPENPMD_SRC=DIR" >&2; exit 1; }
fi

log=$work/build.log
run() { "$@" >>"$log" 2>&1 || { tail -40 "$log" >&2; echo "openpmd: failed: $*" >&2; exit 1; }; }

run cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_RPATH="$prefix/lib" -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DHDF5_PREFER_PARALLEL=ON \
  -DopenPMD_USE_MPI=ON -DopenPMD_USE_HDF5=ON -DopenPMD_USE_ADIOS2=OFF -DopenPMD_USE_ADIOS1=OFF -DopenPMD_USE_PYTHON=OFF \
  -DopenPMD_USE_INTERNAL_JSON=ON -DopenPMD_USE_INTERNAL_TOML11=ON \
  -DopenPMD_BUILD_TESTING=OFF -DopenPMD_BUILD_CLI_TOOLS=OFF -DopenPMD_BUILD_EXAMPLES=ON
grep -q 'HDF5: ON' "$log" && grep -q 'MPI: ON' "$log" ||
  { tail -40 "$log" >&2; echo "openpmd: cmake found no parallel HDF5 or no MPI (libhdf5-openmpi-dev, mpicxx)" >&2; exit 1; }
run cmake --build "$work/build" -j "$jobs" --target 8a_benchmark_write_parallel
run cmake --install "$work/build"
install -D -m 755 "$work/build/bin/8a_benchmark_write_parallel" "$exe"
mkdir -p "$prefix/share"
echo "commit=$commit" >"$prefix/share/h5proxy-openpmd"
echo "openpmd: installed $exe (h5bench's name); run it as h5bench does: mpirun -np N $exe DIR/openpmd.input"
