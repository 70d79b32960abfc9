package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStudiesCommands keeps docs/studies.md true: every sweep command in it checks its
// whole grid against its configuration (sweep -n, from the repository root, running
// nothing) and lists one run per combination and repetition; every replot names a study
// directory whose stored rows have the keys it plots.
func TestStudiesCommands(t *testing.T) {
	data, err := os.ReadFile("../../docs/studies.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^((?:[A-Za-z_]+=\S+ )*)bin/h5proxy (sweep .*)$`)
	var found [][]string
	for _, m := range line.FindAllStringSubmatch(string(data), -1) {
		switch {
		case strings.Contains(m[2], "[flags]"): // the synopsis
		case strings.Contains(m[2], "-replot"):
			checkReplot(t, strings.Fields(m[2]))
		default:
			found = append(found, m)
		}
	}
	if len(found) < 7 {
		t.Fatalf("docs/studies.md has %d sweep commands, want the studies' 7", len(found))
	}
	for _, m := range found {
		args := strings.Fields(m[2])
		runs := 3 // the default -reps
		for _, a := range args[1:] {
			if k, v, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(a, "-") && !strings.HasSuffix(k, ".json") {
				runs *= len(strings.Split(v, ","))
			}
		}
		r := h5proxy(t, "../..", append([]string{"sweep", "-n"}, args[1:]...)...)
		r.expect(t, 0, []string{"\"run\" \"-quiet\" \"-report\""}, nil)
		if got := strings.Count(r.stdout, "\n"); got != runs {
			t.Errorf("%s: %d runs listed, want %d", m[0], got, runs)
		}
	}
}

// checkReplot checks a documented `sweep -replot DIR -x K [-by K]` line: DIR holds a
// sweep.csv whose header has the keys (the rows are not plotted here: that would write
// files into the repository).
func checkReplot(t *testing.T, args []string) {
	t.Helper()
	flags := map[string]string{}
	for i := 1; i+1 < len(args); i++ {
		if strings.HasPrefix(args[i], "-") && !strings.HasPrefix(args[i+1], "-") {
			flags[args[i]] = args[i+1]
			i++
		}
	}
	data, err := os.ReadFile(filepath.Join("../..", flags["-replot"], "sweep.csv"))
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	header, _, _ := strings.Cut(string(data), "\n")
	cols := strings.Split(header, ",")
	for _, f := range []string{"-x", "-by", "-metric"} {
		if k, ok := flags[f]; ok && !slices.Contains(cols, k) {
			t.Errorf("%s: %s %s is not a column of the stored rows", strings.Join(args, " "), f, k)
		}
	}
}
