package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVarLenStringsInCompounds runs testdata/vlen-compound.yaml: compounds with
// variable-length string members in files one rank writes alone. On two ranks (a file
// each) the restart read verifies every value and h5dump shows the members as
// H5T_VARIABLE strings (UTF-8 for uvstr) and the attribute's literal values; derive keeps
// them and the derived description writes a file equal under h5dump -pH. In a file the
// two ranks share it is an error naming the alternatives, before any I/O; on one rank the
// shared file is written serially and verifies.
func TestVarLenStringsInCompounds(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	src, err := os.ReadFile("testdata/vlen-compound.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, d := filepath.Join(dir, "written"), filepath.Join(dir, "derived")
	for _, sub := range []string{w, d} {
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, "vc.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, w, "run", "-np", "2", "vc.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
	dump := h5dumpH(t, filepath.Join(w, "part_1.h5"))
	member := "H5T_STRING {\n            STRSIZE H5T_VARIABLE;\n            STRPAD H5T_STR_NULLTERM;\n            CSET H5T_CSET_ASCII;\n            CTYPE H5T_C_S1;\n         } \"name\";"
	nested := "H5T_STRING {\n               STRSIZE H5T_VARIABLE;\n               STRPAD H5T_STR_NULLTERM;\n               CSET H5T_CSET_UTF8;\n               CTYPE H5T_C_S1;\n            } \"label\";"
	if strings.Count(dump, member) != 3 || strings.Count(dump, nested) != 3 {
		t.Errorf("h5dump -pH part_1.h5: want the attribute's and both datasets' name and inner.label members as variable-length strings:\n%s", dump)
	}
	out, err := exec.Command("h5dump", "-a", "meta", filepath.Join(w, "part_0.h5")).Output()
	if err != nil || !strings.Contains(string(out), `"first"`) || !strings.Contains(string(out), "1.5") {
		t.Errorf("h5dump -a meta: %v\n%s", err, out)
	}

	h5proxy(t, w, "derive", "part_0.h5", "-np", "1", "-o", filepath.Join(d, "derived.yaml")).expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(d, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  meta: {id: i32, name: vstr, x: f64, tag: str3, inner: {label: uvstr, v: i16}}",
		"meta: {type: meta, value: {id: 7, name: first, x: 1.5, tag: ab, inner: {label: ü, v: 3}}}",
		"recs:\n        type: meta\n        shape: [n * nranks]\n        chunk: [2]\n        filters: [{deflate: 1}]",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("derived description lacks %q:\n%s", want, text)
		}
	}
	h5proxy(t, d, "run", "-np", "1", "-quiet", "derived.yaml").expect(t, 0, nil, nil)
	if got, want := maskedDump(t, filepath.Join(d, "part_0.h5")), maskedDump(t, filepath.Join(w, "part_0.h5")); got != want {
		t.Errorf("part_0.h5 written from the derived description differs under h5dump -pH:\n%s", lineDiff(want, got))
	}

	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	one := strings.Replace(string(src), "    name: part_${rank}.h5\n    ranks: 1\n", "    name: shared.h5\n", 1)
	if err := os.WriteFile(filepath.Join(shared, "shared.yaml"), []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, shared, "run", "-np", "2", "shared.yaml").expect(t, 1, nil,
		[]string{"shared.yaml:15:20: key files.own.datasets.recs.type", `value "rec"`, "which 2 ranks share through MPI-IO: parallel HDF5 writes no variable-length data",
			"allowed: ranks: 1 (a file per rank: HDF5's serial driver, as for a shared file on one rank), a fixed-length strN (in a compound too)"})
	if files, _ := filepath.Glob(filepath.Join(shared, "*.h5")); len(files) != 0 {
		t.Errorf("files written before the error: %v", files)
	}
	h5proxy(t, shared, "run", "-np", "1", "shared.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
}
