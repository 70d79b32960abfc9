package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>

static hid_t h5p_mpio_driver(void) { return H5FD_MPIO; }

// h5p_empty returns the buffer handed to HDF5 for transfers that select nothing: H5Dwrite
// and H5Dread reject a NULL buffer unless the file selection is known to be empty.
static void *h5p_empty(void) {
	static char b[8];
	return b;
}

// h5p_select_union selects the union of n hyperslabs in space: SET for the first, OR for
// the rest. hs holds, per hyperslab, start, stride, count and block of rank values each.
// One call per selection instead of one per hyperslab: E3SM's unions have tens of
// thousands of hyperslabs per write, and each Go-to-C call costs more than HDF5's OR.
// Returns the index of the failing hyperslab, or -1.
static long h5p_select_union(hid_t space, int rank, long n, const hsize_t *hs) {
	for (long i = 0; i < n; i++) {
		const hsize_t *h = hs + (size_t)i * 4 * rank;
		H5S_seloper_t op = i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR;
		if (H5Sselect_hyperslab(space, op, h, h + rank, h + 2 * rank, h + 3 * rank) < 0) return i;
	}
	return -1;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// Transfer caches, guarded by the gate.
var (
	// packScratch holds the packed hyperslabs of the last union selected, reused so that
	// E3SM's hundreds of union writes per record allocate nothing.
	packScratch []uint64

	// objMPIO records, per identifier this package handed out (files, groups, datasets)
	// and has not closed, whether the object's file was opened through the MPI-IO driver:
	// a file's from the access its opener asked (CreateFile, OpenFile), a group's or a
	// dataset's from the file or group it was created or opened in. A collective transfer
	// looks its dataset up here instead of asking HDF5 for the dataset's file around every
	// H5Dwrite and H5Dread (H5Iget_file_id, then H5Fclose of that reference): the real
	// programs make no such calls, and a profiler takes the first H5Fclose for the file's.
	objMPIO = map[ID]bool{}

	// driverQueries counts the times isMPIO asked HDF5 for a dataset's file: only for
	// identifiers this package did not hand out (none today; a test pins that transfers
	// ask none).
	driverQueries int
)

// inherit records that obj, just created or opened in loc, lives in loc's file. Called
// inside the gate.
func inherit(obj, loc ID) {
	if v, ok := objMPIO[loc]; ok {
		objMPIO[obj] = v
	}
}

// releaseTransferCache closes the cached transfer property lists. Called inside the gate.
func releaseTransferCache() {
	releaseTuned()
}

// objName returns the path of an object for error messages, or "#id" if it has none.
// It clears the error stack, so call it after stackError.
func objName(id ID) string {
	n := C.H5Iget_name(C.hid_t(id), nil, 0)
	if n > 0 {
		buf := make([]byte, n+1)
		if C.H5Iget_name(C.hid_t(id), (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf))) > 0 {
			return string(buf[:n])
		}
	}
	C.H5Eclear2(C.H5E_DEFAULT)
	return fmt.Sprintf("#%d", id)
}

// opError collects the error stack of the failed call and names the dataset in Op.
func opError(call string, d ID) error {
	err := stackError(call)
	err.Op = call + " " + objName(d)
	return err
}

// isMPIO reports whether d's file was opened through the MPI-IO driver: as recorded when
// d was created or opened (objMPIO), else (a dataset this package did not hand out) as
// HDF5 says.
func isMPIO(d ID) (bool, error) {
	if v, ok := objMPIO[d]; ok {
		return v, nil
	}
	driverQueries++
	// H5Iget_file_id hands out another reference to the file identifier, released below.
	fid := C.H5Iget_file_id(C.hid_t(d))
	if fid < 0 {
		return false, opError("H5Iget_file_id", d)
	}
	defer C.H5Fclose(fid)
	// A file this package opened is known: asking HDF5 for the access list would
	// duplicate an MPI-IO file's communicator (a collective MPI_Comm_dup).
	if v, ok := objMPIO[ID(fid)]; ok {
		return v, nil
	}
	// A file this package did not open: ask HDF5.
	fapl := C.H5Fget_access_plist(fid)
	if fapl < 0 {
		return false, opError("H5Fget_access_plist", d)
	}
	defer C.H5Pclose(fapl)
	drv := C.H5Pget_driver(fapl)
	if drv < 0 {
		return false, opError("H5Pget_driver", d)
	}
	return drv == C.h5p_mpio_driver(), nil
}

// transferList returns the transfer property list for d: H5P_DEFAULT for independent
// transfers (its MPI-IO mode is independent) and for serial files (HDF5 refuses collective
// transfers on non-MPI drivers), a cached collective list with tuning t otherwise. Independent transfers
// must not ask for the file's driver: H5Fget_access_plist duplicates an MPI-IO file's
// communicator, a collective call that a rank writing alone (AMReX's rank-0 index
// datasets) would wait in forever.
func transferList(d ID, collective bool, t plan.TransferTuning) (C.hid_t, error) {
	if !collective {
		return C.H5P_DEFAULT, nil
	}
	mpio, err := isMPIO(d)
	if err != nil || !mpio {
		return C.H5P_DEFAULT, err
	}
	return collectiveList(t)
}

// Write writes buf, laid out as t.MemShape elements of t.MemType (the whole memory space),
// to the elements of dataset d selected by t.Selection (the union of its hyperslabs, or
// nothing). collective selects an MPI-IO collective transfer on parallel files; every rank
// of the file's communicator must then call Write, ranks with nothing to write passing an
// empty selection. len(buf) must cover the memory space.
func Write(d ID, t *plan.Transfer, collective bool, buf []byte) error {
	enter()
	defer leave()
	return transfer(d, t, collective, buf, true)
}

// Read reads the elements of dataset d selected by t.Selection into buf, laid out as
// t.MemShape elements of t.MemType. See Write for collective and the buffer size.
func Read(d ID, t *plan.Transfer, collective bool, buf []byte) error {
	enter()
	defer leave()
	return transfer(d, t, collective, buf, false)
}

// transfer implements Write and Read inside the gate.
func transfer(d ID, t *plan.Transfer, collective bool, buf []byte, write bool) error {
	call := "H5Dread"
	if write {
		call = "H5Dwrite"
	}
	if err := checkID(call, d, C.H5I_DATASET); err != nil {
		return err
	}
	if t == nil {
		return errorf("h5: %s %s: nil transfer", call, objName(d))
	}
	mt, err := memType(t.MemType)
	if err != nil {
		return fmt.Errorf("%w (%s %s)", err, call, objName(d))
	}
	fs := C.H5Dget_space(C.hid_t(d))
	if fs < 0 {
		return opError("H5Dget_space", d)
	}
	defer C.H5Sclose(fs)

	// A rank with nothing to move passes a 1-element memory space with nothing selected.
	// E3SM-IO passes H5S_NULL; with HDF5 1.10.8 that corrupts a collective write: the
	// empty rank's part zeroes the first element another rank writes with a union of
	// hyperslabs (seen on E3SM's fixed-size variables; the proxy test run Fsynth1 fails).
	none := t.Selection.IsNone()
	memShape := t.MemShape
	if none && len(memShape) == 0 {
		memShape = []uint64{1}
	}
	ms, err := simpleSpace(call+" memory space", memShape, nil)
	if err != nil {
		return err
	}
	defer C.H5Sclose(ms)

	var need uint64
	if none {
		if C.H5Sselect_none(fs) < 0 {
			return opError("H5Sselect_none", d)
		}
		if C.H5Sselect_none(ms) < 0 {
			return opError("H5Sselect_none memory space for", d)
		}
	} else {
		if err := selectBlocks(call, d, fs, t.Selection); err != nil {
			return err
		}
		need = plan.Product(memShape) * uint64(t.MemType.Size)
	}
	if uint64(len(buf)) < need {
		return errorf("h5: %s %s: buffer has %d bytes, memory space %v of %s needs %d",
			call, objName(d), len(buf), memShape, t.MemType, need)
	}

	dxpl, err := transferList(d, collective, t.Tuning)
	if err != nil {
		return err
	}
	ptr := C.h5p_empty()
	if len(buf) > 0 {
		ptr = unsafe.Pointer(&buf[0]) // valid for the call only; HDF5 keeps no reference
	}
	var rc C.herr_t
	if write {
		rc = C.H5Dwrite(C.hid_t(d), mt, ms, fs, dxpl, ptr)
	} else {
		rc = C.H5Dread(C.hid_t(d), mt, ms, fs, dxpl, ptr)
	}
	if rc < 0 {
		return opError(call, d)
	}
	if dxpl != C.H5P_DEFAULT {
		noteTransfer(dxpl)
	}
	return nil
}

// selectBlocks selects the union of sel's hyperslabs in the file space fs (SET for the
// first, OR for the rest). Array lengths are checked against the dataspace rank before HDF5
// reads them; nil Stride or Block mean all ones.
func selectBlocks(call string, d ID, fs C.hid_t, sel plan.Selection) error {
	rank := int(C.H5Sget_simple_extent_ndims(fs))
	if rank < 0 {
		return opError("H5Sget_simple_extent_ndims", d)
	}
	if rank == 0 {
		// A scalar dataspace has no hyperslabs: rank-0 blocks (plan.All(nil)) select
		// its single element, the rank check below rejects anything else.
		if err := checkRanks(call, d, sel, 0); err != nil {
			return err
		}
		if C.H5Sselect_all(fs) < 0 {
			return opError("H5Sselect_all", d)
		}
		return nil
	}
	if err := checkRanks(call, d, sel, rank); err != nil {
		return err
	}
	// Pack start, stride, count and block of every hyperslab (nil stride or block: ones)
	// for one C call over the whole union.
	packed := packScratch[:0]
	for _, h := range sel.Blocks {
		packed = append(packed, h.Start...)
		packed = appendOnes(packed, h.Stride, rank)
		packed = append(packed, h.Count...)
		packed = appendOnes(packed, h.Block, rank)
	}
	packScratch = packed
	if i := C.h5p_select_union(fs, C.int(rank), C.long(len(sel.Blocks)), hsizes(packed)); i >= 0 {
		h := sel.Blocks[i]
		return opError(fmt.Sprintf("H5Sselect_hyperslab %d (start %v stride %v count %v block %v) in", i, h.Start, h.Stride, h.Count, h.Block), d)
	}
	return nil
}

// appendOnes appends v, or rank ones when v is nil (HDF5's default stride and block).
func appendOnes(dst, v []uint64, rank int) []uint64 {
	if v != nil {
		return append(dst, v...)
	}
	for range rank {
		dst = append(dst, 1)
	}
	return dst
}

// checkRanks verifies every hyperslab's arrays have the dataspace rank (nil Stride and Block
// allowed), so that HDF5 never reads past a Go slice.
func checkRanks(call string, d ID, sel plan.Selection, rank int) error {
	for i, h := range sel.Blocks {
		if len(h.Start) != rank || len(h.Count) != rank ||
			(h.Stride != nil && len(h.Stride) != rank) || (h.Block != nil && len(h.Block) != rank) {
			return errorf("h5: %s %s: hyperslab %d has start/stride/count/block ranks %d/%d/%d/%d, dataspace rank %d",
				call, objName(d), i, len(h.Start), len(h.Stride), len(h.Count), len(h.Block), rank)
		}
	}
	return nil
}
