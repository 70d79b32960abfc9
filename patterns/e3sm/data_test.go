package e3sm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindMapDir finds the shipped maps from inside the repository, and only a data/e3sm
// that sits beside go.mod: a data/e3sm elsewhere (a folder beside the clone) is not the
// repository's.
func TestFindMapDir(t *testing.T) {
	dir, err := FindMapDir(".")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(dir))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil || filepath.Base(dir) != "e3sm" {
		t.Fatalf("FindMapDir = %s, not data/e3sm beside go.mod: %v", dir, err)
	}
	for _, f := range MapFiles {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 100_000 {
			t.Errorf("shipped map %s: %v (a real 16p map is several hundred KB)", f, err)
		}
	}

	tmp := t.TempDir()
	deep := filepath.Join(tmp, "clone", "sub")
	for _, d := range []string{deep, filepath.Join(tmp, MapDirRel)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := FindMapDir(deep); err == nil {
		t.Errorf("FindMapDir(%s) = %s: a data/e3sm without go.mod beside it is not a repository", deep, d)
	} else if !strings.Contains(err.Error(), "go.mod") || !strings.Contains(err.Error(), deep) {
		t.Errorf("error %q should name go.mod and the start directory", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := FindMapDir(deep); err != nil || d != filepath.Join(tmp, MapDirRel) {
		t.Errorf("FindMapDir(%s) = %s, %v; want %s", deep, d, err, filepath.Join(tmp, MapDirRel))
	}
}

// TestCheckMapFile: a missing or unusable map names the file and where the shipped maps are.
func TestCheckMapFile(t *testing.T) {
	dir, err := FindMapDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMapFile(filepath.Join(dir, MapFiles[0])); err != nil {
		t.Errorf("shipped map rejected: %v", err)
	}
	for path, want := range map[string]string{filepath.Join(t.TempDir(), "map_f_case_16p.h5"): "does not exist", dir: "not a regular file"} {
		err := checkMapFile(path)
		if err == nil {
			t.Errorf("%s accepted", path)
			continue
		}
		for _, w := range []string{path, want, MapDirRel, dir, MapFiles[2], "relative to directory"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", path, err, w)
			}
		}
	}
}
