package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestLibverPlanned: a file's libver key reaches its create: latest as LATEST/LATEST,
// a pair as the bounds (latest as the high bound left to HDF5's newest), default as none.
func TestLibverPlanned(t *testing.T) {
	const src = `
name: lv
steps: 1
files:
  out:
    name: out.h5
    LIBVER
    datasets:
      x: {type: f64, shape: [4 * nranks]}
timeline: [{write: out}]
`
	for _, c := range []struct {
		key       string
		latest    bool
		low, high plan.Libver
	}{
		{"libver: [v18, latest]", false, plan.LibverV18, plan.LibverUnset},
		{"libver: [earliest, v110]", false, plan.LibverEarliest, plan.LibverV110},
		{"libver: latest", true, plan.LibverUnset, plan.LibverUnset},
		{"libver: default", false, plan.LibverUnset, plan.LibverUnset},
	} {
		p, dir, err := patternFrom(t, strings.Replace(src, "LIBVER", c.key, 1))
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		var creates int
		for _, pl := range all(t, p, p.Phases()[0], patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "run.h5")}) {
			for _, op := range pl.Ops {
				if op.Kind != plan.CreateFile {
					continue
				}
				creates++
				if f := op.File; f.LibverLatest != c.latest || f.Tuning.LibverLow != c.low || f.Tuning.LibverHigh != c.high {
					t.Errorf("%s: create with latest %v, bounds %v %v; want %v, %v %v", c.key, f.LibverLatest, f.Tuning.LibverLow, f.Tuning.LibverHigh, c.latest, c.low, c.high)
				}
			}
		}
		if creates != 1 {
			t.Errorf("%s: %d file creates, want 1", c.key, creates)
		}
	}
}
