package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestExtendAlongAnyUnlimitedDimension: a series grows along the dimension extend names
// (here 1, the fastest): each write extends that dimension by one slab and selects the
// new slab's part of the rank; the restart read reads each slab back at its place.
func TestExtendAlongAnyUnlimitedDimension(t *testing.T) {
	src := strings.Replace(base, "x: {type: f64, shape: [n * nranks]}", "x: {type: f64, shape: [4, n * nranks], extend: 1, decompose: {grid: [1, 0]}}", 1) +
		"  - read: out\n    at: restart\n"
	p := buildSrc(t, src)
	env := patterns.Env{Rank: 1, Size: 2, Path: "/o/run.h5"}
	pls := all(t, p, patterns.PhaseWrite, env)
	var creates, extends []*plan.DatasetSpec
	var writes []plan.Hyperslab
	for _, pl := range pls {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateDataset:
				creates = append(creates, op.Dataset)
			case plan.ExtendDataset:
				extends = append(extends, op.Dataset)
			case plan.Write:
				writes = append(writes, op.Transfer.Selection.Blocks...)
			}
		}
	}
	if len(creates) != 1 || !slices.Equal(creates[0].Shape, []uint64{4, 24}) || !slices.Equal(creates[0].MaxShape, []uint64{4, plan.MaxUnlimited}) ||
		!slices.Equal(creates[0].Chunk, []uint64{4, 24}) {
		t.Fatalf("creates %+v", creates)
	}
	if len(extends) != 1 || !slices.Equal(extends[0].Shape, []uint64{4, 48}) {
		t.Fatalf("extends %+v", extends)
	}
	// Rank 1 of 2 writes columns 12..23 of each slab: 12 at step 0, 36 at step 1.
	if len(writes) != 2 || !slices.Equal(writes[0].Start, []uint64{0, 12}) || !slices.Equal(writes[1].Start, []uint64{0, 36}) {
		t.Fatalf("write selections %+v", writes)
	}
	var reads []string
	for _, pl := range all(t, p, patterns.PhaseRead, env) {
		for _, op := range pl.Ops {
			if op.Kind == plan.Read {
				reads = append(reads, fmtRead(op))
			}
		}
	}
	// Each slab is read in the extent it was written in (its elements' seeded values
	// follow their linear index there).
	if got := strings.Join(reads, " "); got != "step0:[0 12]:of[4 24] step1:[0 36]:of[4 48]" {
		t.Fatalf("reads %s", got)
	}
}

func fmtRead(op plan.Op) string {
	return fmt.Sprintf("step%d:%v:of%v", op.Step, op.Transfer.Selection.Blocks[0].Start, op.Transfer.FileShape)
}

// buildSrc parses a description given as text and builds its pattern (as load does).
func buildSrc(t *testing.T, src string) *Pattern {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return load(t, rel)
}

// wantErr checks that err holds every want (what names the case).
func wantErr(t *testing.T, what string, err error, wants []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q lacks %q", what, err, w)
		}
	}
}

// TestExtendErrors: extension along a fixed dimension names the dimension and its
// maximum, and the unlimited ones; an index outside the shape names the allowed range.
func TestExtendErrors(t *testing.T) {
	cases := []struct {
		new  string
		want []string
	}{
		{"x: {type: f64, shape: [4, n * nranks], max_shape: [unlimited, n * nranks], extend: 1}",
			[]string{"d.yaml:7:90: key files.out.datasets.x.extend", `value "1"`, "dimension 1 of x is fixed (max_shape[1] = 24)", "allowed: an unlimited dimension of x (0), or max_shape[1]: unlimited"}},
		{"x: {type: f64, shape: [4, n * nranks], max_shape: [4, n * nranks], extend: 0}",
			[]string{"d.yaml:7:82: key files.out.datasets.x.extend", "dimension 0 of x is fixed (max_shape[0] = 4)", "allowed: max_shape[0]: unlimited"}},
		{"x: {type: f64, shape: [4, n * nranks], extend: 2}",
			[]string{"d.yaml:7:54: key files.out.datasets.x.extend", `value "2"`, "x has no dimension 2 (it has 2)", "allowed: a dimension index 0..1"}},
	}
	for _, c := range cases {
		wantErr(t, c.new, planErr(t, strings.Replace(base, "x: {type: f64, shape: [n * nranks]}", c.new, 1), 2), c.want)
	}
}
