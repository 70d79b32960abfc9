package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestOpenPMDReadsAsThe8aProgram pins the plain-file reads of h5bench's openpmd write
// (issue 36: POSIX_READS 10 / 4 at 2 ranks under Darshan). 8a reads its input file on
// every rank (parseArgs), and its timers read /proc/self/status on rank 0 twice before the
// series is created and once after it is closed; neither Darshan nor libh5proxy-profile.so
// records a /proc file, but each of those streams gets the input file's descriptor, which
// the input stream's fclose left mapped (every fileno adds a reference, a close removes
// only the newest), so their reads count on openpmd.input: 2 reads of the input file per
// rank and 2 per /proc read (its text, then 0 bytes). `h5proxy run` of the h5bench
// configuration is profiled beside bench/ref/openpmd_timers.cpp, which makes 8a's calls in
// 8a's order around a parallel HDF5 file; the openpmd.input records are the same in every
// counter but those that depend on the length of /proc/self/status's text (it names the
// process and its sizes).
func TestOpenPMDReadsAsThe8aProgram(t *testing.T) {
	cxx, err := exec.LookPath("mpicxx")
	if err != nil {
		t.Skip("mpicxx (Open MPI's C++ wrapper, needs g++) not installed: bench/ref/openpmd_timers.cpp is C++")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc/self/status (8a's MemoryProfiler reads it only on Linux): %v", err)
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatalf("pkg-config hdf5-openmpi: %v", err)
	}
	dir := t.TempDir()
	lib := buildProfileLib(t)
	ref := filepath.Join(dir, "openpmd_timers")
	src, _ := filepath.Abs("../../bench/ref/openpmd_timers.cpp")
	args := append([]string{"-O2", "-Wall", "-Werror", "-o", ref, src}, strings.Fields(string(flags))...)
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicxx openpmd_timers.cpp: %v\n%s", err, out)
	}
	out, refOut := filepath.Join(dir, "out"), filepath.Join(dir, "ref")
	if err := os.MkdirAll(refOut, 0o755); err != nil {
		t.Fatal(err)
	}
	// h5bench's openpmd.input: the keys but operation, then the directory
	text := "dim=3\nbalanced=true\nratio=1\nsteps=1\nminBlock=8 16 16\ngrid=4 4 2\nfileLocation=" + out + "\n"
	cfg := filepath.Join(dir, "openpmd.json")
	conf := `{"mpi": {"command": "mpirun", "ranks": "2"}, "vol": {}, "file-system": {}, "directory": "` + out + `", "benchmarks": [
 {"benchmark": "openpmd", "configuration": {"operation": "write", "dim": "3", "balanced": "true", "ratio": "1", "steps": "1", "minBlock": "8 16 16", "grid": "4 4 2"}}]}`
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", "h5proxy.json", "--", binary, "run", "-quiet", cfg); r.code != 0 {
		t.Fatalf("h5proxy run: %+v", r)
	}
	input := filepath.Join(out, "openpmd.input")
	if got, err := os.ReadFile(input); err != nil || string(got) != text {
		t.Fatalf("%s holds %q (%v), want h5bench's %q", input, got, err, text)
	}
	if r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", "ref.json", "--", ref, input, refOut); r.code != 0 {
		t.Fatalf("openpmd_timers: %+v", r)
	}
	// The counters that follow the length of /proc/self/status's text, and the size of the
	// slowest read (a time). The four common access sizes and their counts follow it too:
	// two of rank 0's three texts may have one length (one size, counted twice) or not, and
	// that decides which sizes rank among the four; accessCounts compares the sizes that do
	// not depend on it.
	textLength := map[string]bool{"POSIX_BYTES_READ": true, "POSIX_MAX_BYTE_READ": true, "POSIX_MAX_READ_TIME_SIZE": true}
	for k := 1; k <= 4; k++ {
		textLength[fmt.Sprintf("POSIX_ACCESS%d_ACCESS", k)] = true
		textLength[fmt.Sprintf("POSIX_ACCESS%d_COUNT", k)] = true
	}
	want := map[string]int64{"POSIX_OPENS": 4, "POSIX_FILENOS": 4, "POSIX_READS": 10, "POSIX_SEEKS": 0, "POSIX_WRITES": 0,
		"POSIX_SIZE_READ_0_100": 5, "POSIX_SIZE_READ_100_1K": 0, "POSIX_SIZE_READ_1K_10K": 3} // 5 of 0 bytes; 3 of /proc
	if len(text) < 100 { // the input file's 2 reads
		want["POSIX_SIZE_READ_0_100"] += 2
	} else {
		want["POSIX_SIZE_READ_100_1K"] += 2
	}
	var recs [2]map[string]int64
	for i, name := range []string{"h5proxy.json", "ref.json"} {
		p, err := profile.Load(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range p.Records {
			if r.Module == "POSIX" && r.File == input {
				recs[i] = r.Counters
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%s: %d POSIX records of %s, want 1 (shared by both ranks)", name, n, input)
		}
		for k, v := range want {
			if recs[i][k] != v {
				t.Errorf("%s: %s = %d, want %d", name, k, recs[i][k], v)
			}
		}
		// the input file twice, then three texts of 1 to 10 KiB
		if b := recs[i]["POSIX_BYTES_READ"] - 2*int64(len(text)); b < 3*1024 || b > 3*10240 {
			t.Errorf("%s: POSIX_BYTES_READ = %d: %d bytes besides the input file's two reads, want three /proc/self/status texts",
				name, recs[i]["POSIX_BYTES_READ"], b)
		}
	}
	// Reads of 0 bytes are no access size (as in Darshan). The input file's size counts the
	// same on both sides, and the /proc texts' sizes, however they fall, count the same in all.
	common := [2]map[int64]int64{accessCounts(recs[0]), accessCounts(recs[1])}
	n := int64(len(text))
	if common[0][n] == 0 || common[0][n] != common[1][n] {
		t.Errorf("%s: common accesses %v under h5proxy, %v under 8a's calls: the input file's %d bytes count differently", input, common[0], common[1], n)
	}
	if a, b := sum(common[0]), sum(common[1]); a != b {
		t.Errorf("%s: common accesses %v under h5proxy, %v under 8a's calls: %d counted against %d", input, common[0], common[1], a, b)
	}
	for k, v := range recs[1] {
		if !textLength[k] && recs[0][k] != v {
			t.Errorf("%s: %s = %d under h5proxy, %d under 8a's calls", input, k, recs[0][k], v)
		}
	}
	for k := range recs[0] {
		if _, ok := recs[1][k]; !ok {
			t.Errorf("%s: %s only under h5proxy", input, k)
		}
	}
}

// accessCounts maps each of a POSIX record's four common access sizes to its count.
func accessCounts(c map[string]int64) map[int64]int64 {
	m := make(map[int64]int64)
	for k := 1; k <= 4; k++ {
		if n := c[fmt.Sprintf("POSIX_ACCESS%d_COUNT", k)]; n > 0 {
			m[c[fmt.Sprintf("POSIX_ACCESS%d_ACCESS", k)]] += n
		}
	}
	return m
}

// sum adds a map's values.
func sum(m map[int64]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}
