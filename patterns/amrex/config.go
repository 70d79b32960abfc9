package amrex

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// Options declares h5bench's amrex keys with their names (the benchmark's ParmParse keys,
// lower case). `mode` belongs to the session (sync, async, cache); `sleeptime` is the
// session's compute_time, which takes it before the pattern sees it.
var Options = &options.Table{Name: "amrex", Specs: []options.Spec{
	{Key: "ncells", Kind: options.Int, Min: options.Bound(1), Help: "cells per side of the cubic domain [0, ncells-1]^3 (required)"},
	{Key: "max_grid_size", Kind: options.Int, Min: options.Bound(1), Help: "largest box side: the domain is chopped into ceil(ncells/max_grid_size)^3 boxes (required)"},
	{Key: "nlevs", Kind: options.Int, Min: options.Bound(1), Help: "AMR levels; more than 1 needs grids_from_file (required)"},
	{Key: "ncomp", Kind: options.Int, Min: options.Bound(1), Help: "components per cell, component_0 ... (required)"},
	{Key: "nppc", Kind: options.Int, Min: options.Bound(0), Help: "particles per cell: the particle files hold nppc*ncells^3 particles (required)"},
	{Key: "nplotfile", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "plotfiles pltNNNNN.h5, one per step"},
	{Key: "nparticlefile", Kind: options.Int, Default: "1", Min: options.Bound(0), Help: "particle checkpoints pltNNNNN/particle0/particle0.h5, one per step after the plotfiles"},
	{Key: "sleeptime", Kind: options.Int, Min: options.Bound(0), Help: "seconds slept before each file after the first: the session's compute_time, which takes this key; given as a pattern option it is an error"},
	{Key: "restart_check", Kind: options.Bool, Default: "0", Help: "h5bench: 1 adds the read-back phase; h5bench configurations map it onto the session's phases (write, read); as a pattern option it has no effect: choose the phases", Ignored: true},
	{Key: "grids_from_file", Kind: options.Bool, Default: "0", Help: "take level l's domain and boxes from grids/Level_<l> (AMReX box-list files, relative to the working directory) instead of chopping the domain"},
	{Key: "ref_ratio_file", Kind: options.String, Help: "refinement ratio of each coarse level, e.g. \"4 2\" (grids_from_file)"},
	{Key: "hdf5compression", Kind: options.String, Default: "None@0", Help: "AMReX compression MODE@VALUE: None@0 or ZLIB@<1..9> (1-D chunks of 1024 elements or $HDF5_CHUNK_SIZE, deflate); SZ and ZFP modes need filters HDF5 1.10.8 lacks and write uncompressed, as h5bench's default build does"},
	{Key: "directory", Kind: options.String, Help: "output directory (AMReX prefix, a / appended); default: the session's file"},
	{Key: "input_file", Kind: options.String, Help: "h5proxy: the inputs file the benchmark reads at start (amrex::Initialize's ParmParse: rank 0 reads it whole through std::ifstream, then broadcasts it); h5bench's runner passes amrex.ini; default: none read"},
	{Key: "read_back", Kind: options.Enum, Allowed: []string{"restart", "all"}, Default: "restart", Help: "h5proxy: what the read phase reads: restart (the benchmark's restart check: plt00000/particle0 only, nothing without particle files) or all (every plotfile and particle file written)"},
}}

// Compression is the parsed hdf5compression setting.
type Compression struct {
	// Mode is None or ZLIB (the modes this build can honour).
	Mode string
	// Level is the deflate level of ZLIB.
	Level int
	// Chunk is the 1-D chunk length of compressed datasets (1024 or $HDF5_CHUNK_SIZE),
	// capped at each dataset's length.
	Chunk uint64
}

// On reports whether data datasets are chunked and deflated.
func (c Compression) On() bool { return c.Mode == "ZLIB" }

// chunkFor returns the chunk shape of a compressed 1-D dataset of n elements, nil when
// compression is off.
func (c Compression) chunkFor(n uint64) []uint64 {
	if !c.On() || n == 0 {
		return nil
	}
	return []uint64{min(c.Chunk, n)}
}

// Config is the validated AMReX benchmark configuration.
type Config struct {
	NCells, MaxGridSize, NLevs, NComp, NPPC int
	NPlotfile, NParticlefile                int
	GridsFromFile                           bool
	// RefRatio holds the refinement ratio of each coarse level (grids_from_file).
	RefRatio    []int
	Compression Compression
	// Directory overrides the session's file as the output directory when set.
	Directory string
	// InputFile is the inputs file rank 0 reads before any I/O, as ParmParse reads it
	// (ParallelDescriptor::ReadAndBcastFile); "" reads none.
	InputFile string
	// ReadAll makes the read phase read back every file written (read_back=all) instead of
	// the benchmark's restart check, which reads the first particle file only.
	ReadAll bool
	// Levels are the grids: the chopped domain, or the box lists of grids_from_file.
	Levels []Level
}

// GridsDir is where grids_from_file reads Level_<l> (the benchmark's "grids", relative to
// the working directory).
const GridsDir = "grids"

// chunkEnv is the environment variable AMReX reads the chunk length from.
const chunkEnv = "HDF5_CHUNK_SIZE"

var zfpSZ = []string{"SZ", "ZFP_RATE", "ZFP_PRECISION", "ZFP_ACCURACY", "ZFP_REVERSIBLE"}

// FromValues builds and validates a Config from parsed options. Warnings for values it
// accepts but cannot honour are appended to v.Warnings.
func FromValues(v *options.Values) (Config, error) {
	for _, k := range []string{"ncells", "max_grid_size", "nlevs", "ncomp", "nppc"} {
		if !v.IsSet(k) {
			return Config{}, v.Errorf(k, "required: h5bench's amrex reads it with ParmParse::get (allowed: an integer, see `h5proxy help amrex`)")
		}
	}
	if v.IsSet("sleeptime") {
		return Config{}, v.Errorf("sleeptime", "is the session's compute_time in seconds: give it with the session keys (h5bench configurations and KEY=VALUE options do so; native JSON: \"session\": {\"sleeptime\": ...})")
	}
	c := Config{
		NCells: int(v.Int("ncells")), MaxGridSize: int(v.Int("max_grid_size")), NLevs: int(v.Int("nlevs")),
		NComp: int(v.Int("ncomp")), NPPC: int(v.Int("nppc")),
		NPlotfile: int(v.Int("nplotfile")), NParticlefile: int(v.Int("nparticlefile")),
		GridsFromFile: v.Bool("grids_from_file"), Directory: v.String("directory"),
		ReadAll: v.String("read_back") == "all", InputFile: v.String("input_file"),
	}
	if c.NPlotfile+c.NParticlefile == 0 {
		return c, v.Errorf("nplotfile", "nplotfile + nparticlefile = 0: nothing to write (allowed: a sum >= 1)")
	}
	var err error
	if c.Compression, err = parseCompression(v); err != nil {
		return c, err
	}
	if !c.GridsFromFile {
		if c.NLevs != 1 {
			return c, v.Errorf("nlevs", "must be 1 unless grids_from_file=1 (the benchmark's nested grids assert nlevs < 2)")
		}
		if v.IsSet("ref_ratio_file") {
			v.Warnings = append(v.Warnings, fmt.Sprintf("key ref_ratio_file=%s is read only with grids_from_file=1 and ignored", v.String("ref_ratio_file")))
		}
		c.Levels = NestedLevels(c.NCells, c.MaxGridSize)
		return c, nil
	}
	if c.RefRatio, err = parseRatios(v, c.NLevs); err != nil {
		return c, err
	}
	for l := 0; l < c.NLevs; l++ {
		path := GridFile(GridsDir, l)
		dom, boxes, err := ReadBoxList(path)
		if err != nil {
			return c, v.Errorf("grids_from_file", "level %d: box list %s: %v (allowed: AMReX box-list files grids/Level_0 .. grids/Level_%d in the working directory)", l, path, err, c.NLevs-1)
		}
		ratio := 1
		if l < c.NLevs-1 {
			ratio = c.RefRatio[l]
		}
		c.Levels = append(c.Levels, Level{Domain: dom, Boxes: boxes, Ratio: ratio})
	}
	return c, nil
}

// parseRatios reads ref_ratio_file: at least nlevs-1 integers >= 1 (ParmParse getarr).
func parseRatios(v *options.Values, nlevs int) ([]int, error) {
	fields := strings.Fields(v.String("ref_ratio_file"))
	if len(fields) < nlevs-1 {
		return nil, v.Errorf("ref_ratio_file", "gives %d ratios, nlevs=%d needs %d (allowed: integers >= 1 separated by spaces, one per coarse level)", len(fields), nlevs, nlevs-1)
	}
	var out []int
	for _, f := range fields[:nlevs-1] {
		r, err := strconv.Atoi(f)
		if err != nil || r < 1 {
			return nil, v.Errorf("ref_ratio_file", "%q is not a refinement ratio (allowed: integers >= 1 separated by spaces)", f)
		}
		out = append(out, r)
	}
	return out, nil
}

// parseCompression parses hdf5compression as AMReX does (split at the first '@') and
// reads the chunk length from $HDF5_CHUNK_SIZE.
func parseCompression(v *options.Values) (Compression, error) {
	raw := v.String("hdf5compression")
	c := Compression{Mode: "None", Chunk: 1024}
	mode, value, ok := strings.Cut(raw, "@")
	if !ok {
		v.Warnings = append(v.Warnings, fmt.Sprintf("key hdf5compression=%s has no '@' (AMReX's MODE@VALUE, e.g. ZLIB@6): AMReX enables no compression for it, and neither does h5proxy", raw))
		return c, nil
	}
	switch {
	case mode == "" || mode == "None":
		return c, nil
	case mode == "ZLIB":
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || int(f) < 1 || int(f) > 9 {
			return c, v.Errorf("hdf5compression", "ZLIB needs a deflate level (allowed: ZLIB@1 .. ZLIB@9)")
		}
		c.Mode, c.Level = "ZLIB", int(f)
	default:
		for _, m := range zfpSZ {
			if mode == m {
				v.Warnings = append(v.Warnings, fmt.Sprintf("key hdf5compression=%s: %s needs the H5Z-SZ/H5Z-ZFP filter, which this HDF5 1.10.8 build lacks; the data are written uncompressed and contiguous, as h5bench's default build (no ZFP/SZ) writes them", raw, mode))
				return c, nil
			}
		}
		return c, v.Errorf("hdf5compression", "unknown mode %q (allowed: None@0, ZLIB@<1..9>, SZ@<config>, ZFP_RATE@<r>, ZFP_PRECISION@<p>, ZFP_ACCURACY@<a>, ZFP_REVERSIBLE@)", mode)
	}
	if s := os.Getenv(chunkEnv); s != "" {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil || n == 0 {
			return c, v.Errorf("hdf5compression", "compression chunks come from $%s=%q, which is not a positive integer (allowed: unset, or elements per chunk >= 1)", chunkEnv, s)
		}
		c.Chunk = n
	}
	return c, nil
}

// Particles is the number of particles of every particle file: nppc*ncells^3.
func (c Config) Particles() uint64 {
	n := uint64(c.NCells)
	return uint64(c.NPPC) * n * n * n
}
