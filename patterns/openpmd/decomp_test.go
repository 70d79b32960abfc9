package openpmd

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

func mesh(t *testing.T, ranks int, keys ...string) *Mesh {
	t.Helper()
	m, err := NewMesh(kit.Must(t, keys...).C, ranks)
	if err != nil {
		t.Fatalf("%v on %d ranks: %v", keys, ranks, err)
	}
	return m
}

// TestLayoutsExample is layouts.md 3.5's worked example: the h5bench sample on 2 ranks.
func TestLayoutsExample(t *testing.T) {
	m := mesh(t, 2, sample...)
	if !reflect.DeepEqual(m.Global, u(128, 256, 128)) || !reflect.DeepEqual(m.Patch, u(8, 16, 8)) || m.Particles() != 4194304 {
		t.Fatalf("global %v patch %v particles %d", m.Global, m.Patch, m.Particles())
	}
	for r, want := range []Block{
		{Offset: u(0, 0, 0), Extent: u(64, 256, 128), POffset: 0, PCount: 2097152},
		{Offset: u(64, 0, 0), Extent: u(64, 256, 128), POffset: 2097152, PCount: 2097152},
	} {
		got := m.Blocks(r, 1, true, true)
		if !reflect.DeepEqual(got, []Block{want}) {
			t.Errorf("rank %d: %+v, want %+v", r, got, want)
		}
	}
}

// TestPatchRules walks every branch of 8a's patch choice (layouts.md 3.5).
func TestPatchRules(t *testing.T) {
	cases := []struct {
		dim   string
		grid  string
		ranks int
		patch []uint64
	}{
		{"1", "12", 4, u(3)},
		{"1", "0", 3, u(1)}, // grid x = ranks
		{"2", "8 3", 4, u(2, 3)},
		{"2", "3 8", 4, u(3, 2)},
		{"2", "6 5", 10, u(3, 1)}, // m = 3: U_x%10, U_y%10 fail; U_x % 3 == 0
		{"2", "5 6", 10, u(1, 3)},
		{"3", "2 2 2", 8, u(1, 1, 1)}, // one mini block per rank
		{"3", "8 3 5", 4, u(2, 3, 5)},
		{"3", "3 8 5", 4, u(3, 2, 5)},
		{"3", "6 5 4", 20, u(6, 1, 1)}, // m = 6: U_x % 6 == 0
		{"3", "5 6 4", 20, u(1, 6, 1)}, // m = 6: U_y % 6 == 0
		{"3", "5 4 6", 20, u(1, 1, 6)}, // m = 6: only U_z % 6 == 0
		{"3", "4 6 6", 12, u(2, 1, 6)}, // m = 12 fits no axis; m' = 4*6/12 = 2, U_x % 2 == 0
		{"3", "9 4 4", 12, u(3, 1, 4)}, // m' = 9*4/12 = 3, U_x % 3 == 0
		{"3", "4 9 4", 12, u(1, 3, 4)}, // m' = 3, U_x % 3 != 0, U_y % 3 == 0
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%sD-%s-R%d", tc.dim, tc.grid, tc.ranks)
		t.Run(name, func(t *testing.T) {
			mb := map[string]string{"1": "2", "2": "2 3", "3": "2 3 1"}[tc.dim]
			m := mesh(t, tc.ranks, "dim="+tc.dim, "grid="+tc.grid, "minBlock="+mb)
			if !reflect.DeepEqual(m.Patch, tc.patch) {
				t.Fatalf("patch %v, want %v", m.Patch, tc.patch)
			}
			if got := plan.Product(m.PatchGrid); got != uint64(tc.ranks) {
				t.Errorf("patch grid %v holds %d patches for %d ranks", m.PatchGrid, got, tc.ranks)
			}
		})
	}
}

// TestPatchOrder: patches are numbered in C order over the patch grid (last index
// fastest) and offsets are coordinate × patch × minBlock.
func TestPatchOrder(t *testing.T) {
	// 2-D: U = [6,5] on 10 ranks: patch [3,1], grid [2,5].
	m := mesh(t, 10, "dim=2", "grid=6 5", "minBlock=2 3")
	for r, want := range map[int][]uint64{0: u(0, 0), 1: u(0, 3), 4: u(0, 12), 5: u(6, 0), 9: u(6, 12)} {
		off, ext := m.PatchBox(uint64(r))
		if !reflect.DeepEqual(off, want) || !reflect.DeepEqual(ext, u(6, 3)) {
			t.Errorf("2-D rank %d: offset %v extent %v, want %v [6 3]", r, off, ext, want)
		}
	}
	// 3-D: U = [4,6,6], R = 12: patch [2,1,6], grid [2,6,1].
	m = mesh(t, 12, "grid=4 6 6", "minBlock=1 2 3")
	for r, want := range map[int][]uint64{0: u(0, 0, 0), 5: u(0, 10, 0), 6: u(2, 0, 0), 11: u(2, 10, 0)} {
		off, ext := m.PatchBox(uint64(r))
		if !reflect.DeepEqual(off, want) || !reflect.DeepEqual(ext, u(2, 2, 18)) {
			t.Errorf("3-D rank %d: offset %v extent %v, want %v [2 2 18]", r, off, ext, want)
		}
	}
	// Particles: rank r starts at r × cells per patch × ratio.
	m = mesh(t, 12, "grid=4 6 6", "minBlock=1 2 3", "ratio=3")
	for _, r := range []int{0, 7, 11} {
		bl := m.Blocks(r, 1, true, true)
		if len(bl) != 1 || bl[0].POffset != uint64(r)*72*3 || bl[0].PCount != 72*3 {
			t.Errorf("rank %d particles %+v, want offset %d count 216", r, bl, r*216)
		}
	}
}

// TestUnbalanced: on iterations 1, 4, 7, ranks r%4==0 write nothing and r%4==1 write two
// patches; other iterations are balanced; a lone 1 rank is always balanced; in 1-D the
// period is 10.
func TestUnbalanced(t *testing.T) {
	m := mesh(t, 6, "dim=2", "grid=6 4", "minBlock=2 2", "balanced=false") // patch [1,4], grid [6,1]
	for _, it := range []int{1, 4, 7} {
		for r, want := range map[int][]uint64{0: nil, 1: u(0, 1), 2: u(2), 3: u(3), 4: nil, 5: u(4, 5)} {
			if got := m.Patches(r, it, false); !reflect.DeepEqual(got, want) {
				t.Errorf("iteration %d rank %d: patches %v, want %v", it, r, got, want)
			}
		}
	}
	for _, it := range []int{2, 3, 5, 6} {
		for r := 0; r < 6; r++ {
			if got := m.Patches(r, it, false); !reflect.DeepEqual(got, u(uint64(r))) {
				t.Errorf("iteration %d rank %d: patches %v, want own", it, r, got)
			}
		}
	}
	if got := m.Patches(0, 1, true); !reflect.DeepEqual(got, u(0)) {
		t.Errorf("balanced: %v", got)
	}
	// The double rank's two patches (adjacent along x) form one box.
	bl := merge(m.Blocks(1, 1, false, true))
	if len(bl) != 1 || !reflect.DeepEqual(bl[0].Offset, u(0, 0)) || !reflect.DeepEqual(bl[0].Extent, u(4, 8)) || bl[0].POffset != 0 || bl[0].PCount != 32 {
		t.Errorf("double rank merged: %+v", bl)
	}
	// A last rank r%4==0 without successor keeps its patch (5 ranks: rank 4).
	m5 := mesh(t, 5, "dim=2", "grid=5 2", "minBlock=1 1", "balanced=false")
	if got := m5.Patches(4, 1, false); !reflect.DeepEqual(got, u(4)) {
		t.Errorf("rank 4 of 5: %v, want its own patch", got)
	}
	one := mesh(t, 1, "balanced=false", "grid=1 1 1", "minBlock=2 2 2")
	if got := one.Patches(0, 1, false); !reflect.DeepEqual(got, u(0)) {
		t.Errorf("1 rank: %v", got)
	}
	m1 := mesh(t, 12, "dim=1", "grid=12", "minBlock=4", "balanced=false")
	for r, want := range map[int][]uint64{0: nil, 1: u(0, 1), 4: u(4), 5: u(5), 10: nil, 11: u(10, 11)} {
		if got := m1.Patches(r, 4, false); !reflect.DeepEqual(got, want) {
			t.Errorf("1-D rank %d: %v, want %v", r, got, want)
		}
	}
}

// TestMergeWraps: two patches that wrap around the patch grid do not form a box.
func TestMergeWraps(t *testing.T) {
	// 2-D U = [2,4] on 8 ranks (m = 1): patch [1,1]? U_x%8 no, U_y%8 no, U_x%1 == 0: [1,1],
	// grid [2,4]; patches 4 and 5 are [1,0] and [1,1]: adjacent; 3 and 4 wrap.
	m := mesh(t, 8, "dim=2", "grid=2 4", "minBlock=3 2")
	a, b := m.Blocks(3, 2, true, true)[0], m.Blocks(4, 2, true, true)[0]
	if got := merge([]Block{a, b}); len(got) != 2 {
		t.Errorf("wrapped patches merged: %+v", got)
	}
	c := m.Blocks(5, 2, true, true)[0]
	got := merge([]Block{b, c})
	if len(got) != 1 || !reflect.DeepEqual(got[0].Offset, u(3, 0)) || !reflect.DeepEqual(got[0].Extent, u(3, 4)) {
		t.Errorf("adjacent patches: %+v", got)
	}
}

// TestMiniBlocks: with one chunk per mini block, a rank's blocks are its patch's mini
// blocks in i, j, k order (last fastest) with consecutive particle ranges.
func TestMiniBlocks(t *testing.T) {
	m := mesh(t, 2, "grid=4 2 3", "minBlock=2 3 1", "ratio=2") // patch [2,2,3]
	bl := m.Blocks(1, 1, true, false)
	if len(bl) != 12 {
		t.Fatalf("%d blocks, want 12", len(bl))
	}
	want := [][]uint64{u(4, 0, 0), u(4, 0, 1), u(4, 0, 2), u(4, 3, 0)}
	for i, w := range want {
		if !reflect.DeepEqual(bl[i].Offset, w) || !reflect.DeepEqual(bl[i].Extent, u(2, 3, 1)) {
			t.Errorf("block %d: %+v, want offset %v", i, bl[i], w)
		}
	}
	if !reflect.DeepEqual(bl[11].Offset, u(6, 3, 2)) {
		t.Errorf("last block %+v", bl[11])
	}
	for i, b := range bl {
		if b.PCount != 12 || b.POffset != 144+uint64(i)*12 {
			t.Errorf("block %d particles %d+%d, want %d+12", i, b.POffset, b.PCount, 144+i*12)
		}
	}
}

// TestCoverage: for many runs, every iteration's mesh blocks of all ranks cover the mesh
// exactly once and their particle ranges cover [0, N) exactly once.
func TestCoverage(t *testing.T) {
	type run struct {
		keys  []string
		ranks []int
	}
	for _, rc := range []run{
		{[]string{"dim=1", "grid=0", "minBlock=3"}, []int{1, 2, 3, 5, 12}},
		{[]string{"dim=1", "grid=24", "minBlock=2"}, []int{1, 2, 3, 4, 6, 8, 12, 24}},
		{[]string{"dim=2", "grid=6 4", "minBlock=2 3"}, []int{1, 2, 3, 4, 6, 8, 12}},
		{[]string{"dim=3", "grid=4 6 6", "minBlock=1 2 1"}, []int{1, 2, 3, 4, 5, 6, 8, 12, 24}},
		{[]string{"dim=3", "grid=2 2 2", "minBlock=2 1 3"}, []int{8}},
	} {
		for _, R := range rc.ranks {
			for _, bal := range []bool{true, false} {
				for _, perRank := range []bool{true, false} {
					keys := append(append([]string(nil), rc.keys...), "ratio=2")
					p := kit.Must(t, keys...)
					m, err := NewMesh(p.C, R)
					if err != nil {
						continue // not every rank count decomposes
					}
					for it := 1; it <= 4; it++ {
						cells := make([]int, plan.Product(m.Global))
						parts := make([]int, m.Particles())
						for r := 0; r < R; r++ {
							bl := m.Blocks(r, it, bal, perRank)
							if perRank {
								bl = merge(bl)
							}
							for _, b := range bl {
								sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block(b.Offset, b.Extent)}}
								if err := sel.Validate(m.Global); err != nil {
									t.Fatalf("%v R=%d: %v", keys, R, err)
								}
								for _, run := range sel.Runs(m.Global) {
									for i := run.Start; i < run.Start+run.Len; i++ {
										cells[i]++
									}
								}
								if b.PCount != plan.Product(b.Extent)*2 {
									t.Errorf("%v R=%d: block %+v carries %d particles", keys, R, b, b.PCount)
								}
								for i := b.POffset; i < b.POffset+b.PCount; i++ {
									parts[i]++
								}
							}
						}
						for i, n := range cells {
							if n != 1 {
								t.Fatalf("%v R=%d balanced=%v perRank=%v it=%d: cell %d written %d times", keys, R, bal, perRank, it, i, n)
							}
						}
						for i, n := range parts {
							if n != 1 {
								t.Fatalf("%v R=%d balanced=%v perRank=%v it=%d: particle %d written %d times", keys, R, bal, perRank, it, i, n)
							}
						}
					}
				}
			}
		}
	}
}
