package h5bench_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/amrex"
	"github.com/h5proxy/h5proxy/proxy"
)

// amrexPattern builds a run's amrex pattern.
func amrexPattern(t *testing.T, cfg proxy.Config) *amrex.Pattern {
	return patternAs[*amrex.Pattern](t, cfg)
}

// TestAMReXSample: samples/sync-amrex.json (h5bench's samples/sync-amrex.json) maps onto a
// write-then-read run of the amrex pattern in the entry's directory below the run
// directory, with sleeptime as the compute between files.
func TestAMReXSample(t *testing.T) {
	f, err := h5bench.Load("../samples/sync-amrex.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 4 || len(f.Runs) != 1 || len(f.Warnings) != 0 {
		t.Fatalf("ranks %d runs %d warnings %q", f.MPI.Ranks, len(f.Runs), f.Warnings)
	}
	r := f.Runs[0]
	c := r.Config
	if r.Benchmark != "amrex" || c.Pattern != "amrex" || c.File != filepath.Join("h5proxy-out", "amrex") || c.Mode != "sync" {
		t.Errorf("benchmark %q pattern %q file %q mode %q", r.Benchmark, c.Pattern, c.File, c.Mode)
	}
	if !slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) || c.ComputePerStep != 2*time.Second {
		t.Errorf("phases %v compute %v", c.Phases, c.ComputePerStep)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %q: every key of h5bench's sample is honoured", c.Warnings)
	}
	p := amrexPattern(t, c)
	if p.Steps() != 4 || p.C.NCells != 64 || p.C.MaxGridSize != 8 || p.C.NComp != 6 || p.C.NPPC != 2 || len(p.C.Levels[0].Boxes) != 512 {
		t.Errorf("pattern %+v", p.C)
	}
	env := patterns.Env{Rank: 0, Size: 4, Path: c.File}
	if got, _ := p.FileOf(env, 3); got != filepath.Join("h5proxy-out", "amrex", "plt00001", "particle0", "particle0.h5") {
		t.Errorf("last file %s", got)
	}
}

// TestAMReXBenchSample: samples/bench-amrex-64.json is the benchmark: one 64^3
// plotfile of 512 boxes at 2 ranks, no particles, no read.
func TestAMReXBenchSample(t *testing.T) {
	f, err := h5bench.Load("../samples/bench-amrex-64.json")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Config
	p := amrexPattern(t, c)
	if f.MPI.Ranks != 2 || p.Steps() != 1 || len(p.C.Levels[0].Boxes) != 512 || !slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite}) {
		t.Errorf("ranks %d steps %d boxes %d phases %v", f.MPI.Ranks, p.Steps(), len(p.C.Levels[0].Boxes), c.Phases)
	}
}

// amrexDoc is an h5bench document with one amrex entry.
func amrexDoc(file string, conf map[string]any) map[string]any {
	b := map[string]any{"benchmark": "amrex", "configuration": conf}
	if file != "" {
		b["file"] = file
	}
	return map[string]any{"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "directory": "run", "benchmarks": []any{b}}
}

func amrexConf(extra ...string) map[string]any {
	c := map[string]any{"ncells": "16", "max_grid_size": "8", "nlevs": "1", "ncomp": "2", "nppc": "1"}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		c[k] = v
	}
	return c
}

// TestAMReXEntries: where the files go, the phases restart_check selects, and the session
// keys among the amrex keys.
func TestAMReXEntries(t *testing.T) {
	cases := []struct {
		name, file string
		conf       map[string]any
		wantFile   string
		read       bool
		mode       string
		compute    time.Duration
		warn       string
	}{
		{"no file key: run directory", "", amrexConf(), "run", false, "sync", 0, ""},
		{"file key: below the run directory", "amrex", amrexConf(), filepath.Join("run", "amrex"), false, "sync", 0, ""},
		{"directory key wins", "amrex", amrexConf("directory=out/plots"), filepath.Join("run", "out", "plots"), false, "sync", 0, ""},
		{"absolute directory", "", amrexConf("directory=/scratch/amrex"), "/scratch/amrex", false, "sync", 0, ""},
		{"restart_check adds the read", "", amrexConf("restart_check=1", "mode=ASYNC", "sleeptime=3"), "run", true, "async", 3 * time.Second, ""},
		{"restart_check 0", "", amrexConf("restart_check=0"), "run", false, "sync", 0, ""},
		{"ZFP without its filter", "", amrexConf("hdf5compression=ZFP_ACCURACY#0.001"), "run", false, "sync", 0, "has no '@'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := parse(t, amrexDoc(c.file, c.conf))
			if err != nil {
				t.Fatal(err)
			}
			cfg := f.Runs[0].Config
			want := []patterns.Phase{patterns.PhaseWrite}
			if c.read {
				want = append(want, patterns.PhaseRead)
			}
			if cfg.File != c.wantFile || !slices.Equal(cfg.Phases, want) || cfg.Mode != c.mode || cfg.ComputePerStep != c.compute {
				t.Errorf("file %q phases %v mode %q compute %v", cfg.File, cfg.Phases, cfg.Mode, cfg.ComputePerStep)
			}
			if w := strings.Join(cfg.Warnings, "\n"); (c.warn == "") != (w == "") || !strings.Contains(w, c.warn) {
				t.Errorf("warnings %q, want %q", cfg.Warnings, c.warn)
			}
			if p := amrexPattern(t, cfg); p.C.Directory != "" {
				t.Errorf("directory %q reached the pattern: the session file carries it", p.C.Directory)
			}
		})
	}
}

// TestAMReXErrors: bad amrex entries fail before any I/O, naming key, value and allowed.
func TestAMReXErrors(t *testing.T) {
	cases := []struct {
		name string
		conf map[string]any
		want []string
	}{
		{"restart_check not a flag", amrexConf("restart_check=maybe"), []string{`"restart_check"`, `"maybe"`, "0, 1"}},
		{"missing ncomp", map[string]any{"ncells": "16", "max_grid_size": "8", "nlevs": "1", "nppc": "1"}, []string{`"ncomp"`, "required"}},
		{"unknown key", amrexConf("ncell=16"), []string{`"ncell"`, "unknown key", "ncells", "max_grid_size", "hdf5compression", "sleeptime"}},
		{"two levels without grids", amrexConf("nlevs=2"), []string{`"nlevs"`, `"2"`, "grids_from_file"}},
		{"bad sleeptime", amrexConf("sleeptime=soon"), []string{`"sleeptime"`, `"soon"`, "not a duration"}},
		{"bad mode", amrexConf("mode=FAST"), []string{`"mode"`, `"FAST"`, "sync, async"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, amrexDoc("", c.conf))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestAMReXSupported: amrex is among the benchmarks h5proxy runs.
func TestAMReXSupported(t *testing.T) {
	if !slices.Contains(h5bench.Supported(), "amrex") {
		t.Errorf("Supported() = %q lacks amrex", h5bench.Supported())
	}
}
