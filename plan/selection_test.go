package plan

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// refRuns is the brute-force reference for Selection.Runs: enumerate every point of every
// block of every hyperslab into a set, sort the row-major linear indices and compress them
// into maximal runs.
func refRuns(s Selection, shape []uint64) []Run {
	set := map[uint64]bool{}
	for _, h := range s.Blocks {
		idx := make([]uint64, len(shape))
		var walk func(d int)
		walk = func(d int) {
			if d == len(shape) {
				var lin uint64
				for k := range shape {
					lin = lin*shape[k] + idx[k]
				}
				set[lin] = true
				return
			}
			for c := uint64(0); c < h.Count[d]; c++ {
				for b := uint64(0); b < h.Block[d]; b++ {
					idx[d] = h.Start[d] + c*h.Stride[d] + b
					walk(d + 1)
				}
			}
		}
		walk(0)
	}
	lin := make([]uint64, 0, len(set))
	for k := range set {
		lin = append(lin, k)
	}
	sort.Slice(lin, func(i, j int) bool { return lin[i] < lin[j] })
	var out []Run
	for _, x := range lin {
		if k := len(out) - 1; k >= 0 && out[k].Start+out[k].Len == x {
			out[k].Len++
			continue
		}
		out = append(out, Run{x, 1})
	}
	return out
}

func u(v ...uint64) []uint64 { return v }

// randomHyperslab draws a valid hyperslab inside shape: block, count and stride >= block per
// dimension, shrunk until it fits. About a third of the dimensions use stride == block
// (adjacent blocks), which exercises the merge path of expand.
func randomHyperslab(r *rand.Rand, shape []uint64) Hyperslab {
	n := len(shape)
	h := Hyperslab{Start: make([]uint64, n), Stride: make([]uint64, n), Count: make([]uint64, n), Block: make([]uint64, n)}
	for d, ext := range shape {
		block := 1 + r.Uint64N(min(ext, 4))
		count := 1 + r.Uint64N(4)
		stride := block
		switch r.IntN(3) {
		case 0: // adjacent
		default:
			stride = block + r.Uint64N(4)
		}
		for count > 1 && (count-1)*stride+block > ext {
			count--
		}
		span := (count-1)*stride + block
		h.Start[d] = r.Uint64N(ext - span + 1)
		h.Stride[d], h.Count[d], h.Block[d] = stride, count, block
		if count == 1 && r.IntN(2) == 0 {
			h.Stride[d] = 1 + r.Uint64N(5) // ignored by HDF5 when count is 1
		}
	}
	return h
}

func TestRunsMatchBruteForceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20240611, 7))
	for rank := 1; rank <= 3; rank++ {
		for iter := 0; iter < 300; iter++ {
			shape := make([]uint64, rank)
			for d := range shape {
				shape[d] = 1 + r.Uint64N([]uint64{0, 64, 14, 8}[rank])
			}
			var sel Selection
			for b := 0; b < 1+r.IntN(5); b++ {
				sel.Blocks = append(sel.Blocks, randomHyperslab(r, shape))
			}
			if err := sel.Validate(shape); err != nil {
				t.Fatalf("generator produced an invalid selection %+v in %v: %v", sel, shape, err)
			}
			want := refRuns(sel, shape)
			got := sel.Runs(shape)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rank %d iter %d shape %v sel %+v:\n got  %v\n want %v", rank, iter, shape, sel.Blocks, got, want)
			}
			var n uint64
			for _, x := range want {
				n += x.Len
			}
			if np := sel.NPoints(shape); np != n {
				t.Fatalf("rank %d iter %d: NPoints = %d, want %d", rank, iter, np, n)
			}
		}
	}
}

func TestRunsTable(t *testing.T) {
	tests := []struct {
		name  string
		shape []uint64
		sel   Selection
		want  []Run
	}{
		{"1-D block", u(16), Selection{Blocks: []Hyperslab{Block(u(4), u(4))}}, []Run{{4, 4}}},
		{"1-D strided (layouts 1.4 example, rank 1)", u(32),
			Selection{Blocks: []Hyperslab{{Start: u(16), Stride: u(4), Count: u(2), Block: u(2)}}},
			[]Run{{16, 2}, {20, 2}}},
		{"1-D adjacent blocks merge", u(10),
			Selection{Blocks: []Hyperslab{{Start: u(1), Stride: u(3), Count: u(3), Block: u(3)}}},
			[]Run{{1, 9}}},
		{"1-D overlapping union counted once", u(20),
			Selection{Blocks: []Hyperslab{Block(u(2), u(6)), Block(u(5), u(6)), Block(u(15), u(2))}},
			[]Run{{2, 9}, {15, 2}}},
		{"1-D touching union merges", u(20),
			Selection{Blocks: []Hyperslab{Block(u(8), u(2)), Block(u(2), u(6))}},
			[]Run{{2, 8}}},
		{"2-D full rows are one run", u(4, 3),
			Selection{Blocks: []Hyperslab{Block(u(1, 0), u(2, 3))}},
			[]Run{{3, 6}}},
		{"2-D sub-block is one run per row", u(4, 5),
			Selection{Blocks: []Hyperslab{Block(u(1, 1), u(2, 3))}},
			[]Run{{6, 3}, {11, 3}}},
		{"2-D LDC 10x10 b=2", u(20, 10), // file of 2 ranks, rank 0's region is 10x10
			Selection{Blocks: []Hyperslab{Block(u(0, 0), u(2, 2)), Block(u(8, 8), u(2, 2))}},
			[]Run{{0, 2}, {10, 2}, {88, 2}, {98, 2}}},
		{"2-D RDC 10x10 b=2", u(10, 10),
			Selection{Blocks: []Hyperslab{Block(u(8, 0), u(2, 2)), Block(u(0, 8), u(2, 2))}},
			[]Run{{8, 2}, {18, 2}, {80, 2}, {90, 2}}},
		{"2-D PRL frame 5x5 b=1", u(5, 5),
			Selection{Blocks: []Hyperslab{Block(u(0, 0), u(5, 1)), Block(u(0, 4), u(5, 1)), Block(u(0, 1), u(1, 3)), Block(u(4, 1), u(1, 3))}},
			// Row 0 and row 4 are full; rows 1-3 only the two edge columns, which touch
			// across the row boundary: 4|5, 9|10, 14|15.
			[]Run{{0, 6}, {9, 2}, {14, 2}, {19, 6}}},
		{"3-D block", u(2, 3, 4),
			Selection{Blocks: []Hyperslab{Block(u(1, 1, 0), u(1, 2, 4))}},
			[]Run{{16, 8}}},
		{"3-D strided in every dim", u(4, 4, 4),
			Selection{Blocks: []Hyperslab{{Start: u(0, 0, 0), Stride: u(2, 2, 2), Count: u(2, 2, 2), Block: u(1, 1, 1)}}},
			[]Run{{0, 1}, {2, 1}, {8, 1}, {10, 1}, {32, 1}, {34, 1}, {40, 1}, {42, 1}}},
		{"all", u(3, 4), All(u(3, 4)), []Run{{0, 12}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.sel.Validate(tc.shape); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := tc.sel.Runs(tc.shape)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Runs = %v, want %v", got, tc.want)
			}
			if ref := refRuns(tc.sel, tc.shape); !reflect.DeepEqual(ref, tc.want) {
				t.Errorf("reference disagrees with the table: %v", ref)
			}
			var n uint64
			for _, r := range tc.want {
				n += r.Len
			}
			if got := tc.sel.NPoints(tc.shape); got != n {
				t.Errorf("NPoints = %d, want %d", got, n)
			}
		})
	}
}

func TestRunsLargeAdjacentIsCheap(t *testing.T) {
	// A 1-D write of a million particles per rank must not enumerate blocks.
	sel := Selection{Blocks: []Hyperslab{{Start: u(3 << 20), Stride: u(1), Count: u(1 << 20), Block: u(1)}}}
	got := sel.Runs(u(4 << 20))
	if want := []Run{{3 << 20, 1 << 20}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Runs = %v, want %v", got, want)
	}
}

func TestNone(t *testing.T) {
	s := None()
	if !s.IsNone() {
		t.Fatal("None().IsNone() = false")
	}
	if r := s.Runs(u(10, 10)); r != nil {
		t.Errorf("None().Runs = %v, want nil", r)
	}
	if n := s.NPoints(u(10, 10)); n != 0 {
		t.Errorf("None().NPoints = %d, want 0", n)
	}
	if err := s.Validate(u(10, 10)); err != nil {
		t.Errorf("None().Validate = %v", err)
	}
	if All(u(2)).IsNone() {
		t.Error("All(...).IsNone() = true")
	}
}

func TestAllCopiesShape(t *testing.T) {
	shape := u(3, 4)
	s := All(shape)
	shape[0] = 99
	if got := s.Blocks[0].Block; !reflect.DeepEqual(got, u(3, 4)) {
		t.Errorf("All aliases its argument: block = %v", got)
	}
	if got := s.Blocks[0].Start; !reflect.DeepEqual(got, u(0, 0)) {
		t.Errorf("All start = %v", got)
	}
}

func TestHyperslabNPoints(t *testing.T) {
	h := Hyperslab{Start: u(0, 1), Stride: u(3, 4), Count: u(2, 3), Block: u(2, 1)}
	if n := h.NPoints(); n != 2*2*3*1 {
		t.Errorf("NPoints = %d, want 12", n)
	}
	if n := Block(u(5, 5, 5), u(2, 3, 4)).NPoints(); n != 24 {
		t.Errorf("Block NPoints = %d, want 24", n)
	}
}

func TestSelectionValidate(t *testing.T) {
	tests := []struct {
		name  string
		shape []uint64
		h     Hyperslab
		want  string // substring of the error; "" means valid
	}{
		{"fits exactly", u(8), Hyperslab{Start: u(4), Stride: u(1), Count: u(1), Block: u(4)}, ""},
		{"strided fits exactly", u(16), Hyperslab{Start: u(0), Stride: u(4), Count: u(4), Block: u(4)}, ""},
		{"stride ignored when count 1", u(8), Hyperslab{Start: u(0), Stride: u(0), Count: u(1), Block: u(8)}, ""},
		{"out of bounds 1-D", u(8), Hyperslab{Start: u(5), Stride: u(1), Count: u(1), Block: u(4)},
			"hyperslab 0 dim 0: ends at 9 beyond extent 8"},
		{"strided out of bounds", u(16), Hyperslab{Start: u(1), Stride: u(4), Count: u(4), Block: u(4)},
			"hyperslab 0 dim 0: ends at 17 beyond extent 16"},
		{"out of bounds dim 1", u(4, 3), Hyperslab{Start: u(0, 1), Stride: u(1, 1), Count: u(1, 1), Block: u(4, 3)},
			"hyperslab 0 dim 1: ends at 4 beyond extent 3"},
		{"stride < block", u(16), Hyperslab{Start: u(0), Stride: u(2), Count: u(2), Block: u(3)},
			"hyperslab 0 dim 0: stride 2 < block 3"},
		{"zero count", u(16), Hyperslab{Start: u(0), Stride: u(1), Count: u(0), Block: u(3)},
			"hyperslab 0 dim 0: count 0 block 3 must be >= 1"},
		{"zero block", u(4, 4), Hyperslab{Start: u(0, 0), Stride: u(1, 1), Count: u(1, 1), Block: u(1, 0)},
			"hyperslab 0 dim 1: count 1 block 0 must be >= 1"},
		{"rank mismatch", u(4, 4), Hyperslab{Start: u(0), Stride: u(1), Count: u(1), Block: u(1)},
			"hyperslab 0 has rank 1, dataspace rank 2"},
		{"ragged hyperslab", u(4, 4), Hyperslab{Start: u(0, 0), Stride: u(1, 1), Count: u(1), Block: u(1, 1)},
			"dataspace rank 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Selection{Blocks: []Hyperslab{tc.h}}.Validate(tc.shape)
			checkValidate(t, err, tc.want)
		})
	}
	// The index names the offending hyperslab of a union.
	s := Selection{Blocks: []Hyperslab{Block(u(0), u(2)), Block(u(7), u(2))}}
	if err := s.Validate(u(8)); err == nil || !strings.HasPrefix(err.Error(), "hyperslab 1 ") {
		t.Errorf("union Validate = %v, want error about hyperslab 1", err)
	}
}

func TestProduct(t *testing.T) {
	for _, tc := range []struct {
		shape []uint64
		want  uint64
	}{{nil, 1}, {u(7), 7}, {u(2, 3, 4), 24}, {u(5, 0), 0}} {
		if got := Product(tc.shape); got != tc.want {
			t.Errorf("Product(%v) = %d, want %d", tc.shape, got, tc.want)
		}
	}
}

// ExampleSelection_Runs shows how a union of hyperslabs maps to contiguous row-major runs:
// the two corner blocks of an LDC read in a 6x6 dataspace.
func ExampleSelection_Runs() {
	shape := []uint64{6, 6}
	sel := Selection{Blocks: []Hyperslab{
		Block([]uint64{0, 0}, []uint64{2, 2}),
		Block([]uint64{4, 4}, []uint64{2, 2}),
	}}
	for _, r := range sel.Runs(shape) {
		fmt.Printf("start %2d len %d\n", r.Start, r.Len)
	}
	fmt.Println("points:", sel.NPoints(shape))
	// Output:
	// start  0 len 2
	// start  6 len 2
	// start 28 len 2
	// start 34 len 2
	// points: 8
}

// TestValidateOverflow: an end that wraps past 2^64 is rejected, not taken for an end
// inside the extent (the log layout's fuzzed index found it: Runs then expanded 2^64
// elements).
func TestValidateOverflow(t *testing.T) {
	shape := []uint64{7, 7}
	for _, h := range []Hyperslab{
		{Start: []uint64{0, 0}, Stride: []uint64{1 << 63, 1}, Count: []uint64{2, 1}, Block: []uint64{1, 1}},
		{Start: []uint64{0, 0}, Stride: []uint64{1 << 62, 1}, Count: []uint64{5, 1}, Block: []uint64{1, 1}},
		{Start: []uint64{^uint64(0), 0}, Stride: []uint64{1, 1}, Count: []uint64{1, 1}, Block: []uint64{2, 1}},
	} {
		err := Selection{Blocks: []Hyperslab{h}}.Validate(shape)
		if err == nil || !strings.Contains(err.Error(), "hyperslab 0 dim 0") {
			t.Errorf("%+v: %v, want an error naming hyperslab 0 dim 0", h, err)
		}
	}
}

// TestSelectionKinds: a point list must be single elements in row-major order without
// repeats, a whole selection one block covering the dataspace; both select the same
// elements as their blocks.
func TestSelectionKinds(t *testing.T) {
	shape := []uint64{3, 4}
	pts := PointList([][]uint64{{0, 3}, {1, 0}, {2, 2}})
	if err := pts.Validate(shape); err != nil {
		t.Fatal(err)
	}
	if n := pts.NPoints(shape); n != 3 {
		t.Errorf("points: %d elements, want 3", n)
	}
	if got := pts.Runs(shape); len(got) != 2 || got[0] != (Run{3, 2}) || got[1] != (Run{10, 1}) {
		t.Errorf("points' runs %v", got)
	}
	for name, bad := range map[string]Selection{
		"unsorted": PointList([][]uint64{{1, 0}, {0, 3}}),
		"repeated": PointList([][]uint64{{1, 0}, {1, 0}}),
		"block":    {Kind: Points, Blocks: []Hyperslab{Block([]uint64{0, 0}, []uint64{1, 2})}},
		"partial":  {Kind: Whole, Blocks: []Hyperslab{Block([]uint64{0, 0}, []uint64{2, 4})}},
		"kind":     {Kind: 9, Blocks: All(shape).Blocks},
	} {
		if err := bad.Validate(shape); err == nil {
			t.Errorf("%s: %+v validated", name, bad)
		}
	}
	if err := WholeSpace(shape).Validate(shape); err != nil {
		t.Error(err)
	}
	if PointList(nil).IsNone() != true {
		t.Error("an empty point list is not none")
	}
	if e := pts.Explicit(); e.Kind != Points {
		t.Errorf("Explicit lost the kind: %v", e.Kind)
	}
}

// TestMemorySelection: a transfer's memory selection selects as many elements of its
// memory space as the file selection has, as hyperslabs; Packed gives the same transfer
// from a buffer of the selected elements alone.
func TestMemorySelection(t *testing.T) {
	inner := Selection{Blocks: []Hyperslab{Block([]uint64{2, 1}, []uint64{3, 4})}}
	tr := &Transfer{MemType: F64, MemShape: []uint64{7, 6}, MemSelection: &inner, FileType: F64, FileShape: []uint64{6, 4},
		Selection: Selection{Blocks: []Hyperslab{Block([]uint64{3, 0}, []uint64{3, 4})}}}
	pl := Plan{Ops: []Op{{Kind: Write, Path: "/d", Transfer: tr}}}
	if err := pl.Validate(); err != nil {
		t.Fatal(err)
	}
	if p := tr.Packed(); p.MemSelection != nil || !slices.Equal(p.MemShape, []uint64{12}) || tr.MemSelection == nil || p.Bytes() != tr.Bytes() {
		t.Errorf("Packed: %+v (from %+v)", p, tr)
	}
	bad := func(name string, edit func(c *Transfer)) {
		c := *tr
		sel := *tr.MemSelection
		c.MemSelection = &sel
		edit(&c)
		pl := Plan{Ops: []Op{{Kind: Write, Path: "/d", Transfer: &c}}}
		if err := pl.Validate(); err == nil {
			t.Errorf("%s validated", name)
		}
	}
	bad("count", func(c *Transfer) { c.MemSelection.Blocks = []Hyperslab{Block([]uint64{2, 1}, []uint64{2, 4})} })
	bad("outside", func(c *Transfer) { c.MemSelection.Blocks = []Hyperslab{Block([]uint64{5, 1}, []uint64{3, 4})} })
	bad("points", func(c *Transfer) { c.MemSelection.Kind = Points })
	bad("data", func(c *Transfer) { c.Data = make([]byte, 7*6*8) })
	bad("whole file", func(c *Transfer) { c.Selection = WholeSpace(c.FileShape) })
}
