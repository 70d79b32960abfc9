package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/samples/apps"
)

// TestOpenPMD8aPlan: the openpmd-8a sample (its file's handles key: hold: call, attributes:
// reopen, open_parents) plans the built-in openpmd pattern's operations on each rank of 1,
// 2 and 4: every create, every open (H5Gopen2 of the parent group around each create,
// H5Dopen2 for each write, H5Oopen for each attribute) and close, each attribute and
// write, collective or not, compared sorted with the buffers' names aside. (The order
// differs: the description creates its groups before its datasets and writes a dataset's
// attributes before its data; openPMD-api follows its flush order.)
func TestOpenPMD8aPlan(t *testing.T) {
	dir := t.TempDir()
	src, err := apps.Source("openpmd-8a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openpmd-8a.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	ops := func(r result) []string { return sortedPlanOps(t, r) }
	const file = "8a_parallel_3Db_0000001.h5"
	for _, np := range []int{1, 2, 4} {
		for rank := range np {
			flags := []string{"plan", "-rank", fmt.Sprint(rank), "-size", fmt.Sprint(np)}
			want := ops(h5proxy(t, dir, append(flags, "openpmd", "file="+filepath.Join(dir, file), "dim=3", "balanced=true", "ratio=1", "steps=1", "minBlock=4 8 8", "grid=4 4 4")...))
			got := ops(h5proxy(t, dir, append(flags, "openpmd-8a.yaml", "file="+filepath.Join(dir, file))...))
			if n := strings.Count(strings.Join(want, "\n"), "[H5Oopen]"); n < 100 {
				t.Fatalf("rank %d of %d: the built-in plans %d H5Oopen and H5Oclose, want one each per attribute", rank, np, n)
			}
			if !slices.Equal(got, want) {
				t.Errorf("rank %d of %d: the description's plan differs from the built-in's:\n%.4000s", rank, np, lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
			}
		}
	}
}

// bufferKey matches a write's buffer name in h5proxy plan's listing (a description's
// memory struct's is "struct STRUCT GROUP").
var bufferKey = regexp.MustCompile(` buffer=(struct \S+ /\S*|\S+)`)

// sortedPlanOps is planOps sorted: the comparisons of built-ins and descriptions whose
// call sequences differ in order only.
func sortedPlanOps(t *testing.T, r result) []string {
	t.Helper()
	lines := planOps(t, r)
	slices.Sort(lines)
	return lines
}

// planOps returns the operations h5proxy plan printed, in order, its first line (the
// header) aside, with the buffers' names aside: the built-ins and descriptions name them
// differently.
func planOps(t *testing.T, r result) []string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(strings.TrimSpace(bufferKey.ReplaceAllString(r.stdout, "")), "\n")
	return lines[1:] // # PATTERN write plan of ...
}
