package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// mpiccProgram compiles a C program with mpicc against parallel HDF5 into dir.
func mpiccProgram(t *testing.T, dir, name string, srcs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("mpicc"); err != nil {
		t.Skip("mpicc not installed")
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatalf("pkg-config hdf5-openmpi: %v", err)
	}
	exe := filepath.Join(dir, name)
	args := append(append([]string{"-O2", "-Wall", "-Werror", "-o", exe}, srcs...), strings.Fields(string(flags))...)
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %s: %v\n%s", name, err, out)
	}
	return exe
}

// h5dumpH is a file's `h5dump -pH` without its first line (the file name).
func h5dumpH(t *testing.T, file string) string {
	t.Helper()
	out, err := exec.Command("h5dump", "-pH", file).Output()
	if err != nil {
		t.Fatalf("h5dump -pH %s: %v", file, err)
	}
	_, rest, _ := strings.Cut(string(out), "\n")
	return rest
}

// differing lists the counters diff finds unequal, as "module file[:dataset]: counter",
// and the records one profile alone has; rename rewrites the first profile's file base
// names (OLD=NEW) first.
func differing(t *testing.T, a, b string, rename ...string) []string {
	t.Helper()
	pa, err := profile.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := profile.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	d := profile.CompareRenamed(pa, pb, rename)
	var out []string
	for _, c := range d.Differ {
		rec := c.Module + " " + filepath.Base(c.File)
		if c.Name != "" {
			rec += ":" + c.Name
		}
		out = append(out, rec+": "+c.Counter)
	}
	for _, r := range append(d.OnlyA, d.OnlyB...) {
		out = append(out, "only in one profile: "+r)
	}
	slices.Sort(out)
	return out
}

// roundTrip profiles program (traced) at np ranks writing into dir/ref, captures the
// trace into a description, runs the description at np ranks under the profiler writing
// into dir/proxy, and returns both profiles' paths and the description's.
func roundTrip(t *testing.T, dir, lib string, np string, program ...string) (ref, proxy, desc string) {
	t.Helper()
	ref, proxy, desc = filepath.Join(dir, "ref.json"), filepath.Join(dir, "proxy.json"), filepath.Join(dir, "app.yaml")
	for _, d := range []string{"ref", "proxy"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := h5proxy(t, dir, append([]string{"profile", "-lib", lib, "-np", np, "-trace", "-noplot", "-o", ref, "--"}, program...)...)
	if r.code != 0 {
		t.Fatal(r)
	}
	if r = h5proxy(t, dir, "capture", "-from", ref, "-o", desc); r.code != 0 {
		t.Fatal(r)
	}
	r = h5proxy(t, dir, "profile", "-lib", lib, "-np", np, "-noplot", "-o", proxy, "--", binary, "run", "-quiet", "-dir", filepath.Join(dir, "proxy"), desc)
	if r.code != 0 {
		t.Fatal(r)
	}
	return ref, proxy, desc
}

// TestCaptureRoundTripVPIC captures bench/ref's VPIC write (h5bench's call sequence) at 2
// ranks and runs the description: equal profiles in every counter (counts, sizes,
// collective modes) and the same file under h5dump -pH.
func TestCaptureRoundTripVPIC(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t, dir)
	vpic := mpiccProgram(t, dir, "vpic_write", "../../bench/ref/vpic_write.c")
	ref, proxy, _ := roundTrip(t, dir, lib, "2", vpic, filepath.Join(dir, "ref", "vpic.h5"), "4096", "2", "yes", "yes", "0")
	if d := differing(t, ref, proxy); len(d) != 0 {
		t.Errorf("profiles differ in %d counters: %v", len(d), d)
	}
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "vpic.h5")), h5dumpH(t, filepath.Join(dir, "proxy", "vpic.h5")); a != b {
		t.Errorf("h5dump -pH differs:\n%s\n---\n%s", a, b)
	}
}

// checkPlainDiffs fails on any difference between the profiles: rank 0's independent
// write of each step's mesh included (the description's rank0 decomposition passes
// H5S_ALL, and the other ranks make no call, as the program does).
func checkPlainDiffs(t *testing.T, ref, proxy string, rename ...string) {
	t.Helper()
	if got := differing(t, ref, proxy, rename...); len(got) != 0 {
		t.Errorf("profiles differ in %d counters: %v", len(got), got)
	}
}

// TestCaptureRoundTripPlainC captures examples/c/plain_writer, a program built with plain
// mpicc and HDF5, at 2 ranks: groups per step, block decompositions in 1-D and 2-D, a
// chunked dataset, collective metadata, collective transfers, rank 0's independent write
// and a flush per step. Running the description gives the same profile, every counter,
// and the same file under h5dump -pH; at 3 ranks the
// block decompositions generalize and the description's profile equals the program's
// own at 3 ranks; an uneven decomposition captured at 2 ranks fails at 3 with an error
// naming the key and value.
func TestCaptureRoundTripPlainC(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t, dir)
	prog := mpiccProgram(t, dir, "plain_writer", "../../examples/c/plain_writer.c")
	ref, proxy, desc := roundTrip(t, dir, lib, "2", prog, filepath.Join(dir, "ref", "field.h5"), "2", "64")
	checkPlainDiffs(t, ref, proxy)
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "field.h5")), h5dumpH(t, filepath.Join(dir, "proxy", "field.h5")); a != b {
		t.Errorf("h5dump -pH differs:\n%s\n---\n%s", a, b)
	}

	// M = 3 ranks: the program and the description (captured at 2) again.
	ref3, proxy3 := filepath.Join(dir, "ref3.json"), filepath.Join(dir, "proxy3.json")
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-np", "3", "-noplot", "-o", ref3, "--", prog, filepath.Join(dir, "ref", "field3.h5"), "2", "64"); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proxy3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-np", "3", "-noplot", "-o", proxy3, "--", binary, "run", "-quiet", "-dir", filepath.Join(dir, "proxy3"), desc); r.code != 0 {
		t.Fatal(r)
	}
	checkPlainDiffs(t, ref3, proxy3, "field3=field") // the program wrote field3.h5
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "field3.h5")), h5dumpH(t, filepath.Join(dir, "proxy3", "field.h5")); a != b {
		t.Errorf("3 ranks: h5dump -pH differs:\n%s\n---\n%s", a, b)
	}

	// An uneven decomposition does not generalize: a clear error before any I/O.
	un := filepath.Join(dir, "uneven.yaml")
	if r := h5proxy(t, dir, "capture", "-lib", lib, "-np", "2", "-o", un, "--", prog, filepath.Join(dir, "ref", "uneven.h5"), "1", "8", "uneven"); r.code != 0 {
		t.Fatal(r)
	}
	r := h5proxy(t, dir, "run", "-np", "3", "-quiet", "-dir", filepath.Join(dir, "proxy3"), un)
	if r.code == 0 || !strings.Contains(r.stderr, `.groups.step_${step}.datasets.temperature.decompose.kind value "block"`) ||
		!strings.Contains(r.stderr, "not divisible by the 3 ranks") {
		t.Errorf("uneven description at 3 ranks: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "proxy3", "uneven.h5")); !os.IsNotExist(err) {
		t.Errorf("the failed run left a file: %v", err)
	}
}
