package h5bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
)

// TestAppEntry: "benchmark": "app" runs a description with its parameters from the
// entry's configuration, its file in the run directory; an unknown parameter is an error
// naming the description's.
func TestAppEntry(t *testing.T) {
	dir := t.TempDir()
	desc := filepath.Join(dir, "d.yaml")
	src := "params: {n: 4, steps: 1}\nsteps: steps\nfiles: {out: {name: o.h5, datasets: {x: {type: f32, shape: [n * nranks]}}}}\ntimeline: [{write: out}]\n"
	if err := os.WriteFile(desc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := func(conf map[string]any) []byte {
		b, err := json.Marshal(map[string]any{"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "directory": filepath.Join(dir, "run"),
			"benchmarks": []any{map[string]any{"benchmark": "app", "file": "app.h5", "configuration": conf}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	f, err := h5bench.Parse(entry(map[string]any{"description": desc, "steps": "3", "compute_time": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[0].Config
	if cfg.Pattern != "app" || cfg.File != filepath.Join(dir, "run", "app.h5") {
		t.Fatalf("pattern %s file %s", cfg.Pattern, cfg.File)
	}
	p, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps() != 3 || len(p.Phases()) != 1 || p.Phases()[0] != patterns.PhaseWrite {
		t.Fatalf("steps %d phases %v", p.Steps(), p.Phases())
	}
	_, err = h5bench.Parse(entry(map[string]any{"description": desc, "stpes": "3"}))
	if err == nil || !strings.Contains(err.Error(), `key "stpes"`) || !strings.Contains(err.Error(), "did you mean steps?") {
		t.Fatalf("error %v", err)
	}
}
