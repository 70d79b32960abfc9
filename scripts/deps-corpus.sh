#!/usr/bin/env bash
# Installs the libraries real codes write HDF5 through, for the corpus of real writers
# (tests/corpus, issue 33): parallel netCDF-4 (libnetcdf-mpi-dev, with netcdf-bin for
# ncdump), h5py with MPI (python3-h5py-mpi, python3-mpi4py) and PETSc's HDF5 viewer
# (libpetsc-real-dev). On Debian 12 each links the OpenMPI flavour of HDF5 1.10
# (libhdf5-openmpi-103-1) that scripts/deps.sh installs, so a corpus program loads one
# HDF5 per process. PETSc is the large one (it pulls a compiler toolchain's worth of
# solvers): the five took 4 min 19 s to install on a fresh Debian 12 (apt-get update
# included; 2 cores shared with seven other builds, 2026-11-29); PETSc brings most of the
# 70-odd packages (solvers, BLAS, MPI Fortran bindings).
# h5py: Debian's h5py module loads its MPI build only under a launcher (OMPI_COMM_WORLD_SIZE)
# or with H5PY_ALWAYS_USE_MPI set, which tests/corpus sets.
# Installed by scripts/deps.sh (idempotent, apt waiting for another apt's lock).
set -euo pipefail
DEPS_NAME=deps-corpus exec bash "$(dirname "$0")/deps.sh" \
  libnetcdf-mpi-dev netcdf-bin python3-h5py-mpi python3-mpi4py libpetsc-real-dev
