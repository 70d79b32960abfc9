package h5

import "github.com/h5proxy/h5proxy/plan"

// This file holds the declarations of copy.go shared by the cgo build and the !cgo stub:
// what a tool copying whole files (h5proxy concat) needs, types kept as HDF5 encodes them.

// Layout is a dataset's storage layout (H5D_layout_t values).
type Layout int

// Storage layouts.
const (
	LayoutCompact    Layout = 0 // H5D_COMPACT
	LayoutContiguous Layout = 1 // H5D_CONTIGUOUS
	LayoutChunked    Layout = 2 // H5D_CHUNKED
)

// String names the layout as the concat options do.
func (l Layout) String() string {
	switch l {
	case LayoutCompact:
		return "compact"
	case LayoutContiguous:
		return "contiguous"
	case LayoutChunked:
		return "chunked"
	}
	return "virtual"
}

// RawType is a datatype as HDF5 serializes it (H5Tencode): two types are the same exactly
// when their encodings are, and the encoding recreates the type in another file or rank.
type RawType struct {
	// Enc is the H5Tencode image.
	Enc []byte
	// Size is the element size in bytes.
	Size int
	// Desc describes the type for messages ("int32", "float64", "class 0 of 2 bytes").
	Desc string
	// VarLen reports a variable-length type (or one containing one), whose elements are
	// pointers in memory and cannot be copied as bytes.
	VarLen bool
}

// AttrInfo describes one attribute of an object.
type AttrInfo struct {
	Name string
	Type RawType
	Dims []uint64 // empty for a scalar attribute
}

// ObjectInfo describes a group or dataset, as Describe finds it.
type ObjectInfo struct {
	// Type, Dims, MaxDims, Layout, Chunk, Deflate and FillTime describe datasets only.
	Type          RawType
	Dims, MaxDims []uint64
	Layout        Layout
	Chunk         []uint64 // nil unless chunked
	Deflate       int      // 0 without the deflate filter
	FillTime      plan.FillTime
	// Attrs are the object's attributes in name order.
	Attrs []AttrInfo
}

// Stat identifies an object and counts its attributes and links, as ObjectStat finds them.
type Stat struct {
	// FileNo and Addr identify the object: the same values for the same object, whatever
	// the path it was opened by.
	FileNo, Addr uint64
	// Attrs is the number of attributes.
	Attrs int
	// Links is a group's number of links (hard, soft, external); -1 for a dataset.
	Links int
}

// Override changes the creation properties CreateLike takes from its template dataset.
type Override struct {
	// Dims is the new extent (same rank as the template's).
	Dims []uint64
	// Layout is the new layout. Chunked datasets get an unlimited first dimension;
	// contiguous and compact ones lose the filter pipeline (HDF5 filters chunks only).
	Layout Layout
	// Chunk is the chunk shape of a chunked layout (nil: the template's).
	Chunk []uint64
	// Deflate is the deflate level, -1 to keep the template's (0 removes the filter).
	Deflate int
	// FillTime sets the fill time; plan.FillTimeUnset keeps the template's.
	FillTime plan.FillTime
	// Int32 makes the dataset native 32-bit integers (fill value 0) instead of the
	// template's type: the partition key.
	Int32 bool
}

// AccessInfo is how an open file is accessed: what the concat options set on the output
// and the inputs, read back from HDF5.
type AccessInfo struct {
	// Driver is "sec2", "core", "mpio" or "other".
	Driver string
	// MDCInitial and MDCMax are the metadata cache's initial and maximum sizes; MDCResize
	// reports automatic resizing (increase or decrease) on.
	MDCInitial, MDCMax uint64
	MDCResize          bool
	// MetaBlock is the metadata block size.
	MetaBlock uint64
	// CollMetadataOps and CollMetadataWrite report collective metadata reads and writes.
	CollMetadataOps, CollMetadataWrite bool
}
