package h5bench_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/openpmd"
	"github.com/h5proxy/h5proxy/proxy"
)

func openpmdPattern(t *testing.T, cfg proxy.Config) *openpmd.Pattern {
	return patternAs[*openpmd.Pattern](t, cfg)
}

// TestOpenPMDSample: samples/sync-openpmd.json (h5bench's sample) maps to a write and a
// read of the same series in the run directory.
func TestOpenPMDSample(t *testing.T) {
	f, err := h5bench.Load("../samples/sync-openpmd.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 2 || f.Directory != "h5proxy-out" || len(f.Warnings) != 0 || len(f.Runs) != 2 {
		t.Fatalf("ranks %d directory %q warnings %q runs %d", f.MPI.Ranks, f.Directory, f.Warnings, len(f.Runs))
	}
	for i, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		r := f.Runs[i]
		c := r.Config
		if r.Benchmark != "openpmd" || c.Pattern != "openpmd" || !slices.Equal(c.Phases, []patterns.Phase{ph}) {
			t.Errorf("run %d: benchmark %q pattern %q phases %v", i, r.Benchmark, c.Pattern, c.Phases)
		}
		if c.File != "h5proxy-out/8a_parallel_3Db.h5" || c.Mode != "sync" || c.Layout != "native" || len(c.Warnings) != 0 {
			t.Errorf("run %d: file %q mode %q layout %q warnings %q", i, c.File, c.Mode, c.Layout, c.Warnings)
		}
		eff := c.Effective()
		if eff["fileLocation"] != "h5proxy-out" || eff["operation"] != ph.String() {
			t.Errorf("run %d: effective fileLocation %q operation %q", i, eff["fileLocation"], eff["operation"])
		}
	}
	w := openpmdPattern(t, f.Runs[0].Config).C
	if !reflect.DeepEqual(w.MinBlock, []uint64{8, 16, 16}) || !reflect.DeepEqual(w.Grid, []uint64{16, 16, 8}) || w.Dim != 3 ||
		!w.Balanced || w.Ratio != 1 || w.Steps != 1 || w.Encoding != openpmd.VariableBased {
		t.Errorf("write config %+v", w)
	}
	if r := openpmdPattern(t, f.Runs[1].Config).C; r.Pattern != "sy" || r.Steps != 1 {
		t.Errorf("read config %+v", r)
	}
}

// openpmdDoc is an h5bench configuration with one openpmd entry.
func openpmdDoc(conf map[string]any) map[string]any {
	return map[string]any{
		"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "vol": map[string]any{}, "file-system": map[string]any{},
		"directory":  "run",
		"benchmarks": []any{map[string]any{"benchmark": "openpmd", "configuration": conf}},
	}
}

// TestOpenPMDEntries: the series name follows the entry's keys, session keys work, a
// file is ignored with a warning as h5bench does.
func TestOpenPMDEntries(t *testing.T) {
	for _, tc := range []struct {
		conf  map[string]any
		file  string
		phase patterns.Phase
		check func(t *testing.T, c proxy.Config)
	}{
		{map[string]any{"operation": "write", "dim": "2", "balanced": "false", "minBlock": "4 4", "grid": "2 2"}, "run/8a_parallel_2Du.h5", patterns.PhaseWrite, nil},
		{map[string]any{"operation": "Write", "encoding": "f", "steps": "3"}, "run/8a_parallel_3Db_%07T.h5", patterns.PhaseWrite, nil},
		{map[string]any{"operation": "read", "dim": "1", "pattern": "sx", "MODE": "ASYNC", "fileLocation": "run/"}, "run/8a_parallel_1Db.h5", patterns.PhaseRead,
			func(t *testing.T, c proxy.Config) {
				if c.Mode != "async" {
					t.Errorf("MODE=ASYNC: mode %q", c.Mode)
				}
			}},
	} {
		f, err := parse(t, openpmdDoc(tc.conf))
		if err != nil {
			t.Errorf("%v: %v", tc.conf, err)
			continue
		}
		c := f.Runs[0].Config
		if c.File != tc.file || !slices.Equal(c.Phases, []patterns.Phase{tc.phase}) {
			t.Errorf("%v: file %q phases %v, want %q [%v]", tc.conf, c.File, c.Phases, tc.file, tc.phase)
		}
		if tc.check != nil {
			tc.check(t, c)
		}
	}
	// h5bench warns about a file name and goes on.
	d := openpmdDoc(map[string]any{"operation": "write"})
	bench0(d)["file"] = "x.h5"
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(f.Runs[0].Config.Warnings, "\n"); !strings.Contains(w, `file="x.h5" ignored`) || !strings.Contains(w, "only the directory") {
		t.Errorf("warnings %q", f.Runs[0].Config.Warnings)
	}
	if f.Runs[0].Config.File != "run/8a_parallel_3Db.h5" {
		t.Errorf("file %q", f.Runs[0].Config.File)
	}
}

// TestOpenPMDErrors: mistakes are errors before any I/O naming key, value and allowed.
func TestOpenPMDErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf map[string]any
		want []string
	}{
		{"no operation", map[string]any{"dim": "3"}, []string{`key "operation"`, "required", "allowed: write, read"}},
		{"bad operation", map[string]any{"operation": "append"}, []string{`key "operation" value "append"`, "allowed: write, read"}},
		{"fileLocation elsewhere", map[string]any{"operation": "write", "fileLocation": "/scratch"},
			[]string{`key "fileLocation" value "/scratch"`, `contradicts the run directory "run"`, "allowed: run"}},
		{"unknown key", map[string]any{"operation": "write", "minblock_": "8"},
			[]string{`"minblock_"`, "unknown key", "minBlock", "grid", "pattern", "EMULATED_COMPUTE_TIME_PER_TIMESTEP"}},
		{"minBlock count", map[string]any{"operation": "write", "minBlock": "8 16"}, []string{`key "minBlock" value "8 16"`, "dim=3 needs exactly 3"}},
		{"steps without encoding", map[string]any{"operation": "write", "steps": "10"},
			[]string{`key "steps" value "10"`, "variable-based", "encoding=g"}},
		{"bad pattern", map[string]any{"operation": "read", "pattern": "xy"}, []string{`key "pattern" value "xy"`, "m, sx, sy, sz, fx, fy, fz"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parse(t, openpmdDoc(tc.conf))
			if err == nil {
				t.Fatalf("no error; parsed %+v", f)
			}
			for _, w := range append(tc.want, "benchmarks[0]") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
