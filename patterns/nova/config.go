package nova

import (
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// Options declares the pattern's keys: the scale of the synthesized input set, then the
// concatenation's tuning keys under the names (dashes for underscores) that the command
// `h5proxy concat` takes as flags.
var Options = &options.Table{Name: "nova", Specs: []options.Spec{
	{Key: "files", Kind: options.Int, Default: "8", Min: options.Bound(1), Help: "input files, every one with the same schema (rank r of P generates files r, r + P, ... and concatenates the contiguous block r F/P .. (r+1) F/P)"},
	{Key: "groups", Kind: options.Int, Default: "100", Min: options.Bound(1), Help: "groups (tables) per file, the first being /spill (NOvA ND files: 999)"},
	{Key: "datasets_per_group", Kind: options.Int, Default: "16", Min: options.Bound(4), Help: "datasets (columns) per group: run, subrun, evt, cycle, then data columns of mixed types (NOvA ND: about 16)"},
	{Key: "datasets_2d", Kind: options.Int, Default: "8", Min: options.Bound(0), Help: "2-D datasets per file (NOvA ND: 8; the default is capped at groups - 1): the last column of the first non-empty tables after /spill (then of empty ones) is rows x width_2d instead of rows x 1"},
	{Key: "width_2d", Kind: options.Int, Default: "4", Min: options.Bound(2), Help: "second dimension of the 2-D datasets"},
	{Key: "empty_fraction", Kind: options.Float, Default: "0.84", Help: "fraction of the tables (and so of the datasets) empty in every file, /spill never (NOvA ND: 13,396 of 15,973 datasets, 0.84; FD 0.72)"},
	{Key: "rows_mean", Kind: options.Int, Default: "200", Min: options.Bound(1), Help: "mean rows of a non-empty table in one file; a table's rows per file are drawn from a log-normal distribution (sigma 1) around it, seeded by the session's seed"},
	{Key: "compress_ratio", Kind: options.Int, Default: "32", Min: options.Bound(1), Max: options.Bound(128), Help: "data values repeat in runs of this many rows (1: every value differs); deflate level 6 on 128-row chunks then compresses the data columns 1.6x at 1, 7.5x at 8, 24x at 64, 28x at 128 (the chunk bounds it); run, subrun and cycle are constant per file, evt grows by one per run of rows"},
	{Key: "output", Kind: options.String, Default: "concat.h5", Help: "the concatenated file, in the data directory (the session's file)"},
	{Key: "chunk", Kind: options.Size, Default: "0", Help: "output chunk size in bytes (the paper: 256 KiB to 256 MiB, about 1 MiB best for 1-D): rows per chunk = chunk / row bytes, at most the dataset's rows; 0: the inputs' 128 rows"},
	{Key: "deflate", Kind: options.Int, Default: "-1", Min: options.Bound(-1), Max: options.Bound(9), Help: "output gzip level: -1 the inputs' (6), 0 none"},
	{Key: "create", Kind: options.Enum, Default: "collective", Allowed: []string{"collective", "rank0"}, Help: "collective: all ranks create the output and its datasets; rank0: rank 0 creates them alone (sec2), closes, then all ranks open it and its non-empty datasets (ph5concat -s)"},
	{Key: "empty_layout", Kind: options.Enum, Default: "contiguous", Allowed: []string{"contiguous", "chunked", "compact"}, Help: "layout of the output's zero-size datasets: contiguous (HDF5's default), chunked (unlimited first dimension) or compact (ph5concat's)"},
	{Key: "mdc", Kind: options.Enum, Default: "auto", Allowed: []string{"auto", "fixed"}, Help: "output metadata cache: auto (HDF5's 2 MiB initial size with automatic resizing) or fixed (128 MiB, no resizing, as ph5concat sets)"},
	{Key: "meta_block", Kind: options.Size, Default: "0", Help: "output metadata block size (H5Pset_meta_block_size); 0: HDF5's 2 KiB"},
	{Key: "input_driver", Kind: options.Enum, Default: "sec2", Allowed: []string{"sec2", "core"}, Help: "how inputs are read: sec2 (on the fly) or core (the whole file read into memory at open, ph5concat's default)"},
	{Key: "partition", Kind: options.Enum, Default: "file", Allowed: []string{"file", "dataset"}, Help: "file: each rank reads every dataset of its block of files; dataset: each rank reads its share of the datasets (dataset k goes to rank k mod P) from every file and alone supplies them to the collective writes"},
	{Key: "fill_time", Kind: options.Enum, Default: "ifset", Allowed: []string{"ifset", "never", "alloc"}, Help: "fill time of the output's non-empty datasets (H5Pset_fill_time)"},
	{Key: "partition_key", Kind: options.Bool, Default: "false", Help: "a partition key dataset per group (ph5concat -k; `h5proxy concat -partition-key` writes each row's input file index): tool-only, the pattern refuses true"},
}}

// Layouts of the output's zero-size datasets.
const (
	EmptyContiguous = "contiguous"
	EmptyChunked    = "chunked"
	EmptyCompact    = "compact"
)

// Config is a validated nova configuration.
type Config struct {
	Files, Groups, PerGroup, Datasets2D, Width2D int
	EmptyFraction                                float64
	RowsMean                                     int
	Run                                          int // compress_ratio: rows per run of equal values
	Output                                       string
	// Tuning of the concatenation.
	ChunkBytes    uint64
	Deflate       int // -1: the inputs'
	Rank0Create   bool
	EmptyLayout   string
	FixedMDC      bool
	MetaBlock     uint64
	Core          bool
	DatasetSplit  bool
	FillTime      string
	PartitionKeys bool
}

// FromValues builds a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{Files: int(v.Int("files")), Groups: int(v.Int("groups")), PerGroup: int(v.Int("datasets_per_group")),
		Datasets2D: int(v.Int("datasets_2d")), Width2D: int(v.Int("width_2d")), EmptyFraction: v.Float("empty_fraction"),
		RowsMean: int(v.Int("rows_mean")), Run: int(v.Int("compress_ratio")), Output: v.String("output"),
		ChunkBytes: v.Uint("chunk"), Deflate: int(v.Int("deflate")), Rank0Create: v.String("create") == "rank0",
		EmptyLayout: v.String("empty_layout"), FixedMDC: v.String("mdc") == "fixed", MetaBlock: v.Uint("meta_block"),
		Core: v.String("input_driver") == "core", DatasetSplit: v.String("partition") == "dataset",
		FillTime: v.String("fill_time"), PartitionKeys: v.Bool("partition_key")}
	if c.EmptyFraction < 0 || c.EmptyFraction >= 1 {
		return c, v.Errorf("empty_fraction", "must be in [0, 1): /spill is never empty")
	}
	if c.Datasets2D > c.Groups-1 && !v.IsSet("datasets_2d") {
		c.Datasets2D = c.Groups - 1 // the default, on a small schema
	}
	if c.Datasets2D > c.Groups-1 {
		return c, v.Errorf("datasets_2d", "at most one 2-D dataset per group other than /spill: %d groups hold at most %d", c.Groups, c.Groups-1)
	}
	if c.Output == "" || strings.Contains(c.Output, "/") {
		return c, v.Errorf("output", "must be a file name without '/' (it is created in the data directory)")
	}
	if c.PartitionKeys {
		return c, v.Invalid("partition_key", "the partition key datasets are made by `h5proxy concat -partition-key`, not by the pattern", "false")
	}
	return c, nil
}
