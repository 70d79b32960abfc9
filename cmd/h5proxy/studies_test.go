package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestStudiesCommands keeps docs/studies.md true: every sweep command in it checks its
// whole grid against its configuration (sweep -n, from the repository root, running
// nothing) and lists one run per combination and repetition.
func TestStudiesCommands(t *testing.T) {
	data, err := os.ReadFile("../../docs/studies.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^((?:[A-Za-z_]+=\S+ )*)bin/h5proxy (sweep .*)$`)
	var found [][]string
	for _, m := range line.FindAllStringSubmatch(string(data), -1) {
		if !strings.Contains(m[2], "[flags]") { // the synopsis
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
