package h5

import (
	"errors"

	"github.com/h5proxy/h5proxy/plan"
)

// ErrNoMultiDataset is returned by TransferMulti in a build without HDF5 1.14's
// multi-dataset I/O (the system's HDF5 1.10.8).
var ErrNoMultiDataset = errors.New("h5: multi-dataset I/O (H5Dwrite_multi/H5Dread_multi) needs HDF5 1.14 (build HDF5=1.14)")

// This file holds the knobs' and census' declarations shared by the cgo build and the
// !cgo stub.

// IOModeNames name HDF5 1.10.8's actual I/O modes (H5D_mpio_actual_io_mode_t), indexed
// by the mode's value.
var IOModeNames = [NumIOModes]string{
	"no collective", "chunk independent", "chunk collective", "chunk mixed", "contiguous collective",
}

// NumIOModes is the number of actual I/O modes.
const NumIOModes = 5

// ChunkOptNames name HDF5 1.10.8's actual chunk optimisations
// (H5D_mpio_actual_chunk_opt_mode_t), indexed by value.
var ChunkOptNames = [NumChunkOpts]string{"no chunk optimization", "link chunk", "multi chunk"}

// NumChunkOpts is the number of actual chunk optimisations.
const NumChunkOpts = 3

// NoCollectiveCauses name HDF5's reasons for breaking collective I/O
// (H5D_mpio_no_collective_cause_t), indexed by the bit's position: 1.10.8's eight, then
// 1.14's H5D_MPIO_NO_SELECTION_IO.
var NoCollectiveCauses = [NumCauses]string{
	"independent I/O was requested",
	"datatype conversions were required",
	"data transforms needed to be applied",
	"optimized MPI types flag was disabled by environment variable",
	"one of the dataspaces was neither simple nor scalar",
	"dataset was neither contiguous nor chunked",
	"parallel writes to filtered datasets are disabled",
	"an error occurred while checking if collective I/O was possible",
	"selection I/O was not performed",
}

// NumCauses is the number of no-collective cause bits.
const NumCauses = 9

// PathNames name the paths a transfer takes through HDF5 1.14, for the census: "multi",
// a dataset moved by a multi-dataset call (H5Dwrite_multi, H5Dread_multi), then the
// actual selection I/O mode HDF5 reports of each call (H5Pget_actual_selection_io_mode:
// selection I/O, vector I/O, scalar I/O, the last being HDF5 1.10's only path).
var PathNames = [NumPaths]string{"multi", "selection", "vector", "scalar"}

// NumPaths is the number of transfer paths.
const NumPaths = 4

// Indices of PathNames.
const (
	PathMulti = iota
	PathSelection
	PathVector
	PathScalar
)

// NoSelectionCauses name HDF5 1.14's reasons for not doing selection I/O
// (H5Pget_no_selection_io_cause, the H5D_SEL_IO_* bits), indexed by the bit's position.
var NoSelectionCauses = [NumSelCauses]string{
	"disabled by the API",
	"dataset neither contiguous nor chunked",
	"sieve buffer of a contiguous dataset",
	"no vector or selection I/O callback in the file driver",
	"page buffer",
	"dataset filters",
	"chunk cache",
	"type conversion buffer too small",
	"background buffer too small",
	"the library chose it off (default mode)",
}

// NumSelCauses is the number of no-selection-I/O cause bits.
const NumSelCauses = 10

// Census tallies the transfers since the last TakeCensus: how many were asked
// collective, the actual I/O mode and chunk optimisation of each and, per cause, how many were not (or not
// entirely) carried out collectively for it on this rank.
type Census struct {
	Collective int
	Modes      [NumIOModes]int
	ChunkOpts  [NumChunkOpts]int
	Causes     [NumCauses]int
	// Paths counts every transfer (collective or not) by path (PathNames) and SelCauses
	// its calls by no-selection-I/O cause; HDF5 1.10 reports neither, so both stay zero.
	Paths     [NumPaths]int
	SelCauses [NumSelCauses]int
}

// FileProps are the properties of an open file the knobs set, beyond what FileAccessInfo
// reads (driver, metadata cache initial and maximum sizes and resizing, meta block size,
// collective metadata), for checks.
type FileProps struct {
	AccessInfo
	// CoreBacking is the core driver's backing store.
	CoreBacking                      bool
	SmallDataBlockSize, SieveBufSize uint64
	AlignThreshold, AlignLen         uint64
	LibverLow, LibverHigh            plan.Libver
	// MDCMin is the metadata cache's minimum size in the access list.
	MDCMin         uint64
	PageBufferSize uint64
	// FileSpaceStrategy is the creation list's strategy, spelled as FileTuning spells it.
	FileSpaceStrategy string
	FileSpacePageSize uint64
	// Hints are the MPI_Info hints of the MPI-IO driver's access list (what HDF5 passes
	// to MPI_File_open); FileHints are those MPI-IO reports for the open file.
	Hints, FileHints map[string]string
}
