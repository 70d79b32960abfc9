package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// heldSrc writes a group with a fixed dataset and a series at every step, its handles
// held until the file closes.
const heldSrc = `params: {n: 4, steps: 3}
steps: steps
files:
  out:
    name: out.h5
    handles: {hold: file}
    groups:
      g:
        datasets:
          x: {type: f64, shape: [n * nranks]}
          s: {type: f64, shape: [1], extend: 0, chunk: [8], decompose: rank0}
timeline:
  - write: out
`

// TestHoldFile: under hold: file the group and datasets are created at the first step,
// never opened again, and closed once, datasets before their group, right before the file.
func TestHoldFile(t *testing.T) {
	var kinds []string
	for _, pl := range planSrc(t, heldSrc, 2) {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateGroup, plan.OpenGroup, plan.CloseGroup, plan.CreateDataset, plan.OpenDataset, plan.CloseDataset, plan.CloseFile:
				kinds = append(kinds, op.Kind.String()+" "+filepath.Base(op.Path))
			}
		}
	}
	want := "create-group g, create-dataset x, create-dataset s, close-dataset s, close-dataset x, close-group g, close-file out.h5"
	if got := strings.Join(kinds, ", "); got != want {
		t.Errorf("object calls:\n%s\nwant:\n%s", got, want)
	}
	err := planErr(t, strings.Replace(heldSrc, "{hold: file}", "{hold: file, sequence: by_call}", 1), 1)
	if err == nil || !strings.Contains(err.Error(), "d.yaml:6:37:") || !strings.Contains(err.Error(), `key files.out.handles.sequence value "by_call"`) ||
		!strings.Contains(err.Error(), "allowed: sequence: by_object with hold: file") {
		t.Errorf("sequence by_call under hold: file: error %v", err)
	}
}

// TestSerialWriter: writer: rank0 plans the whole file on rank 0, serially, and nothing on
// the other ranks; ranks per file and a serial creation by rank 0 are refused with it.
func TestSerialWriter(t *testing.T) {
	src := strings.Replace(heldSrc, "    handles: {hold: file}\n", "    writer: rank0\n", 1)
	if src == heldSrc {
		t.Fatal("no handles line to replace")
	}
	p, dir, err := patternFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for rank := range 3 {
		ops := 0
		for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 3, Path: filepath.Join(dir, "run.h5")}) {
			for _, op := range pl.Ops {
				ops++
				if op.Collective || op.File != nil && op.File.Parallel {
					t.Errorf("rank %d: %s %s is collective or parallel in a serial writer's file", rank, op.Kind, op.Path)
				}
				if op.Kind == plan.CreateDataset && op.Path == "/g/x" && op.Dataset.Shape[0] != 12 {
					t.Errorf("/g/x shape %v on 3 ranks, want [12] (n * nranks)", op.Dataset.Shape)
				}
				if op.Kind == plan.Write && op.Path == "/g/x" && op.Transfer.Selection.NPoints(op.Transfer.FileShape) != 12 {
					t.Errorf("rank 0 writes %d elements of /g/x, want all 12", op.Transfer.Selection.NPoints(op.Transfer.FileShape))
				}
			}
		}
		if (rank == 0) != (ops > 0) {
			t.Errorf("rank %d of 3: %d operations (rank 0 alone writes)", rank, ops)
		}
	}
	for _, c := range []struct{ old, new, pos, want string }{
		{"writer: rank0\n", "writer: rank0\n    ranks: 1\n", "d.yaml:7:12:", "ranks per file of a file rank 0 writes alone"},
		{"writer: rank0\n", "writer: rank0\n    create: rank0\n", "d.yaml:7:13:", "no other rank opens it"},
	} {
		err := planErr(t, strings.Replace(src, c.old, c.new, 1), 2)
		if err == nil || !strings.Contains(err.Error(), c.pos) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %s %s", c.new, err, c.pos, c.want)
		}
	}
}
