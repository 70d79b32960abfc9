package plan

import (
	"fmt"
	"slices"
)

// The tuning below is what the session's knobs (hdf5.* keys) add on top of what a pattern
// plans: properties no application pattern sets itself. The zero value of each field is
// HDF5's own default, so a plan without knobs is unchanged.

// Libver is an HDF5 library version bound (H5F_libver_t).
type Libver int8

// Library version bounds; LibverUnset leaves HDF5's (or the pattern's) bounds.
const (
	LibverUnset Libver = iota
	LibverEarliest
	LibverV18
	LibverV110 // also LATEST in HDF5 1.10
)

// Toggle is a property a knob turns on or off, or leaves alone (ToggleUnset).
type Toggle int8

// Toggle values.
const (
	ToggleUnset Toggle = iota
	ToggleOn
	ToggleOff
)

// FileTuning holds the file-access and file-creation properties of the knobs.
type FileTuning struct {
	// SmallDataBlockSize and SieveBufSize, when > 0, map to H5Pset_small_data_block_size and
	// H5Pset_sieve_buf_size.
	SmallDataBlockSize, SieveBufSize uint64
	// LibverLow and LibverHigh, when set, map to H5Pset_libver_bounds (both are set: an unset
	// one takes HDF5's default, earliest for low and latest for high).
	LibverLow, LibverHigh Libver
	// MDCResize turns the metadata cache's automatic resizing on or off (H5Pset_mdc_config).
	MDCResize Toggle
	// Core opens the file serially with the core driver (H5Pset_fapl_core); CoreBacking
	// writes the image back to the file at close (backing store on).
	Core, CoreBacking bool
	// FileSpaceStrategy, when set, is one of "fsm_aggr", "page", "aggr" or "none" for
	// H5Pset_file_space_strategy on creates; FileSpacePageSize, when > 0, sets
	// H5Pset_file_space_page_size.
	FileSpaceStrategy string
	FileSpacePageSize uint64
	// PageBufferSize, when > 0, maps to H5Pset_page_buffer_size (paged files only).
	PageBufferSize uint64
}

// FillTime is a dataset's fill time (H5D_fill_time_t); FillTimeUnset leaves the pattern's
// (or, copying a dataset, the template's). It is the one spelling of the property for the
// session's knobs, the concatenation tool and the HDF5 binding.
type FillTime int8

// Fill times.
const (
	FillTimeUnset FillTime = iota
	FillTimeIfSet
	FillTimeAlloc
	FillTimeNever
)

// FillTimeNames name the fill times from FillTimeIfSet on, as the hdf5.fill_time knob and
// h5proxy concat's -fill-time spell them.
var FillTimeNames = []string{"ifset", "alloc", "never"}

// ParseFillTime returns the fill time of a name of FillTimeNames; false for another name.
func ParseFillTime(name string) (FillTime, bool) {
	i := slices.Index(FillTimeNames, name)
	return FillTime(i + 1), i >= 0
}

// String returns the fill time's name, "unset" for FillTimeUnset.
func (f FillTime) String() string {
	if f > FillTimeUnset && int(f) <= len(FillTimeNames) {
		return FillTimeNames[f-1]
	}
	if f == FillTimeUnset {
		return "unset"
	}
	return fmt.Sprintf("filltime(%d)", int(f))
}

// AllocTime is a dataset's storage allocation time (H5D_alloc_time_t).
type AllocTime int8

// Allocation times; AllocTimeUnset leaves HDF5's default for the layout.
const (
	AllocTimeUnset AllocTime = iota
	AllocTimeDefault
	AllocTimeEarly
	AllocTimeLate
	AllocTimeIncr
)

// AllocTimeNames name the allocation times from AllocTimeDefault on, as the
// hdf5.alloc_time knob spells them.
var AllocTimeNames = []string{"default", "early", "late", "incr"}

// ParseAllocTime returns the allocation time of a name of AllocTimeNames; false for
// another name.
func ParseAllocTime(name string) (AllocTime, bool) {
	i := slices.Index(AllocTimeNames, name)
	return AllocTime(i + 1), i >= 0
}

// DatasetTuning holds the dataset-creation properties of the knobs beyond Chunk and Deflate.
type DatasetTuning struct {
	// Shuffle adds the shuffle filter ahead of the others (H5Pset_shuffle).
	Shuffle bool
	// FillTime and AllocTime map to H5Pset_fill_time and H5Pset_alloc_time when set.
	FillTime  FillTime
	AllocTime AllocTime
}

// ChunkOpt is the collective chunk optimisation (H5Pset_dxpl_mpio_chunk_opt).
type ChunkOpt int8

// Chunk optimisations; ChunkOptDefault lets HDF5 choose.
const (
	ChunkOptDefault ChunkOpt = iota
	ChunkOptOneIO
	ChunkOptMultiIO
)

// SelectionIO is HDF5 1.14's selection I/O mode of a transfer (H5Pset_selection_io).
type SelectionIO int8

// Selection I/O modes; SelectionIOUnset leaves HDF5's default (HDF5 1.10 has no selection
// I/O: only unset is valid there).
const (
	SelectionIOUnset SelectionIO = iota
	SelectionIODefault
	SelectionIOOn
	SelectionIOOff
)

// TransferTuning holds the knobs of a transfer's property list.
type TransferTuning struct {
	// Individual carries a collective transfer out as individual I/O
	// (H5Pset_dxpl_mpio_collective_opt with H5FD_MPIO_INDIVIDUAL_IO).
	Individual bool
	// ChunkOpt selects the chunk optimisation of collective transfers of chunked datasets.
	ChunkOpt ChunkOpt
	// SelectionIO sets HDF5 1.14's selection I/O mode, of collective and independent
	// transfers alike.
	SelectionIO SelectionIO
}
