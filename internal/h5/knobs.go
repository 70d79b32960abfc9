package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"
#include "xfer.h"

static hid_t h5k_fcpl_class(void) { return H5P_FILE_CREATE; }
static hid_t h5k_dxpl_class(void) { return H5P_DATASET_XFER; }

// h5k_set_resize turns the metadata cache's automatic resizing on (HDF5's default modes,
// evictions on as HDF5 then requires) or off, keeping the rest of fapl's cache
// configuration.
static herr_t h5k_set_resize(hid_t fapl, int on) {
	H5AC_cache_config_t c;
	memset(&c, 0, sizeof c);
	c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
	if (H5Pget_mdc_config(fapl, &c) < 0) return -1;
	if (on) {
		c.incr_mode = H5C_incr__threshold;
		c.flash_incr_mode = H5C_flash_incr__add_space;
		c.decr_mode = H5C_decr__age_out_with_threshold;
		c.evictions_enabled = 1;
	} else {
		c.incr_mode = H5C_incr__off;
		c.flash_incr_mode = H5C_flash_incr__off;
		c.decr_mode = H5C_decr__off;
	}
	return H5Pset_mdc_config(fapl, &c);
}

// h5k_mdc_min reads the metadata cache's minimum size in fapl.
static herr_t h5k_mdc_min(hid_t fapl, size_t *min) {
	H5AC_cache_config_t c;
	memset(&c, 0, sizeof c);
	c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
	if (H5Pget_mdc_config(fapl, &c) < 0) return -1;
	*min = c.min_size;
	return 0;
}

// h5k_hints sets *info to a duplicate of the MPI_Info hints of fapl's MPI-IO driver
// (file < 0; MPI_INFO_NULL without hints) or, for the open file, to those MPI-IO itself
// reports (MPI_File_get_info on the driver's handle): what the implementation took.
// Returns 0 or -1; the caller frees *info.
static int h5k_hints(hid_t fapl, hid_t file, MPI_Info *info) {
	MPI_Comm comm = MPI_COMM_NULL;
	MPI_File *fh = NULL;
	*info = MPI_INFO_NULL;
	if (file < 0) {
		if (H5Pget_fapl_mpio(fapl, &comm, info) < 0) return -1;
		if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
		return 0;
	}
	if (H5Fget_vfd_handle(file, fapl, (void **)&fh) < 0 || fh == NULL) return -1;
	return MPI_File_get_info(*fh, info) == MPI_SUCCESS ? 0 : -1;
}

static int h5k_info_nkeys(MPI_Info info) {
	int n = 0;
	if (info == MPI_INFO_NULL) return 0;
	if (MPI_Info_get_nkeys(info, &n) != MPI_SUCCESS) return -1;
	return n;
}

// h5k_info_nth copies key i of info and its value into k and v (each of size len).
static int h5k_info_nth(MPI_Info info, int i, char *k, char *v, int len) {
	int flag = 0;
	if (MPI_Info_get_nthkey(info, i, k) != MPI_SUCCESS) return -1;
	if (MPI_Info_get(info, k, len - 1, v, &flag) != MPI_SUCCESS) return -1;
	if (!flag) v[0] = 0;
	return 0;
}

static void h5k_info_free(MPI_Info info) {
	if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

// h5k_xfer_opts reads the collective and chunk optimisation properties of dxpl by the
// names HDF5 1.10's H5Dprivate.h gives them (HDF5 has no getters for these two).
static herr_t h5k_xfer_opts(hid_t dxpl, int *coll, int *chunk) {
	H5FD_mpio_collective_opt_t c;
	H5FD_mpio_chunk_opt_t k;
	if (H5Pget(dxpl, "mpio_collective_opt", &c) < 0) return -1;
	if (H5Pget(dxpl, "mpio_chunk_opt_hard", &k) < 0) return -1;
	*coll = (int)c;
	*chunk = (int)k;
	return 0;
}

*/
import "C"

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// libverC maps a plan bound to H5F_libver_t; low and high take HDF5's defaults when unset.
func libverC(v plan.Libver, high bool) C.H5F_libver_t {
	switch v {
	case plan.LibverEarliest:
		return C.H5F_LIBVER_EARLIEST
	case plan.LibverV18:
		return C.H5F_LIBVER_V18
	case plan.LibverV110:
		return C.H5F_LIBVER_V110
	}
	if high {
		return C.H5F_LIBVER_LATEST
	}
	return C.H5F_LIBVER_EARLIEST
}

// tuneAccess applies a.Tuning to fapl after fileAccess's own settings. Called inside the
// gate.
func tuneAccess(op string, fapl C.hid_t, a Access) error {
	t := a.Tuning
	if t.Core {
		if a.Parallel {
			return errorf("h5: %s: the core driver is serial: the file must not be Parallel", op)
		}
		if C.H5Pset_fapl_core(fapl, coreIncrement, C.hbool_t(t.CoreBacking)) < 0 {
			return stackError("H5Pset_fapl_core for " + op)
		}
	}
	if t.SmallDataBlockSize > 0 && C.H5Pset_small_data_block_size(fapl, C.hsize_t(t.SmallDataBlockSize)) < 0 {
		return stackError("H5Pset_small_data_block_size for " + op)
	}
	if t.SieveBufSize > 0 && C.H5Pset_sieve_buf_size(fapl, C.size_t(t.SieveBufSize)) < 0 {
		return stackError("H5Pset_sieve_buf_size for " + op)
	}
	if (t.LibverLow != plan.LibverUnset || t.LibverHigh != plan.LibverUnset) &&
		C.H5Pset_libver_bounds(fapl, libverC(t.LibverLow, false), libverC(t.LibverHigh, true)) < 0 {
		return stackError("H5Pset_libver_bounds for " + op)
	}
	if t.MDCResize != plan.ToggleUnset && C.h5k_set_resize(fapl, C.int(b2i(t.MDCResize == plan.ToggleOn))) < 0 {
		return stackError("H5Pset_mdc_config (resizing) for " + op)
	}
	if t.PageBufferSize > 0 && C.H5Pset_page_buffer_size(fapl, C.size_t(t.PageBufferSize), 0, 0) < 0 {
		return stackError("H5Pset_page_buffer_size for " + op)
	}
	return nil
}

// fileSpaceStrategies names HDF5's file space strategies (H5F_fspace_strategy_t) as the
// knobs spell them.
var fileSpaceStrategies = map[string]C.H5F_fspace_strategy_t{
	"fsm_aggr": C.H5F_FSPACE_STRATEGY_FSM_AGGR,
	"page":     C.H5F_FSPACE_STRATEGY_PAGE,
	"aggr":     C.H5F_FSPACE_STRATEGY_AGGR,
	"none":     C.H5F_FSPACE_STRATEGY_NONE,
}

// fileCreation builds the file creation property list of a create: H5P_DEFAULT unless
// the tuning sets the file space strategy or page size. The caller closes any other list.
func fileCreation(op string, a Access) (C.hid_t, error) {
	t := a.Tuning
	if t.FileSpaceStrategy == "" && t.FileSpacePageSize == 0 && a.LinkOrder == 0 && a.AttrOrder == 0 && !a.NoTimes {
		return C.H5P_DEFAULT, nil
	}
	fcpl := C.H5Pcreate(C.h5k_fcpl_class())
	if fcpl < 0 {
		return -1, stackError("H5Pcreate(H5P_FILE_CREATE) for " + op)
	}
	if err := setOrder(op, fcpl, a.LinkOrder, a.AttrOrder, true); err != nil {
		C.H5Pclose(fcpl)
		return -1, err
	}
	if err := setNoTimes(op, fcpl, a.NoTimes); err != nil {
		C.H5Pclose(fcpl)
		return -1, err
	}
	if t.FileSpaceStrategy != "" {
		s, ok := fileSpaceStrategies[t.FileSpaceStrategy]
		if !ok {
			C.H5Pclose(fcpl)
			return -1, errorf("h5: %s: unknown file space strategy %q (fsm_aggr, page, aggr, none)", op, t.FileSpaceStrategy)
		}
		if C.H5Pset_file_space_strategy(fcpl, s, false, 1) < 0 {
			C.H5Pclose(fcpl)
			return -1, stackError("H5Pset_file_space_strategy for " + op)
		}
	}
	if t.FileSpacePageSize > 0 && C.H5Pset_file_space_page_size(fcpl, C.hsize_t(t.FileSpacePageSize)) < 0 {
		C.H5Pclose(fcpl)
		return -1, stackError("H5Pset_file_space_page_size for " + op)
	}
	return fcpl, nil
}

// tuneShuffle adds the tuning's shuffle filter to dcpl. Shuffle goes first in the
// pipeline, ahead of the pattern's filters and deflate, as applications add it.
func tuneShuffle(op string, dcpl C.hid_t, t plan.DatasetTuning) error {
	if t.Shuffle && C.H5Pset_shuffle(dcpl) < 0 {
		return stackError("H5Pset_shuffle for " + op)
	}
	return nil
}

// HDF5's values of the plan's fill and allocation times (the unset ones have none).
var (
	fillTimes = map[plan.FillTime]C.H5D_fill_time_t{plan.FillTimeIfSet: C.H5D_FILL_TIME_IFSET,
		plan.FillTimeAlloc: C.H5D_FILL_TIME_ALLOC, plan.FillTimeNever: C.H5D_FILL_TIME_NEVER}
	allocTimes = map[plan.AllocTime]C.H5D_alloc_time_t{plan.AllocTimeDefault: C.H5D_ALLOC_TIME_DEFAULT,
		plan.AllocTimeEarly: C.H5D_ALLOC_TIME_EARLY, plan.AllocTimeLate: C.H5D_ALLOC_TIME_LATE,
		plan.AllocTimeIncr: C.H5D_ALLOC_TIME_INCR}
)

// setFillTime sets fill time ft on dcpl; FillTimeUnset leaves the list's.
func setFillTime(op string, dcpl C.hid_t, ft plan.FillTime) error {
	if v, ok := fillTimes[ft]; ok && C.H5Pset_fill_time(dcpl, v) < 0 {
		return stackError("H5Pset_fill_time for " + op)
	}
	return nil
}

// fillTimeOf is the plan's fill time of HDF5's.
func fillTimeOf(v C.H5D_fill_time_t) plan.FillTime {
	for ft, c := range fillTimes {
		if c == v {
			return ft
		}
	}
	return plan.FillTimeUnset
}

// tuneTimes sets the fill and allocation times of the tuning on dcpl.
func tuneTimes(op string, dcpl C.hid_t, t plan.DatasetTuning) error {
	if err := setFillTime(op, dcpl, t.FillTime); err != nil {
		return err
	}
	if at, ok := allocTimes[t.AllocTime]; ok && C.H5Pset_alloc_time(dcpl, at) < 0 {
		return stackError("H5Pset_alloc_time for " + op)
	}
	return nil
}

// datasetTuned reports whether t asks for any creation property.
func datasetTuned(t plan.DatasetTuning) bool { return t != plan.DatasetTuning{} }

// dxplTuned caches the collective transfer property lists by tuning, dxplIndep the
// independent ones (HDF5 1.14 only: 1.10 uses H5P_DEFAULT) by selection I/O mode; both
// guarded by the gate.
var (
	dxplTuned = map[plan.TransferTuning]C.hid_t{}
	dxplIndep = map[plan.SelectionIO]C.hid_t{}
)

// has114 reports whether the library has HDF5 1.14's multi-dataset and selection I/O
// calls (the HDF5=1.14 build).
const has114 = C.H5P_HAS_114 != 0

// HasMultiDataset reports whether this build has HDF5 1.14's multi-dataset I/O
// (TransferMulti) and selection I/O (plan.TransferTuning.SelectionIO).
func HasMultiDataset() bool { return has114 }

// newTransferList creates a transfer list, collective (MPI-IO collective with t's
// collective tuning) or independent, with t's selection I/O mode.
func newTransferList(t plan.TransferTuning, collective bool) (C.hid_t, error) {
	dxpl := C.H5Pcreate(C.h5k_dxpl_class())
	if dxpl < 0 {
		return -1, stackError("H5Pcreate(H5P_DATASET_XFER)")
	}
	fail := func(call string) (C.hid_t, error) {
		err := stackError(call)
		C.H5Pclose(dxpl)
		return -1, err
	}
	if collective {
		if C.H5Pset_dxpl_mpio(dxpl, C.H5FD_MPIO_COLLECTIVE) < 0 {
			return fail("H5Pset_dxpl_mpio")
		}
		if t.Individual && C.H5Pset_dxpl_mpio_collective_opt(dxpl, C.H5FD_MPIO_INDIVIDUAL_IO) < 0 {
			return fail("H5Pset_dxpl_mpio_collective_opt")
		}
		opt := map[plan.ChunkOpt]C.H5FD_mpio_chunk_opt_t{plan.ChunkOptOneIO: C.H5FD_MPIO_CHUNK_ONE_IO, plan.ChunkOptMultiIO: C.H5FD_MPIO_CHUNK_MULTI_IO}
		if o, ok := opt[t.ChunkOpt]; ok && C.H5Pset_dxpl_mpio_chunk_opt(dxpl, o) < 0 {
			return fail("H5Pset_dxpl_mpio_chunk_opt")
		}
	}
	if t.SelectionIO != plan.SelectionIOUnset {
		switch C.h5p_set_selection_io(dxpl, C.int(t.SelectionIO-plan.SelectionIODefault)) {
		case -2:
			C.H5Pclose(dxpl)
			return -1, errorf("h5: selection I/O (H5Pset_selection_io) needs HDF5 1.14; this build has HDF5 %s", HeaderVersion())
		case -1:
			return fail("H5Pset_selection_io")
		}
	}
	return dxpl, nil
}

// collectiveList returns the cached MPI-IO collective transfer list with tuning t.
func collectiveList(t plan.TransferTuning) (C.hid_t, error) {
	if dxpl, ok := dxplTuned[t]; ok {
		return dxpl, nil
	}
	dxpl, err := newTransferList(t, true)
	if err != nil {
		return -1, err
	}
	dxplTuned[t] = dxpl
	return dxpl, nil
}

// independentList returns the transfer list of independent transfers: H5P_DEFAULT on
// HDF5 1.10 (as before, nothing to read back), on 1.14 a cached list with selection I/O
// mode m, from which the census reads the path each transfer took.
func independentList(m plan.SelectionIO) (C.hid_t, error) {
	if !has114 && m == plan.SelectionIOUnset {
		return C.H5P_DEFAULT, nil
	}
	if dxpl, ok := dxplIndep[m]; ok {
		return dxpl, nil
	}
	dxpl, err := newTransferList(plan.TransferTuning{SelectionIO: m}, false)
	if err != nil {
		return -1, err
	}
	dxplIndep[m] = dxpl
	return dxpl, nil
}

// TransferTuningOf reads back the collective optimisation, chunk optimisation and
// selection I/O mode of the collective transfer list Write and Read use for tuning t.
func TransferTuningOf(t plan.TransferTuning) (plan.TransferTuning, error) {
	enter()
	defer leave()
	dxpl, err := collectiveList(t)
	if err != nil {
		return plan.TransferTuning{}, err
	}
	var coll, chunk C.int
	if C.h5k_xfer_opts(dxpl, &coll, &chunk) < 0 {
		return plan.TransferTuning{}, stackError("H5Pget(mpio_collective_opt, mpio_chunk_opt_hard)")
	}
	got := plan.TransferTuning{Individual: coll == C.H5FD_MPIO_INDIVIDUAL_IO}
	switch chunk {
	case C.H5FD_MPIO_CHUNK_ONE_IO:
		got.ChunkOpt = plan.ChunkOptOneIO
	case C.H5FD_MPIO_CHUNK_MULTI_IO:
		got.ChunkOpt = plan.ChunkOptMultiIO
	}
	if t.SelectionIO != plan.SelectionIOUnset {
		var m C.int
		if C.h5p_get_selection_io(dxpl, &m) < 0 {
			return got, stackError("H5Pget_selection_io")
		}
		got.SelectionIO = plan.SelectionIODefault + plan.SelectionIO(m)
	}
	return got, nil
}

// releaseTuned closes the cached transfer lists. Called inside the gate.
func releaseTuned() {
	for t, dxpl := range dxplTuned {
		C.H5Pclose(dxpl)
		delete(dxplTuned, t)
	}
	for m, dxpl := range dxplIndep {
		C.H5Pclose(dxpl)
		delete(dxplIndep, m)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// census is the running tally, guarded by censusMu, not the gate: a background mode's
// executor notes its transfers inside the gate, and the session takes the tally on the
// caller's thread at each step's end, while the executor may be inside a long H5Dwrite
// holding the gate; taking the gate there made the caller wait for that write before
// its compute (traced: the compute began within a millisecond of a background write's
// end). tallied says it holds a count, so TakeCensus skips even censusMu when nothing was
// noted (a step on a layout that makes no HDF5 transfer, or whose transfers keep no
// outcome).
var (
	censusMu sync.Mutex
	census   Census
	tallied  atomic.Bool
)

// selectionPaths are HDF5 1.14's H5D_SCALAR_IO, H5D_VECTOR_IO and H5D_SELECTION_IO bits
// (1.10's headers lack the names) and the paths they count.
var selectionPaths = [...]struct {
	bit  C.uint32_t
	path int
}{{0x4, PathSelection}, {0x2, PathVector}, {0x1, PathScalar}}

// noteTransfer adds the outcome of the call just made on dataset d through dxpl (H5P_DEFAULT: nothing
// to read) to the census: for a collective list, its actual I/O mode, chunk optimisation
// and causes; on HDF5 1.14, the path it took (multi: the datasets a multi-dataset call
// moved, then the actual selection I/O mode) and why selection I/O was not done. Called
// inside the gate.
func noteTransfer(dxpl C.hid_t, d C.hid_t, collective bool, multi int) {
	if dxpl == C.H5P_DEFAULT || !nativeObj(d) {
		// Under another connector the list is not the one the native connector filled
		// (a passthrough hands it a copy, perhaps later, on a thread of its own; the
		// log-based VOL, layout=log-vol, never hands the transfer to the native
		// connector: it logs the data and writes its logs with MPI-IO of its own at the
		// file's flush or close): there is no outcome to read, and the list's default
		// ("no collective") would be read as one.
		return
	}
	var o C.h5p_outcome
	C.h5p_read_outcome(dxpl, C.int(b2i(collective)), &o)
	tally(&o, collective, multi)
}

// tally adds the outcome o of a transfer (h5p_read_outcome, read inside the gate) to the
// census under censusMu: multi is the datasets a multi-dataset call moved (0 for one).
func tally(o *C.h5p_outcome, collective bool, multi int) {
	var n Census
	n.Paths[PathMulti] += multi
	if o.sel_rc >= 0 {
		for _, p := range selectionPaths {
			if o.actual&p.bit != 0 {
				n.Paths[p.path]++
			}
		}
		countBits(uint32(o.cause), n.SelCauses[:])
	}
	if collective {
		n.Collective++
		if o.mode_rc >= 0 {
			if m := int(o.mode); m >= 0 && m < NumIOModes {
				n.Modes[m]++
			}
			if c := int(o.chunk); c >= 0 && c < NumChunkOpts {
				n.ChunkOpts[c]++
			}
			countBits(uint32(o.local)|uint32(o.global), n.Causes[:])
		}
	}
	censusMu.Lock()
	census.add(&n)
	tallied.Store(true)
	censusMu.Unlock()
}

// add adds n's counts to c.
func (c *Census) add(n *Census) {
	c.Collective += n.Collective
	for i := range c.Modes {
		c.Modes[i] += n.Modes[i]
	}
	for i := range c.ChunkOpts {
		c.ChunkOpts[i] += n.ChunkOpts[i]
	}
	for i := range c.Causes {
		c.Causes[i] += n.Causes[i]
	}
	for i := range c.Paths {
		c.Paths[i] += n.Paths[i]
	}
	for i := range c.SelCauses {
		c.SelCauses[i] += n.SelCauses[i]
	}
}

// countBits adds one to counts[b] for every bit b set in c (bits past counts ignored).
func countBits(c uint32, counts []int) {
	for ; c != 0; c &= c - 1 {
		if b := bits.TrailingZeros32(c); b < len(counts) {
			counts[b]++
		}
	}
}

// TakeCensus returns the tally of collective transfers since the last call and starts a
// new one; ok is false when nothing was tallied (c is then zero).
func TakeCensus() (c Census, ok bool) {
	if !tallied.Load() {
		return Census{}, false
	}
	censusMu.Lock()
	defer censusMu.Unlock()
	c = census
	census = Census{}
	tallied.Store(false)
	return c, true
}

// FileProperties reads back the access and creation properties of the open file f. With
// the MPI-IO driver it is collective (HDF5 duplicates the file's communicator).
func FileProperties(f ID) (FileProps, error) {
	ai, err := FileAccessInfo(f)
	if err != nil {
		return FileProps{}, err
	}
	enter()
	defer leave()
	a := FileProps{AccessInfo: ai}
	op := fmt.Sprintf("file %d", f)
	fapl := C.H5Fget_access_plist(C.hid_t(f))
	if fapl < 0 {
		return a, stackError("H5Fget_access_plist " + op)
	}
	defer C.H5Pclose(fapl)
	var fail string
	check := func(call string, rc C.herr_t) {
		if rc < 0 && fail == "" {
			fail = call
		}
	}
	if a.Driver == "core" {
		var inc C.size_t
		var backing C.hbool_t
		check("H5Pget_fapl_core", C.H5Pget_fapl_core(fapl, &inc, &backing))
		a.CoreBacking = bool(backing)
	}
	var h1, h2 C.hsize_t
	var s1 C.size_t
	check("H5Pget_small_data_block_size", C.H5Pget_small_data_block_size(fapl, &h1))
	check("H5Pget_sieve_buf_size", C.H5Pget_sieve_buf_size(fapl, &s1))
	a.SmallDataBlockSize, a.SieveBufSize = uint64(h1), uint64(s1)
	check("H5Pget_alignment", C.H5Pget_alignment(fapl, &h1, &h2))
	a.AlignThreshold, a.AlignLen = uint64(h1), uint64(h2)
	var lo, hi C.H5F_libver_t
	check("H5Pget_libver_bounds", C.H5Pget_libver_bounds(fapl, &lo, &hi))
	a.LibverLow, a.LibverHigh = libverOf(lo), libverOf(hi)
	var mn C.size_t
	check("H5Pget_mdc_config", C.h5k_mdc_min(fapl, &mn))
	a.MDCMin = uint64(mn)
	var pmin1, pmin2 C.uint
	check("H5Pget_page_buffer_size", C.H5Pget_page_buffer_size(fapl, &s1, &pmin1, &pmin2))
	a.PageBufferSize = uint64(s1)
	fcpl := C.H5Fget_create_plist(C.hid_t(f))
	if fcpl < 0 {
		return a, stackError("H5Fget_create_plist " + op)
	}
	defer C.H5Pclose(fcpl)
	var strat C.H5F_fspace_strategy_t
	var persist C.hbool_t
	check("H5Pget_file_space_strategy", C.H5Pget_file_space_strategy(fcpl, &strat, &persist, &h1))
	for name, s := range fileSpaceStrategies {
		if s == strat {
			a.FileSpaceStrategy = name
		}
	}
	check("H5Pget_file_space_page_size", C.H5Pget_file_space_page_size(fcpl, &h2))
	a.FileSpacePageSize = uint64(h2)
	if fail != "" {
		return a, stackError(fail + " " + op)
	}
	if a.Driver == "mpio" {
		if a.Hints, err = hints("H5Pget_fapl_mpio "+op, fapl, -1); err != nil {
			return a, err
		}
		if a.FileHints, err = hints("MPI_File_get_info "+op, fapl, C.hid_t(f)); err != nil {
			return a, err
		}
	}
	return a, nil
}

// hints returns the pairs h5k_hints gives for fapl and file.
func hints(op string, fapl, file C.hid_t) (map[string]string, error) {
	var info C.MPI_Info
	rc := C.h5k_hints(fapl, file, &info)
	defer C.h5k_info_free(info)
	n := C.h5k_info_nkeys(info)
	if rc < 0 || n < 0 {
		C.H5Eclear2(C.H5E_DEFAULT)
		return nil, errorf("h5: %s failed", op)
	}
	const size = 1024 // MPI_MAX_INFO_VAL is 256 in OpenMPI, keys 36
	k := (*C.char)(C.calloc(size, 1))
	v := (*C.char)(C.calloc(size, 1))
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	m := map[string]string{}
	for i := C.int(0); i < n; i++ {
		if C.h5k_info_nth(info, i, k, v, size) < 0 {
			return nil, errorf("h5: %s: key %d failed", op, i)
		}
		m[C.GoString(k)] = C.GoString(v)
	}
	return m, nil
}

func libverOf(v C.H5F_libver_t) plan.Libver {
	switch v {
	case C.H5F_LIBVER_EARLIEST:
		return plan.LibverEarliest
	case C.H5F_LIBVER_V18:
		return plan.LibverV18
	}
	return plan.LibverV110
}

// DatasetTuning reads back the creation properties DatasetTuning sets on dataset d.
func DatasetTuning(d ID) (plan.DatasetTuning, error) {
	enter()
	defer leave()
	if err := checkID("DatasetTuning", d, C.H5I_DATASET); err != nil {
		return plan.DatasetTuning{}, err
	}
	op := fmt.Sprintf("dataset %d", d)
	dcpl := C.H5Dget_create_plist(C.hid_t(d))
	if dcpl < 0 {
		return plan.DatasetTuning{}, stackError("H5Dget_create_plist " + op)
	}
	defer C.H5Pclose(dcpl)
	var t plan.DatasetTuning
	var flags C.uint
	var ncd C.size_t
	t.Shuffle = C.H5Pget_filter_by_id2(dcpl, C.H5Z_FILTER_SHUFFLE, &flags, &ncd, nil, 0, nil, nil) >= 0
	C.H5Eclear2(C.H5E_DEFAULT) // absent filter: an error on the stack, not a failure
	var ft C.H5D_fill_time_t
	var at C.H5D_alloc_time_t
	if C.H5Pget_fill_time(dcpl, &ft) < 0 || C.H5Pget_alloc_time(dcpl, &at) < 0 {
		return t, stackError("H5Pget_fill_time/H5Pget_alloc_time " + op)
	}
	t.FillTime = fillTimeOf(ft)
	t.AllocTime = map[C.H5D_alloc_time_t]plan.AllocTime{C.H5D_ALLOC_TIME_EARLY: plan.AllocTimeEarly,
		C.H5D_ALLOC_TIME_LATE: plan.AllocTimeLate, C.H5D_ALLOC_TIME_INCR: plan.AllocTimeIncr}[at]
	return t, nil
}
