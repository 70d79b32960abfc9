package proxy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
)

// virtualDescription is features.c's serial file: rank 0 alone writes a compact table and
// a virtual view of it, the view's second half from the table's first two elements.
const virtualDescription = `
name: virtual
files:
  s:
    name: s.h5
    writer: rank0
    datasets:
      table: {type: i32, shape: [4], layout: compact, decompose: rank0}
      view: {type: i32, shape: [6], virtual: [{dataset: /table, count: [4]}, {dataset: /table, start: [4], count: [2]}]}
timeline:
  - write: s
  - read: s
    at: restart
`

// TestAppVirtualDataset runs virtualDescription at 2 ranks on the native layout: the
// restart read verifies the table; the parent finds, with h5dump, the table compact, the
// view virtual with its two mappings, and the view's values the table's (its first four
// elements, then the first two again).
func TestAppVirtualDataset(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "virtual.yaml")
	if !mpitest.Child() {
		if err := os.WriteFile(desc, []byte(virtualDescription), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if mpitest.Run(t, 2) {
		file := filepath.Join(dir, "out", "s.h5")
		dump := func(args ...string) string {
			out, err := exec.Command("h5dump", append(args, file)...).CombinedOutput()
			if err != nil {
				t.Fatalf("h5dump %v: %v\n%s", args, err, out)
			}
			return strings.Join(strings.Fields(string(out)), " ")
		}
		if d := dump("-p", "-H", "-d", "/table"); !strings.Contains(d, "STORAGE_LAYOUT { COMPACT") {
			t.Errorf("table is not compact: %s", d)
		}
		view := dump("-p", "-d", "/view")
		for _, want := range []string{"STORAGE_LAYOUT { MAPPING 0 { VIRTUAL", "MAPPING 1 { VIRTUAL { SELECTION REGULAR_HYPERSLAB { START (4)", `SOURCE { FILE "." DATASET "/table"`} {
			if !strings.Contains(view, want) {
				t.Errorf("view lacks %s: %s", want, view)
			}
		}
		values := func(d string) []string {
			_, data, _ := strings.Cut(d, "DATA {")
			data, _, _ = strings.Cut(data, "}")
			var out []string
			for _, f := range strings.Fields(strings.ReplaceAll(data, ",", " ")) {
				if !strings.HasSuffix(f, "):") {
					out = append(out, f)
				}
			}
			return out
		}
		tv, vv := values(dump("-d", "/table")), values(view)
		if len(tv) != 4 || strings.Join(vv, " ") != strings.Join(append(tv, tv[:2]...), " ") {
			t.Errorf("view %v, table %v: want the table's four values, then its first two", vv, tv)
		}
		return
	}
	sub := filepath.Join(dir, "out")
	sharedDir(t, sub)
	rep := runReport(t, patternConfig(t, "app", "description="+desc+";layout=native;mode=sync", filepath.Join(sub, "run.h5")), "virtual")
	if len(rep.Phases) != 2 {
		t.Fatalf("phases %+v", rep.Phases)
	}
	if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 {
		t.Errorf("restart read verified %v, mismatches %v", r.Verified, r.Mismatches)
	}
}
