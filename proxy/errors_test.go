package proxy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
)

// TestLayerErrors: errors are classified by the bindings' types, wrapped or not, and
// never by their text.
func TestLayerErrors(t *testing.T) {
	for _, tc := range []struct {
		err       error
		hdf5, mpi bool
	}{
		{&h5.Error{Op: "H5Dwrite /x"}, true, false},
		{fmt.Errorf("step 0: write /x: %w", &h5.Error{Op: "H5Dwrite /x"}), true, false},
		{fmt.Errorf("close: %w", h5.ErrInvalidID), true, false},
		{h5.ErrNoCgo, true, false},
		{&mpi.Error{Op: "MPI_File_open /x"}, false, true},
		{fmt.Errorf("session: %w", mpi.ErrNotActive), false, true},
		{mpi.ErrNullComm, false, true},
		{errors.New("h5: looks like the HDF5 layer"), false, false},
		{errors.New("mpi: looks like the MPI layer"), false, false},
		{nil, false, false},
	} {
		if got := IsHDF5Error(tc.err); got != tc.hdf5 {
			t.Errorf("IsHDF5Error(%v) = %v", tc.err, got)
		}
		if got := IsMPIError(tc.err); got != tc.mpi {
			t.Errorf("IsMPIError(%v) = %v", tc.err, got)
		}
	}
}
