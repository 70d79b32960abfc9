package amrex

import (
	"reflect"
	"strings"
	"testing"
)

// TestMaxSizeExample: layouts.md's example, 16^3 chopped by 8, gives 8 boxes of 8^3
// enumerated x fastest, then y, then z.
func TestMaxSizeExample(t *testing.T) {
	got := MaxSize([]Box{box(0, 0, 0, 15, 15, 15)}, 8)
	want := []Box{
		box(0, 0, 0, 7, 7, 7), box(8, 0, 0, 15, 7, 7), box(0, 8, 0, 7, 15, 7), box(8, 8, 0, 15, 15, 7),
		box(0, 0, 8, 7, 7, 15), box(8, 0, 8, 15, 7, 15), box(0, 8, 8, 7, 15, 15), box(8, 8, 8, 15, 15, 15),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("boxes\n got %v\nwant %v", got, want)
	}
}

// TestMaxSizeSample: h5bench's sample, 64^3 by 8, gives 512 boxes; box x+8y+64z starts at
// 8*(x,y,z).
func TestMaxSizeSample(t *testing.T) {
	got := MaxSize([]Box{box(0, 0, 0, 63, 63, 63)}, 8)
	if len(got) != 512 {
		t.Fatalf("%d boxes, want 512", len(got))
	}
	for i, b := range got {
		x, y, z := i%8, i/8%8, i/64
		if want := box(8*x, 8*y, 8*z, 8*x+7, 8*y+7, 8*z+7); b != want {
			t.Fatalf("box %d = %v, want %v", i, b, want)
		}
	}
}

// TestMaxSizeUneven: lengths not divisible by the chunk are cut as AMReX does: the common
// powers of two are factored out, the blocks are near-equal and the first ones longer.
func TestMaxSizeUneven(t *testing.T) {
	cases := []struct {
		n, chunk int
		want     [][2]int // x extents
	}{
		{20, 8, [][2]int{{0, 7}, {8, 15}, {16, 19}}},             // 20=4*5, 8=4*2: blocks 2,2,1 of 4 cells
		{12, 8, [][2]int{{0, 7}, {8, 11}}},                       // 12=4*3, 8=4*2: blocks 2,1 of 4
		{10, 4, [][2]int{{0, 3}, {4, 7}, {8, 9}}},                // 10=2*5, 4=2*2: blocks 2,2,1 of 2
		{7, 3, [][2]int{{0, 2}, {3, 4}, {5, 6}}},                 // odd: 3 blocks 3,2,2
		{9, 2, [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 8}}}, // 5 blocks 2,2,2,2,1
		{8, 8, [][2]int{{0, 7}}},                                 // no cut
	}
	for _, c := range cases {
		got := MaxSize([]Box{box(0, 0, 0, c.n-1, 0, 0)}, c.chunk)
		var ext [][2]int
		for _, b := range got {
			if b.Lo[1] != 0 || b.Hi[1] != 0 || b.Lo[2] != 0 || b.Hi[2] != 0 {
				t.Errorf("n=%d chunk=%d: %v changed y or z", c.n, c.chunk, b)
			}
			ext = append(ext, [2]int{b.Lo[0], b.Hi[0]})
		}
		if !reflect.DeepEqual(ext, c.want) {
			t.Errorf("n=%d chunk=%d: %v, want %v", c.n, c.chunk, ext, c.want)
		}
	}
}

// TestMaxSizeOffsetBoxes: every box of a list is chopped in turn, its pieces following it,
// relative to the box's own corner.
func TestMaxSizeOffsetBoxes(t *testing.T) {
	got := MaxSize([]Box{box(4, 0, 0, 7, 3, 3), box(8, 8, 8, 15, 11, 11)}, 4)
	want := []Box{box(4, 0, 0, 7, 3, 3), box(8, 8, 8, 11, 11, 11), box(12, 8, 8, 15, 11, 11)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestBoxGeometry(t *testing.T) {
	b := box(0, 0, 0, 7, 3, 1)
	if b.NumPts() != 64 || b.Size(1) != 4 {
		t.Errorf("NumPts %d Size(1) %d", b.NumPts(), b.Size(1))
	}
	if r := b.Refine(2); r != box(0, 0, 0, 15, 7, 3) {
		t.Errorf("Refine(2) = %v", r)
	}
	if x := b.Intersect(box(4, 2, 1, 20, 20, 20)); x != box(4, 2, 1, 7, 3, 1) || x.NumPts() != 8 {
		t.Errorf("Intersect = %v", x)
	}
	if n := b.Intersect(box(8, 0, 0, 9, 9, 9)).NumPts(); n != 0 {
		t.Errorf("disjoint intersection has %d cells", n)
	}
	if s := b.String(); s != "((0,0,0) (7,3,1) (0,0,0))" {
		t.Errorf("String = %q", s)
	}
}

func TestParseBoxList(t *testing.T) {
	dom, boxes, err := ParseBoxList(twoLevels[1])
	if err != nil {
		t.Fatal(err)
	}
	if dom != box(0, 0, 0, 31, 31, 31) || !reflect.DeepEqual(boxes, []Box{box(8, 8, 8, 15, 23, 23), box(16, 8, 8, 23, 23, 23)}) {
		t.Errorf("domain %v boxes %v", dom, boxes)
	}
	// Whitespace and a domain line with trailing text, boxes without an index type.
	dom, boxes, err = ParseBoxList("((0,0,0) (7,7,7) (0,0,0)) anything\n  ( 1   0\n  (( 0, 0, 0) (7 ,7,7) )\n)")
	if err != nil || dom != box(0, 0, 0, 7, 7, 7) || len(boxes) != 1 || boxes[0] != dom {
		t.Errorf("lenient parse: %v %v %v", dom, boxes, err)
	}
	bad := []struct{ text, msg string }{
		{"((0,0,0) (7,7,7) (0,0,0))\n(1 0\n((0,0,0) (7,7,7) (1,0,0))\n)", "only cell-centred"},
		{"((0,0,0) (7,7,7) (0,0,0))\n(1 0\n((0,0,0) (8,7,7) (0,0,0))\n)", "outside the domain"},
		{"((0,0,0) (7,7,7) (0,0,0))\n(2 0\n((0,0,0) (3,7,7) (0,0,0))\n)", "box 1 of 2"},
		{"((0,0,0) (7,7,7) (0,0,0))\n(0 0\n)", "count 0"},
		{"((0,0,0) (7,7) (0,0,0))", "domain box"},
		{"((0,0,0) (7,7,7) (0,0,0))\n(1 0\n((0,0,0) (-1,7,7) (0,0,0))\n)", "empty along dimension 0"},
	}
	for _, c := range bad {
		if _, _, err := ParseBoxList(c.text); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.msg)
		}
	}
}

func TestNestedLevels(t *testing.T) {
	l := NestedLevels(16, 8)
	if len(l) != 1 || l[0].Domain != box(0, 0, 0, 15, 15, 15) || len(l[0].Boxes) != 8 || l[0].Ratio != 1 || l[0].Cells() != 4096 {
		t.Errorf("levels %+v", l)
	}
	if GridFile("grids", 2) != "grids/Level_2" || GridFile("x/", 0) != "x/Level_0" {
		t.Errorf("GridFile: %s %s", GridFile("grids", 2), GridFile("x/", 0))
	}
}
