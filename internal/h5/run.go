package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
#include "xfer.h"
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// Runnable reports whether TransferRun can make t from its C loop: a union of hyperslabs
// (at least one, of rank 1 or more) into a whole memory space of rank 1 to HDF5's limit,
// of a fixed-size type (no variable-length values, references or compounds holding
// them). Other transfers need Go around their HDF5 calls (staging, point lists, H5S_ALL)
// and are made one at a time.
func Runnable(t *plan.Transfer) bool {
	return t != nil && t.Selection.Kind == plan.Hyperslabs && len(t.Selection.Blocks) > 0 &&
		len(t.Selection.Blocks[0].Start) > 0 && t.MemSelection == nil && len(t.MemShape) > 0 &&
		len(t.MemShape) <= maxRank && !t.MemType.VarLen && t.MemType.Class != plan.Reference &&
		!(t.MemType.Class == plan.Compound && t.MemType.HasVarLen())
}

// TransferRun writes (write) or reads transfers ts in order, ts[i] of dataset ds[i] with
// buffer bufs[i], collective as coll[i] asks (see Write and Read), each with exactly the
// HDF5 calls and checks Write or Read makes for it alone, and the same census. The
// consecutive transfers that Runnable takes go from one C loop (h5p_transfer_run): a Go
// thread bound to a core pays the runtime's hand-off around each blocking cgo call
// (bench/cgocall), which the loop pays once. Inside an event set or under a VOL
// connector other than the native one every transfer is made alone, as Write and Read
// make it.
//
// It stops at the first transfer that fails and returns the number completed with that
// transfer's error, as Write's or Read's. took, when as long as ts, receives each
// transfer's time measured in C, from the previous one's end (the first: from the call's
// start) to its own end, the failing one included.
func TransferRun(ds []ID, ts []*plan.Transfer, coll []bool, bufs [][]byte, write bool, took []time.Duration) (int, error) {
	n := len(ts)
	if len(ds) != n || len(coll) != n || len(bufs) != n {
		return 0, errorf("h5: a run of %d datasets, %d transfers, %d transfer modes, %d buffers", len(ds), n, len(coll), len(bufs))
	}
	enter()
	defer leave()
	if len(took) < n {
		took = make([]time.Duration, n)
	}
	clear(took)
	inC := curES() == 0 && nativeVOL()
	prev := int64(C.h5p_clock())
	for i := 0; i < n; {
		if inC {
			k, err := runInC(ds[i:], ts[i:], coll[i:], bufs[i:], write, took[i:], &prev)
			if i += k; err != nil || i == n {
				return i, err
			}
			if k > 0 {
				continue
			}
		}
		// ts[i] is made alone: it needs Go around its calls, or a check of the loop's
		// fails, which Write and Read report as they do.
		err := transfer(ds[i], ts[i], coll[i], bufs[i], write)
		now := int64(C.h5p_clock())
		took[i], prev = time.Duration(now-prev), now
		if err != nil {
			return i, err
		}
		i++
	}
	return n, nil
}

// runInC makes the longest prefix of ts that passes every check Write and Read make
// before their HDF5 calls from one h5p_transfer_run, and returns how many completed
// (0 when ts[0] does not pass) with the error of the one that failed in C. prev is the
// clock at the end of the transfer before (C's CLOCK_MONOTONIC nanoseconds), moved to
// the last one's end. Called inside the gate.
func runInC(ds []ID, ts []*plan.Transfer, coll []bool, bufs [][]byte, write bool, took []time.Duration, prev *int64) (int, error) {
	call := "H5Dread"
	if write {
		call = "H5Dwrite"
	}
	rx := make([]C.h5p_rx, 0, len(ts))
	var hs []uint64 // the memory spaces' dimensions and the hyperslabs, at each rx's moff and hoff
	var pin runtime.Pinner
	defer pin.Unpin()
	checked := ID(-1) // the last dataset checkID passed
	for i, t := range ts {
		d := ds[i]
		if !Runnable(t) {
			break
		}
		if d != checked && checkID(call, d, C.H5I_DATASET) != nil {
			break
		}
		checked = d
		frank := len(t.Selection.Blocks[0].Start)
		mt, err := memType(t.MemType)
		if err != nil || checkRanks(call, d, t.Selection, frank) != nil ||
			uint64(len(bufs[i])) < plan.Product(t.MemShape)*uint64(t.MemType.Size) {
			break
		}
		dxpl, collective, err := transferList(d, coll[i], t.Tuning)
		if err != nil {
			break
		}
		x := C.h5p_rx{d: C.hid_t(d), mt: mt, dxpl: dxpl, mrank: C.int(len(t.MemShape)), frank: C.int(frank),
			coll: C.int(b2i(collective)), moff: C.long(len(hs)), nblk: C.long(len(t.Selection.Blocks))}
		if dxpl != C.H5P_DEFAULT && nativeObj(C.hid_t(d)) {
			x.note = 1
		}
		hs = append(hs, t.MemShape...)
		x.hoff = C.long(len(hs))
		hs = packBlocks(hs, t.Selection, frank)
		x.buf = C.h5p_empty()
		if len(bufs[i]) > 0 {
			pin.Pin(&bufs[i][0])
			x.buf = unsafe.Pointer(&bufs[i][0])
		}
		rx = append(rx, x)
	}
	if len(rx) == 0 {
		return 0, nil
	}
	var start C.longlong
	k := int(C.h5p_transfer_run(C.int(b2i(write)), C.int(len(rx)), &rx[0], hsizes(hs), &start))
	for i := 0; i < len(rx) && i <= k; i++ {
		took[i] = time.Duration(int64(rx[i].end) - *prev)
		*prev = int64(rx[i].end)
	}
	for i := 0; i < k; i++ {
		if rx[i].note != 0 {
			tally(&rx[i].out, rx[i].coll != 0, 0)
		}
	}
	if k == len(rx) {
		return k, nil
	}
	x := &rx[k]
	err := runError(call, ds[k], ts[k], x)
	if x.ms >= 0 {
		C.H5Sclose(x.ms)
	}
	if x.fs >= 0 {
		C.H5Sclose(x.fs)
	}
	return k, err
}

// runError is the error Write or Read gives for the step of transfer t of dataset d that
// failed in h5p_transfer_run (x.fail), read from the error stack the call left.
func runError(call string, d ID, t *plan.Transfer, x *C.h5p_rx) error {
	switch x.fail {
	case C.H5P_RUN_SPACE:
		return opError("H5Dget_space", d)
	case C.H5P_RUN_MEMSPACE:
		return spaceError(call+" memory space", t.MemShape, nil)
	case C.H5P_RUN_NDIMS:
		return opError("H5Sget_simple_extent_ndims", d)
	case C.H5P_RUN_RANK:
		return checkRanks(call, d, t.Selection, int(x.bad))
	case C.H5P_RUN_SELECT:
		return selectError(t.Selection, int(x.bad), d)
	}
	return opError(call, d)
}
