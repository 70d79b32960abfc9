package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppSerialWriter runs testdata/apps/serial.yaml (writer: rank0: rank 0 writes the
// file alone through HDF5's default driver) at 2 ranks through every layout that stores
// data under every mode, every value read back by rank 0 and verified; on the native
// layout the census finds every call on rank 0 alone (MaxCount equal to Count).
func TestAppSerialWriter(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "serial.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "testdata/apps/serial.yaml", desc)
	everyStoringLayout(t, dir, desc, 1, nil, func(name string, rep *proxy.Report) {
		if name != "native-sync" {
			return
		}
		for call, want := range map[string]float64{"H5Fcreate": 1, "H5Gcreate2": 1, "H5Dcreate2": 2, "H5Dset_extent": 4, "H5Dwrite": 6, "H5Fclose": 1} {
			if c := callCount(rep.Phases[0].Census, call); c.Count != want || c.MaxCount != want {
				t.Errorf("%s: census %s %v (busiest rank %v) on 2 ranks, want %v, all on rank 0", name, call, c.Count, c.MaxCount, want)
			}
		}
		if c := callCount(rep.Phases[1].Census, "H5Fopen"); c.Count != 1 {
			t.Errorf("%s: read phase: H5Fopen %v, want 1 (rank 0 alone)", name, c.Count)
		}
	})
}
