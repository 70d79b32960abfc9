package proxy

import (
	"errors"

	"github.com/h5proxy/h5proxy/proxy/internal/h5"
	"github.com/h5proxy/h5proxy/proxy/internal/mpi"
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

// OpenHDF5Objects returns the number of HDF5 files, groups, datasets, datatypes and
// attributes open in the process (H5Fget_obj_count over all files). A closed session
// leaves none open, so a host or leak test can check that after each close (the host's
// own HDF5 objects count too).
func OpenHDF5Objects() (int, error) { return h5.OpenObjects() }
