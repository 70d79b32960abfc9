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
// Modes (passthrough): sync. Layouts (terminal): native (the real code's HDF5 file through
// MPI-IO) and null (no I/O, for overhead measurements).
package proxy
