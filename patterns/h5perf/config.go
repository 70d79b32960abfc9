package h5perf

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// Options declares one h5perf run (one API, one transfer size, the session's ranks) under
// h5perf's long option names; xfer-size is the transfer buffer of the run (h5perf loops
// from min-xfer-size to max-xfer-size; `h5proxy h5perf` runs one session per size).
var Options = &options.Table{Name: "h5perf", Specs: []options.Spec{
	{Key: "api", Kind: options.Enum, Default: "phdf5", Allowed: []string{"posix", "mpiio", "phdf5"}, Help: "the I/O API the report names (-A): run posix on layout=posix, mpiio on layout=mpiio, phdf5 on layout=native (`h5proxy h5perf` sets the layout)"},
	{Key: "num-bytes", Kind: options.Size, Default: "256KiB", Min: options.Bound(1), Help: "bytes per process per dataset (-e): a dataset is num-bytes x ranks bytes (1-D) or a square of that side (2-D; h5perf's default is then 8K)"},
	{Key: "xfer-size", Kind: options.Size, Help: "transfer buffer size of this run in bytes (-x/-X; default half of num-bytes); in 2-D the buffer is block-size x xfer-size (xfer-size x block-size with interleaved)"},
	{Key: "block-size", Kind: options.Size, Help: "block size within the transfer buffer (-B; default half of num-bytes, at most num-bytes)"},
	{Key: "num-dsets", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "datasets per file (-d), Dataset_1 .. Dataset_N (regions one after another for posix and mpiio)"},
	{Key: "num-files", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "files written and read one after another per iteration (-F), each shared by all ranks: #pio_tmp_<n> with the API's suffix in the directory of file"},
	{Key: "num-iterations", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "iterations (-i): each writes, then reads back, every file"},
	{Key: "interleaved", Kind: options.Bool, Default: "false", Help: "interleaved blocks (-I): block k of rank r at (k x ranks + r) x block-size, instead of each rank's contiguous region"},
	{Key: "collective", Kind: options.Bool, Default: "false", Help: "collective transfers for MPI-IO and HDF5 (-C)"},
	{Key: "geometry", Kind: options.Bool, Default: "false", Help: "2-D geometry (-g): square datasets, transfers of block-size rows (columns with interleaved)"},
	{Key: "chunk", Kind: options.Bool, Default: "false", Help: "chunked HDF5 datasets (-c): chunks of block-size (block-size x block-size in 2-D)"},
	{Key: "write-only", Kind: options.Bool, Default: "false", Help: "write only (-w): no read back"},
	{Key: "align", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "HDF5 object alignment (-a, H5Pset_alignment; the raw layouts align their regions the same way)"},
	{Key: "threshold", Kind: options.Size, Default: "1", Min: options.Bound(1), Help: "HDF5 alignment threshold (-T)"},
	{Key: "debug", Kind: options.String, Help: "h5perf's -D list: 1 to 4 (3 and up print each iteration's minimum and maximum times), r (raw data rates: the transfer calls alone), t (times as well as rates), v (verify: h5proxy always verifies its reads)"},
	{Key: "nocleanup", Kind: options.Bool, Default: "false", Help: "keep the data files (h5perf's HDF5_NOCLEANUP); otherwise each is removed once read back (after a barrier, outside the timers)"},
}}

// Config is one validated h5perf run.
type Config struct {
	API                                            string
	NumBPP, Xfer, Block, Align, Threshold          int64
	NumDsets, NumFiles, NumIters                   int
	Interleaved, Collective, Dim2D, Chunk, WriteOn bool
	NoCleanup                                      bool
	// Debug, Times and Raw are -D's level, t and r.
	Debug      int
	Times, Raw bool
}

// FromValues builds a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{API: v.String("api"), NumBPP: v.Int("num-bytes"), Xfer: v.Int("xfer-size"), Block: v.Int("block-size"),
		Align: v.Int("align"), Threshold: v.Int("threshold"), NumDsets: int(v.Int("num-dsets")), NumFiles: int(v.Int("num-files")),
		NumIters: int(v.Int("num-iterations")), Interleaved: v.Bool("interleaved"), Collective: v.Bool("collective"),
		Dim2D: v.Bool("geometry"), Chunk: v.Bool("chunk"), WriteOn: v.Bool("write-only"), NoCleanup: v.Bool("nocleanup")}
	var d Args
	if err := d.setDebug(v.String("debug")); err != nil {
		return c, v.Invalid("debug", err.Error(), "a comma-separated list of 1, 2, 3, 4, r, t, v")
	}
	c.Debug, c.Times, c.Raw = d.Debug, d.PrintTimes, d.PrintRaw
	if !v.IsSet("xfer-size") {
		c.Xfer = c.NumBPP / 2
	}
	if !v.IsSet("block-size") {
		c.Block = c.NumBPP / 2
	}
	c.Block = min(c.Block, c.NumBPP)
	if !c.Dim2D {
		c.Xfer = min(c.Xfer, c.NumBPP)
	}
	return c, nil
}

// FileView reports whether h5perf's MPIO transfers go through an MPI file view: collective
// interleaved or 2-D access (its vector filetypes); the mpiio layout does so with
// mpiio.file_view. Collective 1-D contiguous MPIO writes at explicit offsets, as h5perf.
func (c Config) FileView() bool {
	return c.API == "mpiio" && c.Collective && (c.Dim2D || c.Interleaved)
}

// Run is the configuration of one h5perf run: the API, the transfer size and the rest.
func (a Args) Run(api string, xfer int64) Config {
	return Config{API: api, NumBPP: a.NumBPP, Xfer: xfer, Block: a.BlkSize, Align: a.Align, Threshold: a.Threshold,
		NumDsets: int(a.NumDsets), NumFiles: int(a.NumFiles), NumIters: a.NumIters, Interleaved: a.Interleaved,
		Collective: a.Collective, Dim2D: a.Dim2D, Chunk: a.Chunk, WriteOn: a.WriteOnly,
		Debug: a.Debug, Times: a.PrintTimes, Raw: a.PrintRaw}
}

// KVs are the pattern options of the run, for a session.
func (c Config) KVs() []options.KV {
	b := func(x bool) string { return strconv.FormatBool(x) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	return []options.KV{{Key: "api", Value: c.API}, {Key: "num-bytes", Value: i(c.NumBPP)}, {Key: "xfer-size", Value: i(c.Xfer)},
		{Key: "block-size", Value: i(c.Block)}, {Key: "num-dsets", Value: i(int64(c.NumDsets))}, {Key: "num-files", Value: i(int64(c.NumFiles))},
		{Key: "num-iterations", Value: i(int64(c.NumIters))}, {Key: "interleaved", Value: b(c.Interleaved)}, {Key: "collective", Value: b(c.Collective)},
		{Key: "geometry", Value: b(c.Dim2D)}, {Key: "chunk", Value: b(c.Chunk)}, {Key: "write-only", Value: b(c.WriteOn)},
		{Key: "align", Value: i(c.Align)}, {Key: "threshold", Value: i(c.Threshold)}, {Key: "nocleanup", Value: b(c.NoCleanup)},
		{Key: "debug", Value: c.debugList()}}
}

// Geometry is one run's dataset on a number of processes.
type Geometry struct {
	Procs int
	// Bytes is a dataset's size (nbytes); Side its side in 2-D (snbytes), else Bytes.
	Bytes, Side int64
	// PerRank is what each rank moves per dataset (bytes_count); PerXfer per transfer.
	PerRank, PerXfer int64
}

// Geometry computes the dataset of a run on procs processes and checks it as h5perf's
// do_pio does, with its messages.
func (c Config) Geometry(procs int) (Geometry, error) {
	g := Geometry{Procs: procs, Bytes: c.NumBPP * int64(procs), PerXfer: c.Xfer}
	g.Side = g.Bytes
	if c.Dim2D {
		g.Bytes = g.Side * g.Side
		g.PerXfer = c.Xfer * c.Block
	}
	g.PerRank = g.Bytes / int64(max(procs, 1))
	switch {
	case c.NumFiles < 0:
		return g, fmt.Errorf("number of files must be >= 0 (%d)", c.NumFiles)
	case c.NumDsets < 0:
		return g, fmt.Errorf("number of datasets per file must be >= 0 (%d)", c.NumDsets)
	case procs <= 0:
		return g, fmt.Errorf("maximum number of process to use must be > 0 (%d)", procs)
	case c.Block <= 0:
		return g, fmt.Errorf("Transfer block size (%d) must be > 0", c.Block)
	case c.Xfer <= 0:
		return g, fmt.Errorf("Transfer buffer size (%d) must be > 0", c.Xfer)
	case c.Xfer%c.Block != 0:
		return g, fmt.Errorf("Transfer buffer size (%d) must be a multiple of the interleaved I/O block size (%d)", c.Xfer, c.Block)
	case g.Side%int64(procs) != 0:
		return g, fmt.Errorf("Dataset size (%d) must be a multiple of the number of processes (%d)", g.Side, procs)
	case !c.Dim2D && (g.Side/int64(procs))%c.Xfer != 0:
		return g, fmt.Errorf("Dataset size/process (%d) must be a multiple of the trasfer buffer size (%d)", g.Side/int64(procs), c.Xfer)
	case c.Dim2D && g.Side%c.Xfer != 0:
		return g, fmt.Errorf("Dataset side size (%d) must be a multiple of the trasfer buffer size (%d)", g.Side, c.Xfer)
	case c.Dim2D && !c.Interleaved && (g.Side/int64(procs))%c.Block != 0:
		// h5perf would select rows past the rank's band (and past the dataset for the last
		// rank) and fail inside H5Dwrite.
		return g, fmt.Errorf("Dataset side size/process (%d) must be a multiple of the block size (%d) in 2-D contiguous access (h5perf's selection would leave the dataset)", g.Side/int64(procs), c.Block)
	case c.Dim2D && c.Interleaved && g.Side%(c.Block*int64(procs)) != 0:
		return g, fmt.Errorf("Dataset side size (%d) must be a multiple of block size x processes (%d) in 2-D interleaved access (h5perf's selection would leave the dataset)", g.Side, c.Block*int64(procs))
	case g.Bytes > math.MaxInt64/int64(max(c.NumDsets, 1)):
		return g, fmt.Errorf("file size (%d datasets of %d bytes) overflows", c.NumDsets, g.Bytes)
	}
	return g, nil
}

// debugList is -D's list for the debug key.
func (c Config) debugList() string {
	l := []string{strconv.Itoa(c.Debug)}
	if c.Raw {
		l = append(l, "r")
	}
	if c.Times {
		l = append(l, "t")
	}
	return strings.Join(l, ",")
}
