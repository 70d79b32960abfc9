package inspect

import (
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
)

// ErrUnavailable is returned when the package was built without gonum.org/v1/hdf5 (build
// tag `gonum` and cgo flags for the parallel HDF5, as the Makefile sets).
var ErrUnavailable = errors.New("inspect: built without the gonum tag: use `make` or set CGO_CFLAGS/CGO_LDFLAGS from pkg-config hdf5-openmpi and -tags gonum")

// Available reports whether the independent reader is compiled in.
func Available() bool { return available }

// Node is one group or dataset.
type Node struct {
	Path     string
	Dataset  bool
	Type     plan.Type // datasets only
	Shape    []uint64  // datasets only
	MaxShape []uint64  // datasets only; plan.MaxUnlimited for unlimited
}

// String renders the node on one line.
func (n Node) String() string {
	if !n.Dataset {
		return n.Path + " group"
	}
	return fmt.Sprintf("%s dataset %s %v", n.Path, n.Type, n.Shape)
}
