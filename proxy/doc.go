// Package proxy runs HDF5 I/O proxies: a Session takes a pattern's plans (package
// patterns), prepares the data (package emulate), issues the operations through an I/O
// stack of a mode over a layout, and measures every phase as h5bench does.
//
// A Go program:
//
//	finalize, err := proxy.InitMPI() // only if the program has not initialized MPI
//	defer finalize()
//	runtime.LockOSThread()
//	cfg, err := proxy.ParseOptions("vpic", []options.KV{
//		{Key: "file", Value: "/tmp/particles.h5"}, {Key: "TIMESTEPS", Value: "4"}, {Key: "DIM_1", Value: "1 M"},
//	})
//	s, err := proxy.NewSession(proxy.World(), cfg)
//	defer s.Close()
//	err = s.Run()                           // write phase then verified read phase
//	report, err := s.WriteReports(os.Stdout) // summary on rank 0, CSV/JSON if configured
//
// Or step by step: BeginPhase, Step and Compute per step, EndPhase.
//
// The I/O stack's strategies live in packages of their own (proxy/layout/..., proxy/mode/...)
// and register in package stack; strategies.go lists the built-in ones and patterns.go
// makes every built-in pattern available. Modes (passthrough): sync, async, async-model, cache, cache-model. Layouts
// (terminal): native (the real code's HDF5 file), mpiio (the same bytes through plain
// MPI-IO), null (no I/O), log (Log VOL-like), log-vol (the real log-based VOL), subfiling (per-group subfiles under a
// virtual-dataset master). Modes() and Layouts() list what is registered.
package proxy
