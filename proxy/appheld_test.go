package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppHeldHandles runs testdata/apps/held.yaml (groups and datasets held open for the
// whole run, handles hold: file) at 2 ranks through every layout that stores data under
// every mode, every value read back and verified; on the native layout the census counts
// what a writer holding its handles makes over 3 steps: per rank, each of the 4 groups and
// 4 datasets created once and closed once, no H5Gopen2 or H5Dopen2 in the write phase, the
// 3 series extended at steps 1 and 2, the 4 datasets written at each step.
func TestAppHeldHandles(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "held.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "testdata/apps/held.yaml", desc)
	everyStoringLayout(t, dir, desc, 1, nil, func(name string, rep *proxy.Report) {
		if name != "native-sync" {
			return
		}
		c := rep.Phases[0].Census
		for call, want := range map[string]float64{"H5Gcreate2": 8, "H5Gclose": 8, "H5Dcreate2": 8, "H5Dclose": 8, "H5Gopen2": 0, "H5Dopen2": 0,
			"H5Dset_extent": 12, "H5Dwrite": 24} {
			if got := callCount(c, call).Count; got != want {
				t.Errorf("%s: census %s %v on 2 ranks over 3 steps, want %v", name, call, got, want)
			}
		}
	})
}
