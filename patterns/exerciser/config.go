package exerciser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// MaxDims is the exerciser's MAX_DIM: the most dataset dimensions it supports.
const MaxDims = 4

// Iterations is the exerciser's NUM_ITERATIONS: the repetitions of each buffer size.
const Iterations = 10

// Options declares the exerciser's command-line flags under the names h5bench's
// configuration gives them (h5bench passes each key as --<key> <value>, and the flags
// keepfile, usechunked, indepio, addattr and derivedtype when their value is "true"),
// plus iterations, the exerciser's compile-time NUM_ITERATIONS.
var Options = &options.Table{Name: "exerciser", Specs: []options.Spec{
	{Key: "numdims", Kind: options.Int, Default: "1", Min: options.Bound(1), Max: options.Bound(MaxDims), Help: "dimensions of the datasets, at most 4 (the exerciser requires the key; h5proxy defaults to 1)"},
	{Key: "minels", Kind: options.String, Help: "elements of each rank's buffer in each dimension at the first size: numdims numbers (default 8 each)"},
	{Key: "nsizes", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "buffer sizes run, each multiplied by bufmult per dimension from the previous"},
	{Key: "bufmult", Kind: options.String, Help: "factor per dimension between one size and the next: numdims numbers (default 2 each)"},
	{Key: "dimranks", Kind: options.String, Help: "ranks along each dimension: numdims numbers whose product is the rank count; otherwise (and by default) dimension 0 is split over all ranks, as the exerciser falls back with a warning"},
	{Key: "metacoll", Kind: options.Bool, Default: "false", Help: "collective metadata: H5Pset_coll_metadata_write for the first create, H5Pset_all_coll_metadata_ops for every later create and open (the exerciser built with METACOLOK; h5bench's build leaves it out)"},
	{Key: "derivedtype", Kind: options.Bool, Default: "false", Help: "also write the compound dataset /Data/derivedData/simulation parameters in every iteration"},
	{Key: "addattr", Kind: options.Bool, Default: "false", Help: "write 64 attributes of 1024 chars on /Data in every iteration"},
	{Key: "indepio", Kind: options.Bool, Default: "false", Help: "independent H5Dwrite/H5Dread (default collective)"},
	{Key: "keepfile", Kind: options.Bool, Default: "false", Help: "keep the file after the run (the exerciser unlinks it otherwise)"},
	{Key: "usechunked", Kind: options.Bool, Default: "false", Help: "chunked datasets, one chunk per file block"},
	{Key: "maxcheck", Kind: options.Size, Help: "check the data read only at sizes whose buffer (bytes per rank) is at most this (default: every size)"},
	{Key: "memblock", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "block of the 1-D memory selection in elements; 0 or a non-divisor of the buffer falls back to 1 (contiguous)"},
	{Key: "memstride", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "stride of the memory selection in elements (raised to memblock); names the dataset's size"},
	{Key: "fileblocks", Aliases: []string{"fileblock"}, Kind: options.String, Help: "file hyperslab block per dimension: numdims numbers; a 0 or non-divisor of that dimension's size means one block of the whole buffer"},
	{Key: "filestrides", Aliases: []string{"filestride"}, Kind: options.String, Help: "file hyperslab stride per dimension: numdims numbers (raised to the block; default 1)"},
	{Key: "rshift", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "rank positions the write is shifted in the file (the read twice as far, reading another rank's data)"},
	{Key: "iterations", Kind: options.Int, Default: strconv.Itoa(Iterations), Min: options.Bound(1), Help: "repetitions of each size (the exerciser's compile-time NUM_ITERATIONS, 10)"},
}}

// Config is the validated configuration of one exerciser run.
type Config struct {
	NumDims int
	// MinEls, BufMult, FileBlocks and FileStrides have NumDims entries each.
	MinEls, BufMult         []uint64
	FileBlocks, FileStrides []uint64
	// DimRanks is nil when dimranks is unset (dimension 0 split over all ranks).
	DimRanks []uint64
	NSizes   int
	// MetaColl, DerivedType, AddAttr, IndepIO, KeepFile and UseChunked are the flags.
	MetaColl, DerivedType, AddAttr, IndepIO, KeepFile, UseChunked bool
	// MaxCheck bounds the buffer sizes checked when MaxCheckSet.
	MaxCheck    uint64
	MaxCheckSet bool
	MemBlock    uint64
	MemStride   uint64
	RShift      int
	Iterations  int
}

// FromValues builds and validates a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{NumDims: int(v.Int("numdims")), NSizes: int(v.Int("nsizes")),
		MetaColl: v.Bool("metacoll"), DerivedType: v.Bool("derivedtype"), AddAttr: v.Bool("addattr"),
		IndepIO: v.Bool("indepio"), KeepFile: v.Bool("keepfile"), UseChunked: v.Bool("usechunked"),
		MaxCheck: v.Uint("maxcheck"), MaxCheckSet: v.IsSet("maxcheck"),
		MemBlock: v.Uint("memblock"), MemStride: v.Uint("memstride"), RShift: int(v.Int("rshift")),
		Iterations: int(v.Int("iterations"))}
	var err error
	for _, l := range []struct {
		key      string
		dst      *[]uint64
		def, min uint64
	}{{"minels", &c.MinEls, 8, 1}, {"bufmult", &c.BufMult, 2, 1}, {"fileblocks", &c.FileBlocks, 0, 0}, {"filestrides", &c.FileStrides, 1, 0}} {
		if *l.dst, err = list(v, l.key, c.NumDims, l.def, l.min); err != nil {
			return c, err
		}
	}
	if v.IsSet("dimranks") {
		if c.DimRanks, err = list(v, "dimranks", c.NumDims, 1, 1); err != nil {
			return c, err
		}
	}
	// The exerciser keeps a rank's element count in an int.
	for s := 0; s < c.NSizes; s++ {
		if n := c.Size(s).Elements(); n >= 1<<31 {
			return c, v.Invalid("nsizes", fmt.Sprintf("size %d holds %d elements per rank, more than the exerciser's int counts", s, n), "fewer sizes, or smaller minels or bufmult")
		}
	}
	return c, nil
}

// list parses numdims space-separated integers >= min, or returns def for each dimension
// when the key is unset.
func list(v *options.Values, key string, dims int, def, min uint64) ([]uint64, error) {
	out := make([]uint64, dims)
	if !v.IsSet(key) {
		for i := range out {
			out[i] = def
		}
		return out, nil
	}
	allowed := fmt.Sprintf("%d space-separated integers >= %d (one per dimension, numdims=%d)", dims, min, dims)
	f := strings.Fields(v.String(key))
	if len(f) != dims {
		return nil, v.Invalid(key, fmt.Sprintf("has %d numbers, numdims=%d needs %d", len(f), dims, dims), allowed)
	}
	for i, s := range f {
		n, err := strconv.ParseUint(s, 10, 31)
		if err != nil || n < min {
			return nil, v.Invalid(key, fmt.Sprintf("%q is not an integer >= %d", s, min), allowed)
		}
		out[i] = n
	}
	return out, nil
}

// Size is one buffer size: each rank's elements per dimension.
type Size []uint64

// Size returns the elements per dimension of buffer size s (0-based): minels times
// bufmult to the power s.
func (c Config) Size(s int) Size {
	cur := make(Size, c.NumDims)
	for d := range cur {
		cur[d] = c.MinEls[d]
		for i := 0; i < s; i++ {
			cur[d] *= c.BufMult[d]
		}
	}
	return cur
}

// Elements is the number of elements of a rank's buffer.
func (s Size) Elements() uint64 {
	n := uint64(1)
	for _, e := range s {
		n *= e
	}
	return n
}

// Bytes is the exerciser's Bufsize: the bytes of a rank's double buffer.
func (s Size) Bytes() uint64 { return 8 * s.Elements() }
