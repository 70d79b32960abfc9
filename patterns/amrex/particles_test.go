package amrex

import (
	"reflect"
	"testing"
)

// TestParticleCountsOneLevel: on one level every grid gets nppc particles per cell.
func TestParticleCountsOneLevel(t *testing.T) {
	levels := NestedLevels(20, 8) // uneven boxes: 8, 8 and 4 cells per side
	counts := ParticleCounts(levels, 2*20*20*20)
	var total uint64
	for g, b := range levels[0].Boxes {
		if counts[0][g] != 2*b.NumPts() {
			t.Errorf("box %d %v: %d particles, want %d", g, b, counts[0][g], 2*b.NumPts())
		}
		total += counts[0][g]
	}
	if total != 16000 {
		t.Errorf("total %d", total)
	}
	if c := ParticleCounts(levels, 0); c[0][0] != 0 {
		t.Errorf("nppc=0 gives %v", c[0][:3])
	}
}

// TestParticleCountsTwoLevels: particles belong to the finest level covering them. The
// fine boxes cover 2*8^3 coarse cells' volume: 256 particles each at nppc=1, the two
// coarse boxes keep 2048-256 each.
func TestParticleCountsTwoLevels(t *testing.T) {
	var levels []Level
	for l, text := range twoLevels {
		dom, boxes, err := ParseBoxList(text)
		if err != nil {
			t.Fatal(err)
		}
		levels = append(levels, Level{Domain: dom, Boxes: boxes, Ratio: 2 - l})
	}
	got := ParticleCounts(levels, 4096)
	want := [][]uint64{{1792, 1792}, {256, 256}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}

// TestParticleCountsRemainder: shares that do not divide evenly are rounded by largest
// remainder, earlier boxes first on ties, so the total is exact.
func TestParticleCountsRemainder(t *testing.T) {
	levels := []Level{{Domain: box(0, 0, 0, 2, 0, 0), Boxes: []Box{box(0, 0, 0, 0, 0, 0), box(1, 0, 0, 1, 0, 0), box(2, 0, 0, 2, 0, 0)}, Ratio: 1}}
	if got := ParticleCounts(levels, 10); !reflect.DeepEqual(got[0], []uint64{4, 3, 3}) {
		t.Errorf("counts %v, want [4 3 3]", got[0])
	}
}

// TestParticleLayoutExample: the example's particles at 3 ranks, where ranks own 3, 3 and
// 2 grids: file offsets follow rank order, nparticles_grid lists counts rank by rank.
func TestParticleLayoutExample(t *testing.T) {
	levels := NestedLevels(16, 8)
	owner := DistributionMap(levels[0].Boxes, 3, nil) // [2 2 0 0 0 1 1 1]
	counts := ParticleCounts(levels, 4096)[0]
	p := NewParticleLayout(counts, owner, 3)
	if !reflect.DeepEqual(p.Grids, [][]int{{2, 3, 4}, {5, 6, 7}, {0, 1}}) {
		t.Errorf("grids %v", p.Grids)
	}
	wantStart := map[int]uint64{2: 0, 3: 512, 4: 1024, 5: 1536, 6: 2048, 7: 2560, 0: 3072, 1: 3584}
	if !reflect.DeepEqual(p.Start, wantStart) || p.Total != 4096 || p.MaxGrids != 3 {
		t.Errorf("start %v total %d max %d", p.Start, p.Total, p.MaxGrids)
	}
	if !reflect.DeepEqual(p.GridOffset, []int{0, 3, 6}) || len(p.NParticlesGrid) != 8 || p.NParticlesGrid[7] != 512 {
		t.Errorf("grid offsets %v nparticles_grid %v", p.GridOffset, p.NParticlesGrid)
	}
}

// TestRestartRanges: AMReX's restart takes nparticles_grid (in file order) by grid index.
func TestRestartRanges(t *testing.T) {
	p := NewParticleLayout([]uint64{1, 2, 3, 4}, []int{1, 1, 0, 0}, 2)
	if !reflect.DeepEqual(p.NParticlesGrid, []int32{3, 4, 1, 2}) {
		t.Fatalf("nparticles_grid %v", p.NParticlesGrid)
	}
	start, count := p.RestartRanges(4)
	if !reflect.DeepEqual(start, u(0, 3, 7, 8)) || !reflect.DeepEqual(count, u(3, 4, 1, 2)) {
		t.Errorf("start %v count %v", start, count)
	}
	// Empty grids are not in nparticles_grid: the restart's trailing grids read nothing.
	p = NewParticleLayout([]uint64{5, 0, 7}, []int{0, 0, 0}, 1)
	start, count = p.RestartRanges(3)
	if !reflect.DeepEqual(count, u(5, 7, 0)) || !reflect.DeepEqual(start, u(0, 5, 12)) || p.Total != 12 {
		t.Errorf("start %v count %v total %d", start, count, p.Total)
	}
}

func TestMaxNextID(t *testing.T) {
	for _, c := range []struct {
		n     uint64
		ranks int
		want  int64
	}{{4096, 2, 2049}, {10, 3, 5}, {524288, 4, 131073}, {0, 2, 1}} {
		if got := MaxNextID(c.n, c.ranks); got != c.want {
			t.Errorf("MaxNextID(%d, %d) = %d, want %d", c.n, c.ranks, got, c.want)
		}
	}
}
