package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/darshan"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestProfileDarshan: a program's profile written as a Darshan log (-darshan) reads back
// through show and diffs identical with its JSON profile either way round; the real
// Darshan fixture shows, captures into a description check accepts, and a damaged log is
// refused naming its region and offset.
func TestProfileDarshan(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
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

// TestDarshanRuntimeAgrees runs bench/ref's VPIC write (h5bench's calls, 2 ranks) under
// the real Darshan 3.5 runtime and under `h5proxy profile`: `h5proxy profile diff -file
// vpic.h5` of Darshan's log and h5proxy's profile is identical, every counter of the data
// file's POSIX, MPI-IO, H5F and H5D records; the log h5proxy writes of it (-darshan) reads
// back through the real darshan-parser with the profile's counters. Needs Darshan's
// runtime (make darshan: /opt/h5proxy/darshan, or $DARSHAN), built against the system's
// HDF5 1.10.
func TestDarshanRuntimeAgrees(t *testing.T) {
	prefix := darshanPrefix(t)
	libdarshan, parser := filepath.Join(prefix, "lib", "libdarshan.so"), filepath.Join(prefix, "bin", "darshan-parser")
	dir := t.TempDir()
	src, _ := filepath.Abs("../../bench/ref/vpic_write.c")
	prog := mpiccProgram(t, dir, "vpic_write", src)
	lib := buildProfileLib(t)
	args := []string{"1024", "2", "yes", "yes", "0"}

	argv, env, err := launch.Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.Mkdir(filepath.Join(dir, "h"), 0o755)
	argv = append(argv, "-x", "LD_PRELOAD="+libdarshan, "-x", "DARSHAN_LOGFILE="+filepath.Join(dir, "vpic.darshan"), prog, filepath.Join(dir, "d", "vpic.h5"))
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Dir, cmd.Env = dir, append(userEnv(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vpic_write under Darshan: %v\n%s", err, out)
	}
	p := h5proxyWithin(t, 3*time.Minute, dir, append([]string{"profile", "-np", "2", "-lib", lib, "-noplot", "-o", "h5proxy.json", "-darshan", "h5proxy.darshan", "--",
		prog, filepath.Join(dir, "h", "vpic.h5")}, args...)...)
	if p.code != 0 {
		t.Fatalf("h5proxy profile: %+v", p)
	}
	for _, ab := range [][]string{{"vpic.darshan", "h5proxy.json"}, {"h5proxy.json", "vpic.darshan"}} {
		d := h5proxy(t, dir, "profile", "diff", "-file", "vpic.h5", ab[0], ab[1])
		if d.code != 0 || !strings.Contains(d.stdout, "identical:") {
			t.Errorf("profile diff -file vpic.h5 %s %s: %+v", ab[0], ab[1], d)
		}
	}

	// darshan-parser reads h5proxy's log with the profile's counters
	out, err := exec.Command(parser, filepath.Join(dir, "h5proxy.darshan")).Output()
	if err != nil {
		t.Fatalf("darshan-parser h5proxy.darshan: %v", err)
	}
	prof, err := profile.Load(filepath.Join(dir, "h5proxy.json"))
	if err != nil {
		t.Fatal(err)
	}
	n, h5fID, fileIDs := 0, "", map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 6 || strings.HasPrefix(line, "#") || strings.Contains(f[3], "_F_") {
			continue
		}
		file, name, _ := strings.Cut(f[5], ":") // H5D: FILE:DATASET
		if filepath.Base(file) != "vpic.h5" {
			continue
		}
		module := map[string]string{"MPI-IO": "MPIIO"}[f[0]]
		if module == "" {
			module = f[0]
		}
		if f[3] == "H5D_FILE_REC_ID" { // not a counter: the id of the file's records
			fileIDs[f[4]] = true
			continue
		}
		if module == "H5F" {
			h5fID = f[2]
		}
		rank, _ := strconv.Atoi(f[1])
		r, err := prof.Find(module, file, name, rank)
		if err != nil {
			t.Errorf("darshan-parser's %s %s: %v", f[0], f[5], err)
			continue
		}
		if v, _ := strconv.ParseInt(f[4], 10, 64); v != r.Counters[f[3]] && !(v == -1 && !hasCounter(r, f[3])) {
			t.Errorf("darshan-parser h5proxy.darshan: %s %s %s = %d, the profile %d", f[0], f[5], f[3], v, r.Counters[f[3]])
		}
		n++
	}
	if n < 1500 {
		t.Errorf("darshan-parser printed %d counters of vpic.h5, want every counter of its records (over 1500)", n)
	}
	if len(fileIDs) != 1 || !fileIDs[h5fID] {
		t.Errorf("the datasets' H5D_FILE_REC_ID %v, want the H5F record's id %s", fileIDs, h5fID)
	}
}

// hasCounter reports whether r has counter k (a counter Darshan has and the profiler does
// not keep is written as -1, Darshan's "not monitored").
func hasCounter(r profile.Record, k string) bool { _, ok := r.Counters[k]; return ok }
