package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppHandlesEveryLayout runs testdata/apps/handles.yaml (a file whose code opens its
// objects per call: parents opened around each create, attributes through H5Oopen,
// datasets opened by path for each write and extension) at 2 ranks through every layout
// that stores data (the subfiling VFD where built) under every mode: every value read back
// and verified; on the native layout the census counts the calls the handles key makes.
func TestAppHandlesEveryLayout(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "handles.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	sharedCopy(t, "testdata/apps/handles.yaml", desc)
	everyStoringLayout(t, dir, desc, 1, nil, func(name string, rep *proxy.Report) {
		if name != "native-sync" {
			return
		}
		// Per rank: 6 attributes on the root group, groups and datasets, each its own
		// H5Oopen and H5Oclose; 5 creates (g, h, x, s, y) each in its parent opened by H5Gopen2; 6
		// writes (3 datasets, 2 steps) each in its own H5Dopen2 and H5Dclose, besides the
		// 3 creates' closes; 2 groups' and 5 parents' H5Gclose.
		for call, want := range map[string]float64{"H5Oopen": 12, "H5Oclose": 12, "H5Gopen2": 10, "H5Gclose": 14, "H5Dcreate2": 6, "H5Dopen2": 12, "H5Dclose": 18, "H5Dset_extent": 2} {
			if got := callCount(rep.Phases[0].Census, call).Count; got != want {
				t.Errorf("%s: census %s %v on 2 ranks, want %v", name, call, got, want)
			}
		}
	})
}

// everyStoringLayout runs the description desc (its file shared by every rank) through
// every layout that stores data (the subfiling VFD where built) under the sync, async and
// cache modes, each in its own directory under dir, with the layout's extra keys (extra may
// be nil): each run writes, then its restart read of steps steps verifies every value;
// check (may be nil) sees each report. Fewer than 15 runs is an error.
func everyStoringLayout(t *testing.T, dir, desc string, steps int, extra func(layout string) string, check func(name string, rep *proxy.Report)) {
	t.Helper()
	ran := 0
	for _, layout := range []string{"native", "log", "subfiling", "subfiling-vfd", "mpiio", "posix"} {
		if proxy.LayoutAvailable(layout) != nil {
			continue
		}
		for _, mode := range []string{"sync", "async", "cache"} {
			name := layout + "-" + mode
			sub := filepath.Join(dir, name)
			sharedDir(t, sub)
			kv := "description=" + desc + ";layout=" + layout + ";mode=" + mode + ";cache.path=" + sub
			if extra != nil {
				kv += extra(layout)
			}
			rep := runReport(t, patternConfig(t, "app", kv, filepath.Join(sub, "run.h5")), name)
			if len(rep.Phases) != 2 {
				t.Fatalf("%s: phases %+v", name, rep.Phases)
			}
			if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 || r.Steps != steps {
				t.Errorf("%s: restart reads verified %v, mismatches %v, steps %d (want %d)", name, r.Verified, r.Mismatches, r.Steps, steps)
			}
			if check != nil {
				check(name, rep)
			}
			ran++
		}
	}
	if ran < 15 {
		t.Errorf("%d layout and mode pairs ran, want 15 or more", ran)
	}
}
