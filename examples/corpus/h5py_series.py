# h5py_series: a Python simulation's diagnostics written through h5py with MPI.
#
# Read (facts, not code): h5py's documentation of parallel HDF5 (docs/mpi.rst:
# h5py.File(name, 'w', driver='mpio', comm=MPI.COMM_WORLD), every rank takes part in
# creating and resizing datasets, `with dset.collective:` for collective transfers) and
# LUMI's reframe check checks/io/src/h5_large_file_mpi.py (a chunked dataset each rank
# writes a row of). Shape: a resizable 2-D dataset `energy` (unlimited rows, one column
# block per rank, chunked one row) grown by one row per step with Dataset.resize and
# written collectively, a fixed `x` written once, file attributes; 4 steps.
# Writes series.h5 in the working directory.
from mpi4py import MPI
import h5py
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n, steps = 32, 4
with h5py.File("series.h5", "w", driver="mpio", comm=comm) as f:
    f.attrs["code"] = np.bytes_("corpus-h5py")
    f.attrs["dt"] = 0.25
    x = f.create_dataset("x", shape=(n * size,), dtype="f8")
    with x.collective:
        x[rank * n:(rank + 1) * n] = np.arange(rank * n, (rank + 1) * n, dtype="f8")
    e = f.create_dataset("energy", shape=(0, n * size), maxshape=(None, n * size),
                         chunks=(1, n * size), dtype="f8")
    for step in range(steps):
        e.resize(step + 1, axis=0)
        with e.collective:
            e[step, rank * n:(rank + 1) * n] = np.full(n, step + 0.5 * rank)
