package proxy

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
)

// The HDF5 and MPI bindings are internal to proxy; these helpers let callers such as the
// C ABI classify errors by the bindings' types (errors.As, errors.Is), never by message.

// IsHDF5Error reports whether err, or an error it wraps, comes from the HDF5 binding: a
// failed HDF5 call with its error stack, an invalid HDF5 identifier, or any other error the
// binding reports.
func IsHDF5Error(err error) bool {
	var he *h5.Error
	var le *h5.LayerError
	return errors.As(err, &he) || errors.As(err, &le) || errors.Is(err, h5.ErrInvalidID)
}

// IsMPIError reports whether err, or an error it wraps, comes from the MPI binding: a
// failed MPI call, MPI not initialized or already finalized, a null communicator, or any
// other error the binding reports.
func IsMPIError(err error) bool {
	var me *mpi.Error
	var le *mpi.LayerError
	return errors.As(err, &me) || errors.As(err, &le)
}

// PhaseError is a failed phase: it names the phase and the file being written or read
// when the failure happened; the error it wraps names the step (or "begin", "end after
// step N") and the operation.
type PhaseError struct {
	Phase string // "write" or "read"
	File  string // the file created or opened last, else the configured file
	Err   error
	// Free is the space left, in bytes, on the file system holding File after a failed
	// write phase, or -1 when unknown. HDF5 and MPI-IO report a full device as a failed or
	// short write without errno; Free tells it apart.
	Free int64
}

// fullBelow is the free space under which a failed write phase reports its file system
// as full: a write that fails with ENOSPC leaves less than a page to a block.
const fullBelow = 64 << 10

// Error names the phase and the file, then the failure; a full file system says so.
func (e *PhaseError) Error() string {
	msg := fmt.Sprintf("%s phase, file %s: %v", e.Phase, e.File, e.Err)
	if e.Free >= 0 && e.Free < fullBelow {
		msg += fmt.Sprintf(" (the file system holding %s is full: %d bytes free)", e.File, e.Free)
	}
	return msg
}

// freeBytes returns the bytes available to this user on the file system holding file
// (its directory when the file is gone), -1 when unknown.
func freeBytes(file string) int64 {
	var st unix.Statfs_t
	if unix.Statfs(file, &st) != nil && unix.Statfs(filepath.Dir(file), &st) != nil {
		return -1
	}
	return int64(st.Bavail) * st.Bsize
}

// Unwrap returns the failure.
func (e *PhaseError) Unwrap() error { return e.Err }

// OpenHDF5Objects returns the number of HDF5 files, groups, datasets, datatypes and
// attributes open in the process (H5Fget_obj_count over all files). A closed session
// leaves none open, so a host or leak test can check that after each close (the host's
// own HDF5 objects count too).
func OpenHDF5Objects() (int, error) { return h5.OpenObjects() }
