package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/samples/apps"
)

// TestRun runs the benchmark at a tiny size, one repetition, on two pairs (one with a read
// phase): every side runs, its report is read and the case's rows are printed.
func TestRun(t *testing.T) {
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "h5proxy"), "../../cmd/h5proxy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var c config
	c.np, c.reps, c.aa, c.bin, c.dir = 2, 1, true, bin, t.TempDir()
	if err := c.resolve("256", "vpic-1d-contig,bd-cats-full"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := run(c, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	out := b.String()
	for _, want := range []string{"vpic-1d-contig: built-in -set DIM_1=256; description particles=256",
		"bd-cats-full: built-in -set DIM_1=256", "  wall ", "  window ", "(no verdict: under 3 repetitions)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(c.dir, "*")); len(left) != 0 {
		t.Errorf("runs left %v behind", left)
	}
}

// TestResolve checks the flags' errors: unknown and unscaled pairs, bad sizes.
func TestResolve(t *testing.T) {
	for _, tc := range []struct{ size, cases, want string }{
		{"4M", "nope", `-cases: "nope" is not a pair that scales`},
		{"4M", "openpmd-8a", `-cases: "openpmd-8a" is not a pair that scales`},
		{"0", "", `-n "0"`},
		{"lots", "", `-n "lots"`},
	} {
		c := config{np: 2, reps: 1}
		if err := c.resolve(tc.size, tc.cases); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-n %s -cases %s: %v, want %q", tc.size, tc.cases, err, tc.want)
		}
	}
	c := config{np: 2, reps: 1}
	if err := c.resolve("1K", ""); err != nil || c.n != 1024 {
		t.Fatalf("defaults: n=%d, %v", c.n, err)
	}
	for _, p := range apps.Pairs {
		scaled := false
		for _, q := range c.cases {
			scaled = scaled || q.Desc == p.Desc
		}
		if scaled != (p.Scale != nil) {
			t.Errorf("%s: in the default cases %v, scales %v", p.Name(), scaled, p.Scale != nil)
		}
	}
}

// TestBand checks the A/A band: per-repetition ratios, widened to include 1.
func TestBand(t *testing.T) {
	lo, hi := band([]float64{1, 2, 4}, []float64{1.1, 1.9, 4.2})
	if lo != 0.95 || hi != 1.1 {
		t.Errorf("band [%v, %v], want [0.95, 1.1]", lo, hi)
	}
	if lo, hi := band([]float64{2}, []float64{2.5}); lo != 1 || hi != 1.25 {
		t.Errorf("band [%v, %v], want [1, 1.25]", lo, hi)
	}
}
