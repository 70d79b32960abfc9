package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppNetCDFHeader runs examples/corpus/netcdf_par.c (netCDF-4 in parallel) and its
// description testdata/netcdf_par.yaml (dimension scales, netCDF's attributes, creation
// order) at 2 ranks: `ncdump -h` of the replay's history.nc is the program's, line for
// line, and the replay's restart read verifies every value. It needs netCDF's MPI build
// and tools (libnetcdf-mpi-dev, netcdf-bin: make deps-corpus).
func TestAppNetCDFHeader(t *testing.T) {
	for _, tool := range []string{"mpicc", "ncdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s absent: the test needs libnetcdf-mpi-dev and netcdf-bin (make deps-corpus): %v", tool, err)
		}
	}
	libs, err := exec.Command("pkg-config", "--libs", "netcdf-mpi").Output()
	if err != nil {
		t.Skipf("pkg-config netcdf-mpi: %v (libnetcdf-mpi-dev: make deps-corpus)", err)
	}
	// Debian's netCDF-MPI headers sit apart from the serial build's (as tests/corpus finds them).
	arch, err := exec.Command("gcc", "-print-multiarch").Output()
	if err != nil {
		t.Fatal(err)
	}
	inc := "/usr/lib/" + strings.TrimSpace(string(arch)) + "/netcdf/mpi/include"
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if err := os.MkdirAll(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs("../../examples/corpus/netcdf_par.c")
	exe := filepath.Join(dir, "netcdf_par")
	args := append([]string{"-o", exe, src, "-I" + inc}, strings.Fields(string(libs))...)
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc netcdf_par: %v\n%s", err, out)
	}
	lib := buildProfileLib(t)
	h5proxy(t, prog, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", "p.json", "--", exe).expect(t, 0, nil, nil)
	app, _ := filepath.Abs("testdata/netcdf_par.yaml")
	replay := filepath.Join(dir, "replay")
	h5proxy(t, dir, "run", "-np", "2", "-dir", replay, app).expect(t, 0, []string{"Verification: OK"}, nil)
	header := func(file string) string {
		out, err := exec.Command("ncdump", "-h", file).CombinedOutput()
		if err != nil {
			t.Fatalf("ncdump -h %s: %v\n%s", file, err, out)
		}
		return string(out)
	}
	want, got := header(filepath.Join(prog, "history.nc")), header(filepath.Join(replay, "history.nc"))
	if got != want {
		t.Errorf("ncdump -h of the replay:\n%s\nof the program:\n%s", got, want)
	}
	if !strings.Contains(got, "time = UNLIMITED ; // (3 currently)") {
		t.Errorf("the header lacks the 3 records:\n%s", got)
	}
}
