package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
*/
import "C"

import "github.com/h5proxy/h5proxy/plan"

// setExtraDCPL sets on dcpl the compact layout (H5Pset_layout H5D_COMPACT) when d asks
// for it (the fill and allocation times come from d.Tuning, set with the knobs). Called
// inside the gate.
func setExtraDCPL(dcpl C.hid_t, d *plan.DatasetSpec, op string) error {
	if d.Compact && C.H5Pset_layout(dcpl, C.H5D_COMPACT) < 0 {
		return stackError("H5Pset_layout(H5D_COMPACT) for " + op)
	}
	if err := setNoTimes(op, dcpl, d.NoTimes); err != nil {
		return err
	}
	return setOrder(op, dcpl, 0, d.AttrOrder, false)
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
