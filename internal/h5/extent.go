//go:build cgo

package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
#include "es.h"
*/
import "C"

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
)

// SetExtent changes the current extent of chunked dataset d to shape (H5Dset_extent), for
// datasets created with unlimited (or larger) maximum dimensions. On a file opened through
// MPI-IO it is collective: every rank calls it with the same shape.
func SetExtent(d ID, shape []uint64) error {
	enter()
	defer leave()
	if err := checkID("H5Dset_extent", d, C.H5I_DATASET); err != nil {
		return err
	}
	if len(shape) == 0 || len(shape) > maxRank {
		return errorf("h5: H5Dset_extent %s: rank %d outside 1..%d", objName(d), len(shape), maxRank)
	}
	for _, v := range shape {
		if v == plan.MaxUnlimited {
			return errorf("h5: H5Dset_extent %s: extent %v holds H5S_UNLIMITED", objName(d), shape)
		}
	}
	dims := append([]uint64(nil), shape...) // HDF5 reads the array during the call only
	es := curES()
	if C.h5e_dset_extent(es, C.hid_t(d), hsizes(dims)) < 0 {
		return opError(fmt.Sprintf("%s %v", asyncCall("H5Dset_extent", es), shape), d)
	}
	inserted(es)
	return nil
}
