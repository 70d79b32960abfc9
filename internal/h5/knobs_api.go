package h5

import "github.com/h5proxy/h5proxy/plan"

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

// NoCollectiveCauses name HDF5 1.10.8's reasons for breaking collective I/O
// (H5D_mpio_no_collective_cause_t), indexed by the bit's position.
var NoCollectiveCauses = [NumCauses]string{
	"independent I/O was requested",
	"datatype conversions were required",
	"data transforms needed to be applied",
	"optimized MPI types flag was disabled by environment variable",
	"one of the dataspaces was neither simple nor scalar",
	"dataset was neither contiguous nor chunked",
	"parallel writes to filtered datasets are disabled",
	"an error occurred while checking if collective I/O was possible",
}

// NumCauses is the number of no-collective cause bits.
const NumCauses = 8

// Census tallies the collective transfers since the last TakeCensus: how many were asked
// collective, the actual I/O mode and chunk optimisation of each and, per cause, how many were not (or not
// entirely) carried out collectively for it on this rank.
type Census struct {
	Collective int
	Modes      [NumIOModes]int
	ChunkOpts  [NumChunkOpts]int
	Causes     [NumCauses]int
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
