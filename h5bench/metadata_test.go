package h5bench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/iotest"
	"github.com/h5proxy/h5proxy/proxy"
)

// iotestPattern builds a run's iotest pattern.
func iotestPattern(t *testing.T, cfg proxy.Config) *iotest.Pattern {
	return patternAs[*iotest.Pattern](t, cfg)
}

// TestMetadataSample: testdata/sync-metadata.json is h5bench's samples/sync-metadata.json
// with smaller sizes: 4 ranks on a 2x2 grid, one 4-D contiguous dataset, independent
// transfers; the file and the CSV in the directory, a write then a read phase.
func TestMetadataSample(t *testing.T) {
	f, err := h5bench.Load("testdata/sync-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 4 || len(f.Runs) != 1 || len(f.Warnings) != 0 {
		t.Fatalf("ranks %d runs %d warnings %q", f.MPI.Ranks, len(f.Runs), f.Warnings)
	}
	r := f.Runs[0]
	c := r.Config
	if r.Benchmark != "metadata" || c.Pattern != "iotest" || c.File != filepath.Join("storage", "hdf5_iotest.h5") ||
		c.CSVFile != filepath.Join("storage", "hdf5_iotest.csv") || c.Mode != "sync" || c.Layout != "native" {
		t.Errorf("benchmark %q pattern %q file %q csv %q mode %q layout %q", r.Benchmark, c.Pattern, c.File, c.CSVFile, c.Mode, c.Layout)
	}
	if !slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) || len(c.Warnings) != 0 {
		t.Errorf("phases %v warnings %q", c.Phases, c.Warnings)
	}
	p := iotestPattern(t, c)
	want := iotest.Config{Steps: 3, Arrays: 5, Rows: 10, Cols: 20, ProcRows: 2, ProcCols: 2, Rank: 4, StepFirst: true, Scaling: "weak", Slowest: "step"}
	if p.C != want {
		t.Errorf("config %+v, want %+v", p.C, want)
	}
	if err := p.C.CheckRanks(f.MPI.Ranks); err != nil {
		t.Errorf("the sample's grid does not fit its ranks: %v", err)
	}
	// Every key of h5bench's sample but the file names reaches the pattern.
	var raw rawSample
	data, _ := os.ReadFile("testdata/sync-metadata.json")
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	eff := c.Effective()
	for k, v := range raw.Benchmarks[0].Configuration {
		if k == "layout" {
			k = "dataset-layout"
		}
		if k != "csv-file" && eff[k] != v {
			t.Errorf("%s = %q in the run, %q in the sample", k, eff[k], v)
		}
	}
}

// metadataDoc is an h5bench document with one metadata entry.
func metadataDoc(file string, conf map[string]any) map[string]any {
	b := map[string]any{"benchmark": "metadata", "configuration": conf}
	if file != "" {
		b["file"] = file
	}
	return map[string]any{"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "directory": "run", "benchmarks": []any{b}}
}

func metadataConf(extra ...string) map[string]any {
	c := map[string]any{"steps": "2", "arrays": "3", "rows": "4", "columns": "6", "process-rows": "1", "process-columns": "2"}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		c[k] = v
	}
	return c
}

// TestMetadataEntries: the entry's file wins over hdf5-file (h5bench appends it last),
// layout is the dataset layout, session keys pass.
func TestMetadataEntries(t *testing.T) {
	cases := []struct {
		name, file string
		conf       map[string]any
		wantFile   string
		chunked    bool
		mode       string
	}{
		{"entry file", "a.h5", metadataConf(), filepath.Join("run", "a.h5"), false, "sync"},
		{"entry file wins over hdf5-file", "a.h5", metadataConf("hdf5-file=b.h5"), filepath.Join("run", "a.h5"), false, "sync"},
		{"hdf5-file alone", "", metadataConf("hdf5-file=b.h5"), filepath.Join("run", "b.h5"), false, "sync"},
		{"chunked, async", "a.h5", metadataConf("layout=chunked", "MODE=ASYNC"), filepath.Join("run", "a.h5"), true, "async"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := parse(t, metadataDoc(c.file, c.conf))
			if err != nil {
				t.Fatal(err)
			}
			cfg := f.Runs[0].Config
			if cfg.File != c.wantFile || cfg.Mode != c.mode || cfg.Layout != "native" || iotestPattern(t, cfg).C.Chunked != c.chunked {
				t.Errorf("file %q mode %q layout %q chunked %v", cfg.File, cfg.Mode, cfg.Layout, iotestPattern(t, cfg).C.Chunked)
			}
		})
	}
}

// TestMetadataErrors: bad entries fail before any I/O, naming key and value.
func TestMetadataErrors(t *testing.T) {
	cases := []struct {
		name string
		file string
		conf map[string]any
		want []string
	}{
		{"no file", "", metadataConf(), []string{`"file"`, "hdf5-file"}},
		{"bad layout", "a.h5", metadataConf("layout=compact"), []string{`"dataset-layout"`, `"compact"`, "contiguous, chunked"}},
		{"not h5bench's key", "a.h5", metadataConf("dataset-layout=chunked"), []string{`"dataset-layout"`, "layout (contiguous, chunked)"}},
		{"bad rank", "a.h5", metadataConf("dataset-rank=5"), []string{`"dataset-rank"`, `"5"`}},
		{"strong scaling remainder", "a.h5", metadataConf("scaling=strong", "columns=7"), []string{`"columns"`, `"7"`, "process-columns=2"}},
		{"unknown key", "a.h5", metadataConf("array=3"), []string{`"array"`, "unknown key", "arrays"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, metadataDoc(c.file, c.conf))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v lacks %s", err, w)
				}
			}
		})
	}
}
