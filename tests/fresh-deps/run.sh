#!/usr/bin/env bash
# Checks that `make build` works on a machine where `make deps` has still to install
# hdf5-openmpi.pc (issue 10, item 1), without touching the system: pkg-config searches
# only a private directory that lacks hdf5-openmpi.pc (PKG_CONFIG_LIBDIR replaces its
# default path), dpkg-query reports libhdf5-openmpi-dev missing, and the "apt-get" that
# scripts/deps.sh then runs puts the .pc file into that directory. A Makefile that reads
# pkg-config when make parses it gets empty cgo flags and fails with "hdf5.h: No such file".
#   tests/fresh-deps/run.sh [make target]     (default: build; from the repository root)
set -euo pipefail
target=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pc" "$tmp/bin"
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
  [ -d "$d" ] || continue
  for f in "$d"/*.pc; do
    [ -e "$f" ] || continue
    [ "$(basename "$f")" = hdf5-openmpi.pc ] && continue
    [ -e "$tmp/pc/$(basename "$f")" ] || ln -s "$f" "$tmp/pc/"
  done
done
real_pc=$(pkg-config --variable pcfiledir hdf5-openmpi)/hdf5-openmpi.pc
[ -f "$real_pc" ] || { echo "fresh-deps: hdf5-openmpi.pc is not installed on this machine" >&2; exit 1; }
cat >"$tmp/bin/dpkg-query" <<SH
#!/bin/sh
# Every package but libhdf5-openmpi-dev is installed.
for a; do pkg=\$a; done
[ "\$pkg" = libhdf5-openmpi-dev ] && exit 1
printf 'install ok installed'
SH
cat >"$tmp/bin/apt-get" <<SH
#!/bin/sh
echo "fake apt-get \$*"
case "\$*" in *install*libhdf5-openmpi-dev*) ln -sf "$real_pc" "$tmp/pc/hdf5-openmpi.pc" ;; esac
SH
cat >"$tmp/bin/sudo" <<'SH'
#!/bin/sh
exec "$@"
SH
chmod +x "$tmp/bin/"*
export PKG_CONFIG_LIBDIR="$tmp/pc"
unset PKG_CONFIG_PATH
if pkg-config --exists hdf5-openmpi; then
  echo "fresh-deps: set-up failed, hdf5-openmpi.pc is still visible" >&2; exit 1
fi
cd "$root"
PATH="$tmp/bin:$PATH" make --no-print-directory "$target" >"$tmp/log" 2>&1 || {
  cat "$tmp/log"; echo "fresh-deps: make $target failed with hdf5-openmpi.pc installed by make deps" >&2; exit 1; }
grep -q "deps: installing libhdf5-openmpi-dev" "$tmp/log" || {
  cat "$tmp/log"; echo "fresh-deps: make deps did not install the missing package" >&2; exit 1; }
echo "fresh-deps: make $target passed with hdf5-openmpi.pc installed by its own deps step"
