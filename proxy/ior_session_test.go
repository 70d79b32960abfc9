package proxy_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
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

// TestIORIterationsOneAtATime: a session that runs the ior pattern's iterations one at a
// time (Iterate, as h5proxy ior does) runs each phase as one step of the iteration it was
// given: the reads verify against their own iteration's write, the kernel's rows are
// numbered by iteration and the last run's summary covers every iteration. Iterate is
// refused within a phase, out of range, and for a pattern without iterations.
func TestIORIterationsOneAtATime(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	const iters = 3
	kv := fmt.Sprintf("api=HDF5;blockSize=64k;transferSize=16k;segmentCount=2;repetitions=%d;fill=seeded;verify=yes;reorderTasks=1", iters)
	s := session(t, patternConfig(t, "ior", kv, filepath.Join(dir, "iter.h5")))
	if err := s.Iterate(iters); !errors.Is(err, proxy.ErrState) || !strings.Contains(err.Error(), "iteration 3 out of range") {
		t.Errorf("Iterate(%d): %v", iters, err)
	}
	for i := 0; i < iters; i++ {
		if err := s.Iterate(i); err != nil {
			t.Fatal(err)
		}
		if s.Steps() != 1 {
			t.Errorf("iteration %d: %d steps a phase, want 1", i, s.Steps())
		}
		for _, ph := range []proxy.Phase{proxy.PhaseWrite, proxy.PhaseRead} {
			if err := s.BeginPhase(ph); err != nil {
				t.Fatal(err)
			}
			if err := s.Iterate(i); !errors.Is(err, proxy.ErrState) {
				t.Errorf("Iterate within a phase: %v", err)
			}
			if err := s.Step(0); err != nil {
				t.Fatal(err)
			}
			if err := s.EndPhase(); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 2*iters {
		t.Fatalf("%d phases, want %d", len(rep.Phases), 2*iters)
	}
	for i, p := range rep.Phases {
		it := i / 2
		if p.Steps != 1 || len(p.Kernel) != 3 || p.Kernel[0].Name != fmt.Sprintf("iter%d-bw", it) {
			t.Errorf("phase %d (%s): steps %d kernel %+v", i, p.Phase, p.Steps, p.Kernel)
			continue
		}
		if p.Phase == "read" && (!p.Verified || p.Mismatches != 0) {
			t.Errorf("iteration %d read: verified %v, mismatches %v", it, p.Verified, p.Mismatches)
		}
	}
	// The last read's max and mean lines are over every iteration's read rows.
	best, mean := 0.0, 0.0
	for i := 1; i < 2*iters; i += 2 {
		bw := rep.Phases[i].Kernel[0].Value
		best, mean = math.Max(best, bw), mean+bw/iters
	}
	if k := rep.Phases[2*iters-1].Kernel; math.Abs(k[1].Value-best) > 1e-9*best || math.Abs(k[2].Value-mean) > 1e-9*mean {
		t.Errorf("last read's max %v and mean %v, want %v and %v over the %d iterations", k[1].Value, k[2].Value, best, mean, iters)
	}

	v := session(t, patternConfig(t, "vpic", "TIMESTEPS=2", filepath.Join(dir, "vpic.h5")))
	if err := v.Iterate(0); !errors.Is(err, proxy.ErrState) || !strings.Contains(err.Error(), "no iterations") {
		t.Errorf("vpic Iterate: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}
