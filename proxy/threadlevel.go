package proxy

// MPI thread levels: the strategies that call MPI from threads of their own, refused
// unless MPI provides MPI_THREAD_MULTIPLE.

import (
	"fmt"

	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// threadUser is a strategy that needs MPI_THREAD_MULTIPLE: what it does from another
// thread, and the setting that does without.
type threadUser struct{ what, instead string }

// modeThreads: background modes issue their HDF5 (and so MPI-IO) calls on a second thread.
func modeThreads(mode string) threadUser {
	return threadUser{"mode " + mode + " issues HDF5 and MPI-IO calls from a background thread", "mode=sync"}
}

// layoutThreads: a layout with stack.ThreadMultiple (subfiling-vfd) runs the I/O
// concentrator threads of HDF5's subfiling VFD, which call MPI.
func layoutThreads(layout string) threadUser {
	return threadUser{"layout " + layout + " runs HDF5's subfiling VFD, whose I/O concentrator threads call MPI,", "layout=subfiling (its model)"}
}

// requireThreadMultiple refuses a strategy that calls MPI from threads of its own unless
// MPI provides MPI_THREAD_MULTIPLE.
func requireThreadMultiple(u threadUser) error {
	level, err := mpi.QueryThread()
	if err != nil {
		return err
	}
	return checkThreadLevel(u, level)
}

func checkThreadLevel(u threadUser, level mpi.ThreadLevel) error {
	if level >= mpi.ThreadMultiple {
		return nil
	}
	return fmt.Errorf("%w: %s and needs MPI_THREAD_MULTIPLE, but MPI provides %s; initialize MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) (Go: proxy.InitMPI does), or use %s",
		ErrThreadLevel, u.what, level, u.instead)
}

// ErrUnsupported is wrapped by errors for features the environment or the build cannot
// support (a layout that needs another HDF5: stack.Strategy.Available).
var ErrUnsupported = stack.ErrUnsupported

// ErrThreadLevel is wrapped by the error of a background mode (or the subfiling-vfd
// layout) started under an MPI that
// does not provide MPI_THREAD_MULTIPLE, so callers (the C ABI) can tell the host to change
// its MPI initialisation. It wraps ErrUnsupported: the environment cannot run that mode.
var ErrThreadLevel = fmt.Errorf("%w: MPI thread level", ErrUnsupported)

// ThreadMultipleNeed names what in cfg calls MPI from threads of its own, a background
// mode or the subfiling-vfd layout ("" when nothing does): a host that initializes MPI
// below MPI_THREAD_MULTIPLE (`h5proxy run` under a description's mpi_thread) raises the
// level for it instead of having the session refused.
func ThreadMultipleNeed(cfg Config) string {
	if mode, err := stack.LookupMode(cfg.Mode); err == nil && mode.Has(stack.Background) {
		return "mode " + cfg.Mode
	}
	if layout, err := stack.LookupLayout(cfg.Layout); err == nil && layout.Has(stack.ThreadMultiple) {
		return "layout " + cfg.Layout
	}
	return ""
}
