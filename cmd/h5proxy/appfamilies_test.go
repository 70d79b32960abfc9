package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// familiesDescription is FLASH's three families (examples/corpus/flash_amr.c): checkpoints
// every 10 steps and plot files every 5, each numbered by its own count, a forced plot
// file at the end continuing the plot count; the checkpoints' access list carries FLASH's
// MPI-IO hints, the plot files' none.
const familiesDescription = `
name: families
params: {n: 16}
steps: 13
files:
  chk:
    name: "sod_hdf5_chk_${count:04d}"
    hints: {access_style: write_once, collective_buffering: "true", cb_block_size: "1048576", cb_buffer_size: "4194304"}
    datasets: {dens: {type: f64, shape: [n * nranks]}}
  plt:
    name: "sod_hdf5_plt_cnt_${count:04d}"
    datasets: {dens: {type: f32, shape: [n * nranks]}}
  forced:
    name: "sod_hdf5_forced_plt_cnt_${count:04d}"
    counter: plt
    datasets: {dens: {type: f32, shape: [n * nranks]}}
timeline:
  - {write: chk, every: 10}
  - {write: plt, every: 5}
  - {write: forced, at: end}
  - {read: chk, at: restart}
`

// TestAppFileFamilies runs familiesDescription at 2 ranks under the profiler: it writes
// exactly the program's six files (not one counter folded over them), the restart read
// verifies the last checkpoint, and Darshan's MPIIO_HINTS counts hints on the checkpoints'
// opens only (their own access list's), none on the plot files'.
func TestAppFileFamilies(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "families.yaml")
	if err := os.WriteFile(app, []byte(familiesDescription), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	lib := buildProfileLib(t, dir)
	r := h5proxyEnv(t, dir, []string{"H5PROXY_PROFILE_LIB=" + lib}, "run", "-np", "2", "-dir", out, app, "profile=yes")
	r.expect(t, 0, []string{"Verification: OK"}, nil)
	var files []string
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "sod_") {
			files = append(files, e.Name())
		}
	}
	want := []string{"sod_hdf5_chk_0000", "sod_hdf5_chk_0001", "sod_hdf5_forced_plt_cnt_0003",
		"sod_hdf5_plt_cnt_0000", "sod_hdf5_plt_cnt_0001", "sod_hdf5_plt_cnt_0002"}
	if !slices.Equal(files, want) {
		t.Errorf("files written %v, want %v", files, want)
	}
	p, err := profile.Load(filepath.Join(out, "h5proxy-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		rec, err := p.Find("MPIIO", filepath.Join(out, name), "", -1)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		hints := rec.Counters["MPIIO_HINTS"]
		if strings.Contains(name, "_chk_") != (hints > 0) {
			t.Errorf("%s: MPIIO_HINTS %d (opens %d), want hints on the checkpoints alone", name, hints, rec.Counters["MPIIO_COLL_OPENS"])
		}
	}
}
