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
	runCommsDescription(t, "groups.yaml", 4, func(s *proxy.Session, layout, name string) {
		if n := proxy.GroupSplits(s); n != 1 {
			t.Errorf("%s: %d communicator splits for the group file, want 1", name, n)
		}
	})
}

// TestFileCommsOnce runs testdata/comms.yaml (a file per rank and a shared file, each
// opened at every step and at restart) at 2 ranks through every layout that stores data,
// in the sync and async modes: every value read back verified, the session duplicated
// MPI_COMM_SELF once for the per-rank file's opens (under the layouts that open it through
// MPI: log, mpiio, subfiling), and the subfiling layout split each file's communicator
// into its subfile groups once (the shared file's and the per-rank file's: two splits for
// six opens for writing).
func TestFileCommsOnce(t *testing.T) {
	runCommsDescription(t, "comms.yaml", 2, func(s *proxy.Session, layout, name string) {
		// native, subfiling-vfd and posix open a per-rank file without MPI.
		wantDups, wantSplits := 0, 0
		switch layout {
		case "log", "mpiio":
			wantDups = 1
		case "subfiling":
			wantDups, wantSplits = 1, 2
		}
		if n, m := proxy.CommsMade(s, "self"), proxy.CommsMade(s, "subfiling"); n != wantDups || m != wantSplits {
			t.Errorf("%s: %d duplicates of MPI_COMM_SELF (want %d), %d subfile group splits (want %d)", name, n, wantDups, m, wantSplits)
		}
	})
}

// runCommsDescription runs the description testdata/NAME at np ranks under every layout
// that stores data and is built, in the sync and async modes, checks each session with
// check before closing it, and checks that its restart read verified every value.
func runCommsDescription(t *testing.T, name string, np int, check func(s *proxy.Session, layout, name string)) {
	dir := testDir(t)
	desc := filepath.Join(dir, name)
	if mpitest.Run(t, np) {
		return
	}
	sharedCopy(t, "testdata/"+name, desc)
	for _, layout := range []string{"native", "log", "subfiling", "subfiling-vfd", "mpiio", "posix"} {
		if proxy.LayoutAvailable(layout) != nil {
			continue
		}
		for _, mode := range []string{"sync", "async"} {
			name := layout + "-" + mode
			sub := filepath.Join(dir, name)
			sharedDir(t, sub)
			s := session(t, patternConfig(t, "app", "description="+desc+";layout="+layout+";mode="+mode, filepath.Join(sub, "run.h5")))
			if err := s.Run(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rep, err := s.Report()
			if err != nil {
				t.Fatal(err)
			}
			check(s, layout, name)
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
