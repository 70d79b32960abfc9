package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppReadAttributes runs patterns/app's attr_read.yaml (a restart that reads the root's,
// a group's and a dataset's attributes before the data, as AMReX's RestartHDF5 reads its
// header) at 2 ranks through every layout that stores data under every mode: the layouts
// that keep HDF5 attributes read each one back and verify it against the written value (a
// difference fails the run), and the census counts the 4 reads of each rank as H5Aread.
func TestAppReadAttributes(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "attr_read.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "../patterns/app/testdata/attr_read.yaml", desc)
	everyStoringLayout(t, dir, desc, 1, nil, func(name string, rep *proxy.Report) {
		if c := callCount(rep.Phases[1].Census, "H5Aread"); c.Count != 8 || c.MaxCount != 4 {
			t.Errorf("%s: census H5Aread %v (busiest rank %v), want 8, 4 per rank", name, c.Count, c.MaxCount)
		}
	})
}
