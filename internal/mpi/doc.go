// Package mpi is a thin cgo layer over the MPI C API (OpenMPI, found through pkg-config
// "ompi"): initialization, communicators, the few collectives h5proxy needs, and plain MPI-IO
// files, the baseline against which the HDF5 paths are measured.
//
// The library is embedded in host applications, so this package never aborts the process:
// it never calls MPI_Abort, exit or abort, and it initializes or finalizes MPI only through
// Init and Finalize, which Go programs call explicitly. Every communicator it creates
// (Dup, Split, SplitNode) and every file it opens return errors instead of aborting
// (MPI_ERRORS_RETURN); failures come back as *Error carrying MPI_Error_string. Calls made
// while MPI is not initialized, or already finalized, return ErrNotActive rather than reach
// MPI, where they would abort.
//
// Communicators cross package boundaries as Fortran handles (ints), because cgo's C types
// are local to each package: a C MPI_Comm becomes a handle with MPI_Comm_c2f on one side
// and comes back with MPI_Comm_f2c (FromFortran) on the other.
//
// Under a thread level below ThreadMultiple, MPI calls must come from the thread that
// initialized MPI (ThreadFunneled) or one at a time (ThreadSerialized); goroutines hop
// threads, so callers then use runtime.LockOSThread.
//
// Built without cgo, every call returns ErrNoCgo, so the packages above still build and vet.
//
//	provided, owned, err := mpi.Init()
//	if err != nil {
//		return err
//	}
//	if owned {
//		defer mpi.Finalize()
//	}
//	if provided < mpi.ThreadMultiple {
//		return fmt.Errorf("background I/O needs %v, MPI provides %v", mpi.ThreadMultiple, provided)
//	}
//	world := mpi.World()
//	total, err := world.AllreduceInt64([]int64{localBytes}, mpi.OpSum)
package mpi
