#!/usr/bin/env bash
# Installs the system stack h5proxy builds against (Debian 12): parallel HDF5 1.10
# (OpenMPI flavour), OpenMPI, gfortran, CMake, pkg-config and the HDF5 command-line tools;
# clang, which scripts/cmake-plain.sh builds the C sources with beside gcc; g++, for
# mpicxx and bench/ref/input_streams.cpp (C++ programs' own input reads).
# Idempotent: packages already present are not reinstalled and apt is not refreshed.
# With arguments it installs those packages instead (scripts/deps-corpus.sh; make
# deps-browser: chromium, for the report pages' rendering test), naming itself by
# DEPS_NAME in its messages.
set -euo pipefail

pkgs=(libhdf5-openmpi-dev openmpi-bin libopenmpi-dev gfortran cmake pkg-config hdf5-tools clang g++)
[ $# -gt 0 ] && pkgs=("$@")
name=${DEPS_NAME:-deps}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$name: all present (${pkgs[*]})"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "$name: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "$name: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt (a concurrent install) rather than fail on its lock.
apt=(apt-get -o DPkg::Lock::Timeout=900)
$sudo "${apt[@]}" update -qq
$sudo "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
