package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRunDLIOSample runs h5bench/testdata/sync-dlio.json (h5bench's samples/sync-dlio.json
// with smaller sizes) with only its directory changed, on 2 ranks: the first entry
// generates the train and valid files in <directory>/data, the second trains and evaluates
// on them with every sample read verified, prints h5bench_dlio's results after h5bench's
// and writes them to output.csv, whose rows equal the JSON report's kernel lines.
func TestRunDLIOSample(t *testing.T) {
	doc, dir := sampleIn(t, "../../h5bench/testdata/sync-dlio.json")
	cfg := writeJSON(t, filepath.Join(dir, "sample.json"), doc)
	report := filepath.Join(dir, "report.json")
	r := h5proxy(t, dir, "run", "-np", "2", "--report", report, cfg)
	r.expect(t, 0, []string{"Pattern: dlio (write phase)", "Pattern: dlio (read phase)", "Generation done", "Verification: OK",
		"--- h5bench_dlio: Performance Results ---", "Total number of ranks: 2", "The number of read threads per rank: 4",
		"Total training set size: 28.000 KB", "Training average throughput: ", "Evaluation average throughput avg: ",
		"The number of training batches per rank: 2"},
		[]string{"launching 2 ranks", "read-threads=4"})
	for i := 1; i <= 8; i++ {
		if _, err := os.Stat(filepath.Join(dir, "data", "train", fmt.Sprintf("img_%d_of_8.h5", i))); err != nil {
			t.Error(err)
		}
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Stat(filepath.Join(dir, "data", "valid", fmt.Sprintf("img_%d_of_4.h5", i))); err != nil {
			t.Error(err)
		}
	}
	rep := readPatternReport(t, report+".1", "dlio")
	if len(rep.Phases) != 1 || !rep.Phases[0].Verified || rep.Phases[0].Mismatches != 0 {
		t.Fatalf("training phases %+v", rep.Phases)
	}
	rows := readCSV(t, filepath.Join(dir, "output.csv"))
	// ranks, read threads, 12 training and 12 evaluation totals, 7 per epoch and kind.
	if names, want := kernelRowsMatch(t, rows, rep.Phases[0].Kernel), 2+24+2*2*7; names != want {
		t.Errorf("%d kernel lines with names, want %d", names, want)
	}
}

// TestHelpDLIO: `h5proxy help dlio` lists every key of h5bench_dlio with its default.
func TestHelpDLIO(t *testing.T) {
	h5proxy(t, "", "help", "dlio").expect(t, 0, []string{"generate-data", "train", "evaluation", "record-length", "67108864", "num-files-train",
		"num-files-eval", "num-samples-per-file", "data-folder", "./data", "file-prefix", "img", "chunking", "chunk-size", "1024", "keep-files",
		"compression", "compression-level", "batch-size", "batch-size-eval", "shuffle", "preprocess-time", "preprocess-time-stdev", "epochs",
		"total-training-steps", "computation-time", "0.323", "computation-time-stdev", "random-seed", "42", "eval-time", "eval-time-stdev",
		"epochs-between-evals", "train-data-folder", "valid-data-folder", "records-dataset-name", "labels-dataset-name", "seed-change-epoch",
		"read-threads", "collective-meta", "collective-data", "subfiling", "drop-last", "output-csv-name", "output-ranks-data", "output-data-folder"}, nil)
}
