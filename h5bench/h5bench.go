// Package h5bench reads h5bench configuration files unchanged and maps them onto
// h5proxy runs: the top-level mpi, vol, file-system, directory and benchmarks sections,
// each benchmark's configuration keys (sizes like "16 M", durations like "1 s") and
// h5bench's MODE key.
//
//	f, err := h5bench.Load("samples/sync-write-read-1d-contig.json")
//	for _, run := range f.Runs { ... proxy.NewSession(comm, run.Config) ... }
//
// Benchmarks h5proxy does not model yet are an error before any I/O, naming the benchmark
// and the supported ones.
package h5bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// File is a parsed h5bench configuration.
type File struct {
	MPI       MPI
	Directory string
	Runs      []Run
	// Warnings lists settings accepted but without effect here (vol, file-system, ...).
	Warnings []string
	// PluginPath is vol.path, which h5bench's runner exports to its programs as
	// HDF5_PLUGIN_PATH (where HDF5 loads filter plugins from); "" when absent.
	PluginPath string
}

// MPI is the launch section.
type MPI struct {
	Command string
	// Ranks is the rank count: from "ranks", or from -n/-np in "configuration".
	Ranks int
	// Args replace the rank option when "configuration" is given (split on spaces).
	Args []string
	// LauncherCount is true when Args give no rank count: the launcher starts its default
	// number of ranks (mpirun: one per slot), as under h5bench's runner, and Ranks is only
	// what the file asked for.
	LauncherCount bool
	// IgnoredRanks is the mpi.ranks value that mpi.configuration's rank option (RanksOption)
	// overrode, as under h5bench's runner; 0 when they agree or one is absent.
	IgnoredRanks int
	RanksOption  string
}

// Run is one benchmark entry mapped to a session configuration.
type Run struct {
	Benchmark string
	Config    proxy.Config
}

// adapter maps one kind of h5bench benchmark entry onto a session configuration.
type adapter struct {
	pattern string
	// configure fills cfg (whose pattern is already set) from the entry: the run directory,
	// the entry's "file" (may be empty) and its configuration object.
	configure func(dir, file string, conf map[string]any, cfg *proxy.Config) error
	// ordered, when set instead, also gets the configuration's keys in the file's order:
	// h5bench's runner passes them to an external program's command line in that order.
	ordered func(dir, file string, keys []string, conf map[string]any, cfg *proxy.Config) error
}

// benchmarks maps h5bench's benchmark names to their adapters; each application's file
// registers its own (vpic.go: write and read).
var benchmarks = map[string]adapter{}

func register(name string, a adapter) { benchmarks[name] = a }

// known lists every benchmark name h5bench dispatches, for error messages.
var known = []string{"write", "write-unlimited", "write_var_normal_dist", "write_var_data_dist", "overwrite", "append", "read",
	"metadata", "exerciser", "amrex", "openpmd", "e3sm", "macsio", "dlio"}

// misnamed are names h5bench's samples use that its runner does not dispatch (it logs
// "Unsupported benchmark/kernel" and runs nothing), with the name it does run.
var misnamed = map[string]string{"write_normal_dist": "write_var_normal_dist"}

// Supported lists the benchmark names h5proxy runs.
func Supported() []string {
	var s []string
	for _, k := range known {
		if _, ok := benchmarks[k]; ok {
			s = append(s, k)
		}
	}
	return s
}

type rawFile struct {
	MPI        map[string]any   `json:"mpi"`
	Vol        map[string]any   `json:"vol"`
	FileSystem map[string]any   `json:"file-system"`
	Directory  string           `json:"directory"`
	Benchmarks []map[string]any `json:"benchmarks"`
}

// Load reads and validates an h5bench configuration file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("h5bench: %w", err)
	}
	return Parse(data)
}

// IsH5bench reports whether JSON bytes look like an h5bench configuration (it has a
// "benchmarks" list) rather than a native h5proxy one.
func IsH5bench(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe["benchmarks"]
	return ok
}

// topLevel lists the top-level keys of an h5bench configuration.
var topLevel = []string{"mpi", "vol", "file-system", "directory", "benchmarks"}

// Parse validates h5bench configuration bytes.
func Parse(data []byte) (*File, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("h5bench: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(probe)) {
		if !slices.Contains(topLevel, k) {
			return nil, fmt.Errorf("h5bench: %w", &options.Error{Key: k, Value: rawText(probe[k]), Reason: "unknown key",
				Allowed: strings.Join(topLevel, ", ")})
		}
	}
	var raw rawFile
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("h5bench: %w (top-level keys: %s)", err, strings.Join(topLevel, ", "))
	}
	f := &File{Directory: raw.Directory}
	if f.Directory == "" {
		f.Directory = "."
	}
	var err error
	if f.MPI, err = parseMPI(raw.MPI); err != nil {
		return nil, fmt.Errorf("h5bench: %w", err)
	}
	if _, ok := raw.MPI["ranks"]; ok && f.MPI.LauncherCount {
		f.Warnings = append(f.Warnings, fmt.Sprintf("mpi.ranks=%d ignored, as by h5bench's runner: mpi.configuration %q replaces the rank option and gives none, so %s starts its default number of ranks; add -np %d to mpi.configuration",
			f.MPI.Ranks, strings.Join(f.MPI.Args, " "), f.MPI.Command, f.MPI.Ranks))
	}
	if f.MPI.IgnoredRanks > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("mpi.ranks=%d ignored, as by h5bench's runner: mpi.configuration's %q gives %d ranks",
			f.MPI.IgnoredRanks, f.MPI.RanksOption, f.MPI.Ranks))
	}
	// Sorted, so that the warnings (and the reports that carry them) are reproducible.
	for _, k := range slices.Sorted(maps.Keys(raw.Vol)) {
		s := proxy.Scalar(raw.Vol[k])
		switch {
		case k == "path" && s != "":
			// h5bench's runner exports vol.path as HDF5_PLUGIN_PATH (compression plugins):
			// so does h5proxy run for the ranks it launches. A list (the cache samples')
			// becomes a search path.
			f.PluginPath = s
			if l, ok := raw.Vol[k].([]any); ok {
				var dirs []string
				for _, d := range l {
					dirs = append(dirs, proxy.Scalar(d))
				}
				f.PluginPath = strings.Join(dirs, ":")
			}
		case s != "":
			f.Warnings = append(f.Warnings, fmt.Sprintf("vol.%s=%q ignored: HDF5 1.10 has no VOL connectors; select strategies with MODE", k, s))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(raw.FileSystem)) {
		f.Warnings = append(f.Warnings, fmt.Sprintf("file-system.%s=%q ignored (no Lustre striping here)", k, proxy.Scalar(raw.FileSystem[k])))
	}
	if len(raw.Benchmarks) == 0 {
		return nil, fmt.Errorf("h5bench: key %q: no benchmarks to run", "benchmarks")
	}
	var order struct {
		Benchmarks []json.RawMessage `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &order); err != nil {
		return nil, fmt.Errorf("h5bench: %w", err)
	}
	for i, b := range raw.Benchmarks {
		r, err := parseBenchmark(f.Directory, b, configurationKeys(order.Benchmarks[i]))
		if err != nil {
			return nil, fmt.Errorf("h5bench: benchmarks[%d]: %w", i, err)
		}
		f.Runs = append(f.Runs, r)
	}
	return f, nil
}

// rawText renders a JSON value for an error message, shortened when long.
func rawText(m json.RawMessage) string {
	var v any
	if json.Unmarshal(m, &v) != nil {
		return string(m)
	}
	s := proxy.Scalar(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// rankOptions are the launcher options that give the rank count: mpirun/mpiexec (OpenMPI,
// MPICH), srun (-n, --ntasks) and h5bench's own `--cpu_bind=cores -n <ranks>` for srun.
var rankOptions = []string{"-n", "-np", "--np", "--n", "--ntasks"}

// openMPICommands are the launchers for which -c is a synonym of -np; for srun -c is
// --cpus-per-task and must not be read as a rank count.
var openMPICommands = []string{"mpirun", "mpiexec", "orterun"}

// ranksFromArgs finds the rank count in a launcher's options ("-np 4", "-n=4",
// "--ntasks=4", "-n4"). found is false when no option gives it; options that disagree
// are an error.
func ranksFromArgs(command string, args []string) (n int, option string, found bool, err error) {
	names := rankOptions
	if slices.Contains(openMPICommands, filepath.Base(command)) {
		names = append(slices.Clone(names), "-c")
	}
	for i := 0; i < len(args); i++ {
		text, val, ok := args[i], "", false
		for _, name := range names {
			a := args[i]
			switch {
			case a == name && i+1 == len(args):
				ok = true // no count follows: reported below
			case a == name:
				text, val, ok = a+" "+args[i+1], args[i+1], true
				i++
			case strings.HasPrefix(a, name+"="):
				val, ok = strings.TrimPrefix(a, name+"="), true
			case len(name) == 2 && len(a) > 2 && strings.HasPrefix(a, name) && isDigits(a[2:]):
				val, ok = a[2:], true // srun's -n4
			}
			if ok {
				break
			}
		}
		if !ok {
			continue
		}
		m, cerr := strconv.Atoi(val)
		if cerr != nil || m < 1 {
			return 0, "", false, &options.Error{Table: "mpi", Key: "configuration", Value: strings.Join(args, " "),
				Reason: fmt.Sprintf("%q is not a rank count", text), Allowed: "an integer >= 1"}
		}
		if found && m != n {
			return 0, "", false, &options.Error{Table: "mpi", Key: "configuration", Value: strings.Join(args, " "),
				Reason: fmt.Sprintf("%q contradicts %q", text, option)}
		}
		if !found {
			n, option, found = m, text, true
		}
	}
	return n, option, found, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func parseMPI(m map[string]any) (MPI, error) {
	out := MPI{Command: "mpirun", Ranks: 1}
	ranksSet := false
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s := proxy.Scalar(m[k])
		switch k {
		case "command":
			out.Command = s
		case "ranks":
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return out, &options.Error{Table: "mpi", Key: k, Value: s, Reason: "not a rank count", Allowed: "an integer >= 1"}
			}
			out.Ranks, ranksSet = n, true
		case "configuration":
			out.Args = strings.Fields(s)
		default:
			return out, &options.Error{Table: "mpi", Key: k, Value: s, Reason: "unknown key", Allowed: "command, ranks, configuration"}
		}
	}
	n, opt, found, err := ranksFromArgs(out.Command, out.Args)
	if err != nil {
		return out, err
	}
	if found {
		// h5bench's runner uses mpi.configuration instead of mpi.ranks when both are given
		// (several of its own samples say ranks 4 with -np 2): so does h5proxy, with a
		// warning naming both.
		if ranksSet && n != out.Ranks {
			out.IgnoredRanks = out.Ranks
			out.RanksOption = opt
		}
		out.Ranks = n
	}
	out.LauncherCount = len(out.Args) > 0 && !found
	return out, nil
}

// configurationKeys lists the keys of a benchmark entry's configuration object in the
// file's order (nil when it has none).
func configurationKeys(entry json.RawMessage) []string {
	var e map[string]json.RawMessage
	if json.Unmarshal(entry, &e) != nil || e["configuration"] == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(e["configuration"]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func parseBenchmark(dir string, b map[string]any, keys []string) (Run, error) {
	name := proxy.Scalar(b["benchmark"])
	file := proxy.Scalar(b["file"])
	for _, k := range slices.Sorted(maps.Keys(b)) { // sorted: the same key is reported every run
		if k != "benchmark" && k != "file" && k != "configuration" {
			return Run{}, &options.Error{Key: k, Value: proxy.Scalar(b[k]), Reason: "unknown key", Allowed: "benchmark, file, configuration"}
		}
	}
	if _, ok := external[name]; ok {
		return Run{}, externalError(name)
	}
	a, ok := benchmarks[name]
	if !ok {
		reason := "not an h5bench benchmark"
		if m, ok := misnamed[name]; ok {
			reason = fmt.Sprintf("not an h5bench benchmark: h5bench's runner skips it as unsupported (its sample %s uses it); the normal-distribution kernel is %q", "sync-write-1d-contig-contig-normal-dist.json", m)
		}
		for _, k := range known {
			if k == name {
				reason = "not supported by h5proxy yet"
			}
		}
		return Run{}, &options.Error{Key: "benchmark", Value: name, Reason: reason, Allowed: strings.Join(Supported(), ", ")}
	}
	conf, _ := b["configuration"].(map[string]any)
	if b["configuration"] != nil && conf == nil {
		return Run{}, &options.Error{Key: "configuration", Value: proxy.Scalar(b["configuration"]), Reason: "must be an object of KEY: value"}
	}
	cfg := proxy.DefaultConfig(a.pattern)
	// h5bench prepares its data once, before its timer starts, and writes it at every step:
	// fill=once, unless the entry's configuration sets fill itself.
	if err := cfg.Set("fill", emulate.Once.String()); err != nil {
		return Run{}, err
	}
	configure := a.configure
	if a.ordered != nil {
		configure = func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
			return a.ordered(dir, file, keys, conf, cfg)
		}
	}
	if err := configure(dir, file, conf, &cfg); err != nil {
		return Run{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Run{}, withAliases(err)
	}
	return Run{Benchmark: name, Config: cfg}, nil
}

// setAll applies a configuration object's keys in sorted order (no key's meaning depends
// on order here; sorted for reproducible reports), placing file-valued keys in the run
// directory as h5bench's runner does.
func setAll(dir string, conf map[string]any, cfg *proxy.Config, skip func(key, value string) (bool, error)) error {
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		v := proxy.Scalar(conf[k])
		if skip != nil {
			if done, err := skip(k, v); err != nil || done {
				if err != nil {
					return err
				}
				continue
			}
		}
		if strings.EqualFold(k, "CSV_FILE") || strings.EqualFold(k, "ENV_METADATA_FILE") {
			v = joinDir(dir, v)
		}
		if err := cfg.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// withAliases completes the allowed set of an unknown-key error with the h5bench
// spellings of the session keys (MODE, EMULATED_COMPUTE_TIME_PER_TIMESTEP, CSV_FILE, ...):
// those are the names an h5bench user writes and mistypes.
func withAliases(err error) error {
	var oe *options.Error
	if !errors.As(err, &oe) || oe.Reason != "unknown key" {
		return err
	}
	var aliases []string
	for _, s := range proxy.SessionOptions().Specs {
		aliases = append(aliases, s.Aliases...)
	}
	if len(aliases) > 0 {
		oe.Allowed += "; h5bench spellings of session keys: " + strings.Join(aliases, ", ")
	}
	return err
}

// joinDir places a relative path in the run directory, as h5bench's runner does.
func joinDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
