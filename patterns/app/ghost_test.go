package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestGhostMemorySpaces: ghost cells around an interleaved struct's block, block-cyclic
// rows (the rank's rows, a 2-D buffer) and a point list (a 1-D buffer) make each write's
// memory space larger by the ghosts on each side and select the interior, as many
// elements as the file selection.
func TestGhostMemorySpaces(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pts.txt"), []byte("0 0 0\n0 0 2\n0 1 1\n1 0 1\n1 1 0\n1 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `params: {n: 4, g: 2}
types:
  cell: {rho: f64, e: f32}
  rho: {rho: f64}
  e: {e: f32}
files:
  out:
    name: field.h5
    datasets:
      rho: {type: rho, shape: [n * nranks, 3], memory: {struct: cell, ghost: g}}
      e: {type: e, shape: [n * nranks, 3], memory: {struct: cell, ghost: g}}
      rows: {type: f64, shape: [2 * n * nranks + 1, 3], decompose: {kind: cyclic, block: 2}, memory: {ghost: [g, 1]}}
      pts: {type: i64, shape: [2, 3], decompose: {kind: points, file: pts.txt}, memory: {ghost: g}}
timeline:
  - write: out
`
	d := mustParse(t, src)
	d.Dir = dir
	p, err := FromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "run.h5")}) {
		for _, op := range pl.Ops {
			if op.Kind != plan.Write {
				continue
			}
			tr := op.Transfer
			if tr.MemSelection == nil {
				t.Fatalf("%s: no memory selection", op.Path)
			}
			inner := tr.MemSelection.NPoints(tr.MemShape)
			got = append(got, fmt.Sprintf("%s mem=%v interior=%v points=%d/%d buffer=%s", op.Path, tr.MemShape,
				tr.MemSelection.Blocks[0].Start, inner, tr.Selection.NPoints(tr.FileShape), tr.Buffer))
		}
	}
	want := []string{
		"/rho mem=[8 7] interior=[2 2] points=12/12 buffer=struct cell /",
		"/e mem=[8 7] interior=[2 2] points=12/12 buffer=struct cell /",
		// rank 0 of 2 has blocks 0, 2, 4, 6 of 2 rows and the last, partial block of 1
		"/rows mem=[13 5] interior=[2 1] points=27/27 buffer=/rows",
		"/pts mem=[7] interior=[2] points=3/3 buffer=/pts",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes of rank 0:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}
