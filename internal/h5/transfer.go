package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <hdf5.h>
#include "compat.h"
#include "es.h"
#include "xfer.h"

static hid_t h5p_mpio_driver(void) { return H5FD_MPIO; }
*/
import "C"

import (
	"fmt"
	"runtime"
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

// transferList returns the transfer property list for d and whether it is collective:
// the independent list (H5P_DEFAULT on HDF5 1.10) for independent transfers and for
// serial files (HDF5 refuses collective transfers on non-MPI drivers), a cached
// collective list with tuning t otherwise. Independent transfers must not ask for the
// file's driver: H5Fget_access_plist duplicates an MPI-IO file's communicator, a
// collective call that a rank writing alone (AMReX's rank-0 index datasets) would wait
// in forever.
func transferList(d ID, collective bool, t plan.TransferTuning) (C.hid_t, bool, error) {
	if collective {
		mpio, err := isMPIO(d)
		if err != nil {
			return C.H5P_DEFAULT, false, err
		}
		if mpio {
			dxpl, err := collectiveList(t)
			return dxpl, true, err
		}
	}
	dxpl, err := independentList(t.SelectionIO)
	return dxpl, false, err
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

// spaces are the dataspaces and buffer of one dataset's transfer (prepare): ms and fs
// are the spaces prepare made (closed by close), mArg and fArg what H5Dwrite and H5Dread
// get (the same, or H5S_ALL for a whole selection).
type spaces struct {
	mt, ms, fs C.hid_t
	mArg, fArg C.hid_t
	ptr        unsafe.Pointer
	// vstr stages a variable-length string transfer (plan.VStr), vcomp one of a compound
	// holding such strings: ptr points into it.
	vstr  *vstrings
	vcomp *vcompound
	// refs are the references a write of a reference type makes from the plan's target
	// paths (makeRefs): C memory close frees.
	refs unsafe.Pointer
	// cached spaces belong to esSpaces (an event set's transfers reuse them): close leaves
	// them open.
	cached bool
}

// close releases the dataspaces prepare created and any string staging.
func (sp *spaces) close() {
	sp.vstr.release(sp.mt, sp.ms)
	sp.vcomp.release(sp.mt, sp.ms)
	if sp.refs != nil {
		C.free(sp.refs)
		sp.refs = nil
	}
	if sp.cached {
		return
	}
	if sp.ms >= 0 {
		C.H5Sclose(sp.ms)
	}
	if sp.fs >= 0 {
		C.H5Sclose(sp.fs)
	}
}

// prepare checks a transfer of dataset d and builds its memory type, memory space and
// file space with t's selection, and the buffer pointer; the caller closes the spaces
// (also on error).
func prepare(call string, d ID, t *plan.Transfer, buf []byte, write bool) (spaces, error) {
	sp := spaces{ms: -1, fs: -1}
	if err := checkID(call, d, C.H5I_DATASET); err != nil {
		return sp, err
	}
	if t == nil {
		return sp, errorf("h5: %s %s: nil transfer", call, objName(d))
	}
	mt, err := memType(t.MemType)
	if err != nil {
		return sp, fmt.Errorf("%w (%s %s)", err, call, objName(d))
	}
	sp.mt = mt
	key := esSpaceKey(t)
	if c, ok := esSpaces[key]; ok && key != "" {
		// The same spaces as the step before (h5bench makes its file and memory spaces
		// once): no HDF5 call between this transfer's _async call and the last.
		c.mt, c.ptr = mt, nil
		sp = c
	} else {
		if err := makeSpaces(call, d, t, &sp); err != nil {
			return sp, err
		}
		if key != "" {
			sp.cached = true
			esSpaces[key] = sp
		}
	}
	return sp, pointTo(call, d, t, &sp, buf, write)
}

// makeSpaces builds the file and memory spaces of a transfer of dataset d with t's
// selections into sp (mArg and fArg: what H5Dwrite and H5Dread get).
func makeSpaces(call string, d ID, t *plan.Transfer, sp *spaces) error {
	var err error
	if curES() > 0 || !nativeVOL() {
		// The file space from the plan's extent, as h5bench builds its own
		// (H5Screate_simple): under the Async VOL, H5Dget_space of a dataset whose create or
		// open is still queued waits for it inside the connector, and hung there in one of
		// two runs of TestAsyncVOLEventSets at load 19 (the connector's own source calls
		// its dataset get "a temporary fix for data space get that could cause a pthread
		// deadlock").
		if sp.fs, err = simpleSpace(call+" file space", t.FileShape, nil); err != nil {
			sp.fs = -1
			return err
		}
	} else if sp.fs = C.H5Dget_space(C.hid_t(d)); sp.fs < 0 {
		return opError("H5Dget_space", d)
	}

	// A rank with nothing to move passes a 1-element memory space with nothing selected.
	// E3SM-IO passes H5S_NULL; with HDF5 1.10.8 that corrupts a collective write: the
	// empty rank's part zeroes the first element another rank writes with a union of
	// hyperslabs (seen on E3SM's fixed-size variables; the proxy test run Fsynth1 fails).
	none := t.Selection.IsNone()
	memShape := t.MemShape
	if none && len(memShape) == 0 {
		memShape = []uint64{1}
	}
	if sp.ms, err = simpleSpace(call+" memory space", memShape, nil); err != nil {
		sp.ms = -1
		return err
	}

	sp.mArg, sp.fArg = sp.ms, sp.fs
	switch {
	case none:
		if C.H5Sselect_none(sp.fs) < 0 {
			return opError("H5Sselect_none", d)
		}
		if C.H5Sselect_none(sp.ms) < 0 {
			return opError("H5Sselect_none memory space for", d)
		}
	case t.Selection.Kind == plan.Whole:
		// H5S_ALL for both: the dataset's whole extent from a buffer of as many elements.
		if n := C.H5Sget_simple_extent_npoints(sp.fs); n < 0 || uint64(n) != plan.Product(memShape) {
			return errorf("h5: %s %s: a whole selection (H5S_ALL) of %d elements, memory space %v", call, objName(d), int64(n), memShape)
		}
		sp.mArg, sp.fArg = C.H5S_ALL, C.H5S_ALL
	case t.Selection.Kind == plan.Points:
		if err := selectPoints(call, d, sp.fs, t.Selection); err != nil {
			return err
		}
	default:
		if err := selectBlocks(call, d, sp.fs, t.Selection); err != nil {
			return err
		}
	}
	if t.MemSelection != nil && !none {
		// Part of the memory space (ghost cells around a block): its hyperslabs.
		if t.Selection.Kind == plan.Whole {
			return errorf("h5: %s %s: a memory selection with H5S_ALL as the file space", call, objName(d))
		}
		if err := selectBlocks(call+" memory space of", d, sp.ms, *t.MemSelection); err != nil {
			return err
		}
	}
	return nil
}

// pointTo checks that buf covers the memory space and points the transfer at it (or at
// staging of variable-length values).
func pointTo(call string, d ID, t *plan.Transfer, sp *spaces, buf []byte, write bool) error {
	var err error
	none := t.Selection.IsNone()
	memShape := t.MemShape
	if none && len(memShape) == 0 {
		memShape = []uint64{1}
	}
	// From this transfer's own memory type: cached spaces are shared by transfers of any
	// element type with the same shapes and selections.
	var need uint64
	if !none {
		need = plan.Product(memShape) * uint64(t.MemType.Size)
	}
	if uint64(len(buf)) < need {
		return errorf("h5: %s %s: buffer has %d bytes, memory space %v of %s needs %d",
			call, objName(d), len(buf), memShape, t.MemType, need)
	}
	sp.ptr = C.h5p_empty()
	if len(buf) > 0 {
		sp.ptr = unsafe.Pointer(&buf[0]) // valid for the call only; HDF5 keeps no reference
	}
	if t.MemType.VarLen && !none {
		n := int(plan.Product(memShape))
		if write {
			if sp.vstr, err = packVStrings(buf, n, t.MemType.Size); err != nil {
				return fmt.Errorf("%w (%s %s)", err, call, objName(d))
			}
		} else {
			sp.vstr = readVStrings(n, t.MemType.Size)
		}
		sp.ptr = sp.vstr.ptr()
	}
	if t.MemType.Class == plan.Reference && !none {
		if !write { // a read would need the targets' names back, and no plan reads them
			return errorf("h5: %s %s: a read of references", call, objName(d))
		}
		if sp.refs, err = makeRefs(C.hid_t(d), t.MemType, buf, int(plan.Product(memShape))); err != nil {
			return fmt.Errorf("%w (%s %s)", err, call, objName(d))
		}
		sp.ptr = sp.refs
	}
	if t.MemType.Class == plan.Compound && t.MemType.HasVarLen() && !none {
		n := int(plan.Product(memShape))
		if write {
			if sp.vcomp, err = packVCompound(t.MemType, buf, n); err != nil {
				return fmt.Errorf("%w (%s %s)", err, call, objName(d))
			}
		} else {
			sp.vcomp = readVCompound(t.MemType, n)
		}
		sp.ptr = sp.vcomp.p
	}
	return nil
}

// finish completes a successful transfer: a read of variable-length strings copies them
// into buf as the plan's fixed strings.
func (sp *spaces) finish(call string, d ID, buf []byte) error {
	if sp.vcomp != nil && sp.vcomp.read {
		return sp.vcomp.unpack(call+" "+objName(d), buf)
	}
	if sp.vstr == nil || !sp.vstr.read {
		return nil
	}
	if err := sp.vstr.unpack(call+" "+objName(d), buf); err != nil {
		return err
	}
	return nil
}

// transfer implements Write and Read inside the gate.
func transfer(d ID, t *plan.Transfer, collective bool, buf []byte, write bool) error {
	call := "H5Dread"
	if write {
		call = "H5Dwrite"
	}
	sp, err := prepare(call, d, t, buf, write)
	defer sp.close()
	if err != nil {
		return err
	}
	dxpl, coll, err := transferList(d, collective, t.Tuning)
	if err != nil {
		return err
	}
	// Into the thread's event set (InEventSet), unless the data went through C memory of
	// this call's own (variable-length values), which is freed when it returns.
	es := curES()
	if sp.vstr != nil || sp.vcomp != nil || sp.refs != nil {
		es = 0
		if err := checkSettled(call, d); err != nil { // the ordinary call (AsyncTransfer)
			return err
		}
	}
	var rc C.herr_t
	if write {
		rc = C.h5e_dwrite(es, C.hid_t(d), sp.mt, sp.mArg, sp.fArg, dxpl, sp.ptr)
	} else {
		rc = C.h5e_dread(es, C.hid_t(d), sp.mt, sp.mArg, sp.fArg, dxpl, sp.ptr)
	}
	if rc < 0 {
		return opError(asyncCall(call, es), d)
	}
	inserted(es)
	noteTransfer(dxpl, C.hid_t(d), coll, 0)
	return sp.finish(call, d, buf)
}

// TransferMulti writes (write) or reads the datasets ds in one call, H5Dwrite_multi or
// H5Dread_multi (HDF5 1.14), transfer ts[i] of dataset ds[i] with buffer bufs[i], each as
// Write and Read describe. All share one transfer list: collective (when every dataset's
// file is an MPI-IO one) with the first transfer's tuning, or independent; every rank of
// a collective call passes the same datasets, ranks with nothing to move empty
// selections.
func TransferMulti(ds []ID, ts []*plan.Transfer, collective bool, bufs [][]byte, write bool) error {
	call := "H5Dread_multi"
	if write {
		call = "H5Dwrite_multi"
	}
	if !has114 {
		return ErrNoMultiDataset
	}
	if len(ds) == 0 || len(ts) != len(ds) || len(bufs) != len(ds) {
		return errorf("h5: %s: %d datasets, %d transfers, %d buffers", call, len(ds), len(ts), len(bufs))
	}
	enter()
	defer leave()
	n := len(ds)
	dsets := make([]C.hid_t, n)
	mts := make([]C.hid_t, n)
	mss := make([]C.hid_t, n)
	fss := make([]C.hid_t, n)
	ptrs := make([]unsafe.Pointer, n)
	staged := make([]spaces, n)
	var pin runtime.Pinner // the buffers' addresses sit in ptrs, which cgo passes to C
	defer pin.Unpin()
	for i, d := range ds {
		sp, err := prepare(call, d, ts[i], bufs[i], write)
		defer sp.close()
		if err != nil {
			return err
		}
		staged[i] = sp
		dsets[i], mts[i], mss[i], fss[i], ptrs[i] = C.hid_t(d), sp.mt, sp.mArg, sp.fArg, sp.ptr
		if len(bufs[i]) > 0 {
			pin.Pin(&bufs[i][0])
		}
	}
	dxpl, coll, err := transferList(ds[0], collective, ts[0].Tuning)
	if err != nil {
		return err
	}
	if coll {
		// A collective list needs every dataset in an MPI-IO file; the first one's answer
		// stands for the others only when they share its file, as a step's transfers do.
		for _, d := range ds[1:] {
			if mpio, err := isMPIO(d); err != nil || !mpio {
				return errorf("h5: %s: %s is not in an MPI-IO file like %s (one collective call)", call, objName(d), objName(ds[0]))
			}
		}
	}
	if C.h5p_transfer_multi(C.size_t(n), &dsets[0], &mts[0], &mss[0], &fss[0], dxpl, &ptrs[0], C.int(b2i(write)), curES()) < 0 {
		err := stackError(call)
		err.Op = fmt.Sprintf("%s %s (+%d more)", call, objName(ds[0]), n-1)
		return err
	}
	inserted(curES())
	noteTransfer(dxpl, C.hid_t(ds[0]), coll, n)
	for i, sp := range staged {
		if err := sp.finish(call, ds[i], bufs[i]); err != nil {
			return err
		}
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
	packed := packBlocks(packScratch[:0], sel, rank)
	packScratch = packed
	if i := C.h5p_select_union(fs, C.int(rank), C.long(len(sel.Blocks)), hsizes(packed)); i >= 0 {
		return selectError(sel, int(i), d)
	}
	return nil
}

// selectError is the error of hyperslab i of sel that HDF5 refused in d's file space.
func selectError(sel plan.Selection, i int, d ID) error {
	h := sel.Blocks[i]
	return opError(fmt.Sprintf("H5Sselect_hyperslab %d (start %v stride %v count %v block %v) in", i, h.Start, h.Stride, h.Count, h.Block), d)
}

// selectPoints selects sel's single-element blocks in the file space fs with one
// H5Sselect_elements call, in the list's order (plan.Points: row-major, no repeats).
func selectPoints(call string, d ID, fs C.hid_t, sel plan.Selection) error {
	rank := int(C.H5Sget_simple_extent_ndims(fs))
	if rank < 0 {
		return opError("H5Sget_simple_extent_ndims", d)
	}
	if rank == 0 {
		return errorf("h5: %s %s: a point selection in a scalar dataspace", call, objName(d))
	}
	if err := checkRanks(call, d, sel, rank); err != nil {
		return err
	}
	coords := packScratch[:0]
	for _, h := range sel.Blocks {
		coords = append(coords, h.Start...)
	}
	packScratch = coords
	if C.H5Sselect_elements(fs, C.H5S_SELECT_SET, C.size_t(len(sel.Blocks)), hsizes(coords)) < 0 {
		return opError(fmt.Sprintf("H5Sselect_elements (%d points) in", len(sel.Blocks)), d)
	}
	return nil
}

// packBlocks appends start, stride, count and block of every hyperslab of sel (nil
// stride or block: ones) to dst, as h5p_select_union reads them.
func packBlocks(dst []uint64, sel plan.Selection, rank int) []uint64 {
	for _, h := range sel.Blocks {
		dst = append(dst, h.Start...)
		dst = appendOnes(dst, h.Stride, rank)
		dst = append(dst, h.Count...)
		dst = appendOnes(dst, h.Block, rank)
	}
	return dst
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
