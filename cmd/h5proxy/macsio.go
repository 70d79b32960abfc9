package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/macsio"
	"github.com/h5proxy/h5proxy/proxy"
)

const macsioUsage = `Usage: h5proxy macsio [-np N] [-no-launch] [-verify] [MACSio options]

MACSio's command line as MACSio takes it (docs/macsio.md), its HDF5 plugin's options
after --plugin_args; --help lists them. h5proxy writes MACSio's log and timings files
(--log_file_name, --timings_file_name) and nothing on standard output, as MACSio.
-np N launches N ranks when not started by mpirun; -verify reads every dump back and
checks it after the dumps (MACSio's HDF5 plugin has no reader).
`

// cmdMacsio runs a MACSio command line: h5proxy's own flags first (-np N, -no-launch,
// -verify), then MACSio's options. Outside an MPI launcher it launches itself on -np ranks
// (default 1).
func cmdMacsio(args []string, stdout, stderr io.Writer) error {
	np, noLaunch, verify := 1, false, false
	own := 0
	for own < len(args) {
		switch a := args[own]; a {
		case "-np", "--np":
			if own+1 >= len(args) {
				return usageError{error: fmt.Errorf("-np needs a number of ranks")}
			}
			n, err := strconv.Atoi(args[own+1])
			if err != nil || n < 1 {
				return usageError{error: fmt.Errorf("-np %s: the number of ranks must be at least 1", args[own+1])}
			}
			np, own = n, own+2
			continue
		case "-no-launch", "--no-launch":
			noLaunch, own = true, own+1
			continue
		case "-verify", "--verify":
			verify, own = true, own+1
			continue
		case "-h", "-help":
			fmt.Fprint(stdout, macsioUsage)
			return nil
		}
		break
	}
	a, err := macsio.Parse(args[own:])
	if errors.Is(err, macsio.ErrHelp) {
		fmt.Fprint(stdout, macsioUsage+"\n"+macsio.Help())
		return nil
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return usageError{error: err, printed: true}
	}
	cfg, err := macsioConfig(a, verify)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return usageError{error: err, printed: true}
	}
	if !launch.Underneath() && !noLaunch {
		sub := args[own:]
		if verify {
			sub = append([]string{"-verify"}, sub...)
		}
		return relaunch(&job{ranks: np, command: "macsio"}, sub, stdout, stderr)
	}
	world, done, err := startRank("warn")
	if err != nil {
		return err
	}
	defer done()
	if world.Rank() == 0 {
		for _, o := range a.Unused {
			fmt.Fprintf(stderr, "h5proxy macsio: %s is parsed and not used (as in MACSio's HDF5 plugin run)\n", o)
		}
		for _, w := range a.Warnings {
			fmt.Fprintln(stderr, w)
		}
	}
	return runMacsio(world, cfg)
}

// macsioConfig is the session configuration of a MACSio command line: the macsio pattern,
// the file base as the file, the compute keys, fill=once (MACSio builds its data once and
// dumps it every time) and the write phase (with -verify, the read-back too).
func macsioConfig(a macsio.Args, verify bool) (proxy.Config, error) {
	kvs := append(a.KVs(), options.KV{Key: "fill", Value: "once"})
	cfg, err := proxy.ParseOptions("macsio", kvs)
	if err != nil {
		return cfg, err
	}
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	if verify {
		cfg.Phases = append(cfg.Phases, patterns.PhaseRead)
	}
	return cfg, cfg.Validate()
}

// runMacsio runs the session and makes its report, which writes MACSio's log and timings
// files (collective).
func runMacsio(world proxy.Comm, cfg proxy.Config) error {
	s, err := proxy.NewSession(world, cfg)
	if err != nil {
		return err
	}
	err = s.Run()
	if err == nil {
		_, err = s.Report()
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}
