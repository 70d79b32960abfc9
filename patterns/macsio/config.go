package macsio

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// Interfaces are MACSio's I/O plugins (its plugins directory); only hdf5 is modelled.
var Interfaces = []string{"hdf5", "miftmpl", "silo", "exodus", "pdb", "typhonio", "adios"}

// Options declares the pattern's keys: MACSio's command-line options that shape the
// HDF5 plugin's I/O, under MACSio's names. The session's file is --filebase (a path
// prefix); compute between dumps is the session's compute keys (`h5proxy macsio` maps
// --compute_time and --compute_work_intensity onto them).
var Options = &options.Table{Name: "macsio", Specs: []options.Spec{
	{Key: "interface", Kind: options.Enum, Default: "hdf5", Allowed: []string{"hdf5"}, Help: "MACSio's I/O plugin: only hdf5 is modelled (MACSio also has " + strings.Join(Interfaces[1:], ", ") + ")"},
	{Key: "parallel_file_mode", Kind: options.String, Default: "MIF 4", Help: "\"MIF n\": n files per dump, one per group of ranks taking turns (baton passing, serial sec2 driver); \"SIF\" (or \"SIF n\", n ignored): one file per dump shared through MPI-IO"},
	{Key: "avg_num_parts", Kind: options.Float, Default: "1", Help: "mesh parts per rank, fractional allowed: round(ranks x avg) parts, each rank K or K+1 (which ranks get K+1 drawn from the session's seed)"},
	{Key: "part_size", Kind: options.Size, Default: "80000", Min: options.Bound(16), Help: "bytes of doubles per part: part_size/8 nodes split into part_dim close factors (1250 doubles: 25 x 50)"},
	{Key: "part_dim", Kind: options.Int, Default: "2", Min: options.Bound(1), Max: options.Bound(3), Help: "spatial dimension of the parts: 1, 2 or 3"},
	{Key: "part_mesh_dims", Kind: options.String, Help: "\"X Y [Z]\": nodes per part along each axis, overriding part_size (2-D and 3-D)"},
	{Key: "mesh_decomp", Kind: options.String, Help: "\"X Y [Z]\": parts along each axis, overriding the close factors of the part count (their product must be the part count; 2-D and 3-D)"},
	{Key: "vars_per_part", Kind: options.Int, Default: "20", Min: options.Bound(1), Help: "variables per part, cycling through constant, random, spherical (zone, double), xramp, ysin, noise, noise_sum (node, double), xlayers (zone, int32); the 9th on are named <kind>_NNN"},
	{Key: "num_dumps", Kind: options.Int, Default: "10", Min: options.Bound(0), Help: "dumps: one step each, one file (SIF) or one per group (MIF) each"},
	{Key: "dataset_growth", Kind: options.Float, Default: "0", Help: "factor > 1: after each dump a rank adds (size on disk of its files of the dump) x (factor - 1) bytes as node-centred expansion_NNN variables on its first part; <= 1: no growth"},
	{Key: "compression", Kind: options.String, Help: "plugin --compression \"ALG [PARAMS]\": gzip (shuffle then deflate, level=1..9, default 9), szip (method=nn|ec, block=N) or zfp (its plugin); minsize=N elements (default 1024) below which a dataset stays contiguous; a compressed dataset is one chunk"},
	{Key: "no_collective", Kind: options.Bool, Default: "false", Help: "plugin --no_collective: independent SIF writes"},
	{Key: "sieve_buf_size", Kind: options.Size, Help: "plugin --sieve_buf_size (H5Pset_sieve_buf_size, SIF files only)"},
	{Key: "meta_block_size", Kind: options.Size, Help: "plugin --meta_block_size (H5Pset_meta_block_size, SIF files only)"},
	{Key: "small_block_size", Kind: options.Size, Help: "plugin --small_block_size: MACSio passes the meta block size to H5Pset_small_data_block_size (its bug, kept), so it needs meta_block_size"},
	{Key: "mdc", Kind: options.Enum, Default: "macsio", Allowed: []string{"macsio", "hdf5"}, Help: "SIF files' metadata cache: macsio (the plugin's: initial 16 KiB, minimum 8 KiB, epoch 3000, lower hit-rate threshold 0.95) or hdf5 (HDF5's defaults); with macsio's, HDF5 1.10.8 here hung now and then in a collective H5Dwrite at 2 ranks on a loaded machine (docs/macsio.md)"},
	{Key: "fileext", Kind: options.String, Default: "h5", Help: "extension of the files: <filebase>_hdf5_<dump>.<ext> (SIF), <filebase>_hdf5_<group>_<dump>.<ext> (MIF)"},
	{Key: "log_file_name", Kind: options.String, Help: "MACSio's log file (a region of log_line_cnt lines per rank: each dump's BW lines, the overall and, on rank 0, the summed figures), written when the write phase's report is made; unset: none"},
	{Key: "timings_file_name", Kind: options.String, Help: "MACSio's timings file (every rank's timers, then rank 0's reduced timers), written with the log; unset: none"},
	{Key: "log_line_cnt", Kind: options.String, Default: "64 0", Help: "lines per rank in the log file and extra lines for rank 0 (0: MACSio's default, 64)"},
	{Key: "log_line_length", Kind: options.Int, Default: "128", Min: options.Bound(0), Help: "log line length (0: 128)"},
	{Key: "units_prefix_system", Kind: options.Enum, Default: "binary", Allowed: []string{"binary", "decimal"}, Help: "units of the log's sizes and rates: binary (Ki, Mi: 1024) or decimal (Kb, Mb: 1000)"},
}}

// Config is one validated MACSio run.
type Config struct {
	SIF         bool
	NumFiles    int
	AvgNumParts float64
	PartSize    int64
	PartDim     int
	// PartMeshDims and MeshDecomp, when set, override the close factors (x, y, z).
	PartMeshDims, MeshDecomp *[3]int
	VarsPerPart, NumDumps    int
	Growth                   float64
	Compression              Compression
	NoCollective             bool
	// SieveBuf, MetaBlock and SmallBlock are the plugin's fapl sizes; -1 unset.
	SieveBuf, MetaBlock, SmallBlock int64
	FileExt                         string
	LogFile, TimingsFile            string
	LogLines, LogExtra, LogLineLen  int
	Decimal                         bool
	// MACSioCache applies the plugin's metadata cache settings to SIF files (key mdc).
	MACSioCache bool
}

// Compression is the plugin's --compression: the algorithm and its parameters.
type Compression struct {
	// Alg is "", gzip, szip or zfp.
	Alg string
	// MinSize is the element count below which a dataset is not compressed (1024).
	MinSize int64
	// Shuffle applies the byte shuffle first (default on for gzip and szip).
	Shuffle bool
	// Level is gzip's level (9); SzipEC selects szip's entropy coding; SzipBlock its pixels
	// per block (32).
	Level     int
	SzipEC    bool
	SzipBlock int
}

// FromValues builds a Config from parsed options.
func FromValues(v *options.Values) (Config, error) {
	c := Config{AvgNumParts: v.Float("avg_num_parts"), PartSize: v.Int("part_size"), PartDim: int(v.Int("part_dim")),
		VarsPerPart: int(v.Int("vars_per_part")), NumDumps: int(v.Int("num_dumps")), Growth: v.Float("dataset_growth"),
		NoCollective: v.Bool("no_collective"), SieveBuf: -1, MetaBlock: -1, SmallBlock: -1, FileExt: v.String("fileext"),
		LogFile: v.String("log_file_name"), TimingsFile: v.String("timings_file_name"), LogLineLen: int(v.Int("log_line_length")),
		Decimal: v.String("units_prefix_system") == "decimal", MACSioCache: v.String("mdc") == "macsio"}
	var err error
	if c.SIF, c.NumFiles, err = ParseFileMode(v.String("parallel_file_mode")); err != nil {
		return c, v.Invalid("parallel_file_mode", err.Error(), "\"MIF n\" (n >= 1) or \"SIF\"")
	}
	if c.AvgNumParts < 1 {
		return c, v.Invalid("avg_num_parts", "MACSio gives a rank that draws 0 parts every remaining part", "a number >= 1")
	}
	for _, k := range []struct {
		key string
		dst **[3]int
	}{{"part_mesh_dims", &c.PartMeshDims}, {"mesh_decomp", &c.MeshDecomp}} {
		if s := v.String(k.key); s != "" {
			d, err := parseTriple(s, c.PartDim)
			if err != nil {
				return c, v.Invalid(k.key, err.Error(), "\"X Y [Z]\": positive integers, one per part dimension")
			}
			*k.dst = &d
		}
	}
	if c.Growth < 0 {
		return c, v.Invalid("dataset_growth", "a negative growth factor", "a factor > 1 (0 or <= 1: no growth)")
	}
	if c.Compression, err = ParseCompression(v.String("compression")); err != nil {
		return c, v.Invalid("compression", err.Error(), "\"gzip [level=N,minsize=N,shuffle=0|1]\", \"szip [method=nn|ec,block=N]\" or \"zfp [rate=R]\"")
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"sieve_buf_size", &c.SieveBuf}, {"meta_block_size", &c.MetaBlock}, {"small_block_size", &c.SmallBlock}} {
		if v.IsSet(k.key) {
			*k.dst = v.Int(k.key)
		}
	}
	if c.SmallBlock >= 0 && c.MetaBlock < 0 {
		return c, v.Invalid("small_block_size", "MACSio's plugin passes --meta_block_size's value (-1 when unset) to H5Pset_small_data_block_size, which then fails", "with meta_block_size")
	}
	if _, err := c.PartNodes(); err != nil {
		key := "part_size"
		if c.PartMeshDims != nil {
			key = "part_mesh_dims"
		}
		return c, v.Invalid(key, err.Error(), "a size whose doubles split into part_dim factors of at least 2")
	}
	lines := strings.Fields(v.String("log_line_cnt"))
	if len(lines) != 2 {
		return c, v.Invalid("log_line_cnt", "want two counts", "\"LINES EXTRA\", e.g. \"64 0\"")
	}
	for i, dst := range []*int{&c.LogLines, &c.LogExtra} {
		n, err := strconv.Atoi(lines[i])
		if err != nil {
			return c, v.Invalid("log_line_cnt", err.Error(), "\"LINES EXTRA\", e.g. \"64 0\"")
		}
		*dst = n
	}
	return c, nil
}

// ParseFileMode reads --parallel_file_mode's "MODE N": MIF with n >= 1 files, or SIF (n,
// if any, ignored: MACSio's HDF5 plugin writes one file per dump).
func ParseFileMode(s string) (sif bool, n int, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return false, 0, fmt.Errorf("want MODE and a file count")
	}
	switch f[0] {
	case "SIF":
		if len(f) == 2 {
			n = atoi(f[1])
		}
		return true, n, nil
	case "MIF":
		if len(f) == 1 {
			return false, 0, fmt.Errorf("MIF needs a file count")
		}
		n = atoi(f[1])
		if n < 1 {
			return false, n, fmt.Errorf("MIF file count %d: MACSio divides the ranks into that many groups (0 divides by zero)", n)
		}
		return false, n, nil
	case "MIFMAX", "MIFAUTO", "MIFFPP", "MIFOPT":
		return false, 0, fmt.Errorf("mode %s: MACSio's HDF5 plugin reads --parallel_file_mode as MODE and a count and runs any mode but SIF as MIF with the count; use \"MIF n\"", f[0])
	}
	return false, 0, fmt.Errorf("unknown mode %q", f[0])
}

// atoi is C's strtol base 10 on a leading integer (0 when none), as MACSio reads %d.
func atoi(s string) int {
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// parseTriple reads "X Y [Z]" for a dim-dimensional part (a missing or 0 third value in
// 2-D).
func parseTriple(s string, dim int) ([3]int, error) {
	out := [3]int{1, 1, 1}
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 {
		return out, fmt.Errorf("want 2 or 3 integers")
	}
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 || (n == 0 && i < dim) {
			return out, fmt.Errorf("%q is not a positive integer", x)
		}
		if i < dim {
			out[i] = n
		}
	}
	if dim == 3 && len(f) < 3 {
		return out, fmt.Errorf("--part_dim 3 needs three values")
	}
	return out, nil
}

// ParseCompression reads the plugin's --compression ALG PARAMS (comma-separated
// key=value; unknown keys are skipped, as MACSio's get_tokval does).
func ParseCompression(s string) (Compression, error) {
	c := Compression{MinSize: 1024, Level: 9, SzipBlock: 32}
	f := strings.Fields(s)
	if len(f) == 0 {
		return c, nil
	}
	if len(f) > 2 {
		return c, fmt.Errorf("want an algorithm and one comma-separated parameter list")
	}
	alg := strings.ToLower(f[0])
	switch {
	case strings.HasPrefix(alg, "gzip"):
		c.Alg = "gzip"
	case strings.HasPrefix(alg, "szip"):
		c.Alg = "szip"
	case strings.HasPrefix(alg, "zfp"):
		c.Alg = "zfp"
	default:
		return c, fmt.Errorf("unknown algorithm %q", f[0])
	}
	c.Shuffle = c.Alg != "zfp"
	if len(f) < 2 {
		return c, nil
	}
	for _, tok := range strings.Split(f[1], ",") {
		k, val, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "minsize":
			c.MinSize = int64(atoi(val))
		case "shuffle":
			c.Shuffle = atoi(val) != 0
		case "level":
			c.Level = min(max(atoi(val), 1), 9) // MACSio's help: clamped to [1,9]
		case "method":
			c.SzipEC = strings.EqualFold(val, "ec")
		case "block":
			c.SzipBlock = atoi(val)
		}
	}
	if c.Alg == "szip" && (c.SzipBlock < 2 || c.SzipBlock > 32 || c.SzipBlock%2 != 0) {
		return c, fmt.Errorf("szip block=%d: pixels per block must be even and at most 32", c.SzipBlock)
	}
	return c, nil
}

// KVs are the pattern's options of the configuration, for a session.
func (c Config) KVs() []options.KV {
	mode := fmt.Sprintf("MIF %d", c.NumFiles)
	if c.SIF {
		mode = "SIF"
	}
	kv := []options.KV{{Key: "parallel_file_mode", Value: mode}, {Key: "avg_num_parts", Value: strconv.FormatFloat(c.AvgNumParts, 'g', -1, 64)},
		{Key: "part_size", Value: strconv.FormatInt(c.PartSize, 10)}, {Key: "part_dim", Value: strconv.Itoa(c.PartDim)},
		{Key: "vars_per_part", Value: strconv.Itoa(c.VarsPerPart)}, {Key: "num_dumps", Value: strconv.Itoa(c.NumDumps)},
		{Key: "dataset_growth", Value: strconv.FormatFloat(c.Growth, 'g', -1, 64)}, {Key: "no_collective", Value: strconv.FormatBool(c.NoCollective)},
		{Key: "fileext", Value: c.FileExt}, {Key: "log_line_cnt", Value: fmt.Sprintf("%d %d", c.LogLines, c.LogExtra)},
		{Key: "log_line_length", Value: strconv.Itoa(c.LogLineLen)}}
	triple := func(d *[3]int) string { return fmt.Sprintf("%d %d %d", d[0], d[1], d[2]) }
	if c.PartMeshDims != nil {
		kv = append(kv, options.KV{Key: "part_mesh_dims", Value: triple(c.PartMeshDims)})
	}
	if c.MeshDecomp != nil {
		kv = append(kv, options.KV{Key: "mesh_decomp", Value: triple(c.MeshDecomp)})
	}
	if c.Compression.Alg != "" {
		kv = append(kv, options.KV{Key: "compression", Value: c.Compression.String()})
	}
	for _, s := range []struct {
		key string
		v   int64
	}{{"sieve_buf_size", c.SieveBuf}, {"meta_block_size", c.MetaBlock}, {"small_block_size", c.SmallBlock}} {
		if s.v >= 0 {
			kv = append(kv, options.KV{Key: s.key, Value: strconv.FormatInt(s.v, 10)})
		}
	}
	if c.LogFile != "" {
		kv = append(kv, options.KV{Key: "log_file_name", Value: c.LogFile})
	}
	if c.TimingsFile != "" {
		kv = append(kv, options.KV{Key: "timings_file_name", Value: c.TimingsFile})
	}
	if c.Decimal {
		kv = append(kv, options.KV{Key: "units_prefix_system", Value: "decimal"})
	}
	if !c.MACSioCache {
		kv = append(kv, options.KV{Key: "mdc", Value: "hdf5"})
	}
	return kv
}

// String renders the compression as the key's "ALG PARAMS".
func (c Compression) String() string {
	if c.Alg == "" {
		return ""
	}
	method := "nn"
	if c.SzipEC {
		method = "ec"
	}
	return fmt.Sprintf("%s minsize=%d,shuffle=%d,level=%d,method=%s,block=%d", c.Alg, c.MinSize, b2i(c.Shuffle), c.Level, method, c.SzipBlock)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
