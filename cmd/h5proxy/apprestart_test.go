package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ownDescription is a file per rank whose shape and last step depend on the writer: a
// reader of another rank's file must replay that writer.
const ownDescription = "../../patterns/app/testdata/restart_own.yaml"

// readOnly writes the configuration of a read phase alone of desc in dir (a restart on
// another number of ranks) and returns its path.
func readOnly(t *testing.T, dir, desc string) string {
	t.Helper()
	cfg := filepath.Join(dir, "read.json")
	if err := os.WriteFile(cfg, []byte(`{"pattern":"app","phases":["read"],"session":{"file":"`+filepath.Join(dir, "run.h5")+`","verify":"yes"},"options":{"description":"`+desc+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkCensus reports each of want (a census line's start, as censusOf prints it) that
// the report's census lacks.
func checkCensus(t *testing.T, what, report string, want ...string) {
	t.Helper()
	got := censusOf(t, report)
	for _, w := range want {
		if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("%s: census lacks %q:\n%s", what, w, strings.Join(got, "\n"))
		}
	}
}

// TestAppRestartFewerReaders writes 4 per-rank files at 4 ranks and reads them back on 4,
// 2, 3 and 1 ranks: every value verified against the writer's, and the census shows
// each file opened and closed once, each reader opening its share (4 files over 3
// readers: 2, 1 and 1) with every dataset of each file read whole.
func TestAppRestartFewerReaders(t *testing.T) {
	dir := t.TempDir()
	desc, err := filepath.Abs(ownDescription)
	if err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "report.json")
	h5proxy(t, dir, "run", "-np", "4", "-quiet", "-dir", dir, "-report", rep, desc).expect(t, 0, nil, nil)
	if v, m, _ := readPhase(t, rep); !v || m != 0 {
		t.Fatalf("4 writers, 4 readers: verified %v, mismatches %v", v, m)
	}
	cfg := readOnly(t, dir, desc)
	// x: 8 * (3 + w) bytes, y: 24, for w = 0..3.
	for _, c := range []struct{ np, most int }{{4, 1}, {2, 2}, {3, 2}, {1, 4}} {
		what := fmt.Sprintf("%d readers", c.np)
		rep := filepath.Join(dir, fmt.Sprintf("read%d.json", c.np))
		h5proxy(t, dir, "run", "-np", fmt.Sprint(c.np), "-quiet", "-report", rep, cfg).expect(t, 0, nil, nil)
		if v, m, _ := readPhase(t, rep); !v || m != 0 {
			t.Errorf("%s: verified %v, mismatches %v", what, v, m)
		}
		checkCensus(t, what, rep,
			fmt.Sprintf("read H5Fopen count=4 max=%d ", c.most), fmt.Sprintf("read H5Fclose count=4 max=%d ", c.most),
			fmt.Sprintf("read H5Dopen2 count=8 max=%d ", 2*c.most), fmt.Sprintf("read H5Dread count=8 max=%d bytes=240", 2*c.most),
			"read collective=0 ")
	}
	// More readers than files is an error naming the key, before any I/O.
	r := h5proxy(t, dir, "run", "-np", "5", "-quiet", "-report", filepath.Join(dir, "read5.json"), cfg)
	if r.code == 0 || !strings.Contains(r.stderr, `key timeline[1].written_by value "writers"`) || !strings.Contains(r.stderr, "as many ranks as wrote them (4) or fewer, not 5") {
		t.Errorf("5 readers: %v", r)
	}
}
