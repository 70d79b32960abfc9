#!/usr/bin/env bash
# Prints the packages `make test` runs `go test` on for one HDF5 build (scripts/test-packages.sh
# 1.10|1.14 [RACE PACKAGES...], from the repository root, in the build's `make env`).
# The default build (1.10) tests every package. The 1.14 suite leaves out the packages
# whose tests neither link HDF5 nor run an HDF5 program: their test binaries are the same
# Go code whichever HDF5 the build has (no cgo package among their dependencies, tests
# included), so the default suite's run already tested them. HDF5_FREE names them; a
# package that runs an HDF5 program (tests/corpus runs bin/h5proxy and the real writers)
# stays out of the list even though it links no HDF5. The list is checked here: if one of
# its packages, or any dependency of its tests, gains a cgo source, this script fails
# naming it, so that the 1.14 suite cannot silently skip what now depends on the build.
#
# Packages named after the build (`scripts/test-packages.sh 1.10 ./h5bench ...`: make test
# passes its TEST_RACE) are left out of either list: the suite's race run has just run all
# of their tests, the same tests with the race detector on top (-race -count=1, no test of
# the module reads the race build tag), so running them again without it checks nothing
# new. In the default suite that is 21 packages (./patterns/..., ./options, ./emulate,
# ./h5bench, ./proxy/layout/log, ./proxy/e3smmap), whose Go step run (compiling and linking
# their test binaries, then the tests) took 34 s wall and 46 s of CPU; in the 1.14 suite 3
# (./h5bench, ./proxy/layout/log, ./proxy/e3smmap), 11 s and 12 s (`go test -count=1 -vet=off
# PACKAGES` in a new clone after `go list -export PACKAGES`, as in CI, in each build's `make
# env`; 2026-11-30, load 3-5).
set -euo pipefail

HDF5_FREE=(
  ./patterns/... ./options ./emulate ./plan ./samples/apps
  ./internal/report     # report pages rendered by chromium: Go and the browser only
  ./internal/darshan    # Darshan logs written and read in Go; darshan-parser when installed
  ./internal/mpitest    # launches the test binary under mpirun: the same OpenMPI for both builds
  ./internal/sweep ./internal/benchstat ./internal/launch ./bench/ior
  ./internal/h5diff     # reads h5diff's report text
  ./internal/testtime   # reads go test -json; its test runs go test on a module of its own
)

# SAME_ON_BOTH names the tests the 1.14 suite skips although their package links HDF5:
# what they check is Go logic whose result cannot depend on the HDF5 build (plans, parsing,
# CLI errors, generated text), so the default suite's run is the check. One line each:
# package, test, why. `scripts/test-packages.sh skip 1.14` prints go test's -skip pattern
# (nothing for 1.10) and fails if a listed test is no longer defined in its package, or if
# a test of the same name is defined in another package (-skip applies to every package,
# so it would be skipped there too). docs/hdf5.md, "What each suite runs", has the rules.
SAME_ON_BOTH=(
  "./cmd/h5proxy TestPairPlansInOrder       h5proxy plan listings compared, no I/O"
  "./cmd/h5proxy TestE3SMFPlan              h5proxy plan listings compared; its one HDF5 read (the E3SM map) is made by the 1.14 suite's E3SM runs"
  "./cmd/h5proxy TestPlanAtScale            h5proxy plan of one rank of 65536 and 16384 for every pattern (E3SM maps synthesized), no I/O"
  "./cmd/h5proxy TestSchemaDocIsCurrent     h5proxy schema against docs/h5bench-config.schema.json: the option tables"
  "./cmd/h5proxy TestSchemaAppEntries       h5proxy schema of descriptions: the option tables and the description parser"
  "./cmd/h5proxy TestStudiesCommands        docs/studies.md's sweep -n grids (nothing run) and replot keys"
  "./cmd/h5proxy TestSweep                  h5proxy sweep's grid order, CSV, kept reports and logs, removed data and plots: Go around h5proxy run, whose sync and ASYNC runs TestRunModes makes on both builds (15 s of the 1.14 suite: 18 one-rank runs, load 6)"
  "./tests/corpus TestFold100k             the fold of a 10^5-call trace is Go code (capture -from) and its checks the description's; TestCorpus traces, captures and replays every corpus program on both builds"
  "./capi TestHeaderMatchesGenerated        cgo's header of the exported Go functions against include/h5proxy.h: no HDF5 type crosses the C ABI (cmd/cgo -exportheader on ./capi)"
)

# packages114 prints the 1.14 suite's packages (./path), after checking HDF5_FREE.
packages114() {
  local module cgo free
  module=$(go list -m)
  # Every cgo package the listed packages' tests build, the standard library's own aside
  # (runtime/cgo, net, os/user: the same for both builds).
  cgo=$(go list -deps -test -f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' "${HDF5_FREE[@]}" |
    grep -v -x -e runtime/cgo -e net -e os/user -e plugin || true)
  if [ -n "$cgo" ]; then
    echo "test-packages: scripts/test-packages.sh lists as HDF5-free packages whose tests build cgo packages:" >&2
    echo "$cgo" >&2
    echo "test-packages: take the package that depends on them out of HDF5_FREE" >&2
    exit 1
  fi
  free=$(go list "${HDF5_FREE[@]}")
  go list ./... | grep -v -x -F -f <(echo "$free") | sed "s|^$module|.|"
}

# skip prints the 1.14 suite's -skip pattern: each SAME_ON_BOTH test must be defined in its
# package, and in no other package the 1.14 suite runs (-skip would skip it there too).
skip() {
  local names=() line pkg test where d suite
  suite=$(packages114)
  for line in "${SAME_ON_BOTH[@]}"; do
    read -r pkg test _ <<<"$line"
    where=$(grep -l -E "^func $test\(t \*testing\.T\)" $(git ls-files '*_test.go') | xargs -r -n1 dirname | sort -u || true)
    if ! grep -q -x -F "${pkg#./}" <<<"$where"; then
      echo "test-packages: SAME_ON_BOTH lists $test in $pkg, but it is defined in: ${where:-no package}" >&2
      exit 1
    fi
    for d in $where; do
      if [ "$d" != "${pkg#./}" ] && grep -q -x -F "./$d" <<<"$suite"; then
        echo "test-packages: SAME_ON_BOTH lists $test in $pkg, but ./$d, which the 1.14 suite runs, has a test of that name too" >&2
        exit 1
      fi
    done
    names+=("$test")
  done
  local IFS='|'
  echo "^(${names[*]})\$"
}

# without_race LIST RACE...: the ./path packages of LIST (newline-separated) less those the
# race run's patterns RACE match.
without_race() {
  local list=$1 module
  shift
  if [ $# -eq 0 ]; then
    echo "$list"
    return
  fi
  module=$(go list -m)
  grep -v -x -F -f <(go list "$@" | sed "s|^$module|.|") <<<"$list"
}

case "${1:-}" in
1.10)
  shift
  if [ $# -eq 0 ]; then
    echo "./..."
  else
    # Assigned first: set -e ends the script on a failing substitution only in an assignment.
    list=$(go list ./...)
    without_race "${list//$(go list -m)/.}" "$@"
  fi ;;
1.14)
  shift
  list=$(packages114)
  without_race "$list" "$@" ;;
skip)
  case "${2:-}" in
  1.10) ;;
  1.14) skip ;;
  *) echo "usage: $0 skip 1.10|1.14" >&2; exit 2 ;;
  esac ;;
*) echo "usage: $0 1.10|1.14 [RACE PACKAGES...] | skip 1.10|1.14" >&2; exit 2 ;;
esac
