package proxy

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/internal/mpi"
)

// Comm is an MPI communicator of the host application. The library never initializes or
// finalizes MPI on its own: it works on the communicator it is given.
type Comm struct{ c mpi.Comm }

// World returns MPI_COMM_WORLD (MPI must be initialized).
func World() Comm { return Comm{mpi.World()} }

// Self returns MPI_COMM_SELF (MPI must be initialized): sessions on it involve no other
// rank, so sessions on different threads may run at the same time (CONTRACT.md).
func Self() Comm { return Comm{mpi.Self()} }

// CommFromFortran converts a Fortran communicator handle (MPI_Comm_c2f of a C one).
func CommFromFortran(handle int) (Comm, error) {
	c, err := mpi.FromFortran(handle)
	return Comm{c}, err
}

// Rank returns the calling process's rank in the communicator.
func (c Comm) Rank() int { return c.c.Rank() }

// Size returns the number of ranks.
func (c Comm) Size() int { return c.c.Size() }

// Barrier waits until every rank of the communicator reaches it (MPI_Barrier): a front
// end's own steps around a session, such as IOR's timed file removal. Collective.
func (c Comm) Barrier() error { return c.c.Barrier() }

// Fortran returns the communicator's Fortran handle.
func (c Comm) Fortran() int { return c.c.Fortran() }

// Abort ends every process of the job (MPI_Abort) with code. It is for hosts: the library
// never calls it. A host calls it when a session fails with ErrFailedAlone, since the
// other ranks then wait in a collective call that will never complete.
func (c Comm) Abort(code int) error { return c.c.Abort(code) }

// InitMPI initializes MPI for a Go program, asking for MPI_THREAD_MULTIPLE, unless the
// host did already. The returned function finalizes MPI if (and only if) this call
// initialized it; call it once at exit.
func InitMPI() (finalize func() error, err error) {
	return InitMPIThread("multiple")
}

// InitMPIThread is InitMPI asking for the MPI thread level named level (single, funneled,
// serialized or multiple) instead: `h5proxy run` asks for the level of the program a
// description reproduces (its mpi_thread key). Below multiple, every MPI and HDF5 call
// must come from the goroutine that called it, locked to its thread
// (runtime.LockOSThread first), and background modes are refused.
func InitMPIThread(level string) (finalize func() error, err error) {
	l, ok := mpi.ParseThreadLevel(level)
	if !ok {
		return func() error { return nil }, fmt.Errorf("h5proxy: MPI thread level %q: want one of %s", level, strings.Join(mpi.ThreadLevelNames, ", "))
	}
	_, owned, err := mpi.InitThread(l)
	if err != nil {
		return func() error { return nil }, err
	}
	return func() error {
		if owned && !mpi.Finalized() {
			return mpi.Finalize()
		}
		return nil
	}, nil
}

// MPIInitialized reports whether MPI is initialized and not finalized.
func MPIInitialized() bool { return mpi.Initialized() }
