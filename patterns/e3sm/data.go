package e3sm

import (
	"fmt"
	"os"
	"path/filepath"
)

// MapDirRel is where E3SM-IO's 16-process sample maps live relative to the directory
// that holds the repository and shared/ side by side.
const MapDirRel = "shared/data/e3sm"

// FindMapDir walks up from start to the first directory containing shared/data/e3sm and
// returns that path (CI clones the repository with shared/ beside it).
func FindMapDir(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, MapDirRel)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("e3sm: no %s in %s or any directory above it (the repository needs shared/ beside it, as CI clones it)", MapDirRel, start)
		}
		dir = parent
	}
}
