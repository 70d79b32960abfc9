#!/usr/bin/env bash
# Checks that programs and libraries load exactly one HDF5, the expected one: every libhdf5*
# that ldd resolves (libhdf5 and libhdf5_hl, directly or through libh5proxy.so) lies in the
# expected library's directory, and exactly one HDF5 core library is loaded. Two HDF5s in
# one process (say 1.14 through libh5proxy.so and 1.10.8 through the program) would share
# no state and corrupt files or crash; their sonames differ (libhdf5.so.310,
# libhdf5_openmpi.so.103), so the dynamic linker would load both without complaint.
#   scripts/check-hdf5.sh EXPECTED_LIBHDF5 FILE...
# EXPECTED_LIBHDF5: the libhdf5.so the build linked (a symlink is resolved), e.g.
# /opt/h5proxy/hdf5-1.14.5/lib/libhdf5.so or /usr/lib/x86_64-linux-gnu/hdf5/openmpi/libhdf5.so.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 EXPECTED_LIBHDF5 FILE..." >&2; exit 2; }
want=$(realpath -e "$1") || { echo "check-hdf5: expected library $1 does not exist" >&2; exit 1; }
wantdir=$(dirname "$want")
shift
status=0
for f in "$@"; do
  [ -e "$f" ] || { echo "check-hdf5: $f: no such file" >&2; status=1; continue; }
  out=$(ldd "$f") || { echo "check-hdf5: ldd $f failed" >&2; status=1; continue; }
  if grep -q "not found" <<<"$out"; then
    echo "check-hdf5: $f: unresolved libraries:" >&2; grep "not found" <<<"$out" >&2; status=1; continue
  fi
  cores=()
  while read -r name _ path _; do
    real=$(realpath -e "$path")
    if [ "$(dirname "$real")" != "$wantdir" ]; then
      echo "check-hdf5: $f loads $name from $real, not from $wantdir (the build's HDF5)" >&2
      status=1
    fi
    case "$name" in *_hl*) ;; *) cores+=("$real") ;; esac
  done < <(grep -E '^\s*libhdf5[^ ]* => ' <<<"$out")
  if [ ${#cores[@]} -ne 1 ] || [ "${cores[0]}" != "$want" ]; then
    echo "check-hdf5: $f loads HDF5 core libraries (${cores[*]:-none}), want exactly $want" >&2
    status=1
  else
    echo "check-hdf5: $f: one HDF5, $want"
  fi
done
exit $status
