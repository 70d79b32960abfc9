package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// refDataYAML says what testdata/refdata.c writes (docs/apps.md, "References").
const refDataYAML = `name: refdata
files:
  refs:
    name: refs.h5
    writer: rank0
    datasets:
      table: {type: i32, shape: [4], layout: compact, value: [1, 2, 3, 4]}
      regions: {type: regref, shape: [2], value: ["/table[0:2]", "/table[2:4]"]}
      objs: {type: ref, shape: [2], value: [/table, /regions]}
timeline: [{write: refs}]
`

// refData is the references' values under h5dump: each one's target and region, object
// addresses and the file's name masked, and the table's values too when withTable (derive and capture write
// a dataset's values seeded, references' alone as the file holds them).
func refData(t *testing.T, file string, withTable bool) string {
	t.Helper()
	out, err := exec.Command("h5dump", "-d", "/table", "-d", "/regions", "-d", "/objs", file).CombinedOutput()
	if err != nil {
		t.Fatalf("h5dump %s: %v\n%s", file, err, out)
	}
	_, s, _ := strings.Cut(string(out), "\n")
	if !withTable {
		s = regexp.MustCompile(`\(0\): [0-9, ]+`).ReplaceAllString(s, "(0): _")
	}
	s = regexp.MustCompile(`DATASET \d+ `).ReplaceAllString(s, "DATASET _ ")
	// h5dump 1.10 names a target "/table", 1.14 "FILE/table" (wrapping its lines by the
	// name's length): one space between words
	s = strings.ReplaceAll(s, `"`+file+`/`, `"/`)
	return strings.Join(strings.Fields(s), " ")
}

// TestRefDatasets: datasets of references (value: their targets) run at 2 ranks write a
// file equal to testdata/refdata.c's under h5dump -pH, with the same values (each
// reference's target and region); derive of the program's file gives them back as value:,
// and its run writes the same file again; capture of the program (its H5Dwrite of
// references traced and matched with its H5Rcreate calls) does too.
func TestRefDatasets(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed (hdf5-tools)")
	}
	dir := t.TempDir()
	exe := mpiccProgram(t, dir, "refdata", "testdata/refdata.c")
	prog := filepath.Join(dir, "prog")
	for _, d := range []string{"prog", "run", "derived", "captured"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(exe)
	cmd.Dir = prog
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("refdata: %v\n%s", err, out)
	}
	want := maskedDump(t, filepath.Join(prog, "refs.h5"))
	same := func(what, file string, withTable bool) {
		t.Helper()
		if got := maskedDump(t, file); got != want {
			t.Errorf("%s: refs.h5 differs under h5dump -pH:\n%s", what, lineDiff(want, got))
		}
		wantData := refData(t, filepath.Join(prog, "refs.h5"), withTable)
		if got := refData(t, file, withTable); got != wantData {
			t.Errorf("%s: refs.h5's values differ:\n%s", what, lineDiff(wantData, got))
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "refs.yaml"), []byte(refDataYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, filepath.Join(dir, "run"), "run", "-np", "2", "-quiet", "../refs.yaml").expect(t, 0, nil, nil)
	same("the description", filepath.Join(dir, "run", "refs.h5"), true)

	h5proxy(t, dir, "derive", filepath.Join(prog, "refs.h5"), "-np", "2", "-o", "derived.yaml").expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(dir, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"regions: {type: regref, shape: [2], alloc_time: late, value: ['/table[0:2]', '/table[2:4]']}",
		"objs: {type: ref, shape: [2], alloc_time: late, value: [/table, /regions]}", "writer: rank0"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("derived description lacks %q:\n%s", w, text)
		}
	}
	h5proxy(t, filepath.Join(dir, "derived"), "run", "-np", "2", "-quiet", "../derived.yaml").expect(t, 0, nil, nil)
	same("derived", filepath.Join(dir, "derived", "refs.h5"), false)

	lib := buildProfileLib(t)
	h5proxy(t, prog, "capture", "-lib", lib, "-o", "../captured.yaml", "--", exe).expect(t, 0, nil, nil)
	text, err = os.ReadFile(filepath.Join(dir, "captured.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"value: ['/table[0:2]', '/table[2:4]']", "value: [/table, /regions]"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("captured description lacks %q:\n%s", w, text)
		}
	}
	h5proxy(t, filepath.Join(dir, "captured"), "run", "-quiet", "../captured.yaml").expect(t, 0, nil, nil)
	same("captured", filepath.Join(dir, "captured", "refs.h5"), false)
}
