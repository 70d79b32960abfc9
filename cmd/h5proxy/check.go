package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// cmdCheck checks a description (or any pattern's keys) for N ranks without any I/O:
// parsing, expressions, types, decompositions over all ranks, file names across ranks,
// and the plans of the first, middle and last rank in every phase.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "check [-np N] DESCRIPTION.yaml|PATTERN [KEY=VALUE ...]", stderr)
	np := fs.Int("np", 1, "number of ranks to check for")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usageError{error: fmt.Errorf("missing DESCRIPTION.yaml")}
	}
	if *np < 1 {
		return usageError{error: fmt.Errorf("-np %d: at least 1 rank", *np)}
	}
	cfg, pat, err := patternArgs(fs.Args(), "h5proxy check -np 4")
	if err != nil {
		return err
	}
	ranks := slices.Compact([]int{0, *np / 2, *np - 1})
	for _, ph := range pat.Phases() {
		for _, r := range ranks {
			env := patterns.Env{Rank: r, Size: *np, Path: cfg.File, Seed: cfg.Seed}
			all, err := planAll(pat, ph, env)
			if err != nil {
				return fmt.Errorf("%s phase, rank %d of %d: %w", ph, r, *np, err)
			}
			if err := all.Validate(); err != nil {
				return fmt.Errorf("%s phase, rank %d of %d: %w", ph, r, *np, err)
			}
			if r == 0 {
				fmt.Fprintf(stdout, "%s phase: %d steps; rank 0: %s\n", ph, patterns.StepsOf(pat, ph, *np), census(all))
			}
		}
	}
	fmt.Fprintf(stdout, "%s: ok for %d ranks\n", fs.Arg(0), *np)
	return nil
}

// census counts a plan's files, datasets, transfers and bytes.
func census(p plan.Plan) string {
	files := map[string]bool{}
	var ds, xfer int
	for _, op := range p.Ops {
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile:
			files[op.Path] = true
		case plan.CreateDataset:
			ds++
		case plan.Write, plan.Read:
			xfer++
		}
	}
	return fmt.Sprintf("%d files, %d datasets created, %d transfers, %d bytes, %d operations", len(files), ds, xfer, p.RawBytes(), len(p.Ops))
}
