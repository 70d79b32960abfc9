package inspect

import "errors"

// ErrUnavailable is returned when the package was built without gonum.org/v1/hdf5 (build
// tag `gonum` and cgo flags for the parallel HDF5, as the Makefile sets).
var ErrUnavailable = errors.New("inspect: built without the gonum tag: use `make` or set CGO_CFLAGS/CGO_LDFLAGS from pkg-config hdf5-openmpi and -tags gonum")

// Available reports whether the independent reader is compiled in.
func Available() bool { return available }
