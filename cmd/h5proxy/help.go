package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/proxy"
	"github.com/h5proxy/h5proxy/tools/concat"
)

func cmdHelp(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		fmt.Fprintf(stdout, "\nPatterns: %v (h5proxy help PATTERN lists its keys)\n", proxy.PatternNames())
		fmt.Fprintf(stdout, "Session keys: h5proxy help session\nModes: %v   Layouts: %v\n", proxy.Modes(), proxy.Layouts())
		fmt.Fprintf(stdout, "h5bench benchmarks run unchanged: %v\n", h5bench.Supported())
		return nil
	}
	if args[0] == "session" {
		fmt.Fprintln(stdout, "Session keys (shared by every pattern; h5bench spellings accepted as aliases):")
		if err := proxy.SessionOptions().WriteHelp(stdout); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nh5bench spellings: %s\n", strings.Join(sessionAliases(), ", "))
		fmt.Fprintln(stdout, "\nKnobs (mpiio.*, hdf5.*; write.hdf5.* and read.hdf5.* for one phase) override what the pattern plans")
		fmt.Fprintln(stdout, "when set, and leave its choices when not (docs/knobs.md).")
		return nil
	}
	if args[0] == "concat" {
		fmt.Fprintln(stdout, "concat: tuning keys of h5proxy concat, given as flags (-chunk 1MiB -deflate 6); docs/concat.md")
		return concat.Table.WriteHelp(stdout)
	}
	help, err := proxy.PatternHelp(args[0])
	if err != nil {
		return usageError{error: fmt.Errorf("%w; or: session, concat", err)}
	}
	fmt.Fprint(stdout, help)
	fmt.Fprintf(stdout, "\nSession keys are accepted too (h5proxy help session): %s\n", strings.Join(sessionKeys(), ", "))
	return nil
}

// sessionAliases lists the h5bench spellings of the session keys as "ALIAS (key)": the
// help table shows only the native names, and h5bench files use these.
func sessionAliases() []string {
	var out []string
	for _, s := range proxy.SessionOptions().Specs {
		for _, a := range s.Aliases {
			out = append(out, fmt.Sprintf("%s (%s)", a, s.Key))
		}
	}
	return out
}

// sessionKeys lists every session key with its h5bench spellings: "compute_time
// (EMULATED_COMPUTE_TIME_PER_TIMESTEP)".
func sessionKeys() []string {
	var out []string
	for _, s := range proxy.SessionOptions().Specs {
		k := s.Key
		if len(s.Aliases) > 0 {
			k += " (" + strings.Join(s.Aliases, ", ") + ")"
		}
		out = append(out, k)
	}
	return out
}

func cmdInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", "inspect FILE.h5", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{error: fmt.Errorf("need exactly one file")}
	}
	if err := checkHDF5(fs.Arg(0)); err != nil {
		return err
	}
	nodes, err := inspect.Tree(fs.Arg(0))
	if err != nil {
		return err
	}
	for _, n := range nodes {
		fmt.Fprintln(stdout, n)
	}
	return nil
}

func cmdVersion(stdout io.Writer) error {
	host, _ := os.Hostname()
	fmt.Fprintf(stdout, "h5proxy %s (%s, %s/%s) on %s\n", proxy.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, host)
	// The build's HDF5 switch, the headers compiled against and the library loaded: a
	// mismatch or a second libhdf5 shows here.
	fmt.Fprintf(stdout, "HDF5 %s (build HDF5=%s, headers %s, library %s)\n", proxy.HDF5Version(),
		proxy.HDF5Build(), proxy.HDF5HeaderVersion(), strings.Join(proxy.HDF5Libraries(), ", "))
	return nil
}
