package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/samples/apps"
)

// TestPairPlansInOrder: each pair of samples/apps plans, on every rank of 1, 2 and 4 and
// in each of the built-in's phases, the built-in's operations in the built-in's order
// (h5proxy plan's listing, no I/O, the buffers' names aside): what a trace of the calls
// (h5proxy profile, Darshan's DXT) would compare. Pairs marked Ordered must match; the
// others' first difference is logged (docs/apps.md lists why they differ).
func TestPairPlansInOrder(t *testing.T) {
	for _, c := range apps.Pairs {
		t.Run(c.Name(), func(t *testing.T) {
			dir := t.TempDir()
			src, err := apps.Source(c.Desc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.Desc), src, 0o644); err != nil {
				t.Fatal(err)
			}
			copyPairData(t, c, dir)
			pattern, phases, args := builtinArgs(t, c.Builtin)
			differs := ""
			for _, np := range []int{1, 2, 4} {
				for rank := range np {
					for _, ph := range phases {
						flags := []string{"plan", "-rank", fmt.Sprint(rank), "-size", fmt.Sprint(np), "-phase", ph}
						want := planOps(t, h5proxy(t, dir, append(append(flags, pattern), args...)...))
						got := renamePairFiles(c, planOps(t, h5proxy(t, dir, append(append(flags, c.Desc), c.Args...)...)))
						if d := firstDifference(want, got); d != "" && differs == "" {
							differs = fmt.Sprintf("rank %d of %d, %s phase: %s", rank, np, ph, d)
						}
					}
				}
			}
			switch {
			case differs != "" && c.Ordered:
				t.Errorf("the description's plan differs in order from the built-in's at %s", differs)
			case differs != "":
				t.Logf("not in the built-in's order (the pair is not Ordered): %s", differs)
			case !c.Ordered:
				t.Errorf("the description's plans are in the built-in's order: mark the pair Ordered")
			}
		})
	}
}

// builtinArgs turns a pair's built-in configuration (native JSON) into h5proxy plan's
// PATTERN and KEY=VALUE arguments, with the phases it runs.
func builtinArgs(t *testing.T, config string) (pattern string, phases, args []string) {
	t.Helper()
	var c struct {
		Pattern string                `json:"pattern"`
		Phases  []string              `json:"phases"`
		Session struct{ File string } `json:"session"`
		Options map[string]any        `json:"options"`
	}
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		t.Fatalf("built-in configuration %s: %v", config, err)
	}
	args = append(args, "file="+c.Session.File)
	for k, v := range c.Options {
		args = append(args, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(args)
	return c.Pattern, c.Phases, args
}

// renamePairFiles names the description's files in its plan listing as the built-in's
// (the pair's Files, DESCRIPTION name to BUILTIN name).
func renamePairFiles(c apps.Pair, ops []string) []string {
	for _, f := range c.Files {
		bf, df, _ := strings.Cut(f, ":")
		if bf == df {
			continue
		}
		for i, op := range ops {
			if kind, rest, ok := strings.Cut(op, " "+df); ok && (rest == "" || rest[0] == ' ') {
				ops[i] = kind + " " + bf + rest
			}
		}
	}
	return ops
}

// firstDifference describes where two plan listings first differ, with a few operations
// of context ("" when they are equal).
func firstDifference(want, got []string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	if i == len(want) && i == len(got) {
		return ""
	}
	at := func(ops []string) string {
		return strings.Join(ops[i:min(i+4, len(ops))], "\n    ")
	}
	return fmt.Sprintf("operation %d of %d (built-in) and %d (description):\n  built-in:\n    %s\n  description:\n    %s", i, len(want), len(got), at(want), at(got))
}
