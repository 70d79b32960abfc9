package proxy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// Verify selects whether read phases check every element against the seeded fill.
type Verify string

// Verify settings.
const (
	// VerifyAuto verifies reads of files this session (or this h5proxy run) wrote with
	// seeded fills.
	VerifyAuto Verify = "auto"
	VerifyYes  Verify = "yes"
	VerifyNo   Verify = "no"
)

// Config is the one validated description of a run. Fill it from Go, from a native JSON
// file (LoadConfig), from KEY=VALUE options (Set, ParseOptions) or from an h5bench
// configuration (package h5bench); Validate checks it before any I/O.
type Config struct {
	// Pattern is the registered pattern name (see patterns.Names()).
	Pattern string `json:"pattern"`
	// Options are the pattern's keys (h5bench's names, e.g. DIM_1, TIMESTEPS), in order.
	Options []options.KV `json:"-"`
	// Phases run by Run, in order; default write then read.
	Phases []patterns.Phase `json:"-"`
	// File is the HDF5 file (or file prefix) the phases work on.
	File string `json:"file"`
	// Mode is the passthrough I/O mode ("sync").
	Mode string `json:"mode"`
	// Layout is the terminal layout ("native", "null").
	Layout string `json:"layout"`
	// ComputeKind and ComputePerStep emulate the application between steps.
	ComputeKind    emulate.ComputeKind `json:"-"`
	ComputePerStep time.Duration       `json:"-"`
	// Fill selects write data; Seed makes seeded fills reproducible.
	Fill emulate.FillKind `json:"-"`
	Seed uint64           `json:"seed"`
	// Verify controls read verification.
	Verify Verify `json:"verify"`
	// CSVFile, when set, receives the h5bench-style CSV (rank 0 only).
	CSVFile string `json:"csv_file,omitempty"`
	// EnvMetadataFile lists environment variable names dumped into the CSV (h5bench).
	EnvMetadataFile string `json:"env_metadata_file,omitempty"`
	// ReportFile, when set, receives the JSON report (rank 0 only).
	ReportFile string `json:"report_file,omitempty"`
	// StagingBytes bounds the async mode's staging memory; MemLimit is h5bench's
	// IO_MEM_LIMIT.
	StagingBytes int    `json:"-"`
	MemLimit     uint64 `json:"-"`
	// WriteMemcpy makes async writes copy their data into staging (the Async VOL built
	// with ENABLE_WRITE_MEMCPY); without it the data is generated in staging memory.
	WriteMemcpy bool `json:"-"`
	// CachePath and CacheCapacity configure the cache mode's node-local storage.
	CachePath     string `json:"-"`
	CacheCapacity int    `json:"-"`
	// ComputeJitter and ComputeTrace vary the compute per step.
	ComputeJitter float64 `json:"-"`
	ComputeTrace  string  `json:"-"`
	// MPIIOFileView selects the mpiio layout's file-view write path.
	MPIIOFileView bool `json:"-"`
	// SubfilingCount and SubfilingRanksPerFile group the ranks of the subfiling layout
	// (0 and 0: one group per node); LogReadGap is the log layout's read coalescing gap.
	SubfilingCount        int `json:"-"`
	SubfilingRanksPerFile int `json:"-"`
	LogReadGap            int `json:"-"`
	// MPIInfo are MPI-IO hints passed to H5Pset_fapl_mpio.
	MPIInfo map[string]string `json:"mpi_info,omitempty"`
	// Warnings collects accepted-but-ignored settings; they are logged and reported.
	Warnings []string `json:"-"`
}

// DefaultSeed is the seed of seeded fills unless configured.
const DefaultSeed = 20240601

// Session keys: the options every pattern shares, with their h5bench spellings.
var sessionOptions = &options.Table{Name: "session", Specs: []options.Spec{
	{Key: "file", Kind: options.String, Help: "HDF5 file path the phases write and read"},
	{Key: "mode", Aliases: []string{"MODE"}, Kind: options.Enum, Default: "sync", Allowed: []string{"sync", "async", "cache", "log"}, Help: "I/O mode (h5bench MODE: SYNC, ASYNC, LOG)"},
	{Key: "layout", Kind: options.Enum, Default: "native", Allowed: []string{"native", "mpiio", "null", "log", "subfiling"}, Help: "terminal layout: native (the real HDF5 file), mpiio (same bytes through plain MPI-IO, no HDF5), null (no I/O), log (Log VOL-like: per-rank data logs and an index), subfiling (one subfile per rank group, a master of virtual datasets)"},
	{Key: "compute_time", Aliases: []string{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "sleeptime"}, Kind: options.Duration, Default: "0s", Help: "emulated compute between steps (h5bench amrex: sleeptime, seconds)"},
	{Key: "compute_kind", Kind: options.Enum, Default: "sleep", Allowed: emulate.ComputeKinds, Help: "how compute is emulated: sleep (h5bench) or spin (busy core)"},
	{Key: "fill", Kind: options.Enum, Default: "seeded", Allowed: emulate.FillKinds, Help: "write data: seeded (verifiable), random (h5bench-like) or zero"},
	{Key: "seed", Kind: options.Int, Default: fmt.Sprint(DefaultSeed), Min: options.Bound(0), Help: "seed of seeded fills"},
	{Key: "verify", Aliases: []string{"VERIFY"}, Kind: options.Enum, Default: "auto", Allowed: []string{"auto", "yes", "no"}, Help: "check every element read against the seeded fill (auto: when this run wrote the file)"},
	{Key: "csv_file", Aliases: []string{"CSV_FILE"}, Kind: options.String, Help: "h5bench-style CSV output (rank 0 only)"},
	{Key: "env_metadata_file", Aliases: []string{"ENV_METADATA_FILE"}, Kind: options.String, Help: "file listing environment variable names to record in the CSV"},
	{Key: "report_file", Kind: options.String, Help: "JSON report output (rank 0 only)"},
	{Key: "mpiio.file_view", Kind: options.Bool, Default: "NO", Help: "mpiio layout: collective writes through a file view (set_view + write_at_all + reset), the MPI call sequence of HDF5's MPI-IO driver, instead of explicit offsets"},
	{Key: "SUBFILING", Kind: options.Bool, Default: "NO", Help: "h5bench SUBFILING=YES selects the subfiling layout"},
	{Key: "subfiling.count", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "subfiling layout: number of subfiles, each written by a group of consecutive ranks (at most the number of ranks); 0: one per node, unless subfiling.ranks_per_file is set"},
	{Key: "subfiling.ranks_per_file", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "subfiling layout: ranks per subfile (consecutive ranks); 0: see subfiling.count; exclusive with subfiling.count"},
	{Key: "log.read_gap", Kind: options.Size, Default: "64KiB", Help: "log layout: reads fetch pieces of the data logs closer than this many bytes with one read"},
	{Key: "async.staging_bytes", Kind: options.Size, Default: "512MiB", Min: options.Bound(1), Help: "async mode: memory for copies of write buffers in flight; when full the caller waits (backpressure, measured)"},
	{Key: "async.write_memcpy", Kind: options.Bool, Default: "YES", Help: "async mode: YES copies each write's data into staging and charges the copy to the caller (the Async VOL built with ENABLE_WRITE_MEMCPY); NO is the Async VOL's default build, which copies nothing and leaves double buffering to the application: each step's data is generated directly in a staging buffer that is not reused until its writes ran (waits for a free buffer are charged); the cache mode always copies (its copy is the node-local write)"},
	{Key: "async.mem_limit", Aliases: []string{"IO_MEM_LIMIT"}, Kind: options.Size, Default: "0", Help: "background modes: at each step start, if staged bytes in flight >= this, wait for earlier steps' I/O (h5bench IO_MEM_LIMIT; 0: always)"},
	{Key: "cache.path", Aliases: []string{"HDF5_CACHE_STORAGE_PATH"}, Kind: options.String, Help: "cache mode: node-local directory for the per-rank cache files (default: the system temporary directory; e.g. /dev/shm or an SSD)"},
	{Key: "cache.capacity", Aliases: []string{"HDF5_CACHE_STORAGE_SIZE"}, Kind: options.Size, Default: "1GiB", Min: options.Bound(4096), Help: "cache mode: bytes of node-local storage per rank; full of unmigrated data, writers wait"},
	{Key: "compute_jitter", Kind: options.Float, Default: "0", Help: "relative jitter of each compute period: d*(1+j*u), u uniform in [-1,1], seeded per rank and step"},
	{Key: "compute_trace", Kind: options.String, Help: "file of per-step compute durations (one per line, e.g. 1.5s or '250 ms'); overrides compute_time"},
}}

// SessionOptions returns the table of session-level keys (for help and schema output).
func SessionOptions() *options.Table { return sessionOptions }

// DefaultConfig returns a configuration with every session default applied.
func DefaultConfig(pattern string) Config {
	c := Config{Pattern: pattern}
	v, err := sessionOptions.Parse(nil)
	if err != nil {
		panic(err) // the defaults are constants: a failure is a programming error
	}
	for _, s := range sessionOptions.Specs {
		c.apply(s.Key, v)
	}
	return c
}

// ParseOptions builds a configuration for pattern from KEY=VALUE pairs: session keys
// (mode, file, CSV_FILE, EMULATED_COMPUTE_TIME_PER_TIMESTEP, ...) and pattern keys, in any
// order. Unknown keys are errors naming both tables' keys.
func ParseOptions(pattern string, kvs []options.KV) (Config, error) {
	c := DefaultConfig(pattern)
	for _, kv := range kvs {
		if err := c.Set(kv.Key, kv.Value); err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

// Set assigns one key: a session key changes the config at once (its value is checked
// here), any other key is appended to the pattern options (checked by Validate).
func (c *Config) Set(key, value string) error {
	s, ok := sessionOptions.Lookup(key)
	if !ok {
		c.Options = append(c.Options, options.KV{Key: key, Value: value})
		return nil
	}
	v, err := sessionOptions.Parse([]options.KV{{Key: key, Value: value}})
	if err != nil {
		return err
	}
	c.apply(s.Key, v)
	c.Warnings = appendNew(c.Warnings, v.Warnings...)
	return nil
}

// sessionKVs renders the session fields back to key/value pairs.
func (c *Config) sessionKVs() []options.KV {
	kv := []options.KV{
		{Key: "mode", Value: c.Mode}, {Key: "layout", Value: c.Layout},
		{Key: "compute_time", Value: c.ComputePerStep.String()}, {Key: "compute_kind", Value: c.ComputeKind.String()},
		{Key: "fill", Value: c.Fill.String()}, {Key: "mpiio.file_view", Value: fmt.Sprint(c.MPIIOFileView)},
		{Key: "async.staging_bytes", Value: fmt.Sprint(c.StagingBytes)}, {Key: "async.mem_limit", Value: fmt.Sprint(c.MemLimit)},
		{Key: "async.write_memcpy", Value: fmt.Sprint(c.WriteMemcpy)},
		{Key: "compute_jitter", Value: fmt.Sprint(c.ComputeJitter)}, {Key: "cache.capacity", Value: fmt.Sprint(c.CacheCapacity)},
		{Key: "seed", Value: fmt.Sprint(c.Seed)}, {Key: "verify", Value: string(c.Verify)},
		{Key: "subfiling.count", Value: fmt.Sprint(c.SubfilingCount)}, {Key: "subfiling.ranks_per_file", Value: fmt.Sprint(c.SubfilingRanksPerFile)},
		{Key: "log.read_gap", Value: fmt.Sprint(c.LogReadGap)},
	}
	for _, p := range []struct{ k, v string }{{"file", c.File}, {"compute_trace", c.ComputeTrace}, {"cache.path", c.CachePath}, {"csv_file", c.CSVFile}, {"env_metadata_file", c.EnvMetadataFile}, {"report_file", c.ReportFile}} {
		if p.v != "" {
			kv = append(kv, options.KV{Key: p.k, Value: p.v})
		}
	}
	return kv
}

// apply copies one parsed session key into the config.
func (c *Config) apply(key string, v *options.Values) {
	switch key {
	case "file":
		c.File = v.String(key)
	case "mode":
		c.Mode = strings.ToLower(v.String(key))
		if c.Mode == "log" { // h5bench MODE=LOG means the Log VOL: a layout here
			c.Mode, c.Layout = "sync", "log"
		}
	case "layout":
		c.Layout = v.String(key)
	case "async.staging_bytes":
		c.StagingBytes = int(v.Int(key))
	case "async.write_memcpy":
		c.WriteMemcpy = v.Bool(key)
	case "async.mem_limit":
		c.MemLimit = v.Uint(key)
	case "cache.path":
		c.CachePath = v.String(key)
	case "cache.capacity":
		c.CacheCapacity = int(v.Int(key))
	case "compute_jitter":
		c.ComputeJitter = v.Float(key)
	case "compute_trace":
		c.ComputeTrace = v.String(key)
	case "mpiio.file_view":
		c.MPIIOFileView = v.Bool(key)
	case "SUBFILING":
		if v.Bool(key) {
			c.Layout = "subfiling"
		}
	case "subfiling.count":
		c.SubfilingCount = int(v.Int(key))
	case "subfiling.ranks_per_file":
		c.SubfilingRanksPerFile = int(v.Int(key))
	case "log.read_gap":
		c.LogReadGap = int(v.Uint(key))
	case "compute_time":
		c.ComputePerStep = v.Duration(key)
	case "compute_kind":
		c.ComputeKind, _ = emulate.ParseComputeKind(v.String(key))
	case "fill":
		c.Fill, _ = emulate.ParseFillKind(v.String(key))
	case "seed":
		c.Seed = v.Uint(key)
	case "verify":
		c.Verify = Verify(v.String(key))
	case "csv_file":
		c.CSVFile = v.String(key)
	case "env_metadata_file":
		c.EnvMetadataFile = v.String(key)
	case "report_file":
		c.ReportFile = v.String(key)
	}
}

// Validate checks the whole configuration: pattern, its options, mode, layout, phases.
func (c *Config) Validate() error {
	if _, err := c.NewPattern(); err != nil {
		return err
	}
	if _, err := lookupMode(c.Mode); err != nil {
		return err
	}
	if _, err := lookupLayout(c.Layout); err != nil {
		return err
	}
	if c.File == "" && c.Layout != "null" {
		return &options.Error{Table: "session", Key: "file", Reason: "required: the HDF5 file to write or read"}
	}
	if c.Layout == "null" && c.Verify == VerifyYes {
		return &options.Error{Table: "session", Key: "verify", Value: "yes", Reason: "the null layout stores nothing to verify"}
	}
	if c.SubfilingCount > 0 && c.SubfilingRanksPerFile > 0 {
		return &options.Error{Table: "session", Key: "subfiling.ranks_per_file", Value: fmt.Sprint(c.SubfilingRanksPerFile),
			Reason: fmt.Sprintf("exclusive with subfiling.count=%d", c.SubfilingCount), Allowed: "0 when subfiling.count is set"}
	}
	if !c.WriteMemcpy && c.Mode == "cache" {
		return &options.Error{Table: "session", Key: "async.write_memcpy", Value: "NO",
			Reason: "the cache mode always copies: its copy is the write to node-local storage", Allowed: "YES with mode=cache"}
	}
	if c.ComputeJitter < 0 || c.ComputeJitter > 1 {
		return &options.Error{Table: "session", Key: "compute_jitter", Value: fmt.Sprint(c.ComputeJitter), Reason: "out of range", Allowed: "0..1"}
	}
	if c.ComputeTrace != "" {
		if _, err := emulate.LoadTrace(c.ComputeTrace); err != nil {
			return &options.Error{Table: "session", Key: "compute_trace", Value: c.ComputeTrace, Reason: err.Error()}
		}
	}
	if c.Fill != emulate.Seeded && c.Verify == VerifyYes {
		return &options.Error{Table: "session", Key: "verify", Value: "yes", Reason: fmt.Sprintf("only seeded fills can be verified (fill=%s)", c.Fill)}
	}
	return nil
}

// NewPattern parses the pattern options and builds the pattern.
func (c *Config) NewPattern() (patterns.Pattern, error) {
	f, err := patterns.Lookup(c.Pattern)
	if err != nil {
		return nil, err
	}
	v, err := f.Options.Parse(c.Options)
	if err != nil {
		if e, ok := err.(*options.Error); ok && e.Reason == "unknown key" {
			e.Allowed = strings.Join(f.Options.Keys(), ", ") + "; session keys: " + strings.Join(sessionOptions.Keys(), ", ")
		}
		return nil, err
	}
	p, err := f.New(v)
	// After New: a pattern may add warnings for values it accepts but cannot honour.
	c.Warnings = appendNew(c.Warnings, v.Warnings...)
	return p, err
}

func appendNew(dst []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, d := range dst {
			dup = dup || d == a
		}
		if !dup {
			dst = append(dst, a)
		}
	}
	return dst
}

// Effective returns every setting as key/value text, for reports: anyone can repeat a run
// from it.
func (c *Config) Effective() map[string]string {
	m := map[string]string{"pattern": c.Pattern}
	for _, kv := range c.sessionKVs() {
		m[kv.Key] = kv.Value
	}
	if f, err := patterns.Lookup(c.Pattern); err == nil {
		if v, err := f.Options.Parse(c.Options); err == nil {
			for k, val := range v.Effective() {
				m[k] = val
			}
		}
	}
	ph := make([]string, len(c.Phases))
	for i, p := range c.Phases {
		ph[i] = p.String()
	}
	m["phases"] = strings.Join(ph, ",")
	return m
}

// ParseKV splits option text into pairs: KEY=VALUE items separated by newlines or ';'.
// Blank items and lines starting with '#' are skipped.
func ParseKV(text string) ([]options.KV, error) {
	var out []options.KV
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ';' }) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("config: option %q is not KEY=VALUE", line)
		}
		out = append(out, options.KV{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// nativeJSON is the native configuration file schema (snake_case keys, Go durations,
// binary units).
type nativeJSON struct {
	Pattern string            `json:"pattern"`
	Phases  []string          `json:"phases"`
	Options map[string]any    `json:"options"`
	Session map[string]any    `json:"session"`
	MPIInfo map[string]string `json:"mpi_info"`
}

// LoadConfig reads a native JSON configuration:
//
//	{"pattern": "vpic", "phases": ["write", "read"],
//	 "session": {"file": "out.h5", "compute_time": "1s"},
//	 "options": {"TIMESTEPS": 4, "DIM_1": "1 M"}}
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return DecodeConfig(data)
}

// DecodeConfig parses native JSON configuration bytes (see LoadConfig).
func DecodeConfig(data []byte) (Config, error) {
	var n nativeJSON
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return Config{}, fmt.Errorf("config: %w (top-level keys: pattern, phases, session, options, mpi_info)", err)
	}
	c := DefaultConfig(n.Pattern)
	c.MPIInfo = n.MPIInfo
	for _, k := range slices.Sorted(maps.Keys(n.Session)) {
		if _, ok := sessionOptions.Lookup(k); !ok {
			return c, &options.Error{Table: "session", Key: k, Value: Scalar(n.Session[k]), Reason: "unknown key", Allowed: strings.Join(sessionOptions.Keys(), ", ")}
		}
		if err := c.Set(k, Scalar(n.Session[k])); err != nil {
			return c, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.Options)) {
		c.Options = append(c.Options, options.KV{Key: k, Value: Scalar(n.Options[k])})
	}
	ph, err := ParsePhases(n.Phases)
	if err != nil {
		return c, err
	}
	c.Phases = ph
	return c, c.Validate()
}

// ParsePhases maps phase names; none means write then read.
func ParsePhases(names []string) ([]patterns.Phase, error) {
	if len(names) == 0 {
		return []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}, nil
	}
	var out []patterns.Phase
	for _, n := range names {
		switch strings.ToLower(n) {
		case "write":
			out = append(out, patterns.PhaseWrite)
		case "read":
			out = append(out, patterns.PhaseRead)
		default:
			return nil, &options.Error{Table: "session", Key: "phases", Value: n, Reason: "unknown phase", Allowed: "write, read"}
		}
	}
	return out, nil
}

// Scalar renders a JSON scalar as option text (numbers without exponent where integral).
func Scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	case bool:
		if x {
			return "YES"
		}
		return "NO"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
