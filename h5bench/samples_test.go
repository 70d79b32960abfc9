package h5bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// sampleErrors are h5bench's sample configurations (testdata/samples, see its README) that
// do not run, with what their error must say. Every other sample loads, and every entry
// builds its pattern and plans its first step on every rank.
var sampleErrors = map[string][]string{
	// h5bench only launches another project's program for these.
	"sync-qmcpack.json": {`benchmark "qmcpack"`, "external program", "QMCPACK's checkpoint/restart miniapp"},
	// The runner's old format ({"write": {...}} instead of "benchmark": "write"), which
	// h5bench's current runner does not read either.
	"async-explicit-write-read-contig-1d-small.json": {`benchmarks[0]`, `key "read"`, "unknown key", "benchmark, file, configuration"},
	"async-implicit-write-read-contig-1d-small.json": {`benchmarks[0]`, `key "read"`, "unknown key", "benchmark, file, configuration"},
	"configuration.json":                             {`benchmarks[0]`, `key "write"`, "unknown key", "benchmark, file, configuration"},
	// The map is named by E3SM-IO's netcdf option; h5bench's runner reads "map".
	"sync-e3sm.json": {`key "map"`, "required"},
	// Named write_normal_dist, which h5bench's runner skips as unsupported.
	"sync-write-1d-contig-contig-normal-dist.json": {`"write_normal_dist"`, "skips it as unsupported", `"write_var_normal_dist"`},
}

// TestH5benchSamples loads each of h5bench's sample configurations, builds every entry's pattern
// and plans its Begin and first step on every rank it asks for (a read plans from the
// shapes the file's write entry created), or checks the documented error.
func TestH5benchSamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "samples", "*.json"))
	if err != nil || len(files) < 70 {
		t.Fatalf("%d samples (%v), want h5bench's 74", len(files), err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		f, err := h5bench.Load(path)
		if want, bad := sampleErrors[name]; bad {
			seen[name] = true
			if err == nil {
				t.Errorf("%s: loaded, want an error with %q", name, want)
				continue
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q lacks %q", name, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := planSample(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name := range sampleErrors {
		if !seen[name] {
			t.Errorf("%s: expected among the samples", name)
		}
	}
}

// TestSamplePluginPath: vol.path, which h5bench's runner exports as HDF5_PLUGIN_PATH, is
// kept for the launch (a list of directories, as the cache samples give, becomes a search
// path) and not warned about; the GPU-IO entries warn that they run from host memory.
func TestSamplePluginPath(t *testing.T) {
	for name, want := range map[string]string{
		"sync-write-read-chunked-2d-SZ3.json":   "/opt/SZ3/lib",
		"sync-write-read-chunked-3d-ZFP.json":   "/opt/H5Z-ZFP/plugin",
		"cache-write-1d-contig-contig.json":     "vol/lib",
		"sync-write-read-chunked-1d-GZIP.json":  "",
		"sync-cuda-write-1d-contig-contig.json": "",
	} {
		f, err := h5bench.Load(filepath.Join("testdata", "samples", name))
		if err != nil {
			t.Fatal(err)
		}
		if f.PluginPath != want || strings.Contains(strings.Join(f.Warnings, "\n"), "vol.path") {
			t.Errorf("%s: plugin path %q (want %q), warnings %q", name, f.PluginPath, want, f.Warnings)
		}
		gpu := slices.ContainsFunc(f.Runs[0].Config.Warnings, func(w string) bool { return strings.Contains(w, "h5proxy has no GPU") })
		if gpu != strings.Contains(name, "cuda") {
			t.Errorf("%s: GPU warning %v: %q", name, gpu, f.Runs[0].Config.Warnings)
		}
	}
}

// planSample builds each run's pattern and plans Begin and step 0 of each of its phases on
// every rank, the shapes of the datasets created by earlier writes serving later reads.
func planSample(f *h5bench.File) error {
	shapes := map[string][]uint64{} // file:dataset -> shape, from the write plans
	for i, r := range f.Runs {
		cfg := r.Config
		p, err := cfg.NewPattern()
		if err != nil {
			return fmt.Errorf("run %d (%s): %w", i, r.Benchmark, err)
		}
		phases := cfg.Phases
		if !slices.Contains(phases, patterns.PhaseWrite) && slices.Contains(p.Phases(), patterns.PhaseWrite) && !hasShapes(shapes, cfg.File) {
			// A read of a file another sample writes (cuda_read): its shapes come from the
			// kernel's write plan with the same keys.
			phases = append([]patterns.Phase{patterns.PhaseWrite}, phases...)
		}
		for _, ph := range phases {
			for rank := 0; rank < f.MPI.Ranks; rank++ {
				env := patterns.Env{Rank: rank, Size: f.MPI.Ranks, Path: cfg.File, Seed: cfg.Seed,
					Shape: func(ds string) ([]uint64, error) {
						if s, ok := shapes[cfg.File+":"+ds]; ok {
							return s, nil
						}
						return nil, os.ErrNotExist
					}}
				if ph == patterns.PhaseWrite {
					env.Shape = nil // writes plan without the file, as h5proxy plan does
				}
				var all plan.Plan
				begin, err := p.Begin(ph, env)
				if err != nil {
					return fmt.Errorf("run %d (%s) %s rank %d begin: %w", i, r.Benchmark, ph, rank, err)
				}
				step, err := p.Step(ph, 0, env)
				if err != nil {
					return fmt.Errorf("run %d (%s) %s rank %d step 0: %w", i, r.Benchmark, ph, rank, err)
				}
				all.Ops = slices.Concat(begin.Ops, step.Ops)
				if err := all.Validate(); err != nil {
					return fmt.Errorf("run %d (%s) %s rank %d: %w", i, r.Benchmark, ph, rank, err)
				}
				for _, op := range all.Ops {
					if op.Kind == plan.CreateDataset && op.Dataset != nil {
						shapes[cfg.File+":"+op.Path] = op.Dataset.Shape
					}
				}
			}
		}
	}
	return nil
}

// hasShapes reports whether a write plan recorded datasets of file.
func hasShapes(shapes map[string][]uint64, file string) bool {
	for k := range shapes {
		if strings.HasPrefix(k, file+":") {
			return true
		}
	}
	return false
}

// TestExerciserFileSameOnEveryRank: the exerciser's file name, hdf5TestFile-<n>, is the
// same each time the sample is parsed, as every rank parses it (different names made the
// ranks create different files collectively and hang).
func TestExerciserFileSameOnEveryRank(t *testing.T) {
	var files []string
	for range 3 {
		f, err := h5bench.Load(filepath.Join("testdata", "samples", "sync-exerciser.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f.Runs[0].Config.File)
	}
	if files[0] != files[1] || files[1] != files[2] || !strings.HasPrefix(filepath.Base(files[0]), "hdf5TestFile-") {
		t.Errorf("exerciser files %q, want one hdf5TestFile-<n>", files)
	}
}
