package e3smmap

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/plan"
)

func mapPath(t *testing.T, name string) string {
	t.Helper()
	dir, err := e3sm.FindMapDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// TestRealMaps reads the three 16-process maps and checks them against layouts.md 4.2
// and the h5dump listings: cases, dims, request totals and per-process extremes.
func TestRealMaps(t *testing.T) {
	cases := []struct {
		file, c string
		dims    string
		total   []int
		min     []int
		max     []int
		covered bool
	}{
		{"map_f_case_16p.h5", "F", "[[866] [866] [72 866]]", []int{47, 866, 62352}, []int{2, 52, 3744}, []int{4, 56, 4032}, true},
		{"map_g_case_16p.h5", "G", "[[285] [879] [285 100] [879 100] [593 100] [285 101]]", []int{125, 770, 285, 879, 593, 285},
			[]int{6, 39, 15, 43, 13, 15}, []int{10, 57, 21, 67, 57, 21}, true},
		{"map_i_case_16p.h5", "I", "[[96 144] [15 96 144] [10 96 144] [9 96 144] [17 96 144]]", []int{1363, 20445, 13630, 12267, 23171},
			[]int{78, 1173, 782, 703, 1329}, []int{95, 1428, 952, 857, 1618}, false},
	}
	for _, c := range cases {
		m, err := Load(mapPath(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := m.Case(); got != c.c || m.NProcs != 16 {
			t.Errorf("%s: case %s, %d processes", c.file, got, m.NProcs)
		}
		var dims []string
		for k := range m.Decomps {
			dims = append(dims, fmt.Sprint(m.Decomps[k].Dims))
			s := m.Stats(k)
			if s.TotalReqs != c.total[k] || s.MinReqs != c.min[k] || s.MaxReqs != c.max[k] {
				t.Errorf("%s D%d: %+v, want total %d, min %d, max %d", c.file, k+1, s, c.total[k], c.min[k], c.max[k])
			}
			if m.Decomps[k].FullyCovered != c.covered {
				t.Errorf("%s D%d: fully covered %v", c.file, k+1, m.Decomps[k].FullyCovered)
			}
		}
		if got := "[" + strings.Join(dims, " ") + "]"; got != c.dims {
			t.Errorf("%s: dims %s, want %s", c.file, got, c.dims)
		}
	}
	// The I map's fill requests cover the ocean: written (land) elements 5663 of 13824.
	m, _ := Load(mapPath(t, "map_i_case_16p.h5"))
	if s := m.Stats(0); s.Elements != 5663 {
		t.Errorf("I D1 land elements %d, want 5663", s.Elements)
	}
	if _, err := Load(mapPath(t, "map_f_case_16p.h5") + ".missing"); err == nil || !strings.Contains(err.Error(), ".missing") {
		t.Errorf("missing map: %v", err)
	}
}

// TestRealMapPlansPerRank plans the F case with the real map at several rank counts and
// checks each rank's selections against E3SM-IO's assignment of map processes.
func TestRealMapPlansPerRank(t *testing.T) {
	path := mapPath(t, "map_f_case_16p.h5")
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e3sm.Options.Parse([]options.KV{{Key: "map", Value: path}, {Key: "f", Value: "0"}, {Key: "order", Value: "map"}}) // one hyperslab per map request
	if err != nil {
		t.Fatal(err)
	}
	pat, err := e3sm.New(v)
	if err != nil {
		t.Fatal(err)
	}
	d3 := &m.Decomps[2]
	for _, size := range []int{1, 3, 4, 16, 20} {
		var covered uint64
		for rank := 0; rank < size; rank++ {
			pl, err := pat.Step(patterns.PhaseWrite, 0, patterns.Env{Rank: rank, Size: size, Path: "/x/f.h5"})
			if err != nil {
				t.Fatal(err)
			}
			start, count := e3sm.Assign(16, rank, size)
			want := 0
			for p := start; p < start+count; p++ {
				want += d3.Used[p]
			}
			for _, op := range pl.Ops {
				if op.Kind != plan.Write || op.Path != "/T" {
					continue
				}
				tr := op.Transfer
				if !op.Collective || len(tr.Selection.Blocks) != want {
					t.Errorf("size %d rank %d: /T collective %v with %d hyperslabs, want %d", size, rank, op.Collective, len(tr.Selection.Blocks), want)
				}
				if want > 0 {
					off := d3.Offsets[d3.Starts[start]]
					h := tr.Selection.Blocks[0]
					if fmt.Sprint(h.Start) != fmt.Sprint([]uint64{0, uint64(off / 866), uint64(off % 866)}) || h.Block[2] != uint64(d3.Lengths[d3.Starts[start]]) {
						t.Errorf("size %d rank %d: first hyperslab %v %v for request offset %d", size, rank, h.Start, h.Block, off)
					}
					if fmt.Sprint(tr.FileShape) != "[1 72 866]" || tr.MemShape[0] != tr.Selection.NPoints(tr.FileShape) {
						t.Errorf("size %d rank %d: file shape %v memory %v", size, rank, tr.FileShape, tr.MemShape)
					}
				} else if !tr.Selection.IsNone() {
					t.Errorf("size %d rank %d has no map process but selects %d blocks", size, rank, len(tr.Selection.Blocks))
				}
				covered += tr.Selection.NPoints(tr.FileShape)
			}
		}
		if covered != 72*866 {
			t.Errorf("size %d: ranks cover %d elements of /T, want %d", size, covered, 72*866)
		}
	}
}

// TestRealMapCases builds every history file of the three real maps: variable counts
// and the dimension sizes taken from the maps.
func TestRealMapCases(t *testing.T) {
	for file, want := range map[string]string{
		"map_f_case_16p.h5": "h0:414 h1:51 ncol=866 lev=72",
		"map_g_case_16p.h5": ":52 nCells=285 nEdges=879",
		"map_i_case_16p.h5": "h0:560 h1:552 lat=96 lon=144",
	} {
		v, _ := e3sm.Options.Parse([]options.KV{{Key: "map", Value: mapPath(t, file)}})
		pat, err := e3sm.New(v)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := pat.(*e3sm.Pattern).Histories(4)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hs {
			got = append(got, fmt.Sprintf("%s:%d", h.Name, len(h.Vars)))
		}
		for _, d := range hs[0].Dims {
			if strings.Contains(want, " "+d.Name+"=") {
				got = append(got, fmt.Sprintf("%s=%d", d.Name, d.Len))
			}
		}
		if g := strings.Join(got, " "); !sameWords(g, want) {
			t.Errorf("%s: %s, want %s", file, g, want)
		}
	}
	// A case contradicting the map is an error naming the key.
	v, _ := e3sm.Options.Parse([]options.KV{{Key: "map", Value: mapPath(t, "map_g_case_16p.h5")}, {Key: "case", Value: "F"}})
	if _, err := e3sm.New(v); err == nil || !strings.Contains(err.Error(), `key "case" value "F"`) {
		t.Errorf("case F with the G map: %v", err)
	}
}

func sameWords(a, b string) bool {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) != len(wb) {
		return false
	}
	set := map[string]int{}
	for _, w := range wa {
		set[w]++
	}
	for _, w := range wb {
		set[w]--
	}
	for _, n := range set {
		if n != 0 {
			return false
		}
	}
	return true
}
