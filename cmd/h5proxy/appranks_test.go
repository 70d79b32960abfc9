package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDescriptionRanks: a description's ranks key is the run's rank count when no -np
// is given (a captured description replays at its traced count), -np overrides it, and
// the log names the files the run writes, not the session's file. A ranks key that is
// not a whole number is an error naming it.
func TestRunDescriptionRanks(t *testing.T) {
	dir := t.TempDir()
	src := "ranks: 2\nfiles: {out: {name: \"part_${step}.h5\", datasets: {x: {type: i32, shape: [4 * nranks]}}}}\nsteps: 2\ntimeline: [{write: out}]\n"
	if err := os.WriteFile(filepath.Join(dir, "d.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "run", "d.yaml").expect(t, 0, nil, []string{"file=part_0.h5,part_1.h5"})
	if got := maskedDump(t, filepath.Join(dir, "part_1.h5")); !strings.Contains(got, "( 8 )") {
		t.Errorf("ranks: 2 did not run 2 ranks (x is not 8 elements):\n%s", got)
	}
	h5proxy(t, dir, "run", "-np", "1", "d.yaml").expect(t, 0, nil, nil)
	if got := maskedDump(t, filepath.Join(dir, "part_1.h5")); !strings.Contains(got, "( 4 )") {
		t.Errorf("-np 1 did not override ranks: 2:\n%s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(strings.Replace(src, "ranks: 2", "ranks: two", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "run", "bad.yaml").expect(t, 1, nil, []string{"bad.yaml:1:8: key ranks value \"two\": not a number of ranks"})
}
