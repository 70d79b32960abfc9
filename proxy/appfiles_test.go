package proxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// alternateDescription writes to two files that both stay open, in turn at every step
// (patterns/app/testdata/alternate.yaml).
const alternateDescription = "../patterns/app/testdata/alternate.yaml"

// TestAppAlternateOpenFiles runs alternateDescription at 2 ranks through every layout
// that stores data (the subfiling VFD where built), under the sync, async and cache modes: every
// value read back verified, and the census shows each file created and closed once per
// rank (no H5Fopen in the write phase: selecting a file makes no call).
func TestAppAlternateOpenFiles(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "alt.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, alternateDescription, desc)
	size := world(t).Size()
	everyStoringLayout(t, dir, desc, 2, nil, func(name string, rep *proxy.Report) {
		calls := map[string]float64{}
		for _, c := range rep.Phases[0].Census.Calls {
			calls[c.Call] = c.Count
		}
		// Per rank: the shared file and its own, each created and closed once; each
		// dataset created at step 0, reopened and written at steps 1 and 2.
		n := float64(size)
		for call, want := range map[string]float64{"H5Fcreate": 2 * n, "H5Fclose": 2 * n, "H5Fopen": 0,
			"H5Dcreate2": 2 * n, "H5Dopen2": 4 * n, "H5Dwrite": 6 * n} {
			if calls[call] != want {
				t.Errorf("%s: write phase census %s = %v, want %v (census %+v)", name, call, calls[call], want, rep.Phases[0].Census.Calls)
			}
		}
		if _, ok := calls[""]; ok {
			t.Errorf("%s: the census counts a call with no name (the file selection?): %+v", name, rep.Phases[0].Census.Calls)
		}
	})
}

// sharedDir creates dir on rank 0 for every rank (collective): the others wait for it.
func sharedDir(t *testing.T, dir string) {
	t.Helper()
	if world(t).Rank() == 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := world(t).Barrier(); err != nil {
		t.Fatal(err)
	}
}

// sharedCopy copies the file src to dst on rank 0, then waits for every rank, so each rank
// finds dst.
func sharedCopy(t *testing.T, src, dst string) {
	t.Helper()
	if world(t).Rank() == 0 {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := world(t).Barrier(); err != nil {
		t.Fatal(err)
	}
}
