package e3sm

import (
	"github.com/h5proxy/h5proxy/options"
)

// Options declares the pattern's keys: E3SM-IO's command-line letters (as h5bench passes
// them) and the synthesizer's sizes. Session keys (compute_time for E3SM-IO's -t, layout
// for -x) belong to package proxy.
var Options = &options.Table{Name: "e3sm", Specs: []options.Spec{
	{Key: "map", Kind: options.String, Help: "decomposition map file (E3SM-IO's HDF5 format, e.g. map_f_case_16p.h5); empty: synthesize one (see case, ne, ...)"},
	{Key: "case", Kind: options.Enum, Allowed: []string{"F", "G", "I"}, Help: "case of a synthesized map (default F); with a map file it must match the map's decomposition count (3 F, 6 G, 5 I)"},
	{Key: "r", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "records written to F h1, G and I h0 (F h0 and I h1 always get 1)"},
	{Key: "f", Kind: options.Int, Default: "-1", Min: options.Bound(-1), Max: options.Bound(1), Help: "history files of F and I: 0 h0 only, 1 h1 only, -1 both"},
	{Key: "j", Kind: options.Bool, Default: "NO", Help: "F and I partitioned record variables as float instead of double"},
	{Key: "u", Kind: options.Bool, Default: "NO", Help: "also write the map's fill requests (elements no process owns; E3SM-IO -u)"},
	{Key: "y", Kind: options.Int, Default: "1", Min: options.Bound(-1), Max: options.Bound(1), Help: "E3SM-IO's flush (wait) frequency: 1 after every record, -1 only at close; its HDF5 driver's wait flushes nothing, so it matters only with flush_file"},
	{Key: "flush_file", Kind: options.Bool, Default: "NO", Help: "H5Fflush at every wait (y=1: after every record), as E3SM-IO's log-VOL driver (-a hdf5_log) does; its plain HDF5 driver does not"},
	{Key: "order", Kind: options.Enum, Allowed: []string{"sorted", "map"}, Default: "sorted", Help: "each rank's request order: sorted (E3SM-IO's read_decomp that sorts each rank's requests by offset and merges touching ones within a row: what h5bench's E3SM-IO measured here behaves like, 2.7-2.8 s for F at 2 ranks as the issue's 2.85-2.98 s) or map (E3SM-IO after its pull request 165: map order, never merged; about twice the cost)"},
	{Key: "s", Kind: options.Int, Default: "1", Min: options.Bound(1), Help: "I/O rank stride: ranks r with r % s == 0 do the I/O (the others join collective calls with nothing)"},
	{Key: "nprocs", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "synthesized maps: map processes (0: as many as I/O ranks)"},
	{Key: "ne", Kind: options.Int, Default: "4", Min: options.Bound(1), Help: "synthesized F: cubed-sphere resolution, ncol = 54*ne^2+2 (4 is the 16p map's 866; 30, 120 production)"},
	{Key: "lev", Kind: options.Int, Default: "72", Min: options.Bound(1), Help: "synthesized F: vertical levels"},
	{Key: "g_cells", Kind: options.Int, Default: "285", Min: options.Bound(3), Help: "synthesized G: MPAS cells (edges 3*cells-6, vertices 2*cells-4)"},
	{Key: "g_levels", Kind: options.Int, Default: "100", Min: options.Bound(1), Help: "synthesized G: nVertLevels"},
	{Key: "i_lat", Kind: options.Int, Default: "96", Min: options.Bound(1), Help: "synthesized I: latitudes"},
	{Key: "i_lon", Kind: options.Int, Default: "144", Min: options.Bound(1), Help: "synthesized I: longitudes"},
	{Key: "land", Kind: options.Float, Default: "0.41", Help: "synthesized I: land fraction of the lat x lon grid (the 16p map covers 5663 of 13824)"},
	{Key: "m", Kind: options.Bool, Help: "E3SM-IO's noncontiguous write buffers; buffers here are always contiguous", Ignored: true},
	{Key: "k", Kind: options.String, Help: "E3SM-IO keeps (or deletes) its output; h5proxy always keeps it", Ignored: true},
	{Key: "v", Kind: options.String, Help: "E3SM-IO verbose mode", Ignored: true},
	{Key: "q", Kind: options.String, Help: "accepted like h5bench passes it", Ignored: true},
	{Key: "g", Kind: options.String, Help: "subfiles of E3SM-IO's log and ADIOS drivers; use the subfiling layout's own keys", Ignored: true},
}}

// Config is the validated E3SM-IO configuration.
type Config struct {
	MapPath  string
	Case     string // "" when a map file decides
	Records  int
	Files    int // -1 both, 0 h0, 1 h1
	Float    bool
	FillMode bool
	// Sorted sorts and coalesces each rank's requests (E3SM-IO's earlier read_decomp).
	Sorted bool
	Flush  int
	// FlushFile adds an H5Fflush at every wait (E3SM-IO's log-VOL driver).
	FlushFile bool
	Stride    int
	Synth     SynthSpec // sizes of a synthesized map (NProcs 0: the I/O rank count)
}

// FromValues builds and validates a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{
		MapPath: v.String("map"), Case: v.String("case"), Records: int(v.Int("r")), Files: int(v.Int("f")),
		Float: v.Bool("j"), FillMode: v.Bool("u"), Sorted: v.String("order") == "sorted", Flush: int(v.Int("y")), FlushFile: v.Bool("flush_file"), Stride: int(v.Int("s")),
		Synth: SynthSpec{NProcs: int(v.Int("nprocs")), NE: int(v.Int("ne")), Lev: int(v.Int("lev")),
			Cells: int(v.Int("g_cells")), GLev: int(v.Int("g_levels")), Lat: int(v.Int("i_lat")), Lon: int(v.Int("i_lon")),
			Land: v.Float("land")},
	}
	if c.Flush == 0 {
		return c, v.Errorf("y", "0 is not a flush frequency; allowed 1 (every record) or -1 (at close)")
	}
	if c.Synth.Land <= 0 || c.Synth.Land > 1 {
		return c, v.Errorf("land", "must be in (0, 1]")
	}
	if c.MapPath == "" && c.Case == "" {
		c.Case = "F"
	}
	if c.MapPath != "" {
		for _, k := range []string{"nprocs", "ne", "lev", "g_cells", "g_levels", "i_lat", "i_lon", "land"} {
			if v.IsSet(k) {
				return c, v.Errorf(k, "sizes a synthesized map; a map file (map=%s) gives its own sizes", c.MapPath)
			}
		}
	}
	return c, nil
}
