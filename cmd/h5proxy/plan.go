package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plan", "plan [flags] PATTERN|DESCRIPTION.yaml [KEY=VALUE ...]", stderr)
	rank := fs.Int("rank", 0, "rank whose plan to print")
	size := fs.Int("size", 1, "number of ranks")
	phase := fs.String("phase", "write", "phase: write or read")
	async := fs.Bool("async", false, "plan as under a background mode (h5bench's delayed close applies)")
	stats := fs.Bool("stats", false, "print only the totals, the planning time and memory (for plans at scale)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usageError{error: fmt.Errorf("missing PATTERN (available: %v)", patterns.Names())}
	}
	if *size < 1 || *rank < 0 || *rank >= *size {
		return usageError{error: fmt.Errorf("-rank %d -size %d: need 0 <= rank < size", *rank, *size)}
	}
	phases, err := proxy.ParsePhases([]string{*phase})
	if err != nil {
		return usageError{error: fmt.Errorf("-phase %q: want write or read", *phase)}
	}
	cfg, pat, err := patternArgs(fs.Args(), "h5proxy plan -rank 1 -size 2")
	if err != nil {
		return err
	}
	t0 := time.Now()
	env := patterns.Env{Rank: *rank, Size: *size, Path: cfg.File, Async: *async, Seed: cfg.Seed}
	env.Shape, err = writtenShapes(pat, env)
	if err != nil {
		return err
	}
	all, err := planAll(pat, phases[0], env)
	if err != nil {
		return err
	}
	took := time.Since(t0)
	fmt.Fprintf(stdout, "# %s %s plan of rank %d of %d, file %s\n", pat.Name(), phases[0], *rank, *size, cfg.File)
	if !*stats {
		if err := all.Print(stdout); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "# %d operations, %d bytes\n", len(all.Ops), all.RawBytes())
	if *stats {
		printPlanStats(stdout, took)
	}
	return nil
}

// printPlanStats reports what planning one rank cost: the time from the pattern's
// configuration to its last step's plan (the write plan included when a read plan takes
// its shapes from it), the bytes the Go heap allocated, and the process's peak resident
// memory, which includes the HDF5 and MPI libraries loaded at start.
func printPlanStats(w io.Writer, took time.Duration) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	rss := int64(-1)
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		rss = ru.Maxrss << 10 // Linux reports KiB
	}
	fmt.Fprintf(w, "# plan_s %.3f heap_alloc_bytes %d heap_sys_bytes %d max_rss_bytes %d\n", took.Seconds(), ms.TotalAlloc, ms.HeapSys, rss)
}

// patternArgs builds the pattern of a command's arguments after its flags: PATTERN (or a
// description file) and KEY=VALUE options; example shows the command's flags in the
// error for a flag given after PATTERN.
func patternArgs(args []string, example string) (proxy.Config, patterns.Pattern, error) {
	// Go's flag package stops at the first non-flag argument: a flag after PATTERN would
	// otherwise be reported as a malformed KEY=VALUE.
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			return proxy.Config{}, nil, usageError{error: fmt.Errorf("flag %s after PATTERN %s: flags go before the pattern, as in: %s %s KEY=VALUE ...",
				a, args[0], example, args[0])}
		}
	}
	text, err := splitKV(args[1:])
	if err != nil {
		return proxy.Config{}, nil, err
	}
	kvs, err := proxy.ParseKV(text)
	if err != nil {
		return proxy.Config{}, nil, err
	}
	pattern, kvs := descriptionPattern(args[0], kvs)
	cfg, err := proxy.ParseOptions(pattern, append(kvs, defaultFile(kvs)...))
	if err != nil {
		return cfg, nil, err
	}
	pat, err := cfg.NewPattern()
	return cfg, pat, err
}

// descriptionPattern turns a description file given where a pattern goes into pattern
// app with description=FILE.
func descriptionPattern(arg string, kvs []options.KV) (string, []options.KV) {
	if data, err := os.ReadFile(arg); err == nil && desc.Sniff(arg, data) {
		return "app", append([]options.KV{{Key: "description", Value: arg}}, kvs...)
	}
	return arg, kvs
}

// defaultFile supplies a file name when the arguments give none: a plan needs a path.
func defaultFile(kvs []options.KV) []options.KV {
	for _, kv := range kvs {
		if strings.EqualFold(kv.Key, "file") {
			return nil
		}
	}
	return []options.KV{{Key: "file", Value: "out.h5"}}
}

// planAll concatenates Begin, every Step and End.
func planAll(pat patterns.Pattern, ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	var all plan.Plan
	p, err := pat.Begin(ph, env)
	if err != nil {
		return all, err
	}
	all.Add(p.Ops...)
	n := patterns.StepsOf(pat, ph, env.Size)
	for s := 0; s < n; s++ {
		if p, err = pat.Step(ph, s, env); err != nil {
			return all, err
		}
		all.Add(p.Ops...)
	}
	if p, err = pat.End(ph, n, env); err != nil {
		return all, err
	}
	all.Add(p.Ops...)
	return all, nil
}

// writtenShapes answers read plans' shape questions from the write plan of the same
// configuration, so a read plan can be printed without a file.
func writtenShapes(pat patterns.Pattern, env patterns.Env) (func(string) ([]uint64, error), error) {
	shapes := map[string][]uint64{}
	can := false
	for _, ph := range pat.Phases() {
		can = can || ph == patterns.PhaseWrite
	}
	if can {
		w, err := planAll(pat, patterns.PhaseWrite, env)
		if err != nil {
			return nil, err
		}
		for _, op := range w.Ops {
			if op.Dataset != nil {
				shapes[op.Path] = op.Dataset.Shape
			}
		}
	}
	if len(shapes) == 0 {
		// The write phase creates no dataset (h5bench's overwrite and append open an
		// existing file): the pattern plans without the file's extents.
		return nil, nil
	}
	return func(path string) ([]uint64, error) {
		if s, ok := shapes[path]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("no dataset %s in the write plan", path)
	}, nil
}
