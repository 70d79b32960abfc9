package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
)

// TestDescriptionParsedOnce: the option table and the pattern of a description, built as
// a session builds them (the table asked for more than once, then the pattern with a
// parameter override), read and parse the file once, however often they are asked for;
// an edited file is parsed again.
func TestDescriptionParsedOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.yaml")
	src := base
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	kit := plantest.For[*Pattern](Factory)
	parses := func() int {
		parsed.mu.Lock()
		defer parsed.mu.Unlock()
		return parsed.parses
	}
	before := parses()
	for range 3 {
		if _, err := Factory.OptionsFor(plantest.KV("description="+path, "n=6")); err != nil {
			t.Fatal(err)
		}
		p := kit.Must(t, "description="+path, "n=6")
		if p.e.steps != 2 || p.C.D.Params[0].Value.Text != "6" {
			t.Fatalf("n=6 not applied: %+v", p.C.D.Params[0].Value)
		}
	}
	if got := parses() - before; got != 1 {
		t.Errorf("%d parses for 3 tables and 3 patterns of one description with one override; want 1", got)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(src, "steps: 2}", "steps: 3}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := kit.Must(t, "description="+path); p.e.steps != 3 || parses()-before != 2 {
		t.Errorf("after an edit: %d steps, %d parses; want 3 and 2", p.e.steps, parses()-before)
	}
}
