#!/usr/bin/env bash
# Installs the system stack h5proxy builds against (Debian 12): parallel HDF5 1.10
# (OpenMPI flavour), OpenMPI, gfortran, CMake, pkg-config and the HDF5 command-line tools;
# clang, which scripts/cmake-plain.sh builds the C sources with beside gcc.
# Idempotent: packages already present are not reinstalled and apt is not refreshed.
set -euo pipefail

pkgs=(libhdf5-openmpi-dev openmpi-bin libopenmpi-dev gfortran cmake pkg-config hdf5-tools clang)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all present (${pkgs[*]})"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
