package e3sm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MapDirRel is where the repository keeps E3SM-IO's 16-process sample maps, relative to
// its root (the directory holding go.mod).
const MapDirRel = "data/e3sm"

// MapFiles are the shipped maps, one per case (F, G, I).
var MapFiles = []string{"map_f_case_16p.h5", "map_g_case_16p.h5", "map_i_case_16p.h5"}

// FindMapDir walks up from start to the repository root, the first directory holding both
// go.mod and data/e3sm, and returns its data/e3sm: tests and tools run anywhere in a
// checkout find the shipped maps without a path of their own.
func FindMapDir(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, MapDirRel)
		if isFile(filepath.Join(dir, "go.mod")) {
			if st, err := os.Stat(cand); err == nil && st.IsDir() {
				return cand, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("e3sm: no repository root (a directory with go.mod and %s) in %s or above it", MapDirRel, start)
		}
		dir = parent
	}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// checkMapFile turns a map path that cannot be read into an error naming the file and
// where the repository's maps are: the usual mistake is a path relative to the wrong
// directory.
func checkMapFile(path string) error {
	st, err := os.Stat(path)
	if err == nil && st.Mode().IsRegular() {
		return nil
	}
	abs, _ := filepath.Abs(path)
	what := fmt.Sprintf("map file %s (%s)", path, abs)
	switch {
	case err == nil:
		what += " is not a regular file"
	case errors.Is(err, fs.ErrNotExist):
		what += " does not exist"
	default:
		what += fmt.Sprintf(": %v", err)
	}
	where := "the repository ships E3SM-IO's 16-process maps in " + MapDirRel
	if d, ferr := FindMapDir("."); ferr == nil {
		where += " (" + d + ")"
	}
	return fmt.Errorf("%s; %s: %v; in an h5bench configuration map is relative to directory, so the samples use ../%s/%s with directory h5proxy-out and run from the repository root",
		what, where, MapFiles, MapDirRel, MapFiles[0])
}
