// Command simulation is the Go counterpart of examples/c/simulation.c and
// examples/fortran/simulation.f90: the same VPIC-like checkpoint written step by step with
// emulated compute between steps, re-read with verification, with the same options, so
// the three programs write the same file (a ctest compares them with h5diff).
//
//	mpirun -np 2 simulation /tmp/particles.h5
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

const (
	timesteps     = 3
	dim1          = 65536
	particleBytes = 32
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: simulation FILE.h5")
		os.Exit(2)
	}
	if err := simulate(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "simulation:", err)
		os.Exit(1)
	}
}

func simulate(path string) (err error) {
	runtime.LockOSThread() // HDF5 and MPI calls are issued on this thread
	finalize, err := proxy.InitMPI()
	if err != nil {
		return err
	}
	defer func() {
		if ferr := finalize(); err == nil {
			err = ferr
		}
	}()
	kvs, err := proxy.ParseKV(fmt.Sprintf("TIMESTEPS=%d;DIM_1=%d;COLLECTIVE_DATA=YES;compute_time=10ms;verify=yes;file=%s",
		timesteps, dim1, path))
	if err != nil {
		return err
	}
	cfg, err := proxy.ParseOptions("vpic", kvs)
	if err != nil {
		return err
	}
	s, err := proxy.NewSession(proxy.World(), cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		if err := s.BeginPhase(ph); err != nil {
			return err
		}
		for step := 0; step < s.Steps(); step++ {
			if ph == patterns.PhaseWrite && step > 0 {
				s.Compute(cfg.ComputePerStep)
			}
			if err := s.Step(step); err != nil {
				return err
			}
		}
		if err := s.EndPhase(); err != nil {
			return err
		}
	}
	r, err := s.WriteReports(os.Stdout) // the summary is printed on rank 0 only
	if err != nil {
		return err
	}
	want := float64(timesteps * dim1 * particleBytes * s.Size())
	if len(r.Phases) != 2 || r.Phases[0].Bytes != want || r.Phases[1].Bytes != want || r.Phases[1].Mismatches != 0 || !r.Phases[1].Verified {
		return fmt.Errorf("unexpected report: %d phases, want 2 of %.0f bytes with a verified read", len(r.Phases), want)
	}
	if s.Rank() == 0 {
		fmt.Printf("simulation (Go): %d ranks, %s: all checks passed\n", s.Size(), path)
	}
	return nil
}
