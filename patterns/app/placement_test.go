package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// placementOps renders rank 0's operations of every step, in order, as short strings:
// creates, scales, attribute writes (with "again" for a rewrite, "(o)" between an
// H5Oopen and its H5Oclose), flushes, writes and the file's close.
func placementOps(t *testing.T, src string, size int) []string {
	t.Helper()
	p, dir, err := patternFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	oopen := false
	for _, pl := range all(t, p, p.Phases()[0], patterns.Env{Rank: 0, Size: size, Path: filepath.Join(dir, "run.h5")}) {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateDataset:
				out = append(out, "create "+op.Path)
			case plan.Scale:
				if op.Scale.Attach == "" {
					out = append(out, "scale "+op.Path)
				} else {
					out = append(out, "attach "+op.Path)
				}
			case plan.OpenDataset, plan.OpenGroup:
				oopen = op.AsObject
			case plan.CloseDataset, plan.CloseGroup:
				if op.AsObject {
					oopen = false
				}
			case plan.WriteAttribute:
				s := op.Path + "@" + op.Attribute.Name
				if op.Attribute.Exists {
					s += " again"
				}
				if oopen {
					s += " (o)"
				}
				out = append(out, s)
			case plan.FlushFile:
				out = append(out, "flush")
			case plan.Write:
				out = append(out, "write "+op.Path)
			case plan.CloseFile:
				out = append(out, "close")
			}
		}
	}
	return out
}

// TestPlacementPlanned: an attribute's at key places its write where netCDF-4 and PETSc
// write theirs: after the definitions (before define: upfront_flush's flush), right after
// its dataset became a dimension scale (scale_at: create sets the scale at the creation,
// after the attributes written at it), several times in a row (writes: 2, the second an
// H5Aopen rewrite), after each write of its dataset and the flush that follows it
// (created the first time, rewritten after, through H5Oopen of the closed dataset), and
// right before the file's close.
func TestPlacementPlanned(t *testing.T) {
	const nc = `
name: nc
steps: 1
files:
  h:
    name: h.nc
    define: upfront_flush
    attributes:
      title: x
      _NCProperties: {type: str8, value: version, at: defined}
      closing: {type: i32, value: 1, at: close}
    datasets:
      v: {type: f64, shape: [4 * nranks], dims: [/time], attributes: {coords: {type: i32, value: 0}}}
      time:
        type: f64
        shape: [4 * nranks]
        scale: time
        scale_at: create
        attributes:
          coords: {type: i32, value: 0}
          dimid: {type: i32, value: 0, at: scale, writes: 2}
          units: {type: str4, value: days, at: scale}
      lev: {type: f32, shape: [4], written: false, scale: lev, attributes: {dimid: {type: i32, value: 1, at: scale}}}
timeline:
  - {write: h}
`
	want := "/@title, create /v, /v@coords, create /time, /time@coords, scale /time, /time@dimid, /time@dimid again, /time@units, " +
		"create /lev, scale /lev, /lev@dimid, attach /v, /@_NCProperties, flush, write /v, write /time, /@closing, close"
	if got := strings.Join(placementOps(t, nc, 2), ", "); got != want {
		t.Errorf("netCDF-4's placement plans\n  %s\nwant\n  %s", got, want)
	}

	const petsc = `
name: petsc
steps: 2
files:
  s:
    name: s.h5
    handles: {series: reopen}
    groups:
      fields:
        datasets:
          u:
            type: f64
            shape: [1, 4 * nranks]
            extend: 0
            chunk: [1, 4]
            decompose: {kind: block, grid: [1, 0]}
            attributes: {timestepping: {type: i32, value: 1, at: each_write}}
timeline:
  - {write: s}
  - {flush: s}
`
	want = "create /fields/u, write /fields/u, flush, /fields/u@timestepping (o), " +
		"write /fields/u, flush, /fields/u@timestepping again (o), close"
	if got := strings.Join(placementOps(t, petsc, 2), ", "); got != want {
		t.Errorf("PETSc's placement plans\n  %s\nwant\n  %s", got, want)
	}
	// Without the flush action the rewrite comes at the next write's start, and the last
	// before the file's close.
	noFlush := strings.Replace(petsc, "  - {flush: s}\n", "", 1)
	want = "create /fields/u, write /fields/u, /fields/u@timestepping (o), write /fields/u, /fields/u@timestepping again (o), close"
	if got := strings.Join(placementOps(t, noFlush, 2), ", "); got != want {
		t.Errorf("each_write without flushes plans\n  %s\nwant\n  %s", got, want)
	}
}

// TestPlacementErrors: placements an object cannot have are refused at their key's
// line and column, naming the key and value.
func TestPlacementErrors(t *testing.T) {
	const base = `
name: bad
steps: 1
files:
  f:
    name: f.h5
    attributes: {a: {type: i32, value: 1, at: FILEAT}}
    datasets:
      d: {type: f64, shape: [4], DSKEYS attributes: {b: {type: i32, value: 1, at: DSAT, writes: WRITES}}}
timeline:
  - {write: f}
`
	for _, c := range []struct{ fileAt, dsKeys, dsAt, writes, want string }{
		{"each_write", "", "create", "1", "files.f.attributes.a.at"},
		{"scale", "", "create", "1", "is no scale"},
		{"create", "", "scale", "1", "no scale key"},
		{"create", "scale_at: create,", "create", "1", "scale_at"},
		{"create", "", "create", "0", "writes >= 1"},
		{"create", "", "later", "1", "not allowed"},
	} {
		src := strings.NewReplacer("FILEAT", c.fileAt, "DSKEYS", c.dsKeys, "DSAT", c.dsAt, "WRITES", c.writes).Replace(base)
		err := planErr(t, src, 1) // writes is evaluated when the plan is made
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), "d.yaml:") {
			t.Errorf("%+v: %v, want the file:line:col of the key", c, err)
		}
	}
}
