// Command simulation is a toy MPI simulation that does its HDF5 output through h5proxy:
// each rank owns DIM_1 particles, computes (a busy loop standing in for the physics)
// between timesteps, and writes every timestep as h5bench's VPIC-IO kernel does, one
// Timestep_<i> group of 8 particle datasets. It then reads the file back with the
// BD-CATS-IO read kernel, which checks every element, and prints h5bench's summary.
//
//	go run ./examples/go                    # relaunches itself: mpirun -np 2
//	go run ./examples/go -np 4 -dir /scratch/me -steps 8
//	mpirun -np 2 ./simulation -dir out      # or start it under a launcher yourself
//
// Started outside an MPI launcher it relaunches itself under mpirun (or $H5PROXY_MPIEXEC)
// through h5proxy's launch helper, as `h5proxy run` does; a program of your own would
// simply be started with mpirun.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/proxy"
)

func main() {
	np := flag.Int("np", 2, "ranks to launch when started outside an MPI launcher")
	dir := flag.String("dir", "", "directory of particles.h5 (default: a temporary directory, removed at exit)")
	steps := flag.Int("steps", 4, "timesteps (TIMESTEPS)")
	dim1 := flag.String("dim1", "262144", "particles per rank (DIM_1; units like \"256 K\" accepted)")
	compute := flag.Duration("compute", 50*time.Millisecond, "emulated compute before each timestep but the first")
	flag.Parse()
	if !launch.Underneath() {
		os.Exit(launch.SelfInDir("simulation", *np, *dir))
	}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "simulation: -dir is required under a launcher (every rank must use the same directory)")
		os.Exit(2)
	}
	if err := simulate(*dir, *steps, *dim1, *compute); err != nil {
		fmt.Fprintln(os.Stderr, "simulation:", err)
		os.Exit(1)
	}
}

// simulate is the application: MPI is the program's own, h5proxy works on its
// communicator.
func simulate(dir string, steps int, dim1 string, compute time.Duration) (err error) {
	finalize, err := proxy.InitMPI()
	if err != nil {
		return err
	}
	defer func() {
		if ferr := finalize(); err == nil {
			err = ferr
		}
	}()
	// HDF5 and MPI calls must stay on one OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	world := proxy.World()
	rank := world.Rank()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	cfg, err := proxy.ParseOptions("vpic", []options.KV{
		{Key: "file", Value: filepath.Join(dir, "particles.h5")},
		{Key: "TIMESTEPS", Value: fmt.Sprint(steps)},
		{Key: "DIM_1", Value: dim1},
		{Key: "COLLECTIVE_DATA", Value: "YES"},
		{Key: "compute_kind", Value: "spin"}, // a busy core, like real physics
	})
	if err != nil {
		return err
	}
	s, err := proxy.NewSession(world, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	perRank := s.Pattern().(*vpic.Pattern).C.Particles() * vpic.BytesPerParticle
	if rank == 0 {
		fmt.Printf("simulation: %d ranks, %s particles per rank, %d timesteps, file %s\n", world.Size(), dim1, s.Steps(), cfg.File)
	}

	// The time loop: compute, then write the timestep.
	if err := s.BeginPhase(patterns.PhaseWrite); err != nil {
		return err
	}
	for step := 0; step < s.Steps(); step++ {
		var took time.Duration
		if step > 0 {
			took = s.Compute(compute)
		}
		t0 := time.Now()
		if err := s.Step(step); err != nil {
			return err
		}
		if rank == 0 {
			fmt.Printf("step %d: computed %v, wrote Timestep_%d (%.1f MiB per rank) in %v\n",
				step, took.Round(time.Millisecond), step, float64(perRank)/(1<<20), time.Since(t0).Round(time.Millisecond))
		}
	}
	if err := s.EndPhase(); err != nil {
		return err
	}

	// Analysis: read everything back; the session wrote the file, so every element is
	// checked against what was written.
	if err := s.RunPhase(patterns.PhaseRead); err != nil {
		return err
	}
	// The summary goes to rank 0's stdout; the reduction is collective.
	_, err = s.WriteReports(os.Stdout)
	return err
}
