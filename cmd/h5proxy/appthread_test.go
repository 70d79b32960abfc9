package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestRunDescriptionThread: a description's mpi_thread is the MPI thread level its run's
// ranks get (the profiler records the level MPI provided), and a background mode, which
// calls MPI from a thread of its own, raises it to multiple with a warning naming both.
func TestRunDescriptionThread(t *testing.T) {
	dir := t.TempDir()
	src := "ranks: 2\nmpi_thread: single\nfiles: {out: {name: out.h5, datasets: {x: {type: i32, shape: [4 * nranks]}}}}\ntimeline: [{write: out}]\n"
	if err := os.WriteFile(filepath.Join(dir, "d.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := buildProfileLib(t)
	for _, c := range []struct {
		set, want string
		warn      []string
	}{
		{"mode=sync", "single", nil},
		{"mode=async-model", "multiple", []string{"mpi_thread: single raised to multiple: mode async-model calls MPI from threads of its own"}},
	} {
		out := filepath.Join(dir, c.set)
		h5proxyEnv(t, dir, []string{"H5PROXY_PROFILE_LIB=" + lib}, "run", "-quiet", "-dir", out, "d.yaml", c.set, "profile=yes").expect(t, 0, nil, c.warn)
		p, err := profile.Load(filepath.Join(out, "h5proxy-profile.json"))
		if err != nil {
			t.Fatal(err)
		}
		if p.MPIThread != c.want {
			t.Errorf("%s: the ranks ran at MPI thread level %q, want %q", c.set, p.MPIThread, c.want)
		}
	}
}
