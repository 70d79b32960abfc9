package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/darshan"
)

// TestProfileDarshan: a program's profile written as a Darshan log (-darshan) reads back
// through show and diffs identical with its JSON profile either way round; the real
// Darshan fixture shows, captures into a description check accepts, and a damaged log is
// refused naming its region and offset.
func TestProfileDarshan(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t, dir)
	a := h5proxy(t, dir, "profile", "-lib", lib, "-noplot", "-o", "a.json", "-darshan", "a.darshan", "--", "sh", "-c", "printf 0123456789 > out.txt")
	if a.code != 0 || !strings.Contains(a.stdout, "a.darshan") {
		t.Fatal(a)
	}
	l, err := darshan.ReadFile(filepath.Join(dir, "a.darshan"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range l.Records {
		if r.Module.Name == "POSIX" && filepath.Base(l.Names[r.ID]) == "out.txt" {
			found = r.Counter("POSIX_WRITES") == 1 && r.Counter("POSIX_BYTES_WRITTEN") == 10
		}
	}
	if !found {
		t.Errorf("a.darshan has no POSIX record of out.txt with 1 write of 10 bytes")
	}
	for _, args := range [][]string{{"a.json", "a.darshan"}, {"a.darshan", "a.json"}} {
		d := h5proxy(t, dir, append([]string{"profile", "diff"}, args...)...)
		if d.code != 0 || !strings.Contains(d.stdout, "identical:") {
			t.Errorf("diff %v: %+v", args, d)
		}
	}
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-darshan", "a.log", "--", "true"); r.code != 2 || !strings.Contains(r.stderr, "-darshan a.log: name the Darshan log NAME.darshan") {
		t.Errorf("-darshan a.log: %+v", r)
	}

	fixture, _ := filepath.Abs("../../internal/darshan/testdata/vpic-dxt.darshan")
	s := h5proxy(t, dir, "profile", "show", fixture)
	for _, want := range []string{"Darshan log 3.41, 2 process(es)", "H5D: 16 record(s)", "Modules not read: [HEATMAP]", "H5D_WRITES                       32"} {
		if s.code != 0 || !strings.Contains(s.stdout, want) {
			t.Errorf("show lacks %q: %+v", want, s)
		}
	}
	c := h5proxy(t, dir, "capture", "-from", fixture, "-o", "app.yaml")
	if c.code != 0 || !strings.Contains(c.stderr, "guess: files.vpic.groups.Timestep_${step}.datasets.x.type: f32") {
		t.Fatalf("capture: %+v", c)
	}
	y, _ := os.ReadFile(filepath.Join(dir, "app.yaml"))
	for _, want := range []string{"Timestep_${step}:", "shape: [1024 * nranks]", "steps: 2", "# POSIX rank 1: 19 writes in [6200, 139320)"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("app.yaml lacks %q:\n%s", want, y)
		}
	}
	if ch := h5proxy(t, dir, "check", "app.yaml"); ch.code != 0 {
		t.Errorf("check app.yaml: %+v", ch)
	}

	b, _ := os.ReadFile(fixture)
	os.WriteFile(filepath.Join(dir, "cut.darshan"), b[:3000], 0o644)
	if r := h5proxy(t, dir, "profile", "show", "cut.darshan"); r.code != 2 || !strings.Contains(r.stderr, "cut.darshan: darshan log: header region at offset 112: the H5D region's offset") {
		t.Errorf("cut log: %+v", r)
	}
}
