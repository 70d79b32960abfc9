package proxy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/plan"
)

// scalesDescription is a netCDF-4 history file described: time a coordinate variable
// (a scale named time, one record per step), ncol a dimension without a variable (netCDF's
// name for those; created, never written: written: false), rho(time, ncol) a record variable with both attached; the file's root
// group tracks and indexes its links' and attributes' creation order (as netCDF-4's
// groups do), rho its attributes', group g its links' alone.
const scalesDescription = `
name: scales
params: {n: 4}
steps: 2
files:
  h:
    name: h.nc
    creation_order: indexed
    datasets:
      time: {type: f64, shape: [1], extend: 0, decompose: rank0, scale: time}
      ncol: {type: f32, shape: [n * nranks], scale: "This is a netCDF dimension but not a netCDF variable.         8", written: false}
      rho: {type: f64, shape: [1, n * nranks], extend: 0, decompose: {grid: [1, 0]}, dims: [time, ncol], creation_order: indexed}
    groups:
      g:
        creation_order: {links: tracked}
        attributes: {k: 1}
timeline:
  - write: h
  - read: h
    at: restart
`

// TestAppDimensionScales runs scalesDescription at 2 ranks on the native layout (sync):
// the restart read verifies every value; the parent reads the file with h5dump -H (CLASS,
// NAME, DIMENSION_LIST and REFERENCE_LIST as H5DS writes them) and with ncdump -h, which
// must see the dimensions time (unlimited, 2 records) and ncol and the variables over
// them, as it sees a file netCDF-4 wrote; the file's creation lists record the creation
// order asked for.
func TestAppDimensionScales(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "scales.yaml")
	if !mpitest.Child() { // written before the ranks start
		if err := os.WriteFile(desc, []byte(scalesDescription), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if mpitest.Run(t, 2) {
		file := filepath.Join(dir, "out", "h.nc")
		if _, err := exec.LookPath("h5dump"); err != nil {
			t.Fatalf("h5dump (Debian's hdf5-tools, installed by scripts/deps.sh) is needed to read the file back: %v", err)
		}
		out, err := exec.Command("h5dump", "-H", file).CombinedOutput()
		if err != nil {
			t.Fatalf("h5dump -H: %v\n%s", err, out)
		}
		// H5DS's record member: int in 1.10, unsigned int in 1.14.
		dimMember := "H5T_STD_I32LE"
		if strings.HasPrefix(h5.Version(), "1.14") {
			dimMember = "H5T_STD_U32LE"
		}
		// Whitespace aside (h5dump 1.14 writes "} }" where 1.10 writes "}}").
		squash := func(s string) string { return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "} }", "}}") }
		dump := squash(string(out))
		for _, want := range []string{
			`ATTRIBUTE "CLASS" { DATATYPE H5T_STRING { STRSIZE 16; STRPAD H5T_STR_NULLTERM; CSET H5T_CSET_ASCII; CTYPE H5T_C_S1; } DATASPACE SCALAR }`,
			`ATTRIBUTE "NAME" { DATATYPE H5T_STRING { STRSIZE 5; STRPAD H5T_STR_NULLTERM;`,
			`ATTRIBUTE "DIMENSION_LIST" { DATATYPE H5T_VLEN { H5T_REFERENCE { H5T_STD_REF_OBJECT }} DATASPACE SIMPLE { ( 2 ) / ( 2 ) } }`,
			`ATTRIBUTE "REFERENCE_LIST" { DATATYPE H5T_COMPOUND { H5T_REFERENCE { H5T_STD_REF_OBJECT } "dataset"; ` + dimMember + ` "dimension"; } DATASPACE SIMPLE { ( 1 ) / ( 1 ) } }`,
		} {
			if !strings.Contains(dump, squash(want)) {
				t.Errorf("h.nc lacks %s:\n%s", want, out)
			}
		}
		checkCreationOrder(t, file, map[string][2]int{"/": {3, 3}, "/g": {1, 0}, "/rho": {0, 3}, "/ncol": {0, 0}})
		checkFillOnly(t, file, "/ncol", 8)
		if _, err := exec.LookPath("ncdump"); err != nil {
			t.Skipf("ncdump (Debian's netcdf-bin, make deps-corpus) is needed to read the file as netCDF: %v", err)
		}
		out, err = exec.Command("ncdump", "-h", file).CombinedOutput()
		if err != nil {
			t.Fatalf("ncdump -h: %v\n%s", err, out)
		}
		nc := strings.Join(strings.Fields(string(out)), " ")
		for _, want := range []string{"time = UNLIMITED ; // (2 currently)", "ncol = 8 ;", "double time(time) ;", "double rho(time, ncol) ;"} {
			if !strings.Contains(nc, want) {
				t.Errorf("ncdump -h lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(nc, "float ncol(") {
			t.Errorf("ncdump -h shows ncol as a variable (a dimension without one):\n%s", out)
		}
		return
	}
	sub := filepath.Join(dir, "out")
	sharedDir(t, sub)
	rep := runReport(t, patternConfig(t, "app", "description="+desc+";layout=native;mode=sync", filepath.Join(sub, "run.h5")), "scales")
	if len(rep.Phases) != 2 {
		t.Fatalf("phases %+v", rep.Phases)
	}
	if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 {
		t.Errorf("restart read verified %v, mismatches %v", r.Verified, r.Mismatches)
	}
}

// checkFillOnly opens file read-only (serially) and reads f32 dataset path of n elements
// whole: each must be the default fill value 0, as in a dataset never written (a parallel
// file allocates its storage at creation all the same).
func checkFillOnly(t *testing.T, file, path string, n uint64) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	d, err := h5.OpenDataset(f, path)
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseDataset(d)
	shape := []uint64{n}
	buf := make([]byte, 4*n)
	for i := range buf {
		buf[i] = 0xff
	}
	if err := h5.Read(d, &plan.Transfer{MemType: plan.F32, MemShape: shape, Selection: plan.All(shape)}, false, buf); err != nil {
		t.Fatal(err)
	}
	for i, b := range buf {
		if b != 0 {
			t.Fatalf("%s: byte %d is %#x, want the fill value's 0 (written?)", path, i, b)
		}
	}
}

// checkCreationOrder opens file read-only (serially) and compares the creation order
// flags of its objects, by path ("/" the file's root group), with want: links, attributes
// (plan.OrderTracked 1, | plan.OrderIndexed 3).
func checkCreationOrder(t *testing.T, file string, want map[string][2]int) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	for path, w := range want {
		obj := f // the file's: its root group's
		if path != "/" {
			if obj, err = h5.OpenObject(f, path, false); err != nil {
				t.Fatal(err)
			}
			defer h5.CloseObject(obj)
		}
		l, a, err := h5.CreationOrderOf(obj)
		if err != nil || l != w[0] || a != w[1] {
			t.Errorf("%s: creation order of links %d, attributes %d (%v), want %d, %d", path, l, a, err, w[0], w[1])
		}
	}
}
