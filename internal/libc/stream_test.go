package libc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStreamReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "amrex.ini")
	text := "ncells = 64\nmax_grid_size = 8\nlast without newline"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadWhole(path)
	if err != nil || string(got) != text {
		t.Errorf("ReadWhole = %q, %v; want %q", got, err, text)
	}
	lines, err := ReadLines(path)
	if want := strings.Split(text, "\n"); err != nil || !slices.Equal(lines, want) {
		t.Errorf("ReadLines = %q, %v; want %q", lines, err, want)
	}
	// larger than a line buffer: several fills
	big := strings.Repeat("key=value\n", 3*LineBuffer/10)
	os.WriteFile(path, []byte(big), 0o644)
	if lines, err := ReadLines(path); err != nil || len(lines) != 3*LineBuffer/10 || lines[0] != "key=value" {
		t.Errorf("ReadLines of %d bytes: %d lines, %v", len(big), len(lines), err)
	}
	missing := filepath.Join(dir, "none")
	if _, err := ReadWhole(missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("ReadWhole of a missing file: %v, want not-exist naming it", err)
	}
	if _, err := ReadLines(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadLines of a missing file: %v", err)
	}
}
