package corpus

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"os/exec"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// foldDumps is how many dumps h5md_lammps writes for TestFold100k: 12 traced HDF5 calls
// each (position's step, time and value, then the three linked elements' values: an
// H5Dset_extent and an H5Dwrite per row), so at least 10^5 calls with the file's creation.
const foldDumps = 8400

// TestFold100k folds a trace of more than 10^5 HDF5 calls (h5md_lammps, 1 rank, 8400
// dumps) into a description: `h5proxy capture -from` must take under 5 s of CPU time
// (user + system of the capture process: this shared machine's load stretches wall time,
// not CPU time; the wall time is logged).
func TestFold100k(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and folds a 10^5-call trace: not in -short")
	}
	dir := t.TempDir()
	exe := mpicc(t, dir, "h5md_lammps", pkgFlags("--cflags", "--libs", "hdf5-openmpi")...)
	trace := filepath.Join(dir, "trace.json")
	r := run(dir, nil, 5*time.Minute, filepath.Join(bin, "h5proxy"), "profile", "-lib", filepath.Join(bin, "libh5proxy-profile.so"),
		"-np", "1", "-trace", "-noplot", "-o", trace, "--", exe, "8400")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	p, err := profile.Load(trace)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range p.Events {
		if strings.HasPrefix(e.Call, "H5") {
			calls++
		}
	}
	if calls < 100000 || p.DroppedEvents != 0 {
		t.Fatalf("the trace holds %d HDF5 calls (%d dropped): want at least 10^5, none dropped", calls, p.DroppedEvents)
	}
	cmd := exec.Command(filepath.Join(bin, "h5proxy"), "capture", "-from", trace, "-o", filepath.Join(dir, "app.yaml"))
	cmd.Dir = dir
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(begin)
	if err != nil {
		t.Fatalf("capture: %v\n%s", err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Logf("%d HDF5 calls (%d events) folded in %.2f s of CPU, %.2f s wall", calls, len(p.Events), cpu.Seconds(), wall.Seconds())
	if cpu > 5*time.Second {
		t.Errorf("capture of %d calls took %.2f s of CPU: want under 5 s", calls, cpu.Seconds())
	}
}
