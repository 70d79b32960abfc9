package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestDefinePlanned: a file's define key decides where its datasets are created. lazy
// creates each at its first write, between the writes; upfront creates every dataset (a
// series with 0 rows, one never written too) and attaches the dimension scales before the
// first write; upfront_flush ends that with H5Fflush, as netCDF-4's nc_enddef does.
func TestDefinePlanned(t *testing.T) {
	const src = `
name: def
steps: 2
files:
  out:
    name: out.h5
    DEFINE
    handles: {hold: file}
    datasets:
      a: {type: f64, shape: [4 * nranks], dims: [/n]}
      s: {type: f32, shape: [1, 4 * nranks], extend: 0, start_empty: true, chunk: [1, 4], decompose: {kind: block, grid: [1, 0]}}
      n: {type: f32, shape: [4 * nranks], written: false, scale: ""}
timeline:
  - {write: out, datasets: [a], every: 2}
  - {write: out, datasets: [s]}
  - {write: out, datasets: [n], every: 2}
`
	for _, c := range []struct{ key, want string }{
		{"", "create /a, write /a, create /s [0 8], extend /s, write /s, create /n, scale /n, scale /a, close"},
		{"define: lazy", "create /a, write /a, create /s [0 8], extend /s, write /s, create /n, scale /n, scale /a, close"},
		{"define: upfront", "create /a, create /s [0 8], create /n, scale /n, scale /a, write /a, extend /s, write /s, close"},
		{"define: upfront_flush", "create /a, create /s [0 8], create /n, scale /n, scale /a, flush, write /a, extend /s, write /s, close"},
	} {
		p, dir, err := patternFrom(t, strings.Replace(src, "DEFINE", c.key, 1))
		if err != nil {
			t.Fatalf("%q: %v", c.key, err)
		}
		var got []string
		pls := all(t, p, p.Phases()[0], patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "run.h5")})
		var ops []plan.Op
		for _, pl := range pls {
			ops = append(ops, pl.Ops...)
		}
		for _, op := range ops {
			if op.Step != 0 {
				continue
			}
			switch op.Kind {
			case plan.CreateDataset:
				s := "create " + op.Path
				if op.Path == "/s" {
					s += " " + fmt.Sprint(op.Dataset.Shape)
				}
				got = append(got, s)
			case plan.Scale:
				got = append(got, "scale "+op.Path)
			case plan.FlushFile:
				got = append(got, "flush")
			case plan.Write:
				got = append(got, "write "+op.Path)
			case plan.ExtendDataset:
				got = append(got, "extend "+op.Path)
			}
		}
		got = append(got, "close")
		if g := strings.Join(got, ", "); g != c.want {
			t.Errorf("%q: step 0 makes\n  %s\nwant\n  %s", c.key, g, c.want)
		}
	}
	if _, _, err := patternFrom(t, strings.Replace(src, "DEFINE", "define: early", 1)); err == nil || !strings.Contains(err.Error(), "define") || !strings.Contains(err.Error(), "early") {
		t.Errorf("define: early: %v, want an error naming the key and value", err)
	}
}
