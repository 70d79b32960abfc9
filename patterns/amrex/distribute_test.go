package amrex

import (
	"reflect"
	"testing"
)

// TestMortonOrder: the key interleaves the small end's bits with x lowest, so a higher bit
// of any coordinate outranks every lower bit.
func TestMortonOrder(t *testing.T) {
	order := [][3]int{{0, 0, 0}, {8, 0, 0}, {0, 8, 0}, {8, 8, 0}, {0, 0, 8}, {8, 8, 8}, {16, 0, 0}, {0, 16, 0}, {0, 0, 16}, {16, 16, 16}}
	for i := 1; i < len(order); i++ {
		a, b := makeMortonKey(order[i-1]), makeMortonKey(order[i])
		if !a.less(b) || b.less(a) {
			t.Errorf("key %v should come before %v", order[i-1], order[i])
		}
	}
	if makeMortonKey([3]int{-8, 0, 0}).less(makeMortonKey([3]int{-16, 0, 0})) {
		t.Error("negative coordinates out of order")
	}
}

// TestDistributionExample: layouts.md 2.2 worked example and its rank counts 1..4.
func TestDistributionExample(t *testing.T) {
	boxes := NestedLevels(16, 8)[0].Boxes
	cases := []struct {
		ranks int
		owner []int
	}{
		{1, []int{0, 0, 0, 0, 0, 0, 0, 0}},
		{2, []int{0, 0, 0, 0, 1, 1, 1, 1}},
		{4, []int{0, 0, 1, 1, 2, 2, 3, 3}},
		// R=3: bucket 0 takes boxes 0,1,2 and gives 2 back (1536/1 > 4096/3), bucket 1
		// keeps 2,3,4 (2560/2 <= 1365.3), bucket 2 takes 5,6,7. Heaviest first: bucket 1
		// -> rank 0, bucket 2 -> rank 1, bucket 0 -> rank 2.
		{3, []int{2, 2, 0, 0, 0, 1, 1, 1}},
		// More ranks than boxes: one box each, the rest empty.
		{10, []int{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, c := range cases {
		if got := DistributionMap(boxes, c.ranks, nil); !reflect.DeepEqual(got, c.owner) {
			t.Errorf("R=%d: owners %v, want %v", c.ranks, got, c.owner)
		}
	}
}

// TestLevelLayoutExample: file order, offsets and per-rank hyperslabs of the example.
func TestLevelLayoutExample(t *testing.T) {
	boxes := NestedLevels(16, 8)[0].Boxes
	l := NewLevelLayout(boxes, DistributionMap(boxes, 2, nil), 2, 2)
	if !reflect.DeepEqual(l.Order, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("order %v", l.Order)
	}
	if !reflect.DeepEqual(l.Offsets, u(0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192)) {
		t.Errorf("offsets %v", l.Offsets)
	}
	if !reflect.DeepEqual(l.RankStart, u(0, 4096)) || !reflect.DeepEqual(l.RankCount, u(4096, 4096)) {
		t.Errorf("rank slabs start %v count %v", l.RankStart, l.RankCount)
	}
	// R=3: file order groups by rank: rank 0 (2,3,4), rank 1 (5,6,7), rank 2 (0,1).
	l = NewLevelLayout(boxes, DistributionMap(boxes, 3, nil), 3, 2)
	if !reflect.DeepEqual(l.Order, []int{2, 3, 4, 5, 6, 7, 0, 1}) {
		t.Errorf("R=3 order %v", l.Order)
	}
	if !reflect.DeepEqual(l.RankStart, u(0, 3072, 6144)) || !reflect.DeepEqual(l.RankCount, u(3072, 3072, 2048)) {
		t.Errorf("R=3 slabs start %v count %v", l.RankStart, l.RankCount)
	}
	if l.Offsets[8] != 8192 || l.Offsets[6] != 6144 {
		t.Errorf("R=3 offsets %v", l.Offsets)
	}
}

// TestDistributionSample: h5bench's 64^3/8 grid. At 2 ranks the Morton curve's first half
// is z < 32; at 4 ranks the quarters split z then y.
func TestDistributionSample(t *testing.T) {
	boxes := NestedLevels(64, 8)[0].Boxes
	for _, R := range []int{2, 4} {
		owner := DistributionMap(boxes, R, nil)
		per := make([]int, R)
		for i, b := range boxes {
			want := 0
			if b.Lo[2] >= 32 {
				want = 1
			}
			if R == 4 {
				want = 2 * want
				if b.Lo[1] >= 32 {
					want++
				}
			}
			if owner[i] != want {
				t.Fatalf("R=%d: box %d %v on rank %d, want %d", R, i, b, owner[i], want)
			}
			per[owner[i]]++
		}
		for r, n := range per {
			if n != 512/R {
				t.Errorf("R=%d: rank %d owns %d boxes", R, r, n)
			}
		}
		l := NewLevelLayout(boxes, owner, R, 6)
		if l.Offsets[512] != 64*64*64*6 || l.RankCount[0] != 64*64*64*6/uint64(R) {
			t.Errorf("R=%d: total %d rank 0 count %d", R, l.Offsets[512], l.RankCount[0])
		}
		// Within a rank the boxes keep BoxArray order.
		for k := 1; k < len(l.Order); k++ {
			if owner[l.Order[k]] == owner[l.Order[k-1]] && l.Order[k] < l.Order[k-1] {
				t.Fatalf("R=%d: file order %v not ascending within rank", R, l.Order[k-1:k+1])
			}
		}
	}
}

// TestLeastUsedRanks: buckets go to ranks in order of least memory in use, stably.
func TestLeastUsedRanks(t *testing.T) {
	boxes := NestedLevels(16, 8)[0].Boxes
	if got := DistributionMap(boxes, 2, []int64{5, 0}); !reflect.DeepEqual(got, []int{1, 1, 1, 1, 0, 0, 0, 0}) {
		t.Errorf("rank 1 less used: owners %v", got)
	}
	if got := DistributionMap(boxes, 2, []int64{3, 3}); !reflect.DeepEqual(got, []int{0, 0, 0, 0, 1, 1, 1, 1}) {
		t.Errorf("equal use: owners %v", got)
	}
}

// TestOwnersMultiLevel: a finer level's mapping sees the FAB bytes of the coarser levels.
// Level 0 puts 2 boxes of unequal size on 2 ranks; level 1's buckets go to the rank with
// less level-0 data first.
func TestOwnersMultiLevel(t *testing.T) {
	levels := []Level{
		{Domain: box(0, 0, 0, 15, 15, 15), Boxes: []Box{box(0, 0, 0, 11, 15, 15), box(12, 0, 0, 15, 15, 15)}, Ratio: 2},
		{Domain: box(0, 0, 0, 31, 31, 31), Boxes: []Box{box(0, 0, 0, 7, 7, 7), box(8, 0, 0, 15, 7, 7)}, Ratio: 1},
	}
	o := Owners(levels, 2, 1)
	if !reflect.DeepEqual(o[0], []int{0, 1}) {
		t.Fatalf("level 0 owners %v", o[0])
	}
	// Rank 0 holds 12*16*16 cells, rank 1 4*16*16: rank 1 is least used and gets the
	// first (heaviest, tie -> first) bucket.
	if !reflect.DeepEqual(o[1], []int{1, 0}) {
		t.Errorf("level 1 owners %v, want [1 0]", o[1])
	}
}
