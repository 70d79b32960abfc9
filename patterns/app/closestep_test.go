package app

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestCloseAtLastStep: a series kept open until its file closes after the last step is
// closed at that step (2 of 3), with the file, not at step 0; the fixed dataset closes at
// the step that wrote it.
func TestCloseAtLastStep(t *testing.T) {
	const src = `
name: cs
steps: 3
files:
  out:
    name: out.h5
    datasets:
      s: {type: f64, shape: [1, 4 * nranks], extend: 0, chunk: [1, 4], decompose: {kind: block, grid: [1, 0]}}
      x: {type: f64, shape: [4 * nranks]}
timeline:
  - {write: out, datasets: [s]}
  - {write: out, datasets: [x], every: 3}
`
	p, dir, err := patternFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	closes := map[string][]int{}
	for _, pl := range all(t, p, p.Phases()[0], patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "run.h5")}) {
		for _, op := range pl.Ops {
			if op.Kind == plan.CloseDataset || op.Kind == plan.CloseFile {
				closes[op.Kind.String()+" "+op.Path] = append(closes[op.Kind.String()+" "+op.Path], op.Step)
			}
		}
	}
	if len(closes) != 3 {
		t.Fatalf("closes %v, want the series', x's and the file's", closes)
	}
	for k, steps := range closes {
		want := 2
		if k == plan.CloseDataset.String()+" /x" {
			want = 0
		}
		if len(steps) != 1 || steps[0] != want {
			t.Errorf("%s at steps %v, want [%d]", k, steps, want)
		}
	}
}
