package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// alternateFiles is the reported timeline (patterns/app/testdata/alternate.yaml).
const alternateFiles = "../../patterns/app/testdata/alternate.yaml"

// TestAppAlternateOpenFilesCommand runs alternateFiles with h5proxy run at 2 ranks on the
// native layout: the run succeeds, each file holds its own dataset only (h5dump -pH) and
// every value read back is verified.
func TestAppAlternateOpenFilesCommand(t *testing.T) {
	dir := t.TempDir()
	desc := filepath.Join(dir, "alt.yaml")
	text, err := os.ReadFile(alternateFiles)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(desc, text, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(out, "report.json")
	h5proxy(t, dir, "run", "-np", "2", "-quiet", "-dir", out, "-report", rep, desc).expect(t, 0, nil, nil)
	if v, m, reads := readPhase(t, rep); !v || m != 0 || reads != 4 {
		t.Errorf("read back verified %v, mismatches %v, H5Dread %d (want 4: each rank reads both files)", v, m, reads)
	}
	for file, ds := range map[string]string{"shared.h5": "x", "own_0.h5": "y", "own_1.h5": "y"} {
		dump := h5dumpH(t, filepath.Join(out, file))
		other := map[string]string{"x": "y", "y": "x"}[ds]
		if !strings.Contains(dump, `DATASET "`+ds+`"`) || strings.Contains(dump, `DATASET "`+other+`"`) {
			t.Errorf("%s: want dataset %s alone:\n%s", file, ds, dump)
		}
	}
}
