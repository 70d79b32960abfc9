package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBigEndian runs testdata/byteorder.yaml on two ranks: the restart read verifies every
// value (memory native, the file big-endian); h5dump -pH shows the big-endian types on the
// datasets, a compound's member, an array's element, an enumeration's base and an
// attribute, and the native one where no be is written. `h5proxy derive` of the file
// names the same types (f32be, ...), and the file its description writes is equal to the
// input under h5dump -pH. A be after a string, a big-endian memory type and an
// enumeration's fill value no name has are errors naming the key and value.
func TestBigEndian(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed (hdf5-tools)")
	}
	src, err := os.ReadFile("testdata/byteorder.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "be.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "run", "-np", "2", "be.yaml").expect(t, 0, []string{"Verification: OK"}, nil)
	dump := maskedDump(t, filepath.Join(dir, "be.h5"))
	for _, want := range []string{
		"DATASET \"lat\" {\n      DATATYPE  H5T_IEEE_F32BE",
		"DATASET \"count\" {\n      DATATYPE  H5T_STD_U64BE",
		"H5T_IEEE_F64BE \"x\";\n         H5T_STD_I32LE \"n\";",
		"H5T_ENUM {\n         H5T_STD_I16BE;",
		"H5T_ARRAY { [2] H5T_IEEE_F64BE }",
		"ATTRIBUTE \"scale\" {\n      DATATYPE  H5T_IEEE_F32BE",
		"DATASET \"plain\" {\n      DATATYPE  H5T_IEEE_F32LE",
		"VALUE  7\n", // count's fill value, converted from the native 7
	} {
		if !strings.Contains(dump, want) {
			t.Errorf("h5dump -pH be.h5 lacks\n%s\n--- dump:\n%s", want, dump)
		}
	}
	out, err := exec.Command("h5dump", "-a", "scale", filepath.Join(dir, "be.h5")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "(0): 1.5, -2.25") {
		t.Errorf("h5dump -a scale: want the values 1.5, -2.25: %v\n%s", err, out)
	}

	d := filepath.Join(dir, "derived")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "derive", "be.h5", "-np", "2", "-o", filepath.Join(d, "derived.yaml")).expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(d, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"lat: {type: f32be,", "count: {type: u64be,", "x: f64be", "base: i16be", "array: f64be", "scale: {type: f32be, shape: [2], value: [1.5, -2.25]}", "plain: {type: f32,"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("derived description lacks %q:\n%s", w, text)
		}
	}
	h5proxy(t, d, "run", "-np", "2", "-quiet", "derived.yaml").expect(t, 0, nil, nil)
	if got := maskedDump(t, filepath.Join(d, "be.h5")); got != dump {
		t.Errorf("be.h5 written from the derived description differs under h5dump -pH:\n%s", lineDiff(dump, got))
	}

	for _, c := range []struct{ edit, want string }{
		{"plain: {type: str8be,", `key files.out.datasets.plain.type value "str8be": be (big-endian) after str(8): only integer and float types have a byte order`},
		{"plain: {type: f32, memory: {type: f64be},", `key files.out.datasets.plain.memory.type value "f64be": a memory type is native (little-endian)`},
		{"fill: 2}", `key files.out.datasets.levels.fill value "2": not a name or value of the enumeration`},
	} {
		from := "plain: {type: f32,"
		if strings.HasPrefix(c.edit, "fill") {
			from = "fill: HIGH}"
		}
		bad := strings.Replace(string(src), from, c.edit, 1)
		if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		h5proxy(t, dir, "check", "bad.yaml").expect(t, 1, nil, []string{"bad.yaml:", c.want})
	}
}
