package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/plan"
)

// TestDimsCreate matches MPI_Dims_create's choices.
func TestDimsCreate(t *testing.T) {
	for _, c := range []struct {
		n          int
		dims, want []int
	}{
		{6, []int{0, 0}, []int{3, 2}}, {8, []int{0, 0, 0}, []int{2, 2, 2}}, {12, []int{0, 0, 0}, []int{3, 2, 2}},
		{7, []int{0, 0}, []int{7, 1}}, {65536, []int{0, 0, 0}, []int{64, 32, 32}}, {12, []int{0, 3}, []int{4, 3}},
		{16, []int{0, 1, 0}, []int{4, 1, 4}},
	} {
		got, err := DimsCreate(c.n, c.dims)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", c.n, c.dims, got, err, c.want)
		}
	}
	if _, err := DimsCreate(12, []int{5, 0}); err == nil {
		t.Error("a grid entry that does not divide: no error")
	}
}

// elements returns every rank's elements of a dataset (flattened), each rank's selection
// valid and its memory the selection's size.
func elements(t *testing.T, src string, size int) map[int][]uint64 {
	t.Helper()
	d, err := desc.Parse(filepath.Join(t.TempDir(), "d.yaml"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]uint64{}
	for r := range size {
		for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: r, Size: size, Path: "/o/r.h5"}) {
			for _, op := range pl.Ops {
				if op.Kind == plan.Write && op.Path == "/x" {
					for _, run := range op.Transfer.Selection.Runs(op.Transfer.FileShape) {
						for g := run.Start; g < run.Start+run.Len; g++ {
							out[r] = append(out[r], g)
						}
					}
				}
			}
		}
	}
	return out
}

const oneDataset = "params: {n: 10}\nfiles: {o: {name: o.h5, datasets: {x: DS}}}\ntimeline: [{write: o}]\n"

// TestDecompositions: cyclic, block-cyclic, uneven counts (expression, distribution,
// file), rank0 and replicated give each rank the elements they say.
func TestDecompositions(t *testing.T) {
	counts := filepath.Join(t.TempDir(), "counts.txt")
	if err := os.WriteFile(counts, []byte("3 0\n4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ds   string
		size int
		want map[int][]uint64
	}{
		{"{type: i32, shape: [7], decompose: {kind: cyclic}}", 3, map[int][]uint64{0: {0, 3, 6}, 1: {1, 4}, 2: {2, 5}}},
		{"{type: i32, shape: [10], decompose: {kind: cyclic, block: 3}}", 2, map[int][]uint64{0: {0, 1, 2, 6, 7, 8}, 1: {3, 4, 5, 9}}},
		{"{type: i32, shape: [5, 2], decompose: {kind: cyclic, block: 2}}", 2, map[int][]uint64{0: {0, 1, 2, 3, 8, 9}, 1: {4, 5, 6, 7}}},
		{"{type: i32, shape: [auto], decompose: {kind: uneven, count: 1 + rank}}", 3, map[int][]uint64{0: {0}, 1: {1, 2}, 2: {3, 4, 5}}},
		{"{type: i32, shape: [auto, 2], decompose: {kind: uneven, file: " + counts + "}}", 3, map[int][]uint64{0: {0, 1, 2, 3, 4, 5}, 2: {6, 7, 8, 9, 10, 11, 12, 13}}},
		{"{type: i32, shape: [4], decompose: rank0}", 2, map[int][]uint64{0: {0, 1, 2, 3}}},
		{"{type: i32, shape: [2], decompose: replicated}", 2, map[int][]uint64{0: {0, 1}, 1: {0, 1}}},
		{"{type: i32, shape: [4, 6], decompose: {grid: [2, 0]}}", 4, map[int][]uint64{0: {0, 1, 2, 6, 7, 8}, 1: {3, 4, 5, 9, 10, 11}, 2: {12, 13, 14, 18, 19, 20}, 3: {15, 16, 17, 21, 22, 23}}},
	}
	for _, c := range cases {
		got := elements(t, strings.Replace(oneDataset, "DS", c.ds, 1), c.size)
		for r := range c.size {
			if !slices.Equal(got[r], c.want[r]) {
				t.Errorf("%s on %d ranks: rank %d has %v, want %v", c.ds, c.size, r, got[r], c.want[r])
			}
		}
	}
	// Seeded distributions: the same seed draws the same counts, every rank's part
	// starts where the previous ends, the parts tile the dataset.
	for _, dist := range []string{"uniform, min: 5, max: 9", "normal, mean: 20, stddev: 4", "lognormal, mean: 20, stddev: 0.5"} {
		src := strings.Replace(oneDataset, "DS", "{type: f32, shape: [auto], decompose: {kind: uneven, seed: 3, distribution: "+dist+"}}", 1)
		a, b := elements(t, src, 5), elements(t, src, 5)
		var next uint64
		for r := range 5 {
			if !slices.Equal(a[r], b[r]) {
				t.Errorf("%s: rank %d draws differ", dist, r)
			}
			if len(a[r]) > 0 && a[r][0] != next {
				t.Errorf("%s: rank %d starts at %d, want %d", dist, r, a[r][0], next)
			}
			next += uint64(len(a[r]))
		}
		if strings.HasPrefix(dist, "uniform") && (next < 25 || next > 45) {
			t.Errorf("uniform 5..9 over 5 ranks: %d elements", next)
		}
	}
}

// TestMapDecomposition: a map's requests become each rank's union of one-row blocks
// (more map processes than ranks: E3SM-IO's assignment), checked for elements written twice.
func TestMapDecomposition(t *testing.T) {
	m, mapFile := registerTestMap(t)
	src := strings.Replace(oneDataset, "DS", "{type: f64, shape: [2, 6], decompose: {kind: map, file: "+mapFile+", decomp: 1}}", 1)
	got := elements(t, src, 2)
	// Ranks 0 and 1 hold map processes 0-1 and 2-3.
	want := map[int][]uint64{0: {0, 1, 2, 3, 9, 10}, 1: {4, 5, 6, 7, 8, 11}}
	for r := range 2 {
		if !slices.Equal(got[r], want[r]) {
			t.Errorf("rank %d has %v, want %v", r, got[r], want[r])
		}
	}
	m.Decomps[0].Offsets[4] = 10                                              // process 2 now writes element 10, which process 0 writes too
	e3sm.RegisterMapReader(func(string) (*e3sm.Map, error) { return m, nil }) // (drops the cached map)
	_, err := FromDescription(mustParse(t, src))
	if err == nil {
		p, _ := FromDescription(mustParse(t, src))
		_, err = p.Begin(patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 2, Path: "/o/r.h5"})
	}
	if err == nil || !strings.Contains(err.Error(), "element [1 4] is written by rank 0 and rank 1") {
		t.Errorf("overlapping map: %v", err)
	}
}

// registerTestMap installs a map reader that gives a 4-process map of one [2, 6]
// decomposition (its requests per process: 0..1 and 9..10; 2..3; 4..5 and 11; 6..8) for
// the empty file it returns, until the test ends.
func registerTestMap(t *testing.T) (*e3sm.Map, string) {
	t.Helper()
	m := &e3sm.Map{Source: "test map", NProcs: 4, Decomps: []e3sm.Decomp{{
		Dims: []uint64{2, 6}, Starts: []int{0, 2, 3, 5, 6}, Used: []int{2, 1, 2, 1}, Fill: []int{2, 1, 2, 1},
		Offsets: []int64{0, 9, 2, 4, 11, 6}, Lengths: []int64{2, 2, 2, 2, 1, 3}, FullyCovered: true,
	}}}
	e3sm.RegisterMapReader(func(string) (*e3sm.Map, error) { return m, nil })
	t.Cleanup(func() { e3sm.RegisterMapReader(nil) })
	mapFile := filepath.Join(t.TempDir(), "m.h5") // the reader above gives the map; LoadMap checks the file is there
	if err := os.WriteFile(mapFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return m, mapFile
}

func mustParse(t *testing.T, src string) *desc.Description {
	t.Helper()
	d, err := desc.Parse("d.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
