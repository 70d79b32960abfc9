/* petsc_vec: a distributed PETSc Vec written at every time step through PETSc's HDF5
 * viewer, as PETSc's own DMPlex output and PETSc applications write their solutions.
 *
 * Read (facts, not code): PETSc's src/dm/impls/plex/plexhdf5.c (DMSequenceView_HDF5:
 * PetscViewerHDF5PushGroup("/"), PetscViewerHDF5PushTimestepping, PetscViewerHDF5SetTimestep
 * (seqnum), VecView of a one-element "time" Vec, then Pop*) and an application's time
 * loop (group "/timeStepResults", PushTimestepping, VecView of the time and of the
 * solution per step). With timestepping on, VecView makes a dataset named after the Vec
 * (PetscObjectSetName) with an unlimited time dimension, extended at each step.
 *
 * Shape: solution, 64 entries per rank, and time (1 entry, rank 0's), under
 * /fields, 3 time steps. Writes solution.h5 in the working directory.
 */
#include <petscvec.h>
#include <petscviewerhdf5.h>

int main(int argc, char **argv) {
    PetscMPIInt rank;
    Vec u, t;
    PetscViewer v;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 64, PETSC_DETERMINE, &u));
    PetscCall(PetscObjectSetName((PetscObject)u, "solution"));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, rank == 0 ? 1 : 0, 1, &t));
    PetscCall(PetscObjectSetName((PetscObject)t, "time"));
    PetscCall(PetscViewerHDF5Open(PETSC_COMM_WORLD, "solution.h5", FILE_MODE_WRITE, &v));
    PetscCall(PetscViewerHDF5PushGroup(v, "/fields"));
    PetscCall(PetscViewerHDF5PushTimestepping(v));
    for (PetscInt step = 0; step < 3; step++) {
        PetscInt lo, hi;
        PetscCall(VecGetOwnershipRange(u, &lo, &hi));
        for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(u, i, (PetscScalar)(i + 100 * step), INSERT_VALUES));
        PetscCall(VecAssemblyBegin(u));
        PetscCall(VecAssemblyEnd(u));
        PetscCall(VecSet(t, 0.1 * step));
        PetscCall(PetscViewerHDF5SetTimestep(v, step));
        PetscCall(VecView(t, v));
        PetscCall(VecView(u, v));
    }
    PetscCall(PetscViewerHDF5PopTimestepping(v));
    PetscCall(PetscViewerHDF5PopGroup(v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&t));
    PetscCall(PetscFinalize());
    return 0;
}
