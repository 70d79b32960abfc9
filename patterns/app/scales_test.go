package app

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// scalesSrc is netCDF-4's layout of a history file: time, a coordinate variable (a named
// scale growing by a record per step), ncol a dimension without a variable (a scale with
// netCDF's name for those), rho(time, ncol) a record variable with both attached, in a
// group created at the second step (its scale comes from the root).
const scalesSrc = `
params: {n: 4}
steps: 2
files:
  h:
    name: h.nc
    datasets:
      time: {type: f64, shape: [1], extend: 0, decompose: rank0, scale: time}
      ncol: {type: f32, shape: [n * nranks], scale: "This is a netCDF dimension but not a netCDF variable.         8"}
      rho: {type: f64, shape: [1, n * nranks], extend: 0, decompose: {grid: [1, 0]}, dims: [time, ncol]}
    groups:
      g:
        datasets:
          u: {type: f64, shape: [n * nranks], dims: [[/ncol, ../time]]}
timeline:
  - {write: h, datasets: [time, ncol, rho]}
  - {write: h, when: step >= 1}
`

// TestScalesPlanned: every scale is made once and every attachment made once, at the end
// of the first action that finds both datasets created, in dims order; paths resolve from
// the dataset's group.
func TestScalesPlanned(t *testing.T) {
	var got []string
	for _, pl := range planSrc(t, scalesSrc, 2) {
		for _, op := range pl.Ops {
			if op.Kind == plan.Scale {
				got = append(got, strings.Join(strings.Fields(op.String()), " "))
			}
		}
	}
	want := []string{
		`scale /time [collective] set-scale name="time"`,
		`scale /ncol [collective] set-scale name="This is a netCDF dimension but not a netCDF variable.         8"`,
		`scale /rho [collective] attach /time dim=0`,
		`scale /rho [collective] attach /ncol dim=1`,
		`scale /g/u [collective] attach /ncol dim=0`,
		`scale /g/u [collective] attach /time dim=0`,
	}
	for i, w := range want {
		want[i] = strings.Join(strings.Fields(w), " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scale operations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestScaleErrors: dims with a wrong count, a scale never created, a dataset attached to
// itself; each names the file:line:col, key and value.
func TestScaleErrors(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"dims: [time, ncol]}", "dims: [time]}", `d.yaml:10:93: key files.h.datasets.rho.dims[0] value "time": dims has 1 entries, rho has 2 dimensions`},
		{"dims: [time, ncol]}", "dims: [time, nope]}", `d.yaml:10:99: key files.h.datasets.rho.dims[1] value "nope": dimension 1 of /rho: its scale /nope is never created in file`},
		{"dims: [time, ncol]}", "dims: [rho, ncol]}", `key files.h.datasets.rho.dims[0] value "rho": dataset /rho attached to itself`},
	} {
		src := strings.Replace(scalesSrc, c.from, c.to, 1)
		err := planErr(t, src, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.to, err, c.want)
		}
	}
}
