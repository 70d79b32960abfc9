package openpmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// Options declares the keys of the h5bench `openpmd` benchmark with h5bench's names (the
// lines of the 8a input file: dim, balanced, ratio, steps, minBlock, grid, fileLocation,
// plus operation and pattern), the 8a input keys h5bench never writes but passes through
// (encoding, rankBlocks), and openPMD-api's HDF5 backend settings under the names of the
// environment variables that control them. Session-level keys (mode, compute time, CSV
// file) belong to package proxy.
var Options = &options.Table{Name: "openpmd", Specs: []options.Spec{
	{Key: "operation", Kind: options.Enum, Allowed: []string{"write", "read"}, Help: "h5bench: write runs the 8a writer, read the 8b reader; h5proxy run takes the phase from it (native runs choose phases with the session)"},
	{Key: "dim", Kind: options.Int, Default: "3", Min: options.Bound(1), Max: options.Bound(3), Help: "mesh dimensionality"},
	{Key: "balanced", Kind: options.Enum, Default: "true", Allowed: []string{"true", "false"}, Help: "false: unbalanced load on iterations 1, 4, 7, ... (ranks r%4==0 hand their patch to r+1; r%10 in 1-D)"},
	{Key: "ratio", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "particles per mesh cell"},
	{Key: "steps", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "iterations 1..steps; the read processes every 5th (1, 6, 11, ...) as 8b does"},
	{Key: "minBlock", Kind: options.String, Help: "mini block extent per dimension: dim numbers separated by spaces (default 64 32 32)"},
	{Key: "grid", Kind: options.String, Help: "mesh extent in mini blocks per dimension: dim numbers separated by spaces (default: ranks 8 8; an x of 0 means the number of ranks)"},
	{Key: "pattern", Kind: options.Enum, Default: "m", Allowed: []string{"m", "sx", "sy", "sz", "fx", "fy", "fz"}, Help: "8b read pattern: m metadata only, s<axis> a slice of rho, f<axis> slices of B/x, B/y, B/z (3-D)"},
	{Key: "fileLocation", Kind: options.String, Help: "directory of the series (h5bench's runner appends the run directory); the session file must be in it"},
	{Key: "input_file", Kind: options.String, Help: "h5proxy: the input file 8a reads at start (parseArgs: every rank reads it with std::getline on a std::fstream); h5bench's runner passes openpmd.input to the write; default: none read"},
	{Key: "encoding", Kind: options.Enum, Default: "v", Allowed: []string{"v", "g", "f", "variableBased", "groupBased", "fileBased"}, Help: "iteration encoding (8a: f file-based, g group-based, anything else variable-based; h5bench never sets it)"},
	{Key: "rankBlocks", Kind: options.Bool, Default: "true", Help: "8a: one block per rank per record; false (with independent transfers) stores one chunk per mini block"},
	{Key: "OPENPMD_HDF5_INDEPENDENT", Kind: options.Bool, Default: "ON", Help: "independent H5Dwrite/H5Dread (openPMD-api's default); OFF: collective"},
	{Key: "OPENPMD_HDF5_COLLECTIVE_METADATA", Kind: options.Bool, Default: "ON", Help: "collective metadata reads and writes"},
	{Key: "OPENPMD_HDF5_DEFER_METADATA", Kind: options.Bool, Default: "ON", Help: "metadata cache with evictions and resizing off (openPMD-api's deferral)"},
	{Key: "OPENPMD_HDF5_DEFER_METADATA_SIZE", Kind: options.Size, Default: "32MiB", Min: options.Bound(1), Help: "initial metadata cache size when deferring"},
	{Key: "OPENPMD_HDF5_ALIGNMENT", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "H5Pset_alignment when > 1"},
	{Key: "OPENPMD_HDF5_THRESHOLD", Kind: options.Size, Default: "0", Help: "alignment threshold in bytes"},
	{Key: "OPENPMD_HDF5_CHUNKS", Kind: options.Enum, Default: "auto", Allowed: []string{"auto", "none"}, Help: "auto: openPMD-api's chunk shapes; none: contiguous datasets"},
}}

// Encoding is an openPMD iteration encoding.
type Encoding int

// The iteration encodings.
const (
	// VariableBased keeps the one iteration at /data (8a's default: no `encoding` key).
	VariableBased Encoding = iota + 1
	// GroupBased keeps iteration T at /data/T in one file.
	GroupBased
	// FileBased writes iteration T to its own file, with /data/T inside.
	FileBased
)

// String returns the openPMD name (the value of the iterationEncoding attribute).
func (e Encoding) String() string {
	switch e {
	case VariableBased:
		return "variableBased"
	case GroupBased:
		return "groupBased"
	case FileBased:
		return "fileBased"
	}
	return fmt.Sprintf("encoding(%d)", int(e))
}

// Config is the validated configuration of the 8a writer and 8b reader.
type Config struct {
	Operation string // "", write or read
	Dim       int
	Balanced  bool
	Ratio     uint64
	Steps     int
	// MinBlock is the mini block extent per dimension (Dim entries).
	MinBlock []uint64
	// Grid is the mesh extent in mini blocks (Dim entries); Grid[0] == 0 means the number
	// of ranks, resolved when the rank count is known.
	Grid         []uint64
	Pattern      string // m, sx, sy, sz, fx, fy, fz
	FileLocation string
	// InputFile is the input file every rank reads before any I/O, as 8a's parseArgs reads
	// it; "" reads none.
	InputFile  string
	Encoding   Encoding
	RankBlocks bool
	// Independent selects independent transfers (openPMD-api's default).
	Independent        bool
	CollectiveMetadata bool
	DeferMetadata      bool
	DeferMetadataSize  uint64
	Alignment          uint64
	Threshold          uint64
	// Chunks selects openPMD-api's automatic chunking (false: contiguous datasets).
	Chunks bool
}

// Defaults of 8a for an unset minBlock and grid (grid x defaults to the rank count).
var (
	defaultMinBlock = []uint64{64, 32, 32}
	defaultGrid     = []uint64{0, 8, 8}
)

// FromValues builds and validates a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{
		Operation: v.String("operation"), Dim: int(v.Int("dim")), Balanced: v.String("balanced") == "true",
		Ratio: v.Uint("ratio"), Steps: int(v.Int("steps")), Pattern: v.String("pattern"),
		FileLocation: v.String("fileLocation"), RankBlocks: v.Bool("rankBlocks"), InputFile: v.String("input_file"),
		Independent: v.Bool("OPENPMD_HDF5_INDEPENDENT"), CollectiveMetadata: v.Bool("OPENPMD_HDF5_COLLECTIVE_METADATA"),
		DeferMetadata: v.Bool("OPENPMD_HDF5_DEFER_METADATA"), DeferMetadataSize: v.Uint("OPENPMD_HDF5_DEFER_METADATA_SIZE"),
		Alignment: v.Uint("OPENPMD_HDF5_ALIGNMENT"), Threshold: v.Uint("OPENPMD_HDF5_THRESHOLD"),
		Chunks: v.String("OPENPMD_HDF5_CHUNKS") == "auto",
	}
	switch v.String("encoding") {
	case "f", "fileBased":
		c.Encoding = FileBased
	case "g", "groupBased":
		c.Encoding = GroupBased
	default:
		c.Encoding = VariableBased
	}
	var err error
	if c.MinBlock, err = extents(v, "minBlock", c.Dim, defaultMinBlock, 1); err != nil {
		return c, err
	}
	if c.Grid, err = extents(v, "grid", c.Dim, defaultGrid, 0); err != nil {
		return c, err
	}
	for d := 1; d < c.Dim; d++ {
		if c.Grid[d] == 0 {
			return c, bad(v, "grid", fmt.Sprintf("dimension %d has 0 mini blocks (only x may be 0: the number of ranks)", d+1), "numbers >= 1 after the first")
		}
	}
	if c.Steps > 1 && c.Encoding == VariableBased {
		return c, bad(v, "steps", "the variable-based encoding (8a's default when encoding is not given, as in every h5bench configuration) keeps one iteration at /data; openPMD-api's HDF5 backend cannot hold a second step in it",
			"steps=1, or encoding=g (group-based, one file) or encoding=f (file-based, one file per iteration) for more steps")
	}
	return c, nil
}

// extents parses a space-separated list of exactly dim numbers >= min, or returns the
// default's first dim entries when the key is unset.
func extents(v *options.Values, key string, dim int, def []uint64, min uint64) ([]uint64, error) {
	if !v.IsSet(key) {
		return append([]uint64(nil), def[:dim]...), nil
	}
	f := strings.Fields(v.String(key))
	if len(f) != dim {
		return nil, bad(v, key, fmt.Sprintf("has %d numbers, dim=%d needs exactly %d (8a ignores such a line and falls back to its defaults)", len(f), dim, dim),
			fmt.Sprintf("%d space-separated integers >= %d", dim, min))
	}
	out := make([]uint64, dim)
	for i, s := range f {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n < min {
			return nil, bad(v, key, fmt.Sprintf("%q is not an integer >= %d", s, min), fmt.Sprintf("%d space-separated integers >= %d", dim, min))
		}
		out[i] = n
	}
	return out, nil
}

// bad returns a configuration error naming the key, its value, the reason and what is
// allowed.
func bad(v *options.Values, key, reason, allowed string) error {
	err := v.Errorf(key, "%s", reason).(*options.Error)
	err.Allowed = allowed
	return err
}

// SeriesName is the file name 8a gives the series: 8a_parallel_<dim>D<b|u>.h5, with
// _%07T before the extension for the file-based encoding (b: balanced, u: unbalanced).
func (c Config) SeriesName() string {
	b := "b"
	if !c.Balanced {
		b = "u"
	}
	name := fmt.Sprintf("8a_parallel_%dD%s", c.Dim, b)
	if c.Encoding == FileBased {
		name += "_%07T"
	}
	return name + ".h5"
}
