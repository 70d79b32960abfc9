package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// layoutOf is a dataset's compound layout as h5ls -v reports it from the file: each
// top-level member as NAME+OFFSET in the type's member order, then =SIZE, e.g.
// "name+4 value+0 =84".
func layoutOf(t *testing.T, file, dataset string) string {
	t.Helper()
	out, err := exec.Command("h5ls", "-v", file+"/"+dataset).CombinedOutput()
	if err != nil {
		t.Fatalf("h5ls -v %s/%s: %v\n%s", file, dataset, err, out)
	}
	_, typ, ok := strings.Cut(string(out), "Type:")
	if !ok {
		t.Fatalf("h5ls -v %s/%s: no Type:\n%s", file, dataset, out)
	}
	var parts []string
	depth := 0
	member := regexp.MustCompile(`^\s*"([^"]*)"\s+\+(\d+)`)
	for _, l := range strings.Split(typ, "\n") {
		if m := member.FindStringSubmatch(l); m != nil && depth == 1 {
			parts = append(parts, m[1]+"+"+m[2])
		}
		depth += strings.Count(l, "{") - strings.Count(l, "}")
		if depth == 0 && strings.Contains(l, "}") {
			if m := regexp.MustCompile(`\} (\d+) bytes`).FindStringSubmatch(l); m != nil {
				parts = append(parts, "="+m[1])
			}
			break
		}
	}
	return strings.Join(parts, " ")
}

// TestTypesMore runs testdata/types-more.yaml on two ranks sharing one file: the restart
// read verifies every value; h5ls -v shows the compounds' members at the offsets written
// (in insertion order) and their sizes with padding; h5dump -pH shows the enumeration
// (base and names), the arrays and the tagged opaque type on datasets and attributes.
func TestTypesMore(t *testing.T) {
	for _, tool := range []string{"h5dump", "h5ls"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed (hdf5-tools)")
		}
	}
	src, err := os.ReadFile("testdata/types-more.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tm.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "run", "-np", "2", "tm.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
	file := filepath.Join(dir, "more.h5")
	for ds, want := range map[string]string{
		"table":     "name+4 value+0 =84",
		"particles": "b+12 a+0 =24",
		"cells":     "id+0 state+4 v+8 =32",
	} {
		if got := layoutOf(t, file, ds); got != want {
			t.Errorf("%s: layout %q, want %q", ds, got, want)
		}
	}
	dump := h5dumpH(t, file)
	enum := "H5T_ENUM {\n         H5T_STD_I8LE;\n         \"SOLID\"            0;\n         \"LIQUID\"           1;\n         \"GAS\"              2;\n      }"
	for _, want := range []string{
		"DATASET \"state\" {\n      DATATYPE  " + enum,
		"DATASET \"velocity\" {\n      DATATYPE  H5T_ARRAY { [3] H5T_IEEE_F64LE }",
		"DATASET \"grid\" {\n      DATATYPE  H5T_ARRAY { [2][2] H5T_STD_I16LE }",
		"DATASET \"blob\" {\n      DATATYPE  H5T_OPAQUE {\n         OPAQUE_TAG \"corpus blob\";\n      }",
		"ATTRIBUTE \"mode\" {\n      DATATYPE  " + enum + "\n      DATASPACE  SCALAR",
		"ATTRIBUTE \"corner\" {\n      DATATYPE  H5T_ARRAY { [2][3] H5T_IEEE_F64LE }",
		"ATTRIBUTE \"tag\" {\n      DATATYPE  H5T_OPAQUE {",
		"ATTRIBUTE \"main\" {\n      DATATYPE  H5T_REFERENCE { H5T_STD_REF_OBJECT }\n      DATASPACE  SCALAR",
		"ATTRIBUTE \"picks\" {\n      DATATYPE  H5T_REFERENCE { H5T_STD_REF_DSETREG }\n      DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }",
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("h5dump -pH more.h5 lacks\n%s\n--- dump:\n%s", want, dump)
		}
	}
	for attr, want := range map[string]string{
		"modes": "(0): SOLID, LIQUID",
		"main":  "DATASET ", // an object reference to /state
		"picks": "/table",
	} {
		out, err := exec.Command("h5dump", "-a", attr, file).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("h5dump -a %s: want %q: %v\n%s", attr, want, err, out)
		}
	}
}
