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
		{"4M", "nope", `-cases: "nope" is not a pair (known: vpic-1d-contig`},
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

// TestFixedSizePair: a pair that does not scale runs when named, at its default sizes:
// the built-in's configuration as is, the description with the pair's Args, both beside
// the pair's data files (E3SM's map).
func TestFixedSizePair(t *testing.T) {
	c := config{np: 2, reps: 1}
	if err := c.resolve("4M", "e3sm-f"); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..") // Data are repository paths
	a, b, err := c.sides(c.cases[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.args, " ") != "builtin.json" || strings.Join(b.args, " ") != "e3sm-f.yaml hist=h1 records=2 map=map_f_case_16p.h5" {
		t.Errorf("args: built-in %v, description %v", a.args, b.args)
	}
	for _, s := range []side{a, b} {
		if len(s.data["map_f_case_16p.h5"]) == 0 || len(s.data) != 1 {
			t.Errorf("%s: data files %d, want the map", s.name, len(s.data))
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
