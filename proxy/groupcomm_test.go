package proxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// groupDescription writes a file per group of 2 ranks, closed after each step and opened
// again at the next (reopen), then reads it back at restart: four opens of the group's
// file per rank.
const groupDescription = `
name: groups
params: {n: 4}
steps: 3
files:
  part:
    name: part_${div(rank, 2)}.h5
    ranks: 2
    reopen: true
    groups:
      Timestep_${step}:
        datasets:
          x: {type: f64, shape: [n * nranks]}
timeline:
  - write: part
  - read: part
    at: restart
`

// TestGroupCommSplitOnce runs groupDescription at 4 ranks through the layouts that open
// group files on a split communicator, in the sync and async modes: every value read back
// verified, and the session split its communicator once for the four opens of each rank's
// group file, as a program splits once.
func TestGroupCommSplitOnce(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "groups.yaml")
	if mpitest.Run(t, 4) {
		return
	}
	if world(t).Rank() == 0 {
		if err := os.WriteFile(desc, []byte(groupDescription), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
