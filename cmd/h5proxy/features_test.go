package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescriptionStringsCompoundsSeries runs testdata/features.yaml: variable-length
// string datasets and attributes, compound attributes with literal values, a series
// grown along its second dimension. On one rank the restart read verifies every value;
// derive keeps the strings, the compound values and the unlimited dimension, and the
// derived description writes a file equal under h5dump -pH. On two ranks the shared
// file's string dataset is an error naming its position before any I/O (parallel HDF5
// writes no variable-length data through MPI-IO); a file per rank runs and verifies.
func TestDescriptionStringsCompoundsSeries(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	src, err := os.ReadFile("testdata/features.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, d := filepath.Join(dir, "builtin"), filepath.Join(dir, "derived")
	for _, sub := range []string{b, d} {
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b, "features.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, b, "run", "-np", "1", "features.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
	h5proxy(t, b, "derive", "features.h5", "-np", "1", "-o", filepath.Join(d, "derived.yaml")).expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(d, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"code: {type: vstr, value: features}",
		"units: {type: vstr, shape: [3], value: [m, m/s, kelvin]}",
		"about: {type: vstr, value: particle names}",
		"domain: {type: domain, value: {lo: 0, hi: 7}}",
		"cells: {type: cells, shape: [2], value: [{b: {lo: 0, hi: 3}, w: 0.5, tag: abc}, {b: {lo: 4, hi: 7}, w: 1.5, tag: def}]}",
		"shape: [n_history * nranks, 24]\n        max_shape: [n_history * nranks, unlimited]",
		"labels: {type: vstr, shape: [n_history * nranks]",
	} {
		if !strings.Contains(string(text), w) {
			t.Errorf("derived description lacks %q:\n%s", w, text)
		}
	}
	h5proxy(t, d, "run", "-np", "1", "-quiet", "derived.yaml").expect(t, 0, nil, nil)
	if got, want := maskedDump(t, filepath.Join(d, "features.h5")), maskedDump(t, filepath.Join(b, "features.h5")); got != want {
		t.Errorf("features.h5 written from the derived description differs under h5dump -pH:\n%s", lineDiff(want, got))
	}

	two := filepath.Join(dir, "two")
	if err := os.Mkdir(two, 0o755); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, two, "run", "-np", "2", filepath.Join(b, "features.yaml")).expect(t, 1, nil,
		[]string{"features.yaml:19:21: key files.out.datasets.names.type", `value "vstr"`, "which 2 ranks share through MPI-IO: parallel HDF5 writes no variable-length data", "allowed: ranks: 1"})
	h5proxy(t, two, "check", "-np", "4", filepath.Join(b, "features.yaml")).expect(t, 1, nil, []string{"features.yaml:19:21: key files.out.datasets.names.type"})
	if files, _ := filepath.Glob(filepath.Join(two, "*.h5")); len(files) != 0 {
		t.Errorf("files written before the error: %v", files)
	}
	perRank := strings.Replace(string(src), "    name: features.h5\n", "    name: features_${rank}.h5\n    ranks: 1\n", 1)
	if err := os.WriteFile(filepath.Join(two, "per-rank.yaml"), []byte(perRank), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, two, "run", "-np", "2", "per-rank.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
}
