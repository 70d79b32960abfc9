package concat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// Table declares the tuning keys of a concatenation: `h5proxy concat` takes them as flags
// (-chunk 1MiB), a pattern that drives the tool as JSON keys of the same names.
var Table = &options.Table{Name: "concat", Specs: []options.Spec{
	{Key: "chunk", Kind: options.Size, Default: "0",
		Help: "chunk size in bytes of the output datasets (a 1-D chunk of that many bytes; 2-D: that many bytes of whole rows); 0 keeps the inputs' chunk shapes"},
	{Key: "deflate", Kind: options.Int, Default: "-1", Min: options.Bound(-1), Max: options.Bound(9),
		Help: "gzip level of the output's chunked datasets; -1 keeps the inputs' level, 0 writes them uncompressed"},
	{Key: "create", Kind: options.Enum, Default: "collective", Allowed: []string{"collective", "rank0"},
		Help: "who creates the output's groups and datasets: every rank collectively through MPI-IO, or rank 0 alone in a serial file that all ranks then reopen"},
	{Key: "empty-layout", Kind: options.Enum, Default: "contiguous", Allowed: []string{"contiguous", "chunked", "compact"},
		Help: "layout of the datasets that are empty in every input (chunked ones cost a chunk index each)"},
	{Key: "mdc", Kind: options.Enum, Default: "auto", Allowed: []string{"auto", "fixed"},
		Help: "metadata cache of the output: auto (HDF5's default, 2 MiB initial with automatic resizing) or fixed (128 MiB, resizing off)"},
	{Key: "meta-block", Kind: options.Size, Default: "0",
		Help: "metadata block size of the output (H5Pset_meta_block_size); 0 keeps HDF5's 2 KiB"},
	{Key: "input-driver", Kind: options.Enum, Default: "sec2", Allowed: []string{"sec2", "core"},
		Help: "how inputs are read: sec2 reads on the fly, core reads each whole input into memory when it is opened"},
	{Key: "partition", Kind: options.Enum, Default: "file", Allowed: []string{"file", "dataset"},
		Help: "how reads are spread: file gives each rank a contiguous block of inputs; dataset gives each dataset to one rank, which reads it from every input"},
	{Key: "fill-time", Kind: options.Enum, Default: "ifset", Allowed: plan.FillTimeNames,
		Help: "fill time of the output datasets (H5Pset_fill_time): when HDF5 writes fill values into newly allocated (compressed) chunks"},
	{Key: "partition-key", Kind: options.Bool, Default: "false",
		Help: "add to every group that holds datasets an int32 dataset " + KeyName + " giving, per row, the index of the input file the row came from"},
}}

// KeyName is the name of the partition key dataset added to each group.
const KeyName = "_file_index"

// Options are the tuning choices of a concatenation; the zero value is not valid, start
// from Defaults.
type Options struct {
	// ChunkBytes is the output chunk size in bytes; 0 keeps the inputs' chunk shapes.
	ChunkBytes uint64
	// Deflate is the output gzip level; -1 keeps the inputs'.
	Deflate int
	// RankZeroCreate creates the output's objects on rank 0 alone (serial file, reopened
	// by all) instead of collectively.
	RankZeroCreate bool
	// EmptyLayout is the layout of datasets empty in every input: "contiguous", "chunked"
	// or "compact".
	EmptyLayout string
	// FixedMDC sets a fixed 128 MiB metadata cache on the output, resizing off.
	FixedMDC bool
	// MetaBlock is the output's metadata block size (0: HDF5's).
	MetaBlock uint64
	// CoreInputs opens inputs with the core driver (whole file in memory).
	CoreInputs bool
	// ByDataset partitions the reads by dataset instead of by file.
	ByDataset bool
	// FillTime is the output datasets' fill time: "ifset", "never" or "alloc".
	FillTime string
	// PartitionKey adds the KeyName dataset to every group holding datasets.
	PartitionKey bool
	// Overwrite replaces an existing output instead of refusing it.
	Overwrite bool
}

// Defaults returns the options of Table's defaults.
func Defaults() Options {
	o, err := Parse(nil)
	if err != nil {
		panic(err) // the table's defaults parse
	}
	return o
}

// Parse reads key/value pairs of Table (unset keys take their defaults).
func Parse(kvs []options.KV) (Options, error) {
	v, err := Table.Parse(kvs)
	if err != nil {
		return Options{}, err
	}
	return FromValues(v), nil
}

// FromValues converts parsed values of Table.
func FromValues(v *options.Values) Options {
	return Options{
		ChunkBytes:     v.Uint("chunk"),
		Deflate:        int(v.Int("deflate")),
		RankZeroCreate: v.String("create") == "rank0",
		EmptyLayout:    v.String("empty-layout"),
		FixedMDC:       v.String("mdc") == "fixed",
		MetaBlock:      v.Uint("meta-block"),
		CoreInputs:     v.String("input-driver") == "core",
		ByDataset:      v.String("partition") == "dataset",
		FillTime:       v.String("fill-time"),
		PartitionKey:   v.Bool("partition-key"),
	}
}

// KVs returns the options as Table's keys and values, in the table's order: what a report
// records and what Parse reads back.
func (o Options) KVs() []options.KV {
	pick := func(b bool, yes, no string) string {
		if b {
			return yes
		}
		return no
	}
	return []options.KV{
		{Key: "chunk", Value: strconv.FormatUint(o.ChunkBytes, 10)},
		{Key: "deflate", Value: strconv.Itoa(o.Deflate)},
		{Key: "create", Value: pick(o.RankZeroCreate, "rank0", "collective")},
		{Key: "empty-layout", Value: o.EmptyLayout},
		{Key: "mdc", Value: pick(o.FixedMDC, "fixed", "auto")},
		{Key: "meta-block", Value: strconv.FormatUint(o.MetaBlock, 10)},
		{Key: "input-driver", Value: pick(o.CoreInputs, "core", "sec2")},
		{Key: "partition", Value: pick(o.ByDataset, "dataset", "file")},
		{Key: "fill-time", Value: o.FillTime},
		{Key: "partition-key", Value: strconv.FormatBool(o.PartitionKey)},
	}
}

// validate checks what the table cannot: options built in code.
func (o Options) validate() error {
	if o.Deflate < -1 || o.Deflate > 9 {
		return fmt.Errorf("concat: deflate=%d: want -1..9", o.Deflate)
	}
	if _, ok := emptyLayouts[o.EmptyLayout]; !ok {
		return fmt.Errorf("concat: empty-layout=%q: want contiguous, chunked or compact", o.EmptyLayout)
	}
	if _, ok := plan.ParseFillTime(o.FillTime); !ok {
		return fmt.Errorf("concat: fill-time=%q: want one of %s", o.FillTime, strings.Join(plan.FillTimeNames, ", "))
	}
	if o.ChunkBytes > maxChunkBytes {
		return fmt.Errorf("concat: chunk=%d: HDF5 chunks hold less than 4 GiB", o.ChunkBytes)
	}
	return nil
}

// maxChunkBytes is HDF5's limit on a chunk's size (32-bit sizes).
const maxChunkBytes = 1<<32 - 1
