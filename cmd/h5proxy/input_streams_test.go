package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestInputFilesAsTheirPrograms pins the input-file reads of h5bench's amrex kernel
// (issue 36: POSIX_OPENS 48 / 44, POSIX_FILENOS 4 / 0, POSIX_SEEKS 21 / 18 at 2 ranks under
// Darshan). `h5proxy run` of the h5bench configuration writes h5bench's amrex.ini and reads
// it as the program does; bench/ref/input_streams.cpp, AMReX's own reading code
// (ReadAndBcastFile) through libstdc++, then reads the same file. Under
// libh5proxy-profile.so at 2 ranks, the file's POSIX record is the same in both (every
// counter but times), with AMReX's 4 opens, 4 filenos, 3 seeks and 1 read on rank 0, and the
// file holds h5bench's text. openpmd's input file shares its record with 8a's timers' reads:
// TestOpenPMDReadsAsThe8aProgram pins it.
func TestInputFilesAsTheirPrograms(t *testing.T) {
	cxx, err := exec.LookPath("mpicxx")
	if err != nil {
		t.Skip("mpicxx (Open MPI's C++ wrapper, needs g++) not installed: bench/ref/input_streams.cpp is C++")
	}
	dir := t.TempDir()
	lib := buildProfileLib(t)
	ref := filepath.Join(dir, "input_streams")
	src, _ := filepath.Abs("../../bench/ref/input_streams.cpp")
	if out, err := exec.Command(cxx, "-O2", "-Wall", "-Werror", "-o", ref, src).CombinedOutput(); err != nil {
		t.Fatalf("mpicxx input_streams.cpp: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		kernel, conf, input, text string
		want                      map[string]int64 // summed over ranks
	}{
		{"amrex", `{"benchmark": "amrex", "file": "amrex", "configuration": {"ncells": "16", "max_grid_size": "8", "nlevs": "1",
 "ncomp": "2", "nppc": "1", "nplotfile": "1", "nparticlefile": "1", "sleeptime": "0", "restart_check": "1", "mode": "SYNC"}}`,
			"amrex.ini", "ncells = 16\nmax_grid_size = 8\nnlevs = 1\nncomp = 2\nnppc = 1\nnplotfile = 1\nnparticlefile = 1\nsleeptime = 0\nrestart_check = 1\nmode = SYNC\n",
			map[string]int64{"POSIX_OPENS": 4, "POSIX_FILENOS": 4, "POSIX_SEEKS": 3, "POSIX_READS": 1, "POSIX_SIZE_READ_100_1K": 1}},
	}
	for _, c := range cases {
		cfg := filepath.Join(dir, c.kernel+".json")
		conf := `{"mpi": {"command": "mpirun", "ranks": "2"}, "vol": {}, "file-system": {}, "directory": "` + out + `", "benchmarks": [` + c.conf + `]}`
		if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		a, b := c.kernel+"-h5proxy.json", c.kernel+"-ref.json"
		if r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", a, "--", binary, "run", "-quiet", cfg); r.code != 0 {
			t.Fatalf("%s: %+v", c.kernel, r)
		}
		input := filepath.Join(out, c.input)
		if text, err := os.ReadFile(input); err != nil || string(text) != c.text {
			t.Errorf("%s: %s holds %q (%v), want h5bench's %q", c.kernel, input, text, err, c.text)
		}
		if r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", b, "--", ref, c.kernel, input); r.code != 0 {
			t.Fatalf("%s reference: %+v", c.kernel, r)
		}
		if d := h5proxy(t, dir, "profile", "diff", "-file", c.input, a, b); d.code != 0 || !strings.Contains(d.stdout, "identical:") {
			t.Errorf("%s: profile diff -file %s: %+v", c.kernel, c.input, d)
		}
		for _, name := range []string{a, b} {
			p, err := profile.Load(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, r := range p.Records {
				if r.Module == "POSIX" && r.File == input {
					for k := range c.want {
						got[k] += r.Counters[k]
					}
				}
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s %s: %s %s = %d, want %d", c.kernel, name, c.input, k, got[k], v)
				}
			}
		}
	}
}
