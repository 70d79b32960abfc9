package main

import (
	"os"
	"strings"
	"testing"
)

// TestParseSummary reads the summary rows of a stored output of the real IOR (built as
// docs/ior.md says, 2 ranks, MPIIO, 2 iterations) and rejects outputs without them.
func TestParseSummary(t *testing.T) {
	data, err := os.ReadFile("testdata/ior-mpiio.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseSummary(string(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]rates{"write": {669.03, 536.41, 602.72}, "read": {14257.82, 3373.39, 8815.61}}
	if len(got) != 2 || got["write"] != want["write"] || got["read"] != want["read"] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// A write-only run has one row; the Finished line ends the table.
	i := strings.Index(string(data), "read        14257.82")
	if got, err := parseSummary(string(data[:i]) + "Finished            : now\n"); err != nil || len(got) != 1 || got["write"].Mean != 602.72 {
		t.Errorf("write only: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "ior ERROR: block size must be a multiple of transfer size\n",
		"Summary of all tests:\nOperation   Max(MiB)\nFinished            : now\n",
		"Summary of all tests:\nOperation   Max(MiB)\nwrite  12.5  x  3\n"} {
		if got, err := parseSummary(bad); err == nil {
			t.Errorf("%q: parsed %+v", bad, got)
		}
	}
}
