package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestGhostMemorySpaces (testdata/ghost-more.yaml): ghost cells around an interleaved
// struct's block, block-cyclic rows (the rank's rows, a 2-D buffer) and a point list (a
// 1-D buffer) make each write's memory space larger by the ghosts on each side and
// select the interior, as many elements as the file selection.
func TestGhostMemorySpaces(t *testing.T) {
	p := load(t, "ghost-more.yaml")
	var got []string
	for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 2, Path: "/o/run.h5"}) {
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
