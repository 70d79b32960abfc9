package proxy

import (
	"errors"
	"strings"

	"github.com/h5proxy/h5proxy/proxy/internal/h5"
	"github.com/h5proxy/h5proxy/proxy/internal/mpi"
)

// This file holds the helpers the C ABI (package capi) needs to map errors to its status
// codes: the HDF5 and MPI layers are internal to proxy, so their error types are
// recognized here.

// IsHDF5Error reports whether err, or an error it wraps, comes from the HDF5 layer: a
// failed HDF5 call with its error stack, an invalid HDF5 identifier, or any other error the
// layer reports (its messages start with "h5: ").
func IsHDF5Error(err error) bool {
	if err == nil {
		return false
	}
	var he *h5.Error
	if errors.As(err, &he) || errors.Is(err, h5.ErrInvalidID) || errors.Is(err, h5.ErrNoCgo) {
		return true
	}
	return fromLayer(err, "h5: ")
}

// IsMPIError reports whether err, or an error it wraps, comes from the MPI layer: a failed
// MPI call, MPI not initialized or already finalized, a null communicator, or any other
// error the layer reports (its messages start with "mpi: ").
func IsMPIError(err error) bool {
	if err == nil {
		return false
	}
	var me *mpi.Error
	if errors.As(err, &me) || errors.Is(err, mpi.ErrNotActive) || errors.Is(err, mpi.ErrNullComm) || errors.Is(err, mpi.ErrNoCgo) {
		return true
	}
	return fromLayer(err, "mpi: ")
}

// fromLayer reports whether a layer's message prefix starts err's message or one of its
// ": "-separated parts (errors wrapped with context, like "step 0: write /x: h5: ...").
func fromLayer(err error, prefix string) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, prefix) || strings.Contains(msg, ": "+prefix)
}
