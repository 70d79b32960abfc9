package proxy_test

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestGroupCommSplitOnce runs testdata/groups.yaml (a file per group of 2 ranks, opened
// at every step and at restart) at 4 ranks through the layouts that open group files on
// a split communicator, in the sync and async modes: every value read back verified, and
// the session split its communicator once for the four opens of each rank's group file,
// as a program splits once.
func TestGroupCommSplitOnce(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "groups.yaml")
	if mpitest.Run(t, 4) {
		return
	}
	sharedCopy(t, "testdata/groups.yaml", desc)
	for _, layout := range []string{"native", "log", "subfiling", "subfiling-vfd", "mpiio", "posix"} {
		if proxy.LayoutAvailable(layout) != nil {
			continue
		}
		for _, mode := range []string{"sync", "async"} {
			name := layout + "-" + mode
			sub := filepath.Join(dir, name)
			sharedDir(t, sub)
			cfg := patternConfig(t, "app", "description="+desc+";layout="+layout+";mode="+mode, filepath.Join(sub, "run.h5"))
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rep, err := s.Report()
			if err != nil {
				t.Fatal(err)
			}
			if n := proxy.GroupSplits(s); n != 1 {
				t.Errorf("%s: %d communicator splits for the group file, want 1", name, n)
			}
			if err := s.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
			if len(rep.Phases) != 2 {
				t.Fatalf("%s: phases %+v", name, rep.Phases)
			}
			if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 || r.Bytes == 0 {
				t.Errorf("%s: restart read verified %v, mismatches %v, bytes %v", name, r.Verified, r.Mismatches, r.Bytes)
			}
		}
	}
}
