package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

func cmdHelp(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		fmt.Fprintf(stdout, "\nPatterns: %v (h5proxy help PATTERN lists its keys)\n", patterns.Names())
		fmt.Fprintf(stdout, "Session keys: h5proxy help session\nModes: %v   Layouts: %v\n", proxy.Modes(), proxy.Layouts())
		fmt.Fprintf(stdout, "h5bench benchmarks run unchanged: %v\n", h5bench.Supported())
		return nil
	}
	if args[0] == "session" {
		fmt.Fprintln(stdout, "Session keys (shared by every pattern; h5bench spellings accepted as aliases):")
		return proxy.SessionOptions().WriteHelp(stdout)
	}
	f, err := patterns.Lookup(args[0])
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stdout, "%s: %s\n\n", f.Name, f.Summary)
	return f.Options.WriteHelp(stdout)
}

func cmdInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", "inspect FILE.h5", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{fmt.Errorf("need exactly one file")}
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
	fmt.Fprintf(stdout, "HDF5 %s\n", proxy.HDF5Version())
	return nil
}
