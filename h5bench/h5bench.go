// Package h5bench reads h5bench configuration files unchanged and maps them onto
// h5proxy runs: the top-level mpi, vol, file-system, directory and benchmarks sections,
// each benchmark's configuration keys (sizes like "16 M", durations like "1 s") and
// h5bench's MODE key.
//
//	f, err := h5bench.Load("samples/sync-write-1d-contig-contig.json")
//	for _, run := range f.Runs { ... proxy.NewSession(comm, run.Config) ... }
//
// Benchmarks h5proxy does not model yet are an error before any I/O, naming the benchmark
// and the supported ones.
package h5bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// File is a parsed h5bench configuration.
type File struct {
	MPI       MPI
	Directory string
	Runs      []Run
	// Warnings lists settings accepted but without effect here (vol, file-system, ...).
	Warnings []string
}

// MPI is the launch section.
type MPI struct {
	Command string
	// Ranks is the rank count: from "ranks", or from -n/-np in "configuration".
	Ranks int
	// Args replace the rank option when "configuration" is given (split on spaces).
	Args []string
}

// Run is one benchmark entry mapped to a session configuration.
type Run struct {
	Benchmark string
	Config    proxy.Config
}

// benchmarks maps h5bench's benchmark names to a pattern and its phases.
var benchmarks = map[string]struct {
	pattern string
	phase   patterns.Phase
}{
	"write": {"vpic", patterns.PhaseWrite},
	"read":  {"vpic", patterns.PhaseRead},
}

// known lists every benchmark name h5bench dispatches, for error messages.
var known = []string{"write", "write-unlimited", "write_var_normal_dist", "overwrite", "append", "read",
	"metadata", "exerciser", "amrex", "openpmd", "e3sm", "macsio"}

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

// Parse validates h5bench configuration bytes.
func Parse(data []byte) (*File, error) {
	var raw rawFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("h5bench: %w (top-level keys: mpi, vol, file-system, directory, benchmarks)", err)
	}
	f := &File{Directory: raw.Directory}
	if f.Directory == "" {
		f.Directory = "."
	}
	var err error
	if f.MPI, err = parseMPI(raw.MPI); err != nil {
		return nil, err
	}
	for k, v := range raw.Vol {
		if s := proxy.Scalar(v); s != "" {
			f.Warnings = append(f.Warnings, fmt.Sprintf("vol.%s=%q ignored: HDF5 1.10 has no VOL connectors; select strategies with MODE", k, s))
		}
	}
	for k, v := range raw.FileSystem {
		f.Warnings = append(f.Warnings, fmt.Sprintf("file-system.%s=%q ignored (no Lustre striping here)", k, proxy.Scalar(v)))
	}
	if len(raw.Benchmarks) == 0 {
		return nil, fmt.Errorf("h5bench: key %q: no benchmarks to run", "benchmarks")
	}
	for i, b := range raw.Benchmarks {
		r, err := parseBenchmark(f.Directory, b)
		if err != nil {
			return nil, fmt.Errorf("h5bench: benchmarks[%d]: %w", i, err)
		}
		f.Runs = append(f.Runs, r)
	}
	return f, nil
}

var rankFlag = regexp.MustCompile(`(?:^|\s)(?:-n|-np|--np|--n|-c)\s+(\d+)`)

func parseMPI(m map[string]any) (MPI, error) {
	out := MPI{Command: "mpirun", Ranks: 1}
	ranksSet := false
	for k, v := range m {
		s := proxy.Scalar(v)
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
	if mm := rankFlag.FindStringSubmatch(strings.Join(out.Args, " ")); mm != nil {
		n, _ := strconv.Atoi(mm[1])
		if ranksSet && n != out.Ranks {
			return out, &options.Error{Table: "mpi", Key: "ranks", Value: strconv.Itoa(out.Ranks),
				Reason: fmt.Sprintf("contradicts %q in mpi.configuration", strings.TrimSpace(mm[0]))}
		}
		out.Ranks = n
	}
	return out, nil
}

func parseBenchmark(dir string, b map[string]any) (Run, error) {
	name := proxy.Scalar(b["benchmark"])
	file := proxy.Scalar(b["file"])
	for k := range b {
		if k != "benchmark" && k != "file" && k != "configuration" {
			return Run{}, &options.Error{Key: k, Value: proxy.Scalar(b[k]), Reason: "unknown key", Allowed: "benchmark, file, configuration"}
		}
	}
	spec, ok := benchmarks[name]
	if !ok {
		reason := "not an h5bench benchmark"
		for _, k := range known {
			if k == name {
				reason = "not supported by h5proxy yet"
			}
		}
		return Run{}, &options.Error{Key: "benchmark", Value: name, Reason: reason, Allowed: strings.Join(Supported(), ", ")}
	}
	if file == "" {
		return Run{}, &options.Error{Key: "file", Reason: "required: the HDF5 file name (relative to directory)"}
	}
	cfg := proxy.DefaultConfig(spec.pattern)
	cfg.Phases = []patterns.Phase{spec.phase}
	if err := cfg.Set("file", joinDir(dir, file)); err != nil {
		return Run{}, err
	}
	conf, _ := b["configuration"].(map[string]any)
	if b["configuration"] != nil && conf == nil {
		return Run{}, &options.Error{Key: "configuration", Value: proxy.Scalar(b["configuration"]), Reason: "must be an object of KEY: value"}
	}
	// No key's meaning depends on order here: sorted for reproducible reports.
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		v := proxy.Scalar(conf[k])
		if strings.EqualFold(k, "IO_OPERATION") && !strings.EqualFold(v, spec.phase.String()) {
			return Run{}, &options.Error{Key: k, Value: v, Reason: fmt.Sprintf("contradicts benchmark %q", name), Allowed: strings.ToUpper(spec.phase.String())}
		}
		if strings.EqualFold(k, "CSV_FILE") || strings.EqualFold(k, "ENV_METADATA_FILE") {
			v = joinDir(dir, v)
		}
		if err := cfg.Set(k, v); err != nil {
			return Run{}, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return Run{}, err
	}
	return Run{Benchmark: name, Config: cfg}, nil
}

// joinDir places a relative path in the run directory, as h5bench's runner does.
func joinDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
