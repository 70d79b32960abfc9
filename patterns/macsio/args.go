package macsio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/options"
)

// ErrHelp is returned by Parse when --help is given anywhere (MACSio prints every
// option's help and exits 0).
var ErrHelp = errors.New("macsio: help requested")

// Args is one parsed MACSio command line.
type Args struct {
	// Config is the pattern's part; Interface and Filebase MACSio's choices of plugin and
	// file base.
	Config    Config
	Interface string
	Filebase  string
	// ComputeTime (--compute_time, seconds; 0 unset) and WorkIntensity
	// (--compute_work_intensity) are the work phase before each dump.
	ComputeTime   float64
	WorkIntensity int
	// Unused names the options given that MACSio parses and never uses (or that change
	// nothing in the HDF5 plugin's files), in order.
	Unused []string
	// Warnings are the plugin's warnings for its unknown arguments (it only warns).
	Warnings []string
}

// argSpec is one MACSio option: its name, its parameters' conversions (d, f, s; none for
// a flag), its default and help.
type argSpec struct {
	name, params, def, help string
	// unused: MACSio parses it and nothing of the HDF5 plugin's I/O depends on it.
	unused bool
}

// mainArgs are macsio_main.c's options, in its order.
var mainArgs = []argSpec{
	{"--units_prefix_system", "s", "binary", "binary or decimal: the log's units (sizes on the command line are always binary: MACSio sets the system after parsing them)", false},
	{"--interface", "s", "miftmpl", "I/O plugin; h5proxy models hdf5 only (MACSio also has " + strings.Join(Interfaces[1:], ", ") + "; 'list' lists them)", false},
	{"--parallel_file_mode", "s d", "MIF 4", "MIF n: n files per dump, ranks take turns (baton); SIF n: one shared file per dump (n ignored by the HDF5 plugin)", false},
	{"--avg_num_parts", "f", "1", "average mesh parts per rank; fractional: each rank K or K+1", false},
	{"--mesh_decomp", "d d d", "", "parts along x y z, overriding the close factors of the part count", false},
	{"--part_size", "d", "80000", "part size in bytes (B, K, M, G suffixes, 1024-based): part_size/8 doubles", false},
	{"--part_mesh_dims", "d d d", "", "nodes per part along x y z, overriding part_size (0 as the 3rd for 2-D)", false},
	{"--part_dim", "d", "2", "spatial dimension of the parts: 1, 2 or 3", false},
	{"--part_type", "s", "rectilinear", "mesh type: changes only MACSio's in-memory mesh, never the HDF5 plugin's file (parsed, not used by h5proxy)", true},
	{"--part_map", "s", "", "part-to-rank map file (MACSio: currently ignored; parsed, not used)", true},
	{"--vars_per_part", "d", "20", "variables per part", false},
	{"--dataset_growth", "f", "", "growth factor of the data between dumps (> 1)", false},
	{"--topology_change_probability", "f", "0.0", "probability of a topology change per dump (MACSio: parsed, not used)", true},
	{"--meta_type", "s", "tabular", "metadata object type (MACSio: parsed, not used; no metadata is written)", true},
	{"--meta_size", "d d", "10000 50000", "metadata object sizes (MACSio: parsed, not used)", true},
	{"--num_dumps", "d", "10", "number of dumps", false},
	{"--max_dir_size", "d", "", "files per directory (MACSio: parsed, not used)", true},
	{"--compute_work_intensity", "d", "1", "work before each dump: 1 sleep (whole seconds only), 2 flops, 3 Jacobi solve (h5proxy: compute_kind=spin)", false},
	{"--compute_time", "f", "", "seconds of work before each dump (h5proxy: the session's compute_time)", false},
	{"--debug_level", "d", "0", "debugging level of the log (h5proxy: parsed, not used; MACSio's level 2 and up write JSON dumps)", true},
	{"--log_file_name", "s", "macsio-log.log", "the log file", false},
	{"--log_line_cnt", "d d", "64 0", "lines per rank in the log and extra lines for rank 0 (0: 64)", false},
	{"--log_line_length", "d", "128", "log line length", false},
	{"--timings_file_name", "s", "macsio-timings.log", "the timings file (\"\": none)", false},
	{"--alignment", "d", "", "not documented by MACSio (parsed, not used)", true},
	{"--filebase", "s", "macsio", "base name of the files", false},
	{"--fileext", "s", "", "extension of the files (the plugin's h5 when empty)", false},
	{"--read_path", "s", "", "read test: MACSio's HDF5 plugin has no reader (refused)", false},
	{"--num_loads", "d", "", "read test loads (parsed, not used)", true},
	{"--no_validate_read", "", "", "read test (parsed, not used)", true},
	{"--read_mesh", "s", "", "read test (parsed, not used)", true},
	{"--read_vars", "s", "", "read test (parsed, not used)", true},
	{"--time_randomize", "", "", "seed MACSio's PRNGs from the clock (h5proxy: the session's seed decides; parsed, not used)", true},
	{"--plugin_args", "", "", "every argument after it goes to the plugin", false},
}

// pluginArgs are the HDF5 plugin's options (process_args).
var pluginArgs = []argSpec{
	{"--show_errors", "", "", "show HDF5's errors (parsed, not used: h5proxy reports every error)", true},
	{"--compression", "s s", "", "ALG PARAMS: gzip level=N,minsize=N,shuffle=0|1; szip method=nn|ec,block=N; zfp rate=R", false},
	{"--no_collective", "", "", "independent SIF writes", false},
	{"--no_single_chunk", "", "", "MACSio: currently ignored (parsed, not used)", true},
	{"--sieve_buf_size", "d", "", "H5Pset_sieve_buf_size", false},
	{"--meta_block_size", "d", "", "H5Pset_meta_block_size", false},
	{"--small_block_size", "d", "", "H5Pset_small_data_block_size (MACSio passes the meta block size)", false},
	{"--log", "", "", "HDF5's logging driver (compiled out of MACSio's plugin: parsed, not used)", true},
}

// Help is MACSio's usage text for the options h5proxy takes.
func Help() string {
	var b strings.Builder
	b.WriteString("Usage and Help for \"macsio\"\nDefaults, if any, in square brackets after argument definition\n")
	line := func(a argSpec) {
		f := a.name
		for _, p := range strings.Fields(a.params) {
			f += " %" + p
		}
		fmt.Fprintf(&b, "  %s [%s]\n      %s\n", f, a.def, a.help)
	}
	for _, a := range mainArgs {
		line(a)
	}
	b.WriteString("\nOptions specific to the \"hdf5\" I/O plugin (after --plugin_args)\n")
	for _, a := range pluginArgs {
		line(a)
	}
	return b.String()
}

// parsed holds one pass's values: each option's parameters as given.
type parsed map[string][]string

// scan reads argv against specs as MACSIO_CLARGS_ProcessCmdline does: an option takes as
// many arguments as it has parameters; --plugin_args ends the main list. Unknown options
// are an error (main) or a warning (plugin).
func scan(argv []string, specs []argSpec, plugin bool, warn *[]string) (parsed, int, error) {
	out := parsed{}
	for i := 0; i < len(argv); i++ {
		var s *argSpec
		for k := range specs {
			if argv[i] == specs[k].name {
				s = &specs[k]
				break
			}
		}
		if s == nil {
			if plugin {
				*warn = append(*warn, fmt.Sprintf("macsio: hdf5 plugin: unknown argument %s", argv[i]))
				continue
			}
			return nil, 0, fmt.Errorf("macsio: unknown argument %s. Type macsio --help for help", argv[i])
		}
		if s.name == "--plugin_args" {
			return out, i + 1, nil
		}
		n := len(strings.Fields(s.params))
		if i+n >= len(argv) && n > 0 {
			return nil, 0, fmt.Errorf("macsio: too few arguments for command-line options (%s takes %d)", s.name, n)
		}
		out[s.name] = append([]string(nil), argv[i+1:i+1+n]...)
		i += n
	}
	return out, len(argv), nil
}

// intArg is MACSio's %d: strtol of the leading digits times the size of the last
// character's modifier (K, M, G, T, P: 1024-based), which must fit an int.
func intArg(name, s string) (int64, error) {
	mult := 1.0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		case 'p', 'P':
			mult = 1 << 50
		}
	}
	v := float64(atoi(s)) * mult
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, fmt.Errorf("macsio: integer overflow (%.0f) for arg %q", v, name)
	}
	return int64(v), nil
}

// floatArg is C's atof: the longest leading number, 0 when none.
func floatArg(s string) float64 {
	s = strings.TrimSpace(s)
	for n := len(s); n > 0; n-- {
		if v, err := strconv.ParseFloat(s[:n], 64); err == nil {
			return v
		}
	}
	return 0
}

// Parse reads MACSio's command line (without the program name), with its defaults.
func Parse(argv []string) (Args, error) {
	var a Args
	for _, s := range argv {
		if strings.Contains(strings.ToLower(s), "--help") {
			return a, ErrHelp
		}
	}
	main, next, err := scan(argv, mainArgs, false, nil)
	if err != nil {
		return a, err
	}
	plug, _, _ := scan(argv[next:], pluginArgs, true, &a.Warnings)
	get := func(p parsed, specs []argSpec, name string) ([]string, bool) {
		if v, ok := p[name]; ok {
			return v, true
		}
		for _, s := range specs {
			if s.name == name {
				return strings.Fields(s.def), false
			}
		}
		return nil, false
	}
	for _, specs := range []struct {
		p parsed
		s []argSpec
	}{{main, mainArgs}, {plug, pluginArgs}} {
		for _, s := range specs.s {
			if _, given := specs.p[s.name]; given && s.unused {
				a.Unused = append(a.Unused, s.name)
			}
		}
	}
	str := func(name string) string { v, _ := get(main, mainArgs, name); return strings.Join(v, " ") }
	num := func(p parsed, specs []argSpec, name string, i int) (int64, bool, error) {
		v, given := get(p, specs, name)
		if i >= len(v) {
			return 0, given, nil
		}
		n, err := intArg(name, v[i])
		return n, given, err
	}
	a.Interface = str("--interface")
	switch {
	case a.Interface == "list":
		return a, fmt.Errorf("macsio: --interface list: h5proxy models one plugin, hdf5 (MACSio's plugins: %s)", strings.Join(Interfaces, ", "))
	case a.Interface != "hdf5":
		return a, fmt.Errorf("macsio: --interface %s: h5proxy models MACSio's hdf5 plugin only (MACSio also has %s)", a.Interface, strings.Join(Interfaces[1:], ", "))
	}
	if _, ok := main["--read_path"]; ok {
		return a, fmt.Errorf("macsio: --read_path: MACSio's hdf5 plugin has no reader (h5proxy's read phase checks the dumps instead)")
	}
	c := &a.Config
	c.SieveBuf, c.MetaBlock, c.SmallBlock, c.MACSioCache = -1, -1, -1, true
	mode, _ := get(main, mainArgs, "--parallel_file_mode")
	if c.SIF, c.NumFiles, err = ParseFileMode(strings.Join(mode, " ")); err != nil {
		return a, fmt.Errorf("macsio: --parallel_file_mode %s: %w", strings.Join(mode, " "), err)
	}
	if c.AvgNumParts = floatArg(str("--avg_num_parts")); c.AvgNumParts < 1 {
		return a, fmt.Errorf("macsio: --avg_num_parts %s: at least 1 part per rank (MACSio gives a rank that draws 0 parts every remaining part)", str("--avg_num_parts"))
	}
	ints := []struct {
		name string
		dst  *int
		min  int
	}{{"--part_dim", &c.PartDim, 1}, {"--vars_per_part", &c.VarsPerPart, 1}, {"--num_dumps", &c.NumDumps, 0},
		{"--compute_work_intensity", &a.WorkIntensity, 1}, {"--log_line_length", &c.LogLineLen, 0}}
	for _, x := range ints {
		n, _, err := num(main, mainArgs, x.name, 0)
		if err != nil {
			return a, err
		}
		if int(n) < x.min {
			return a, fmt.Errorf("macsio: %s %d: at least %d", x.name, n, x.min)
		}
		*x.dst = int(n)
	}
	if c.PartDim > 3 {
		return a, fmt.Errorf("macsio: --part_dim %d: 1, 2 or 3", c.PartDim)
	}
	if a.WorkIntensity > 3 {
		return a, fmt.Errorf("macsio: --compute_work_intensity %d: level 1, 2 or 3", a.WorkIntensity)
	}
	if c.PartSize, _, err = num(main, mainArgs, "--part_size", 0); err != nil {
		return a, err
	}
	if c.PartSize < 16 {
		return a, fmt.Errorf("macsio: --part_size %d: at least 16 bytes (2 doubles)", c.PartSize)
	}
	for _, x := range []struct {
		name string
		dst  **[3]int
	}{{"--part_mesh_dims", &c.PartMeshDims}, {"--mesh_decomp", &c.MeshDecomp}} {
		v, given := main[x.name]
		if !given {
			continue
		}
		var t [3]int
		for i := range t {
			n, err := intArg(x.name, v[i])
			if err != nil {
				return a, err
			}
			t[i] = int(n)
		}
		d, err := parseTriple(fmt.Sprintf("%d %d %d", t[0], t[1], t[2]), c.PartDim)
		if err != nil {
			return a, fmt.Errorf("macsio: %s %s: %w", x.name, strings.Join(v, " "), err)
		}
		*x.dst = &d
	}
	if _, err := c.PartNodes(); err != nil {
		return a, fmt.Errorf("macsio: %w", err)
	}
	if v, ok := main["--dataset_growth"]; ok {
		if c.Growth = floatArg(v[0]); c.Growth < 0 {
			return a, fmt.Errorf("macsio: --dataset_growth %s: a negative growth factor (MACSio grows the data by factor - 1 of the dump's size: use a factor > 1; <= 1 means no growth)", v[0])
		}
	}
	if v, ok := main["--compute_time"]; ok {
		if a.ComputeTime = floatArg(v[0]); a.ComputeTime < 0 {
			return a, fmt.Errorf("macsio: --compute_time %s: negative", v[0])
		}
	}
	lc, _ := get(main, mainArgs, "--log_line_cnt")
	for i, dst := range []*int{&c.LogLines, &c.LogExtra} {
		n, err := intArg("--log_line_cnt", lc[i])
		if err != nil {
			return a, err
		}
		*dst = int(n)
	}
	c.LogFile, c.TimingsFile = str("--log_file_name"), str("--timings_file_name")
	if v, ok := main["--timings_file_name"]; ok {
		c.TimingsFile = v[0] // "" disables it
	}
	a.Filebase, c.FileExt = str("--filebase"), str("--fileext")
	if c.FileExt == "" {
		c.FileExt = "h5" // the plugin's extension
	}
	switch u := str("--units_prefix_system"); u {
	case "binary":
	case "decimal":
		c.Decimal = true
	default:
		return a, fmt.Errorf("macsio: --units_prefix_system %s: binary or decimal", u)
	}
	_, c.NoCollective = plug["--no_collective"]
	if v, ok := plug["--compression"]; ok {
		if c.Compression, err = ParseCompression(strings.Join(v, " ")); err != nil {
			return a, fmt.Errorf("macsio: --compression %s: %w", strings.Join(v, " "), err)
		}
	} else {
		c.Compression, _ = ParseCompression("")
	}
	for _, x := range []struct {
		name string
		dst  *int64
	}{{"--sieve_buf_size", &c.SieveBuf}, {"--meta_block_size", &c.MetaBlock}, {"--small_block_size", &c.SmallBlock}} {
		if n, given, err := num(plug, pluginArgs, x.name, 0); err != nil {
			return a, err
		} else if given {
			if n < 0 {
				return a, fmt.Errorf("macsio: %s %d: negative", x.name, n)
			}
			*x.dst = n
		}
	}
	if c.SmallBlock >= 0 && c.MetaBlock < 0 {
		return a, fmt.Errorf("macsio: --small_block_size without --meta_block_size: MACSio's plugin passes the meta block size (-1 when unset) to H5Pset_small_data_block_size, which fails")
	}
	return a, nil
}

// KVs are the session keys of the command line: the pattern's options, the file base as
// the session's file, and the work before each dump as the session's compute keys: level
// 1 sleeps the whole seconds of --compute_time only (MACSio's nanosleep of its integer
// part), levels 2 and 3 keep a core busy for all of it.
func (a Args) KVs() []options.KV {
	kv := append(a.Config.KVs(), options.KV{Key: "file", Value: a.Filebase})
	if a.ComputeTime > 0 {
		d, kind := time.Duration(math.Floor(a.ComputeTime))*time.Second, "sleep"
		if a.WorkIntensity > 1 {
			d, kind = time.Duration(a.ComputeTime*float64(time.Second)), "spin"
		}
		kv = append(kv, options.KV{Key: "compute_time", Value: d.String()}, options.KV{Key: "compute_kind", Value: kind})
	}
	return kv
}
