package app

import (
	"path/filepath"
	"strings"
	"testing"

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
