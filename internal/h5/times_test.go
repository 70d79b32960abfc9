//go:build cgo && linux

package h5

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestNoTimes: a file, group and dataset (contiguous and virtual) created with NoTimes have
// headers without times (ObjectTimed false, read back from the closed file), those created
// with the defaults keep theirs. The file takes the newest object formats: the version-1
// headers of HDF5's default bounds keep no times on groups whatever the lists say.
func TestNoTimes(t *testing.T) {
	for _, off := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "t.h5")
		f := must(CreateFile(path, Access{FileSpec: plan.FileSpec{NoTimes: off, LibverLatest: true}}))
		ok(t, CloseGroup(must(CreateGroupWith(f, "/g", plan.GroupSpec{NoTimes: off}))))
		spec := plan.DatasetSpec{Type: plan.F64, Shape: []uint64{4}, NoTimes: off}
		ok(t, CloseDataset(must(CreateDataset(f, "/d", spec))))
		ok(t, CloseDataset(must(CreateVirtual(f, "/v", spec, []VirtualMap{{Virtual: plan.All(spec.Shape), File: ".", Dataset: "/d", SourceShape: spec.Shape, Source: plan.All(spec.Shape)}}))))
		ok(t, CloseFile(f))

		f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
		g, d, v := must(OpenGroup(f, "/g")), must(OpenDataset(f, "/d")), must(OpenDataset(f, "/v"))
		for name, id := range map[string]ID{"root": f, "/g": g, "/d": d, "/v": v} {
			if timed := must(ObjectTimed(id)); timed == off {
				t.Errorf("NoTimes %v: %s timed %v", off, name, timed)
			}
		}
		ok(t, CloseDataset(v))
		ok(t, CloseDataset(d))
		ok(t, CloseGroup(g))
		ok(t, CloseFile(f))
	}
}
