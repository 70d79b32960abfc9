package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
)

// sampleIn reads an h5bench configuration and points its directory at a new temporary
// directory, which it returns: the sample runs unchanged otherwise.
func sampleIn(t *testing.T, path string) (doc map[string]any, dir string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	doc["directory"] = dir
	return doc, dir
}

// TestRunMetadataSample runs h5bench/testdata/sync-metadata.json (h5bench's
// samples/sync-metadata.json with smaller sizes) with only its directory changed: h5proxy
// launches the sample's 4 ranks, writes and reads hdf5_iotest.h5, prints the HDF5 I/O
// test's own lines after h5bench's, and the CSV ends with the test's columns, equal to the
// JSON report's kernel lines.
func TestRunMetadataSample(t *testing.T) {
	doc, dir := sampleIn(t, "../../h5bench/testdata/sync-metadata.json")
	cfg := writeJSON(t, filepath.Join(dir, "sample.json"), doc)
	report := filepath.Join(dir, "report.json")
	r := h5proxy(t, dir, "run", "--report", report, cfg)
	r.expect(t, 0, []string{"Pattern: iotest (write phase)", "Pattern: iotest (read phase)", "Total number of ranks: 4", "Verification: OK",
		"--- HDF5 I/O test (hdf5_iotest) after the read phase ---", "Wall clock [s]:\t\t", "Measurement:\t\t_MIN (over MPI ranks)\n\t\t\t^MAX (over MPI ranks)",
		"Write phase [s]:\t_", "Create time [s]:\t_", "Write rate [MiB/s]:\t_", "Read phase [s]:\t\t_", "Read rate [MiB/s]:\t_"},
		[]string{"launching 4 ranks"})
	rep := readPatternReport(t, report, "iotest")
	if len(rep.Phases) != 2 || rep.Phases[1].Bytes != 4*3*5*10*20*8 {
		t.Fatalf("phases %+v", rep.Phases)
	}
	rows := readCSV(t, filepath.Join(dir, "hdf5_iotest.csv"))
	if names := kernelRowsMatch(t, rows, rep.Phases[1].Kernel); names != 16 {
		t.Errorf("%d kernel lines with names, want the program's 16 measurement columns", names)
	}
	st, err := os.Stat(filepath.Join(dir, "hdf5_iotest.h5"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := strconv.ParseFloat(rows["fsize"].value, 64); got != float64(st.Size()) {
		t.Errorf("fsize %s, the file has %d bytes", rows["fsize"].value, st.Size())
	}
	// The program's dataset: [steps, arrays, total rows, total columns] of doubles.
	ins := h5proxy(t, dir, "inspect", filepath.Join(dir, "hdf5_iotest.h5"))
	if !strings.Contains(ins.stdout, "/dataset") || !strings.Contains(ins.stdout, "[3 5 20 40]") {
		t.Errorf("inspect:\n%s", ins)
	}
}

// kernelRowsMatch checks that every named kernel line is a CSV row with its value and
// unit, and returns how many lines have names.
func kernelRowsMatch(t *testing.T, rows map[string]csvRow, lines []patterns.Line) int {
	t.Helper()
	names := 0
	for _, l := range lines {
		if l.Name == "" {
			continue
		}
		names++
		if row := rows[l.Name]; row.value != fmt.Sprintf("%.3f", l.Value) || row.unit != l.Unit {
			t.Errorf("CSV row %+v, kernel line %+v", row, l)
		}
	}
	return names
}

// TestHelpIOTest: `h5proxy help iotest` lists every key with its default.
func TestHelpIOTest(t *testing.T) {
	h5proxy(t, "", "help", "iotest").expect(t, 0, []string{"version", "steps", "arrays", "rows", "columns", "process-rows", "process-columns",
		"scaling", "dataset-rank", "slowest-dimension", "dataset-layout", "mpi-io", "hdf5-file", "csv-file", "hdf5_iotest.h5", "contiguous|chunked", "independent|collective"}, nil)
}
