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
	"github.com/h5proxy/h5proxy/patterns/dlio"
)

// TestDLIOSample: testdata/sync-dlio.json is h5bench's samples/sync-dlio.json with smaller
// sizes (and 2 epochs of 2 ms batches): its first entry generates the files (a write
// phase), its second trains and evaluates on them (a read phase), both on the data
// directory "data" in the run directory ("./data" names the same); the training writes
// the program's output.csv there and warns that its 4 read threads read one after another.
// Every key reaches the pattern (the flags as true, data-folder as the file).
func TestDLIOSample(t *testing.T) {
	f, err := h5bench.Load("testdata/sync-dlio.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.MPI.Ranks != 24 || len(f.Runs) != 2 {
		t.Fatalf("ranks %d runs %d", f.MPI.Ranks, len(f.Runs))
	}
	data := filepath.Join("storage", "data")
	gen, train := f.Runs[0].Config, f.Runs[1].Config
	if f.Runs[0].Benchmark != "dlio" || gen.Pattern != "dlio" || gen.File != data || gen.CSVFile != "" ||
		!slices.Equal(gen.Phases, []patterns.Phase{patterns.PhaseWrite}) || len(gen.Warnings) != 0 {
		t.Errorf("generation: %s file %q csv %q phases %v warnings %q", gen.Pattern, gen.File, gen.CSVFile, gen.Phases, gen.Warnings)
	}
	if train.File != data || train.CSVFile != filepath.Join("storage", "output.csv") ||
		!slices.Equal(train.Phases, []patterns.Phase{patterns.PhaseRead}) || len(train.Warnings) != 1 || !strings.Contains(train.Warnings[0], "read-threads=4") {
		t.Errorf("training: file %q csv %q phases %v warnings %q", train.File, train.CSVFile, train.Phases, train.Warnings)
	}
	g := patternAs[*dlio.Pattern](t, gen).C
	if !g.Generate || g.Train || g.Chunking || g.Deflate != 0 || !g.KeepFiles || g.Dim != 32 || g.FilesTrain != 8 || g.FilesEval != 4 || g.Samples != 4 {
		t.Errorf("generation config %+v", g)
	}
	c := patternAs[*dlio.Pattern](t, train).C
	want := dlio.Config{Train: true, Eval: true, RecordLength: 1024, Dim: 32, FilesTrain: 8, FilesEval: 4, Samples: 4, Prefix: "img",
		TrainFolder: "train", EvalFolder: "valid", Records: "records", Labels: "labels", ChunkDim: 32, KeepFiles: true, Batch: 7, BatchEval: 2,
		Shuffle: true, SeedChangeEpoch: true, Epochs: 2, TotalSteps: -1, Computation: 0.002, Seed: 42, EvalTime: 0.002, EvalStdev: 0.002,
		EpochsBetweenEvals: 1, ReadThreads: 4, CollectiveMeta: true, CollectiveIO: true}
	if c != want {
		t.Errorf("training config\n%+v, want\n%+v", c, want)
	}
	// Every key of the sample's entries reaches the run.
	var raw rawSample
	text, _ := os.ReadFile("testdata/sync-dlio.json")
	if err := json.Unmarshal(text, &raw); err != nil {
		t.Fatal(err)
	}
	for i, r := range f.Runs {
		eff := r.Config.Effective()
		for k, v := range raw.Benchmarks[i].Configuration {
			if k == "data-folder" || k == "subfiling" || v == "false" {
				continue
			}
			if eff[k] != v {
				t.Errorf("entry %d: %s = %q in the run, %q in the sample", i, k, eff[k], v)
			}
		}
	}
}

// dlioDoc is an h5bench document with one dlio entry.
func dlioDoc(file string, conf map[string]any) map[string]any {
	b := map[string]any{"benchmark": "dlio", "configuration": conf}
	if file != "" {
		b["file"] = file
	}
	return map[string]any{"mpi": map[string]any{"command": "mpirun", "ranks": "2"}, "directory": "run", "benchmarks": []any{b}}
}

// TestDLIOEntries: a "false" flag is left out as h5bench's runner leaves it; both phases
// with generate-data and train; data-folder and output-csv-name place the files; no
// warning without read threads.
func TestDLIOEntries(t *testing.T) {
	f, err := parse(t, dlioDoc("", map[string]any{"generate-data": "true", "train": "TRUE", "shuffle": "false", "read-threads": "0",
		"data-folder": "/abs/d", "output-csv-name": "res"}))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Config
	if c.File != "/abs/d" || c.CSVFile != filepath.Join("run", "res.csv") || !slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) ||
		len(c.Warnings) != 0 || patternAs[*dlio.Pattern](t, c).C.Shuffle {
		t.Errorf("file %q csv %q phases %v warnings %q", c.File, c.CSVFile, c.Phases, c.Warnings)
	}
}

// TestDLIOErrors: bad entries fail before any I/O, naming key and value.
func TestDLIOErrors(t *testing.T) {
	for _, c := range []struct {
		name, file string
		conf       map[string]any
		want       []string
	}{
		{"subfiling", "", map[string]any{"train": "true", "subfiling": "true"}, []string{`"subfiling"`, `"true"`, "subfiling driver"}},
		{"flag value", "", map[string]any{"train": "yes"}, []string{`"train"`, `"yes"`, "true, false"}},
		{"nothing to run", "", map[string]any{"evaluation": "true"}, []string{`"train"`, "both false"}},
		{"entry file", "a.h5", map[string]any{"train": "true"}, []string{`"file"`, `"a.h5"`, "data-folder"}},
		{"bad number", "", map[string]any{"train": "true", "batch-size": "seven"}, []string{`"batch-size"`, `"seven"`}},
		{"output folder", "", map[string]any{"train": "true", "output-data-folder": "x"}, []string{`"output-data-folder"`, `"x"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, dlioDoc(c.file, c.conf))
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
