package iotest

import (
	"fmt"

	"github.com/h5proxy/h5proxy/options"
)

// Options declares the keys of h5bench's metadata benchmark (the HDF5 I/O test's
// hdf5_iotest.ini, [DEFAULT] section) under its names, except layout, which is h5proxy's
// session key for the storage layout: the I/O test's is dataset-layout here (h5bench
// configurations map layout onto it). The defaults are those of hdf5_iotest.ini, the
// sample configuration the program ships with (it has no defaults of its own).
var Options = &options.Table{Name: "iotest", Specs: []options.Spec{
	{Key: "version", Kind: options.Int, Default: "0", Min: options.Bound(0), Max: options.Bound(0), Help: "configuration format version; the program accepts only 0"},
	{Key: "steps", Kind: options.Int, Default: "20", Min: options.Bound(1), Help: "number of steps: one h5proxy step each"},
	{Key: "arrays", Kind: options.Int, Default: "500", Min: options.Bound(1), Help: "number of arrays written (and read) per step, one H5Dwrite (H5Dread) each"},
	{Key: "rows", Kind: options.Int, Default: "100", Min: options.Bound(2), Help: "array rows: in total with strong scaling, per rank block with weak scaling"},
	{Key: "columns", Kind: options.Int, Default: "200", Min: options.Bound(2), Help: "array columns: in total with strong scaling, per rank block with weak scaling"},
	{Key: "process-rows", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "rows of the process grid; process-rows x process-columns must equal the number of ranks; rows % process-rows == 0 with strong scaling"},
	{Key: "process-columns", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "columns of the process grid (rank r is at row r / process-columns, column r % process-columns); columns % process-columns == 0 with strong scaling"},
	{Key: "scaling", Kind: options.Enum, Default: "weak", Allowed: []string{"weak", "strong"}, Help: "weak: each rank writes a rows x columns block; strong: the rows x columns array is split over the process grid"},
	{Key: "dataset-rank", Kind: options.Int, Default: "4", Min: options.Bound(2), Max: options.Bound(4), Help: "rank of the datasets: 4 one dataset \"dataset\" for everything, 3 one dataset per step (\"step=<s>\") or per array (\"array=<a>\"), 2 one dataset per step and array (\"step=<s>/array=<a>\" or \"array=<a>/step=<s>\")"},
	{Key: "slowest-dimension", Kind: options.Enum, Default: "step", Allowed: []string{"step", "array"}, Help: "the slowest-changing dimension (and the outer name) of the datasets: step or array"},
	{Key: "dataset-layout", Kind: options.Enum, Default: "contiguous", Allowed: []string{"contiguous", "chunked"}, Help: "HDF5 dataset layout (hdf5_iotest.ini's layout; h5bench configurations' layout key maps here): contiguous, or chunked with one rank block per chunk"},
	{Key: "mpi-io", Kind: options.Enum, Default: "independent", Allowed: []string{"independent", "collective"}, Help: "MPI-IO transfer mode of every H5Dwrite and H5Dread"},
	{Key: "hdf5-file", Kind: options.String, Default: "hdf5_iotest.h5", Help: "h5bench: the HDF5 file (h5bench's runner replaces it with the entry's file, relative to directory); h5bench configurations map it onto the session's file; as a pattern option it has no effect: set file", Ignored: true},
	{Key: "csv-file", Kind: options.String, Default: "hdf5_iotest.csv", Help: "h5bench: the results CSV, relative to directory; h5bench configurations map it onto the session's csv_file, whose rows end with the I/O test's columns; as a pattern option it has no effect: set csv_file", Ignored: true},
}}

// Config is a validated I/O test configuration.
type Config struct {
	Steps, Arrays    int
	Rows, Cols       uint64
	ProcRows         uint64
	ProcCols         uint64
	Strong           bool
	Rank             int
	StepFirst        bool
	Chunked          bool
	Collective       bool
	Scaling, Slowest string // as configured, for the report
}

// FromValues builds a Config from parsed options; the keys' bounds are the program's
// sanity checks.
func FromValues(v *options.Values) (Config, error) {
	c := Config{Steps: int(v.Int("steps")), Arrays: int(v.Int("arrays")), Rows: v.Uint("rows"), Cols: v.Uint("columns"),
		ProcRows: v.Uint("process-rows"), ProcCols: v.Uint("process-columns"), Scaling: v.String("scaling"),
		Rank: int(v.Int("dataset-rank")), Slowest: v.String("slowest-dimension"), Chunked: v.String("dataset-layout") == "chunked",
		Collective: v.String("mpi-io") == "collective"}
	c.Strong, c.StepFirst = c.Scaling == "strong", c.Slowest == "step"
	if c.Strong {
		if c.Rows%c.ProcRows != 0 {
			return c, v.Errorf("rows", "strong scaling needs rows %% process-rows == 0 (rows=%d, process-rows=%d)", c.Rows, c.ProcRows)
		}
		if c.Cols%c.ProcCols != 0 {
			return c, v.Errorf("columns", "strong scaling needs columns %% process-columns == 0 (columns=%d, process-columns=%d)", c.Cols, c.ProcCols)
		}
	}
	return c, nil
}

// CheckRanks is the program's validation against the number of ranks: the process grid
// must cover them exactly.
func (c Config) CheckRanks(size int) error {
	if c.ProcRows*c.ProcCols != uint64(size) {
		return &options.Error{Table: "iotest", Key: "process-rows", Value: fmt.Sprint(c.ProcRows),
			Reason:  fmt.Sprintf("process-rows x process-columns = %d x %d = %d, but the run has %d ranks", c.ProcRows, c.ProcCols, c.ProcRows*c.ProcCols, size),
			Allowed: fmt.Sprintf("process-rows and process-columns whose product is %d", size)}
	}
	return nil
}

// Block is a rank's block: my_rows x my_cols.
func (c Config) Block() (rows, cols uint64) {
	if c.Strong {
		return c.Rows / c.ProcRows, c.Cols / c.ProcCols
	}
	return c.Rows, c.Cols
}

// Total is the extent of one array over all ranks.
func (c Config) Total() (rows, cols uint64) {
	if c.Strong {
		return c.Rows, c.Cols
	}
	return c.ProcRows * c.Rows, c.ProcCols * c.Cols
}
