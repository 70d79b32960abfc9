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
	"github.com/h5proxy/h5proxy/proxy/stack"
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
// file (LoadConfig), from KEY=VALUE options (Set, ParseOptions), from an h5bench
// configuration (package h5bench), or from all of these (BuildConfig); Validate checks it
// before any I/O.
type Config struct {
	// Pattern is the registered pattern name (see patterns.Names()).
	Pattern string `json:"pattern"`
	// Options are the pattern's keys (h5bench's names, e.g. DIM_1, TIMESTEPS), in order.
	Options []options.KV `json:"-"`
	// Phases run by Run, in order; default write then read.
	Phases []patterns.Phase `json:"-"`
	// File is the HDF5 file (or file prefix) the phases work on.
	File string `json:"file"`
	// Mode is the passthrough I/O mode, one of Modes().
	Mode string `json:"mode"`
	// Layout is the terminal layout, one of Layouts().
	Layout string `json:"layout"`
	// ComputeKind and ComputePerStep emulate the application between steps.
	ComputeKind    emulate.ComputeKind `json:"-"`
	ComputePerStep time.Duration       `json:"-"`
	// ComputeJitter and ComputeTrace vary the compute per step.
	ComputeJitter float64 `json:"-"`
	ComputeTrace  string  `json:"-"`
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
	// TraceFile, when set, receives the timeline of the session (Chrome trace-event JSON,
	// merged by rank 0 at Close; see trace.go).
	TraceFile string `json:"trace_file,omitempty"`
	// Profile asks the launcher (h5proxy run) to run the ranks under libh5proxy-profile.so
	// and write the run's HDF5, MPI-IO and POSIX profile (docs/profile.md); the session
	// itself does nothing with it.
	Profile bool `json:"profile,omitempty"`
	// StallTimeout is how long a session call may make no progress before the watchdog
	// reports where every rank is and ends the job (watchdog.go); 0 disables it. The key
	// stall_timeout defaults to 3 minutes; a Config built without parsing has 0.
	StallTimeout time.Duration `json:"-"`
	// StepCensus reads the process's system-call counters at every step (census=step), for
	// per-step sys_io figures; by default (census=phase) they are read at each phase's
	// begin and end only: three system calls a step inside the observed window, which the
	// real programs do not make. Every other census figure is per step either way.
	StepCensus bool `json:"-"`
	// PerCallTransfers makes every transfer one call from Go into the layout's library
	// (transfer_runs=NO), instead of a step's runs of consecutive transfers one call each
	// where the layout can (runs.go). The library calls are the same either way.
	PerCallTransfers bool `json:"-"`
	// Strategy are the keys the modes and layouts declare in their own tables
	// (async.staging_bytes, cache.path, subfiling.count, ...), in order.
	Strategy []options.KV `json:"-"`
	// MPIInfo are MPI-IO hints passed to H5Pset_fapl_mpio.
	MPIInfo map[string]string `json:"mpi_info,omitempty"`
	// Knobs are the knob keys (mpiio.*, hdf5.*, their write./read. spellings), in order:
	// overrides of what the pattern plans (knobs.go).
	Knobs []options.KV `json:"-"`
	// Warnings collects accepted-but-ignored settings; they are logged and reported.
	Warnings []string `json:"-"`
	// Inputs are files the program's launcher writes before starting it (h5bench's runner
	// writes amrex.ini and openpmd.input): rank 0 writes them before the first phase.
	Inputs []InputFile `json:"-"`
}

// DefaultSeed is the seed of seeded fills unless configured.
const DefaultSeed = 20240601

// defaultMode is the value of the key "mode" when none is given (HDF5's own behaviour).
const defaultMode = "sync"

// sessionKey declares one session key: its spec, how a parsed value sets the config, and
// how the config renders it back (for reports).
type sessionKey struct {
	spec options.Spec
	set  func(c *Config, v *options.Values, key string)
	get  func(c *Config) string
}

// sessionKeys are the keys every pattern shares, with their h5bench spellings. The modes'
// and layouts' own keys come from their tables (stack.Options()).
var sessionKeys = []sessionKey{
	{options.Spec{Key: "file", Kind: options.String, Help: "HDF5 file path the phases write and read"},
		func(c *Config, v *options.Values, k string) { c.File = v.String(k) }, func(c *Config) string { return c.File }},
	{options.Spec{Key: "mode", Aliases: []string{"MODE"}, Kind: options.Enum, Default: defaultMode, Allowed: modeValues(), Help: "I/O mode: " + summaries(stack.ModeStrategies()) + "; h5bench's MODE=" + strings.ToUpper(strings.Join(layoutAliases(), ", ")) + " selects the layout of that name"},
		setMode, func(c *Config) string { return c.Mode }},
	{options.Spec{Key: "layout", Kind: options.Enum, Default: "native", Allowed: stack.Layouts(), Help: "terminal layout: " + summaries(stack.LayoutStrategies())},
		func(c *Config, v *options.Values, k string) { c.Layout = v.String(k) }, func(c *Config) string { return c.Layout }},
	{options.Spec{Key: "compute_time", Aliases: []string{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "sleeptime"}, Kind: options.Duration, Default: "0s", Help: "emulated compute between steps (h5bench amrex: sleeptime, seconds)"},
		func(c *Config, v *options.Values, k string) { c.ComputePerStep = v.Duration(k) }, func(c *Config) string { return c.ComputePerStep.String() }},
	{options.Spec{Key: "compute_kind", Kind: options.Enum, Default: "sleep", Allowed: emulate.ComputeKinds, Help: "how compute is emulated: sleep (h5bench) or spin (busy core)"},
		func(c *Config, v *options.Values, k string) { c.ComputeKind, _ = emulate.ParseComputeKind(v.String(k)) }, func(c *Config) string { return c.ComputeKind.String() }},
	{options.Spec{Key: "compute_jitter", Kind: options.Float, Default: "0", Help: "relative jitter of each compute period: d*(1+j*u), u uniform in [-1,1], seeded per rank and step"},
		func(c *Config, v *options.Values, k string) { c.ComputeJitter = v.Float(k) }, func(c *Config) string { return fmt.Sprint(c.ComputeJitter) }},
	{options.Spec{Key: "compute_trace", Kind: options.String, Help: "file of per-step compute durations (one per line, e.g. 1.5s or '250 ms'); overrides compute_time; an error with a pattern that computes on its own (dlio, ior -d, a description that sets compute)"},
		func(c *Config, v *options.Values, k string) { c.ComputeTrace = v.String(k) }, func(c *Config) string { return c.ComputeTrace }},
	{options.Spec{Key: "fill", Kind: options.Enum, Default: "seeded", Allowed: emulate.FillKinds, Help: "write data: seeded (verifiable, per step), once (step 0's seeded values at every step, prepared before the timed window as h5bench does; verifiable; the default of h5bench configurations), random (h5bench-like) or zero"},
		func(c *Config, v *options.Values, k string) { c.Fill, _ = emulate.ParseFillKind(v.String(k)) }, func(c *Config) string { return c.Fill.String() }},
	{options.Spec{Key: "seed", Kind: options.Int, Default: fmt.Sprint(DefaultSeed), Min: options.Bound(0), Help: "seed of seeded fills"},
		func(c *Config, v *options.Values, k string) { c.Seed = v.Uint(k) }, func(c *Config) string { return fmt.Sprint(c.Seed) }},
	{options.Spec{Key: "verify", Aliases: []string{"VERIFY"}, Kind: options.Enum, Default: "auto", Allowed: []string{"auto", "yes", "no"}, Help: "check every element read against the seeded fill (auto: when this run wrote the file)"},
		func(c *Config, v *options.Values, k string) { c.Verify = Verify(v.String(k)) }, func(c *Config) string { return string(c.Verify) }},
	{options.Spec{Key: "csv_file", Aliases: []string{"CSV_FILE"}, Kind: options.String, Help: "h5bench-style CSV output (rank 0 only)"},
		func(c *Config, v *options.Values, k string) { c.CSVFile = v.String(k) }, func(c *Config) string { return c.CSVFile }},
	{options.Spec{Key: "env_metadata_file", Aliases: []string{"ENV_METADATA_FILE"}, Kind: options.String, Help: "file listing environment variable names to record in the CSV"},
		func(c *Config, v *options.Values, k string) { c.EnvMetadataFile = v.String(k) }, func(c *Config) string { return c.EnvMetadataFile }},
	{options.Spec{Key: "report_file", Kind: options.String, Help: "JSON report output (rank 0 only)"},
		func(c *Config, v *options.Values, k string) { c.ReportFile = v.String(k) }, func(c *Config) string { return c.ReportFile }},
	{options.Spec{Key: "trace_file", Kind: options.String, Help: "timeline of every rank (Chrome trace-event JSON for Perfetto or chrome://tracing): compute, data preparation, each I/O call with its bytes, waits, background operations; merged by rank 0 at the end"},
		func(c *Config, v *options.Values, k string) { c.TraceFile = v.String(k) }, func(c *Config) string { return c.TraceFile }},
	{options.Spec{Key: "profile", Kind: options.Bool, Default: "NO", Help: "record the run's HDF5, MPI-IO and POSIX I/O with Darshan's counters (libh5proxy-profile.so, docs/profile.md): h5proxy run launches the ranks under the library, prints the profile's summary and writes h5proxy-profile.json (and .csv) in the run directory; ranks started by another launcher are not profiled (use h5proxy profile -np N -- h5proxy run CONFIG)"},
		func(c *Config, v *options.Values, k string) { c.Profile = v.Bool(k) }, func(c *Config) string {
			if c.Profile {
				return "YES"
			}
			return "NO"
		}},
	{options.Spec{Key: "stall_timeout", Kind: options.Duration, Default: defaultStallTimeout.String(), Help: "a session call (a phase's begin, a step, the end, a wait) that makes no progress for this long makes the rank report its phase, step and the HDF5 or MPI call it is inside on stderr, and ends the job (MPI_Abort, exit code 124); 0 disables the watchdog"},
		func(c *Config, v *options.Values, k string) { c.StallTimeout = v.Duration(k) }, func(c *Config) string { return c.StallTimeout.String() }},
	{options.Spec{Key: "transfer_runs", Kind: options.Bool, Default: "YES", Help: "a step's run of consecutive transfers with nothing to do between them (no fill, no verification) goes to the layout in one call, which makes the library calls from one C loop (the mpiio and native layouts; the MPI and HDF5 calls are the same): a Go thread bound to a core pays a context switch or so per blocking C call; NO: one call per transfer"},
		func(c *Config, v *options.Values, k string) { c.PerCallTransfers = !v.Bool(k) }, func(c *Config) string { return map[bool]string{false: "YES", true: "NO"}[c.PerCallTransfers] }},
	{options.Spec{Key: "census", Kind: options.Enum, Default: "phase", Allowed: []string{"phase", "step"}, Help: "when the census reads the process's system-call counters (/proc/self/io): phase (at each phase's begin and end; the steps' census has no sys_io) or step (also after every step, for per-step sys_io: three system calls per step inside the window); every other census figure is per step either way"},
		func(c *Config, v *options.Values, k string) { c.StepCensus = v.String(k) == "step" }, func(c *Config) string { return map[bool]string{false: "phase", true: "step"}[c.StepCensus] }},
}

// setMode sets the mode, or, for a layout's mode alias (h5bench's MODE=LOG), the default
// mode and that layout.
func setMode(c *Config, v *options.Values, k string) {
	name := strings.ToLower(v.String(k))
	for _, l := range stack.LayoutStrategies() {
		if l.ModeAlias != "" && l.ModeAlias == name {
			c.Mode, c.Layout = defaultMode, l.Name
			return
		}
	}
	c.Mode = name
}

// modeValues are the values of the key "mode": the default mode, the other modes, then
// the layouts' mode aliases.
func modeValues() []string {
	v := []string{defaultMode}
	for _, m := range stack.Modes() {
		if m != defaultMode {
			v = append(v, m)
		}
	}
	return append(v, layoutAliases()...)
}

func layoutAliases() []string {
	var a []string
	for _, l := range stack.LayoutStrategies() {
		if l.ModeAlias != "" {
			a = append(a, l.ModeAlias)
		}
	}
	return a
}

func summaries(ss []stack.Strategy) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Name + " (" + s.Summary + ")"
	}
	return strings.Join(parts, ", ")
}

// coreTable holds the session keys of sessionKeys.
var coreTable = func() *options.Table {
	t := &options.Table{Name: "session"}
	for _, k := range sessionKeys {
		t.Specs = append(t.Specs, k.spec)
	}
	return t
}()

// sessionTable holds every session-level key: the core keys, the knobs, then the
// strategies'.
var sessionTable = &options.Table{Name: "session", Specs: slices.Concat(coreTable.Specs, knobTable.Specs, stack.Options().Specs)}

// SessionOptions returns the table of every session-level key (the shared keys and the
// modes' and layouts' own), for help, schema output and lookups.
func SessionOptions() *options.Table { return sessionTable }

// DefaultConfig returns a configuration with every session default applied.
func DefaultConfig(pattern string) Config {
	c := Config{Pattern: pattern}
	v, err := coreTable.Parse(nil)
	if err != nil {
		panic(err) // the defaults are constants: a failure is a programming error
	}
	for _, k := range sessionKeys {
		k.set(&c, v, k.spec.Key)
	}
	return c
}

// ParseOptions builds a configuration for pattern from KEY=VALUE pairs: session keys
// (mode, file, CSV_FILE, EMULATED_COMPUTE_TIME_PER_TIMESTEP, ...), strategy keys and
// pattern keys, in any order. Unknown keys are errors naming the known ones.
func ParseOptions(pattern string, kvs []options.KV) (Config, error) {
	c := DefaultConfig(pattern)
	for _, kv := range kvs {
		if err := c.Set(kv.Key, kv.Value); err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

// Set assigns one key: a session or strategy key changes the config at once (its value
// is checked here), any other key is appended to the pattern options (checked by
// Validate).
func (c *Config) Set(key, value string) error {
	kv := []options.KV{{Key: key, Value: value}}
	if s, ok := coreTable.Lookup(key); ok {
		v, err := coreTable.Parse(kv)
		if err != nil {
			return err
		}
		for _, k := range sessionKeys {
			if k.spec.Key == s.Key {
				k.set(c, v, s.Key)
			}
		}
		c.Warnings = appendNew(c.Warnings, v.Warnings...)
		return nil
	}
	if s, ok := knobTable.Lookup(key); ok {
		return c.setKnob(s, value)
	}
	strategies := stack.Options()
	s, ok := strategies.Lookup(key)
	if !ok {
		c.Options = append(c.Options, options.KV{Key: key, Value: value})
		return nil
	}
	v, err := strategies.Parse(kv)
	if err != nil {
		return err
	}
	for _, l := range stack.LayoutStrategies() {
		if l.SelectKey == s.Key && v.Bool(s.Key) {
			c.Layout = l.Name
		}
	}
	c.Strategy = slices.DeleteFunc(c.Strategy, func(o options.KV) bool {
		o2, _ := strategies.Lookup(o.Key)
		return o2 == s
	})
	c.Strategy = append(c.Strategy, options.KV{Key: s.Key, Value: value})
	c.Warnings = appendNew(c.Warnings, v.Warnings...)
	return nil
}

// StoresData reports whether the configured layout keeps what is written (every layout
// but null): only then is there a file to check, write or verify.
func (c *Config) StoresData() bool {
	l, err := stack.LookupLayout(c.Layout)
	return err == nil && l.Has(stack.StoresData)
}

// Settings parses the strategy keys with every default applied (what each mode and
// layout reads its own keys from).
func (c *Config) Settings() (*options.Values, error) { return stack.Options().Parse(c.Strategy) }

// Validate checks the whole configuration: pattern, its options, mode, layout and their
// keys, phases.
func (c *Config) Validate() error {
	pat, err := c.NewPattern()
	if err != nil {
		return err
	}
	if err := c.checkCompute(pat); err != nil {
		return err
	}
	mode, err := stack.LookupMode(c.Mode)
	if err != nil {
		return err
	}
	layout, err := stack.LookupLayout(c.Layout)
	if err != nil {
		return err
	}
	settings, err := c.Settings()
	if err != nil {
		return err
	}
	for _, s := range []stack.Strategy{mode, layout} {
		if s.Available != nil {
			if err := s.Available(); err != nil {
				return err
			}
		}
		if s.Validate != nil {
			if err := s.Validate(settings); err != nil {
				return err
			}
		}
	}
	stores := c.StoresData()
	if c.File == "" && stores {
		return &options.Error{Table: "session", Key: "file", Reason: "required: the HDF5 file to write or read"}
	}
	if !stores && c.Verify == VerifyYes {
		return &options.Error{Table: "session", Key: "verify", Value: "yes", Reason: fmt.Sprintf("the %s layout stores nothing to verify", c.Layout)}
	}
	if c.ComputeJitter < 0 || c.ComputeJitter > 1 {
		return &options.Error{Table: "session", Key: "compute_jitter", Value: fmt.Sprint(c.ComputeJitter), Reason: "out of range", Allowed: "0..1"}
	}
	if c.ComputeTrace != "" {
		if _, err := emulate.LoadTrace(c.ComputeTrace); err != nil {
			return &options.Error{Table: "session", Key: "compute_trace", Value: c.ComputeTrace, Reason: err.Error()}
		}
	}
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		if _, err := c.knobsFor(ph, 1); err != nil {
			return err
		}
	}
	if err := c.checkMultiDataset(mode, layout); err != nil {
		return err
	}
	if !c.Fill.Verifiable() && c.Verify == VerifyYes {
		return &options.Error{Table: "session", Key: "verify", Value: "yes", Reason: fmt.Sprintf("only seeded and once fills can be verified (fill=%s)", c.Fill)}
	}
	return nil
}

// checkCompute rejects the session's compute_time and compute_trace for a pattern that
// computes for times of its own after each step (patterns.Computer: DLIO's batches, IOR's
// -d, a description that sets compute): the session emulates the pattern's times in their
// place (ComputeStep), so they would be ignored without a word. A pattern that can say where
// its times come from (ComputeSource: the description's compute at file:line:col) is named.
func (c *Config) checkCompute(p patterns.Pattern) error {
	if _, ok := p.(patterns.Computer); !ok {
		return nil
	}
	var key, val string
	switch {
	case c.ComputeTrace != "":
		key, val = "compute_trace", c.ComputeTrace
	case c.ComputePerStep != 0:
		key, val = "compute_time", c.ComputePerStep.String()
	default:
		return nil
	}
	who, fix := "pattern "+c.Pattern+" computes for times of its own after each step", "no compute_time or compute_trace with pattern "+c.Pattern
	if s, ok := p.(interface{ ComputeSource() (who, fix string) }); ok {
		who, fix = s.ComputeSource()
	}
	return &options.Error{Table: "session", Key: key, Value: val,
		Reason: who + ", in place of the session's compute_time and compute_trace: " + key + " would be ignored", Allowed: fix}
}

// NewPattern parses the pattern options and builds the pattern.
func (c *Config) NewPattern() (patterns.Pattern, error) {
	f, err := patterns.Lookup(c.Pattern)
	if err != nil {
		return nil, err
	}
	table, err := f.OptionsFor(c.Options)
	if err != nil {
		return nil, err
	}
	v, err := table.Parse(c.Options)
	if err != nil {
		if e, ok := err.(*options.Error); ok && e.Reason == "unknown key" {
			e.Allowed = strings.Join(table.Keys(), ", ") + "; session keys: " + strings.Join(sessionTable.Keys(), ", ")
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
	for _, k := range sessionKeys {
		if v := k.get(c); v != "" {
			m[k.spec.Key] = v
		}
	}
	if v, err := c.Settings(); err == nil {
		maps.Copy(m, v.Effective())
	}
	for _, kv := range c.Knobs {
		m[kv.Key] = kv.Value
	}
	if f, err := patterns.Lookup(c.Pattern); err == nil {
		if t, err := f.OptionsFor(c.Options); err == nil {
			if v, err := t.Parse(c.Options); err == nil {
				maps.Copy(m, v.Effective())
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
		if _, ok := sessionTable.Lookup(k); !ok {
			return c, &options.Error{Table: "session", Key: k, Value: Scalar(n.Session[k]), Reason: "unknown key", Allowed: strings.Join(sessionTable.Keys(), ", ")}
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
