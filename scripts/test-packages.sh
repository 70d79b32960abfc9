#!/usr/bin/env bash
# Prints the packages `make test` runs `go test` on for one HDF5 build (scripts/test-packages.sh
# 1.10|1.14, from the repository root, in the build's `make env`).
# The default build (1.10) tests every package. The 1.14 suite leaves out the packages
# whose tests neither link HDF5 nor run an HDF5 program: their test binaries are the same
# Go code whichever HDF5 the build has (no cgo package among their dependencies, tests
# included), so the default suite's run already tested them. HDF5_FREE names them; a
# package that runs an HDF5 program (tests/corpus runs bin/h5proxy and the real writers)
# stays out of the list even though it links no HDF5. The list is checked here: if one of
# its packages, or any dependency of its tests, gains a cgo source, this script fails
# naming it, so that the 1.14 suite cannot silently skip what now depends on the build.
set -euo pipefail

HDF5_FREE=(
  ./patterns/... ./options ./emulate ./plan ./samples/apps
  ./internal/report     # report pages rendered by chromium: Go and the browser only
  ./internal/darshan    # Darshan logs written and read in Go; darshan-parser when installed
  ./internal/mpitest    # launches the test binary under mpirun: the same OpenMPI for both builds
  ./internal/sweep ./internal/benchstat ./internal/launch ./bench/ior
)

case "${1:-}" in
1.10) echo "./..."; exit 0 ;;
1.14) ;;
*) echo "usage: $0 1.10|1.14" >&2; exit 2 ;;
esac

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
