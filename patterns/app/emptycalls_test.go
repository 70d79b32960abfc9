package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestEmptyCallsPlanned: under independent transfers a rank owning nothing of a rank-0
// dataset makes no H5Dwrite, unless the dataset says empty_calls: true, when it writes an
// empty selection (PETSc's VecView); rank 0 writes its element either way.
func TestEmptyCallsPlanned(t *testing.T) {
	const src = `
name: ec
steps: 2
files:
  out:
    name: out.h5
    datasets:
      time: {type: f64, shape: [1, 1], extend: 0, chunk: [1, 1], decompose: rank0EMPTY}
timeline: [{write: out, collective: false}]
`
	for _, c := range []struct {
		key          string
		rank0, rank1 string
	}{
		{"", "write 1, write 1", ""},
		{", empty_calls: false", "write 1, write 1", ""},
		{", empty_calls: true", "write 1, write 1", "write 0, write 0"},
	} {
		p, dir, err := patternFrom(t, strings.Replace(src, "EMPTY", c.key, 1))
		if err != nil {
			t.Fatalf("%q: %v", c.key, err)
		}
		for r, want := range []string{c.rank0, c.rank1} {
			var got []string
			for _, pl := range all(t, p, p.Phases()[0], patterns.Env{Rank: r, Size: 2, Path: filepath.Join(dir, "run.h5")}) {
				for _, op := range pl.Ops {
					if op.Kind == plan.Write {
						if op.Collective {
							t.Errorf("%q: rank %d writes collectively", c.key, r)
						}
						n := "1"
						if op.Transfer.Selection.IsNone() {
							n = "0"
						}
						got = append(got, "write "+n)
					}
				}
			}
			if g := strings.Join(got, ", "); g != want {
				t.Errorf("%q: rank %d makes %q, want %q", c.key, r, g, want)
			}
		}
	}
	if _, _, err := patternFrom(t, strings.Replace(src, "EMPTY", ", empty_calls: sometimes", 1)); err == nil || !strings.Contains(err.Error(), "empty_calls") {
		t.Errorf("empty_calls: sometimes: %v, want an error naming the key", err)
	}
}
