package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
*/
import "C"

import "github.com/h5proxy/h5proxy/plan"

// needsExtraDCPL reports whether d asks for a creation property CreateDataset's common
// path does not set: the compact layout or the ALLOC fill time.
func needsExtraDCPL(d *plan.DatasetSpec) bool { return d.Compact || d.FillAlloc }

// setExtraDCPL sets on dcpl the compact layout (H5Pset_layout H5D_COMPACT) and the ALLOC
// fill time that d asks for. Called inside the gate.
func setExtraDCPL(dcpl C.hid_t, d *plan.DatasetSpec, op string) error {
	if d.Compact && C.H5Pset_layout(dcpl, C.H5D_COMPACT) < 0 {
		return stackError("H5Pset_layout(H5D_COMPACT) for " + op)
	}
	if d.FillAlloc && C.H5Pset_fill_time(dcpl, C.H5D_FILL_TIME_ALLOC) < 0 {
		return stackError("H5Pset_fill_time(H5D_FILL_TIME_ALLOC) for " + op)
	}
	return nil
}

// readExtraDCPL fills the Info fields setExtraDCPL sets: the ALLOC fill time and the
// compact layout. Called inside the gate.
func readExtraDCPL(dcpl C.hid_t, info *Info, op string) error {
	var ft C.H5D_fill_time_t
	if C.H5Pget_fill_time(dcpl, &ft) < 0 {
		return stackError("H5Pget_fill_time " + op)
	}
	info.FillAlloc = ft == C.H5D_FILL_TIME_ALLOC
	l := C.H5Pget_layout(dcpl)
	if l < 0 {
		return stackError("H5Pget_layout " + op)
	}
	info.Compact = l == C.H5D_COMPACT
	return nil
}
