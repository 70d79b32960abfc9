package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppCreatedByRank0EveryLayout runs testdata/apps/created.yaml (files rank 0 creates
// alone, serially, before every rank opens them: create: rank0) at 2 ranks through every
// layout that stores data (the subfiling VFD where built, which creates such a file
// through the VFD on MPI_COMM_SELF) under every mode, every value read back and verified,
// and through the null layout; on the native layout the census has rank 0's serial calls
// on rank 0 alone.
func TestAppCreatedByRank0EveryLayout(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "created.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "testdata/apps/created.yaml", desc)
	censused := false
	everyStoringLayout(t, dir, desc, 1, nil, func(name string, rep *proxy.Report) {
		if name != "native-sync" {
			return
		}
		censused = true
		// Per file (2): rank 0 creates it and 2 groups, writes 4 attributes and the table,
		// closes the groups and the file; every rank opens the file and level_0; x is written
		// by every rank, idx by rank 0.
		for call, want := range map[string][2]float64{"H5Fcreate": {2, 2}, "H5Fopen": {4, 2}, "H5Fclose": {6, 4},
			"H5Gcreate2": {4, 4}, "H5Gopen2": {4, 2}, "H5Gclose": {8, 6}, "H5Awrite": {8, 8}, "H5Dwrite": {8, 6}} {
			if got := callCount(rep.Phases[0].Census, call); got.Count != want[0] || got.MaxCount != want[1] {
				t.Errorf("%s: census %s %v on 2 ranks, %v on one; want %v, %v", name, call, got.Count, got.MaxCount, want[0], want[1])
			}
		}
	})
	if !censused {
		t.Error("the native layout did not run")
	}
	for _, mode := range []string{"sync", "async", "cache"} {
		sub := filepath.Join(dir, "null-"+mode)
		sharedDir(t, sub)
		cfg := patternConfig(t, "app", "description="+desc+";layout=null;mode="+mode+";cache.path="+sub, filepath.Join(sub, "run.h5"))
		if rep := runReport(t, cfg, "null-"+mode); len(rep.Phases) != 2 || rep.Phases[1].Steps != 1 {
			t.Errorf("null-%s: phases %+v", mode, rep.Phases)
		}
	}
}
