package e3smmap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteLoad writes a map of two decompositions over 2 map processes (one with a
// process of no requests, one leaving elements unwritten) and reads it back: the same
// shapes, requests per process and coverage; values outside E3SM-IO's 32-bit integers and
// unequal process counts are refused, naming the file.
func TestWriteLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.map.h5")
	ds := []Decomposition{
		{Dims: []uint64{6}, Offsets: [][]int64{{0, 4}, {2, 5}}, Lengths: [][]int64{{2, 1}, {2, 1}}, FullyCovered: true},
		{Dims: []uint64{2, 4}, Offsets: [][]int64{{1}, {}}, Lengths: [][]int64{{3}, {}}},
	}
	if err := Write(path, ds); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.NProcs != 2 || len(m.Decomps) != 2 || !m.Decomps[0].FullyCovered || m.Decomps[1].FullyCovered {
		t.Fatalf("map: %d processes, %d decompositions, coverage %v %v", m.NProcs, len(m.Decomps), m.Decomps[0].FullyCovered, m.Decomps[1].FullyCovered)
	}
	for k, want := range []string{"[6] [{0 2} {4 1}] [{2 2} {5 1}]", "[2 4] [{1 3}] []"} {
		got := fmt.Sprint(m.Decomps[k].Dims, " ", m.Requests(k, 0, 2, false), " ", m.Requests(k, 1, 2, false))
		if got != want {
			t.Errorf("D%d: %s, want %s", k+1, got, want)
		}
	}
	for _, bad := range [][]Decomposition{
		{{Dims: []uint64{1 << 40}, Offsets: [][]int64{{0}}, Lengths: [][]int64{{1}}}},
		{ds[0], {Dims: []uint64{6}, Offsets: [][]int64{{0}}, Lengths: [][]int64{{6}}}},
	} {
		other := filepath.Join(t.TempDir(), "bad.map.h5")
		if err := Write(other, bad); err == nil || !strings.Contains(err.Error(), other) {
			t.Errorf("map %v: %v, want an error naming %s", bad, err, other)
		}
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Errorf("a refused map left %s: %v", other, err)
		}
	}
}
