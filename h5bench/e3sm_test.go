package h5bench_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/proxy"
)

// e3smEntry returns an h5bench file with one e3sm entry whose configuration is conf, the
// map given relative to the run directory as h5bench's runner expects.
func e3smEntry(t *testing.T, conf map[string]any) []byte {
	t.Helper()
	dir, err := e3sm.FindMapDir(".")
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(filepath.Dir(filepath.Dir(dir)), "run")
	if _, ok := conf["map"]; !ok {
		conf["map"] = "../data/e3sm/map_f_case_16p.h5" // <repository>/run/../data/e3sm: the shipped maps
	}
	data, err := json.Marshal(map[string]any{
		"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "directory": run,
		"benchmarks": []any{map[string]any{"benchmark": "e3sm", "file": "test.h5", "configuration": conf}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func hasLayout(name string) bool { return slices.Contains(proxy.Layouts(), name) }

// TestE3SMEntry maps h5bench e3sm keys onto the session: the map relative to directory,
// x to the layout, t to the compute time, E3SM-IO's flags and values to the pattern.
func TestE3SMEntry(t *testing.T) {
	f, err := h5bench.Parse(e3smEntry(t, map[string]any{"x": "canonical", "r": "3", "t": "0.25", "j": "1", "k": "", "f": "1", "i": "ignored.h5"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[0].Config
	if cfg.Pattern != "e3sm" || cfg.Layout != "native" || cfg.ComputePerStep != 250*time.Millisecond || len(cfg.Phases) != 1 || cfg.Phases[0].String() != "write" {
		t.Errorf("config: pattern %s layout %s compute %v phases %v", cfg.Pattern, cfg.Layout, cfg.ComputePerStep, cfg.Phases)
	}
	if !strings.HasSuffix(cfg.File, filepath.Join("run", "test.h5")) {
		t.Errorf("file %s", cfg.File)
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	p := pat.(*e3sm.Pattern)
	if p.C.Case != "F" || p.C.Records != 3 || !p.C.Float || p.C.Files != 1 || p.Steps() != 3 || !strings.HasSuffix(p.C.MapPath, "map_f_case_16p.h5") {
		t.Errorf("pattern config %+v, steps %d", p.C, p.Steps())
	}
	if !slices.ContainsFunc(cfg.Warnings, func(w string) bool { return strings.Contains(w, "i=ignored.h5") }) {
		t.Errorf("no warning for the ignored i key: %v", cfg.Warnings)
	}
}

// TestE3SMLayouts: x=log and blob (and h5bench's default, blob) select the log layout,
// SUBFILING=YES the subfiling layout. Until those layouts are built, selecting them is a
// configuration error naming the layout.
func TestE3SMLayouts(t *testing.T) {
	for _, c := range []struct {
		conf   map[string]any
		layout string
	}{
		{map[string]any{}, "log"},
		{map[string]any{"x": "blob"}, "log"},
		{map[string]any{"x": "log"}, "log"},
		{map[string]any{"x": "canonical", "SUBFILING": "YES"}, "subfiling"},
	} {
		f, err := h5bench.Parse(e3smEntry(t, c.conf))
		if !hasLayout(c.layout) {
			if err == nil || !strings.Contains(err.Error(), `key "layout" value "`+c.layout+`"`) {
				t.Errorf("%v: layout %s is not built, error %v should name it", c.conf, c.layout, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.conf, err)
			continue
		}
		if got := f.Runs[0].Config.Layout; got != c.layout {
			t.Errorf("%v: layout %s, want %s", c.conf, got, c.layout)
		}
	}
}

// TestE3SMEntryErrors: every mistake names the key, the value and what is allowed.
func TestE3SMEntryErrors(t *testing.T) {
	for _, c := range []struct {
		conf map[string]any
		want []string
	}{
		{map[string]any{"x": "adios"}, []string{`key "x" value "adios"`, "canonical"}},
		{map[string]any{"x": "canonical", "a": "pnetcdf"}, []string{`key "a" value "pnetcdf"`, "hdf5"}},
		{map[string]any{"x": "canonical", "map": ""}, []string{`key "map"`, "required"}},
		{map[string]any{"x": "canonical", "map": "../data/e3sm/none.h5"}, []string{`key "map"`, "none.h5", "does not exist", "data/e3sm", "map_f_case_16p.h5"}},
		{map[string]any{"x": "canonical", "r": "0"}, []string{`key "r" value "0"`}},
		{map[string]any{"x": "canonical", "zz": "1"}, []string{`key "zz"`, "unknown key"}},
	} {
		_, err := h5bench.Parse(e3smEntry(t, c.conf))
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %v lacks %q", c.conf, err, w)
			}
		}
	}
}

// TestE3SMSamples loads samples/sync-e3sm*.json from the repository root: the canonical
// one runs on the native layout; the h5bench mirror (blob, h5bench's forced strategy)
// needs the log layout.
func TestE3SMSamples(t *testing.T) {
	t.Chdir("..")
	f, err := h5bench.Load("samples/sync-e3sm-canonical.json")
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Runs[0].Config; c.Layout != "native" || c.Pattern != "e3sm" || f.MPI.Ranks != 4 {
		t.Errorf("canonical sample: layout %s pattern %s ranks %d", c.Layout, c.Pattern, f.MPI.Ranks)
	}
	// The map is the repository's own (users have only the repository).
	pat, err := f.Runs[0].Config.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	if mp := pat.(*e3sm.Pattern).C.MapPath; mp != filepath.Join(e3sm.MapDirRel, "map_f_case_16p.h5") {
		t.Errorf("canonical sample reads map %s, want the shipped %s/map_f_case_16p.h5", mp, e3sm.MapDirRel)
	}
	f, err = h5bench.Load("samples/sync-e3sm.json")
	if !hasLayout("log") {
		if err == nil || !strings.Contains(err.Error(), `key "layout" value "log"`) {
			t.Errorf("h5bench sample without the log layout: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	pat, err = f.Runs[0].Config.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	if pat.Steps() != 26 {
		t.Errorf("h5bench sample: %d steps, want 1 (h0) + 25 (h1)", pat.Steps())
	}
}
