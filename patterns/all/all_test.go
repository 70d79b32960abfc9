package all

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
)

// TestRegistered: every built-in pattern is registered under its own name, looked up
// case-insensitively, and the unknown-pattern error lists them all.
func TestRegistered(t *testing.T) {
	want := []string{"amrex", "app", "dlio", "e3sm", "exerciser", "h5perf", "ior", "iotest", "nova", "openpmd", "vpic", "vpic-append", "vpic-normal-dist", "vpic-overwrite", "vpic-unlimited"}
	if got := patterns.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, f := range Builtin {
		got, err := patterns.Lookup(strings.ToUpper(f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != f.Name || got.Options != f.Options || got.Summary == "" {
			t.Errorf("%s: registered factory differs from the package's", f.Name)
		}
	}
	_, err := patterns.Lookup("nosuch")
	if err == nil || !strings.Contains(err.Error(), "available: amrex, app, dlio, e3sm, exerciser, h5perf, ior, iotest, nova, openpmd, vpic, vpic-append, vpic-normal-dist, vpic-overwrite, vpic-unlimited") {
		t.Errorf("unknown pattern error: %v", err)
	}
}
