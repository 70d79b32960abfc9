package h5bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/proxy"
)

// rawSample is the part of an h5bench file the tests compare the parsed result with.
type rawSample struct {
	MPI struct {
		Ranks         string `json:"ranks"`
		Configuration string `json:"configuration"`
	} `json:"mpi"`
	Directory  string `json:"directory"`
	Benchmarks []struct {
		Benchmark     string            `json:"benchmark"`
		File          string            `json:"file"`
		Configuration map[string]string `json:"configuration"`
	} `json:"benchmarks"`
}

// TestSamples loads every samples/*.json: the h5bench ones parse and map each benchmark
// entry to a run on the directory's file, the native one is not taken for h5bench.
func TestSamples(t *testing.T) {
	// From the repository root, as the samples are run: their relative paths (the e3sm
	// map in data/e3sm, relative to directory) resolve from there.
	t.Chdir("..")
	files, err := filepath.Glob("samples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no samples/*.json found")
	}
	var h5b, native int
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var probe map[string]any
			if err := json.Unmarshal(data, &probe); err != nil {
				t.Fatalf("sample is not JSON: %v", err)
			}
			_, hasPattern := probe["pattern"]
			if !h5bench.IsH5bench(data) {
				if !hasPattern {
					t.Fatalf("neither h5bench nor native (no \"benchmarks\", no \"pattern\")")
				}
				native++
				cfg, err := proxy.DecodeConfig(data)
				if err != nil {
					t.Fatalf("native sample: %v", err)
				}
				if !slices.Contains(patterns.Names(), cfg.Pattern) || cfg.File == "" {
					t.Errorf("native sample: pattern %q file %q", cfg.Pattern, cfg.File)
				}
				return
			}
			if hasPattern {
				t.Fatal("sample has both \"benchmarks\" and \"pattern\"")
			}
			h5b++
			f, err := h5bench.Load(path)
			if err != nil && strings.Contains(err.Error(), `key "layout" value "log"`) && !slices.Contains(proxy.Layouts(), "log") {
				t.Skipf("the sample selects the log layout, not in this build yet: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			var raw rawSample
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			if f.Directory != raw.Directory {
				t.Errorf("Directory = %q, want %q", f.Directory, raw.Directory)
			}
			if raw.MPI.Ranks != "" && f.MPI.Ranks == 0 {
				t.Errorf("Ranks = 0 with mpi.ranks %q", raw.MPI.Ranks)
			}
			// The rank count launched is the one the sample names: never mpirun's default
			// (an mpi.configuration without -np), which mpi.ranks would then contradict.
			if f.MPI.LauncherCount || (raw.MPI.Ranks != "" && strconv.Itoa(f.MPI.Ranks) != raw.MPI.Ranks) {
				t.Errorf("mpi %+v launches a count other than mpi.ranks %q (warnings %q)", f.MPI, raw.MPI.Ranks, f.Warnings)
			}
			if len(f.Runs) != len(raw.Benchmarks) {
				t.Fatalf("%d runs for %d benchmarks", len(f.Runs), len(raw.Benchmarks))
			}
			for i, r := range f.Runs {
				b := raw.Benchmarks[i]
				if r.Benchmark != b.Benchmark {
					t.Errorf("run %d: benchmark %q, want %q", i, r.Benchmark, b.Benchmark)
				}
				if r.Config.Pattern != "vpic" {
					continue // other applications' entries are checked by their adapters' tests
				}
				if want := filepath.Join(raw.Directory, b.File); r.Config.File != want {
					t.Errorf("run %d: file %q, want %q", i, r.Config.File, want)
				}
				if len(r.Config.Phases) != 1 || r.Config.Phases[0].String() != b.Benchmark {
					t.Errorf("run %d (%s): phases %v", i, b.Benchmark, r.Config.Phases)
				}
				if csv := b.Configuration["CSV_FILE"]; csv != "" && r.Config.CSVFile != filepath.Join(raw.Directory, csv) {
					t.Errorf("run %d: CSV file %q, want %q in %q", i, r.Config.CSVFile, csv, raw.Directory)
				}
				if strings.EqualFold(b.Configuration["MODE"], "SYNC") && r.Config.Mode != "sync" {
					t.Errorf("run %d: MODE=SYNC gave mode %q", i, r.Config.Mode)
				}
				p := pattern(t, r.Config)
				if ts := b.Configuration["TIMESTEPS"]; ts != "" && p.Steps() != atoi(t, ts) {
					t.Errorf("run %d: %d timesteps, want %s", i, p.Steps(), ts)
				}
				if d := b.Configuration["DIM_1"]; d != "" && p.C.Dims[0] != uint64(atoi(t, d)) {
					t.Errorf("run %d: DIM_1 = %d, want %s", i, p.C.Dims[0], d)
				}
			}
		})
	}
	if h5b == 0 || native == 0 {
		t.Errorf("%d h5bench and %d native samples; want both kinds", h5b, native)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// patternAs builds a run's pattern as its concrete type, whose parsed configuration the
// tests inspect.
func patternAs[T patterns.Pattern](t *testing.T, cfg proxy.Config) T {
	t.Helper()
	p, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	tp, ok := p.(T)
	if !ok {
		t.Fatalf("pattern %T, want %T", p, tp)
	}
	return tp
}

// pattern builds the run's vpic pattern.
func pattern(t *testing.T, cfg proxy.Config) *vpic.Pattern { return patternAs[*vpic.Pattern](t, cfg) }

// TestSampleValues checks field by field where the sample lands.
func TestSampleValues(t *testing.T) {
	f, err := h5bench.Load("../samples/sync-write-read-1d-contig.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Command != "mpirun" || f.MPI.Ranks != 2 || !slices.Equal(f.MPI.Args, []string{"-np", "2"}) {
		t.Errorf("MPI = %+v, want mpirun, 2 ranks, args [-np 2]", f.MPI)
	}
	if f.Directory != "h5proxy-out" || len(f.Warnings) != 0 {
		t.Errorf("directory %q warnings %q", f.Directory, f.Warnings)
	}
	if len(f.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(f.Runs))
	}
	want := []struct {
		bench string
		phase patterns.Phase
		csv   string
	}{
		{"write", patterns.PhaseWrite, "h5proxy-out/output.csv"},
		{"read", patterns.PhaseRead, "h5proxy-out/output-read.csv"},
	}
	for i, w := range want {
		r := f.Runs[i]
		c := r.Config
		if r.Benchmark != w.bench || !slices.Equal(c.Phases, []patterns.Phase{w.phase}) {
			t.Errorf("run %d: benchmark %q phases %v, want %q [%v]", i, r.Benchmark, c.Phases, w.bench, w.phase)
		}
		if c.Pattern != "vpic" || c.File != "h5proxy-out/test.h5" || c.CSVFile != w.csv {
			t.Errorf("run %d: pattern %q file %q csv %q", i, c.Pattern, c.File, c.CSVFile)
		}
		if c.Mode != "sync" || c.Layout != "native" || c.ComputePerStep != time.Second {
			t.Errorf("run %d: mode %q layout %q compute %v, want sync native 1s", i, c.Mode, c.Layout, c.ComputePerStep)
		}
		p := pattern(t, c)
		pc := p.C
		if pc.MemPattern != "CONTIG" || pc.FilePattern != "CONTIG" || pc.NumDims != 1 || pc.Dims != [3]uint64{2097152, 1, 1} ||
			pc.Timesteps != 4 || pc.DelayedClose != 2 || !pc.CollectiveData || !pc.CollectiveMetadata {
			t.Errorf("run %d: vpic config %+v", i, pc)
		}
		if eff := c.Effective(); eff["DIM_1"] != "2097152" || eff["csv_file"] != w.csv || eff["phases"] != w.bench {
			t.Errorf("run %d: effective config DIM_1=%q csv_file=%q phases=%q", i, eff["DIM_1"], eff["csv_file"], eff["phases"])
		}
	}
	if p := pattern(t, f.Runs[1].Config); p.C.ReadOption != "FULL" {
		t.Errorf("read option %q", p.C.ReadOption)
	}
}

// doc is an h5bench configuration the tests edit: one write benchmark.
func doc() map[string]any {
	return map[string]any{
		"mpi":         map[string]any{"command": "mpirun", "ranks": "2"},
		"vol":         map[string]any{},
		"file-system": map[string]any{},
		"directory":   "out",
		"benchmarks": []any{map[string]any{
			"benchmark": "write",
			"file":      "f.h5",
			"configuration": map[string]any{
				"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "TIMESTEPS": "2",
				"NUM_DIMS": "1", "DIM_1": "16 K", "MODE": "SYNC",
			},
		}},
	}
}

func bench0(d map[string]any) map[string]any { return d["benchmarks"].([]any)[0].(map[string]any) }
func conf0(d map[string]any) map[string]any  { return bench0(d)["configuration"].(map[string]any) }

func parse(t *testing.T, d map[string]any) (*h5bench.File, error) {
	t.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !h5bench.IsH5bench(data) && d["benchmarks"] != nil {
		t.Fatalf("IsH5bench false for %s", data)
	}
	return h5bench.Parse(data)
}

// TestValues checks units, launcher options and the directory on edited documents.
func TestValues(t *testing.T) {
	d := doc()
	c := conf0(d)
	c["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] = "200 ms"
	c["COLLECTIVE_DATA"] = "yes"
	c["CSV_FILE"] = "/abs/w.csv" // absolute paths stay as they are
	d["directory"] = "/data/run1"
	d["mpi"] = map[string]any{"command": "mpirun", "configuration": "--oversubscribe -np 3"}
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 3 || !slices.Equal(f.MPI.Args, []string{"--oversubscribe", "-np", "3"}) {
		t.Errorf("MPI = %+v, want 3 ranks from -np 3", f.MPI)
	}
	cfg := f.Runs[0].Config
	if cfg.File != "/data/run1/f.h5" || cfg.CSVFile != "/abs/w.csv" || cfg.ComputePerStep != 200*time.Millisecond {
		t.Errorf("file %q csv %q compute %v", cfg.File, cfg.CSVFile, cfg.ComputePerStep)
	}
	p := pattern(t, cfg)
	if p.C.Dims[0] != 16*1024 || !p.C.CollectiveData || p.Steps() != 2 {
		t.Errorf("DIM_1 = %d (want 16384 from \"16 K\"), collective %v, steps %d", p.C.Dims[0], p.C.CollectiveData, p.Steps())
	}

	// Rank counts: ranks only, ranks and a matching option, srun's forms, numbers.
	for _, tc := range []struct {
		mpi  map[string]any
		want int
	}{
		{map[string]any{"ranks": 4}, 4},
		{map[string]any{"ranks": "2", "configuration": "-np 2"}, 2},
		{map[string]any{"configuration": "-n 5"}, 5},
		{map[string]any{"command": "srun", "configuration": "--cpu_bind=cores -n 6"}, 6},
		{map[string]any{"command": "srun", "configuration": "-N 1 -c 2 --ntasks=8"}, 8}, // srun -c: cpus per task
		{map[string]any{"command": "srun", "configuration": "-n4"}, 4},
		{map[string]any{"command": "/usr/bin/mpirun", "configuration": "-c 3"}, 3}, // OpenMPI's -c is -np
		{map[string]any{}, 1},
	} {
		d := doc()
		d["mpi"] = tc.mpi
		f, err := parse(t, d)
		if err != nil {
			t.Errorf("mpi %v: %v", tc.mpi, err)
			continue
		}
		if f.MPI.Ranks != tc.want {
			t.Errorf("mpi %v: %d ranks, want %d", tc.mpi, f.MPI.Ranks, tc.want)
		}
	}

	// No directory: the current one.
	d = doc()
	delete(d, "directory")
	if f, err := parse(t, d); err != nil || f.Runs[0].Config.File != "f.h5" {
		t.Errorf("no directory: %v, %+v", err, f)
	}
}

// TestWarnings: settings h5bench knows that have no effect here are accepted with a warning.
func TestWarnings(t *testing.T) {
	d := doc()
	d["vol"] = map[string]any{"library": "/opt/vol-async/lib", "connector": "async under_vol=0;under_info={}", "path": ""}
	d["file-system"] = map[string]any{"lustre": map[string]any{"stripe-size": "1M", "stripe-count": "4"}}
	conf0(d)["STDEV_DIM_1"] = "3"
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(f.Warnings, "\n")
	for _, want := range []string{"vol.connector", "async under_vol=0", "vol.library", "/opt/vol-async/lib", "file-system.lustre", "stripe-count", "ignored"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", f.Warnings, want)
		}
	}
	if strings.Contains(all, "vol.path") {
		t.Errorf("empty vol.path warned about: %q", f.Warnings)
	}
	if len(f.Warnings) != 3 {
		t.Errorf("%d warnings, want 3 (library, connector, lustre): %q", len(f.Warnings), f.Warnings)
	}
	// Keys come sorted within a section, so reports are reproducible.
	if !strings.HasPrefix(f.Warnings[0], "vol.connector") || !strings.HasPrefix(f.Warnings[1], "vol.library") {
		t.Errorf("vol warnings not in key order: %q", f.Warnings)
	}
	cw := strings.Join(f.Runs[0].Config.Warnings, "\n")
	if !strings.Contains(cw, "STDEV_DIM_1") || !strings.Contains(cw, "ignored") {
		t.Errorf("STDEV_DIM_1: config warnings %q, want an ignored warning", f.Runs[0].Config.Warnings)
	}
}

// TestConfigurationOverridesRanks: mpi.configuration's rank option wins over mpi.ranks, as
// under h5bench's runner (its append, overwrite and normal-distribution samples say ranks 4
// with -np 2), with a warning naming both.
func TestConfigurationOverridesRanks(t *testing.T) {
	d := doc()
	d["mpi"] = map[string]any{"command": "mpirun", "ranks": "4", "configuration": "-np 2"}
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 2 || f.MPI.IgnoredRanks != 4 {
		t.Errorf("MPI = %+v, want 2 ranks from -np 2, mpi.ranks 4 ignored", f.MPI)
	}
	if w := strings.Join(f.Warnings, "\n"); !strings.Contains(w, "mpi.ranks=4 ignored") || !strings.Contains(w, `"-np 2"`) {
		t.Errorf("warnings %q: want mpi.ranks=4 ignored for \"-np 2\"", f.Warnings)
	}
	d["mpi"] = map[string]any{"command": "mpirun", "ranks": "2", "configuration": "-np 2"}
	if f, err = parse(t, d); err != nil || f.MPI.IgnoredRanks != 0 || len(f.Warnings) != 0 {
		t.Errorf("agreeing ranks: %+v, warnings %q, %v", f.MPI, f.Warnings, err)
	}
}

// TestErrors: every mistake is an error before any I/O, naming the key, the value and
// what is allowed.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(d map[string]any)
		want []string
	}{
		{"unknown top-level key", func(d map[string]any) { d["benchmark"] = "write" },
			[]string{`"benchmark"`, `"write"`, "unknown key", "mpi, vol, file-system, directory, benchmarks"}},
		{"unknown mpi key", func(d map[string]any) { d["mpi"].(map[string]any)["nodes"] = "4" },
			[]string{"mpi", `"nodes"`, `"4"`, "unknown key", "command, ranks, configuration"}},
		{"bad ranks", func(d map[string]any) { d["mpi"].(map[string]any)["ranks"] = "two" },
			[]string{`"ranks"`, `"two"`, "integer >= 1"}},
		{"options contradict each other", func(d map[string]any) {
			d["mpi"] = map[string]any{"configuration": "-n 2 --np=4"}
		}, []string{"configuration", `"--np=4"`, "contradicts", `"-n 2"`}},
		{"rank option without count", func(d map[string]any) { d["mpi"] = map[string]any{"configuration": "--bind-to core -np"} },
			[]string{"configuration", `"-np"`, "not a rank count"}},
		{"unknown benchmark", func(d map[string]any) { bench0(d)["benchmark"] = "wirte" },
			[]string{"benchmarks[0]", `"benchmark"`, `"wirte"`, "not an h5bench benchmark", "write, write-unlimited, write_var_normal_dist, overwrite, append, read"}},
		{"macsio external", func(d map[string]any) { bench0(d)["benchmark"] = "macsio" },
			[]string{`benchmark "macsio"`, "external program", "MACSio", "does not model"}},
		{"write_var_data_dist not supported", func(d map[string]any) { bench0(d)["benchmark"] = "write_var_data_dist" },
			[]string{`"write_var_data_dist"`, "not supported by h5proxy yet", "allowed: write, write-unlimited"}},
		{"unknown benchmark entry key", func(d map[string]any) { bench0(d)["files"] = "x.h5" },
			[]string{`"files"`, `"x.h5"`, "unknown key", "benchmark, file, configuration"}},
		{"unknown configuration key", func(d map[string]any) { conf0(d)["DIMS_1"] = "8" },
			[]string{"benchmarks[0]", `"DIMS_1"`, `"8"`, "unknown key", "DIM_1", "TIMESTEPS", "EMULATED_COMPUTE_TIME_PER_TIMESTEP", "CSV_FILE"}},
		{"bad size", func(d map[string]any) { conf0(d)["DIM_1"] = "lots" },
			[]string{`"DIM_1"`, `"lots"`, "not a valid size", "16 M"}},
		{"bad enum", func(d map[string]any) { conf0(d)["MEM_PATTERN"] = "SPIRAL" },
			[]string{`"MEM_PATTERN"`, `"SPIRAL"`, "CONTIG, INTERLEAVED, STRIDED"}},
		{"bad duration", func(d map[string]any) { conf0(d)["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] = "soon" },
			[]string{`"EMULATED_COMPUTE_TIME_PER_TIMESTEP"`, `"soon"`, "not a duration", "100 ms"}},
		{"IO_OPERATION contradicts benchmark", func(d map[string]any) { conf0(d)["IO_OPERATION"] = "READ" },
			[]string{`"IO_OPERATION"`, `"READ"`, `contradicts benchmark "write"`, "allowed: WRITE"}},
		{"bad SUBFILING", func(d map[string]any) { conf0(d)["SUBFILING"] = "MAYBE" },
			[]string{`"SUBFILING"`, `"MAYBE"`}},
		{"missing file", func(d map[string]any) { delete(bench0(d), "file") },
			[]string{"benchmarks[0]", `"file"`, "required"}},
		{"configuration not an object", func(d map[string]any) { bench0(d)["configuration"] = "DIM_1=4" },
			[]string{`"configuration"`, `"DIM_1=4"`, "object"}},
		{"empty benchmarks", func(d map[string]any) { d["benchmarks"] = []any{} },
			[]string{`"benchmarks"`, "no benchmarks"}},
		{"benchmarks not a list", func(d map[string]any) { d["benchmarks"] = map[string]any{} },
			[]string{"benchmarks", "top-level keys"}},
		{"second benchmark bad", func(d map[string]any) {
			d["benchmarks"] = append(d["benchmarks"].([]any), map[string]any{"benchmark": "read", "file": "f.h5",
				"configuration": map[string]any{"TIMESTEPS": "0"}})
		}, []string{"benchmarks[1]", `"TIMESTEPS"`, `"0"`, ">= 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := doc()
			tc.edit(d)
			f, err := parse(t, d)
			if err == nil {
				t.Fatalf("no error; parsed %+v", f)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestNotJSON: broken files are errors, and IsH5bench only claims h5bench documents.
func TestNotJSON(t *testing.T) {
	if h5bench.IsH5bench([]byte(`{"mpi": {`)) || h5bench.IsH5bench([]byte(`{"pattern": "vpic"}`)) {
		t.Error("IsH5bench claims a broken or native document")
	}
	if _, err := h5bench.Parse([]byte(`{"benchmarks": [`)); err == nil || !strings.HasPrefix(err.Error(), "h5bench: ") {
		t.Errorf("truncated JSON: err = %v", err)
	}
	_, err := h5bench.Load(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: err = %v, want one naming the file", err)
	}
}

// TestSupported lists the benchmarks h5proxy runs, in h5bench's order: the h5bench_patterns
// programs, then those of the applications' adapters.
func TestSupported(t *testing.T) {
	got := h5bench.Supported()
	order := []string{"write", "write-unlimited", "write_var_normal_dist", "overwrite", "append", "read", "metadata", "exerciser", "amrex", "openpmd", "e3sm", "dlio", "app", "cuda_write", "cuda_read"}
	core := []string{"write", "write-unlimited", "write_var_normal_dist", "overwrite", "append", "read", "metadata", "exerciser", "openpmd", "e3sm", "dlio", "app", "cuda_write", "cuda_read"}
	var want []string
	for _, name := range order {
		if slices.Contains(core, name) || slices.Contains(got, name) {
			want = append(want, name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Supported() = %q, want %q", got, want)
	}
}

// TestFillDefaultsToOnce pins h5bench's data preparation: every benchmark run from an h5bench
// configuration fills its buffers once (fill=once) unless its configuration sets fill; the
// native default stays seeded.
func TestFillDefaultsToOnce(t *testing.T) {
	doc := `{"mpi": {"command": "mpirun", "ranks": "2"}, "directory": "out", "benchmarks": [
	  {"benchmark": "write", "file": "a.h5", "configuration": {"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": "1", "DIM_1": "16", "TIMESTEPS": "2", "MODE": "SYNC"}},
	  {"benchmark": "read", "file": "a.h5", "configuration": {"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": "1", "DIM_1": "16", "TIMESTEPS": "2", "READ_OPTION": "FULL", "MODE": "SYNC"}},
	  {"benchmark": "write", "file": "b.h5", "configuration": {"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": "1", "DIM_1": "16", "TIMESTEPS": "2", "MODE": "SYNC", "fill": "seeded"}}]}`
	f, err := h5bench.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.Runs {
		got = append(got, r.Config.Fill.String()+"/"+r.Config.Effective()["fill"])
	}
	if want := []string{"once/once", "once/once", "seeded/seeded"}; !slices.Equal(got, want) {
		t.Errorf("fills = %v, want %v", got, want)
	}
	if d := proxy.DefaultConfig("vpic"); d.Fill.String() != "seeded" {
		t.Errorf("native default fill = %s, want seeded", d.Fill)
	}
}
