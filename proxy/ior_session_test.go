package proxy_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
)

// TestIORRepetitionsInOneSession: the ior pattern run as a session (C, Fortran, Go, JSON:
// every repetition written, then every one read) recreates its file at each iteration, so
// every read finds the last iteration's values; with per-step seeded data the reads verify
// against them (they failed, comparing with their own iteration's, before the pattern
// said which write step its reads find).
func TestIORRepetitionsInOneSession(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	for _, api := range []string{"HDF5;layout=native", "MPIIO;layout=mpiio", "POSIX;layout=posix;filePerProc=1"} {
		kv := "api=" + api + ";blockSize=64k;transferSize=16k;segmentCount=2;repetitions=3;fill=seeded;verify=yes"
		cfg := patternConfig(t, "ior", kv, filepath.Join(dir, fmt.Sprint(len(api))))
		rep := runReport(t, cfg, api)
		if len(rep.Phases) != 2 {
			t.Fatalf("%s: phases %+v", api, rep.Phases)
		}
		if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 || r.Steps != 3 {
			t.Errorf("%s: read verified %v, mismatches %v, steps %d", api, r.Verified, r.Mismatches, r.Steps)
		}
	}
}
