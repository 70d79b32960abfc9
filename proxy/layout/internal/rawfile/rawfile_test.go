package rawfile

import (
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// compound is {a f64, b i32, c i32} packed (16 bytes).
var compound = plan.Type{Class: plan.Compound, Size: 16, Members: []plan.Member{
	{Name: "a", Offset: 0, Type: plan.F64}, {Name: "b", Offset: 8, Type: plan.I32}, {Name: "c", Offset: 12, Type: plan.I32}}}

// create lays out a dataset.
func create(f *File, path string, t plan.Type, shape ...uint64) {
	f.Create(&plan.Op{Kind: plan.CreateDataset, Path: path, Dataset: &plan.DatasetSpec{Type: t, Shape: shape}})
}

// transfer is a transfer of sel with memory type t into a dataset of type file.
func transfer(t plan.Type, file plan.Type, shape []uint64, sel plan.Selection) *plan.Transfer {
	return &plan.Transfer{MemType: t, FileType: file, FileShape: shape, Selection: sel}
}

// slab selects one block of extent count at start.
func slab(start, count []uint64) plan.Selection {
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, count)}}
}

// TestPieces lays out datasets (aligned and not, grown along the first dimension) and
// checks the byte ranges selections map to, computed by hand.
func TestPieces(t *testing.T) {
	s := &Set{Layout: "test"}
	f := s.Begin(&plan.Op{Kind: plan.CreateFile, Path: "f", File: &plan.FileSpec{AlignThreshold: 100, AlignLen: 64}})
	create(f, "/small", plan.I32, 5)  // 20 bytes < threshold: at 0
	create(f, "/m", plan.F32, 4, 6)   // 96 bytes < threshold: at 20
	create(f, "/big", plan.I64, 20)   // 160 bytes: aligned to 128
	create(f, "/rec", plan.F32, 0, 3) // empty, extendible
	create(f, "/cmp", compound, 3)    // 48 bytes: at 288
	if f.Next != 336 {
		t.Fatalf("next free offset %d, want 336", f.Next)
	}
	// Record 0 (12 bytes at 336), record 1 (at 348), a dataset (8 bytes at 360), then
	// records 2 and 3 together (24 bytes at 368, under the alignment threshold).
	for _, n := range []uint64{1, 2} {
		if err := s.Extend(f, &plan.Op{Path: "/rec", Dataset: &plan.DatasetSpec{Shape: []uint64{n, 3}}}); err != nil {
			t.Fatal(err)
		}
	}
	create(f, "/after", plan.I32, 2) // 8 bytes at 360
	if err := s.Extend(f, &plan.Op{Path: "/rec", Dataset: &plan.DatasetSpec{Shape: []uint64{4, 3}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		t    *plan.Transfer
		want []Piece
	}{
		{"/small", transfer(plan.I32, plan.I32, []uint64{5}, slab([]uint64{1}, []uint64{3})), []Piece{{4, 12, 0}}},
		// Rows 1-2, columns 2-4 of 4x6: two runs of 3 elements.
		{"/m", transfer(plan.F32, plan.F32, []uint64{4, 6}, slab([]uint64{1, 2}, []uint64{2, 3})), []Piece{{20 + 8*4, 12, 0}, {20 + 14*4, 12, 12}}},
		{"/big", transfer(plan.I64, plan.I64, []uint64{20}, plan.All([]uint64{20})), []Piece{{128, 160, 0}}},
		// Records 0-3: contiguous 0-1, then 2-3 after /after.
		{"/rec", transfer(plan.F32, plan.F32, []uint64{4, 3}, plan.All([]uint64{4, 3})), []Piece{{336, 24, 0}, {368, 24, 24}}},
		// A read of record 1 with the file shape of 2 records (E3SM's reads).
		{"/rec", transfer(plan.F32, plan.F32, []uint64{2, 3}, slab([]uint64{1, 0}, []uint64{1, 3})), []Piece{{348, 12, 0}}},
		// Member c of elements 1 and 2 into a memory of {c i32} (4 bytes an element).
		{"/cmp", transfer(plan.Type{Class: plan.Compound, Size: 4, Members: []plan.Member{{Name: "c", Type: plan.I32}}}, compound, []uint64{3}, slab([]uint64{1}, []uint64{2})),
			[]Piece{{288 + 16 + 12, 4, 0}, {288 + 32 + 12, 4, 4}}},
		// Members b and c (adjacent in both) of element 0 into a padded memory element.
		{"/cmp", transfer(plan.Type{Class: plan.Compound, Size: 12, Members: []plan.Member{{Name: "b", Offset: 4, Type: plan.I32}, {Name: "c", Offset: 8, Type: plan.I32}}}, compound, []uint64{3}, slab([]uint64{0}, []uint64{1})),
			[]Piece{{288 + 8, 8, 4}}},
		{"/cmp", transfer(compound, compound, []uint64{3}, plan.All([]uint64{3})), []Piece{{288, 48, 0}}},
	} {
		got, err := s.Pieces(f, tc.path, tc.t)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
		} else if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: pieces %v, want %v", tc.path, tc.t.Selection, got, tc.want)
		}
	}
	for _, tc := range []struct {
		path string
		t    *plan.Transfer
		want string
	}{
		{"/nope", transfer(plan.I32, plan.I32, []uint64{1}, plan.All([]uint64{1})), "dataset /nope was not written by this session"},
		{"/small", transfer(plan.I32, plan.I32, []uint64{6}, plan.All([]uint64{6})), "elements 0 to 5 selected, the dataset has 5"},
		{"/small", transfer(plan.I64, plan.I32, []uint64{5}, plan.All([]uint64{5})), "cannot convert types"},
		{"/cmp", transfer(plan.Type{Class: plan.Compound, Size: 8, Members: []plan.Member{{Name: "b", Type: plan.I64}}}, compound, []uint64{3}, plan.All([]uint64{3})), "member b is"},
	} {
		if _, err := s.Pieces(f, tc.path, tc.t); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "test layout: ") {
			t.Errorf("%s: err %v, want %q", tc.path, err, tc.want)
		}
	}
	for _, c := range []struct {
		shape []uint64
		want  string
	}{{[]uint64{3, 3}, "does not shrink"}, {[]uint64{5}, "the rank is fixed"}} {
		if err := s.Extend(f, &plan.Op{Path: "/rec", Dataset: &plan.DatasetSpec{Shape: c.shape}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("extend to %v: %v, want %q", c.shape, err, c.want)
		}
	}
	// A create replaces the file's layout; an open keeps it.
	if g := s.Begin(&plan.Op{Kind: plan.OpenFile, Path: "f", File: &plan.FileSpec{}}); g != f {
		t.Error("an open forgot the file's regions")
	}
	if g := s.Begin(&plan.Op{Kind: plan.CreateFile, Path: "f", File: &plan.FileSpec{}}); g == f || len(g.Regions) != 0 || g.Next != 0 {
		t.Error("a create kept the old regions")
	}
}

// TestDefineOpenWithSpec: an open of a dataset the session never laid out fails, unless
// it carries the dataset's creation, which lays it out where a create would have (IOR
// reading another task's file per process); an open of a known dataset keeps its region.
func TestDefineOpenWithSpec(t *testing.T) {
	s := &Set{Layout: "test"}
	f := s.Begin(&plan.Op{Kind: plan.OpenFile, Path: "other", File: &plan.FileSpec{ReadOnly: true}})
	if _, err := s.Define(f, &plan.Op{Kind: plan.OpenDataset, Path: "/d0"}); err == nil || !strings.Contains(err.Error(), "not written by this session") {
		t.Fatalf("open without a spec: %v", err)
	}
	spec := &plan.DatasetSpec{Type: plan.I64, Shape: []uint64{4}}
	for _, p := range []string{"/d0", "/d1", "/d0"} {
		if ok, err := s.Define(f, &plan.Op{Kind: plan.OpenDataset, Path: p, Dataset: spec}); !ok || err != nil {
			t.Fatalf("open %s with a spec: %v %v", p, ok, err)
		}
	}
	r0, _ := s.Region(f, "/d0")
	r1, _ := s.Region(f, "/d1")
	if r0.Extents[0].Offset != 0 || r1.Extents[0].Offset != 32 || f.Next != 64 {
		t.Errorf("regions at %d and %d, next %d; want 0, 32, 64", r0.Extents[0].Offset, r1.Extents[0].Offset, f.Next)
	}
}

// TestExtendAnyDimension: a dataset grown along its second dimension keeps its elements
// where they are and lays the new columns out as a box after them; a later growth along
// the first dimension adds a box of whole new rows. Transfers in the whole extent, and in
// the extent a slab was written in, map to the boxes' bytes.
func TestExtendAnyDimension(t *testing.T) {
	s := &Set{Layout: "test"}
	f := s.Begin(&plan.Op{Kind: plan.CreateFile, Path: "f", File: &plan.FileSpec{}})
	f.Create(&plan.Op{Path: "/s", Dataset: &plan.DatasetSpec{Type: plan.F32, Shape: []uint64{2, 3}}})
	for _, shape := range [][]uint64{{2, 5}, {3, 5}} {
		if err := s.Extend(f, &plan.Op{Path: "/s", Dataset: &plan.DatasetSpec{Shape: shape}}); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := s.Region(f, "/s")
	want := []Box{{Lo: []uint64{0, 0}, Hi: []uint64{2, 3}, Offset: 0}, {Lo: []uint64{0, 3}, Hi: []uint64{2, 5}, Offset: 24}, {Lo: []uint64{2, 0}, Hi: []uint64{3, 5}, Offset: 40}}
	if !reflect.DeepEqual(r.Boxes, want) || r.Extents != nil || f.Next != 60 {
		t.Fatalf("boxes %+v, extents %v, next %d; want %+v, next 60", r.Boxes, r.Extents, f.Next, want)
	}
	for _, tc := range []struct {
		t    *plan.Transfer
		want []Piece
	}{
		{transfer(plan.F32, plan.F32, []uint64{3, 5}, plan.All([]uint64{3, 5})), []Piece{{0, 12, 0}, {24, 8, 12}, {12, 12, 20}, {32, 28, 32}}},
		{transfer(plan.F32, plan.F32, []uint64{2, 3}, plan.All([]uint64{2, 3})), []Piece{{0, 24, 0}}},
		{transfer(plan.F32, plan.F32, []uint64{2, 5}, slab([]uint64{0, 3}, []uint64{2, 2})), []Piece{{24, 16, 0}}},
	} {
		got, err := s.Pieces(f, "/s", tc.t)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v in %v: pieces %v (%v), want %v", tc.t.Selection, tc.t.FileShape, got, err, tc.want)
		}
	}
	if _, err := s.Pieces(f, "/s", transfer(plan.F32, plan.F32, []uint64{4, 5}, plan.All([]uint64{4, 5}))); err == nil || !strings.Contains(err.Error(), "element [3 0] selected, the dataset has extent [3 5]") {
		t.Errorf("a selection beyond the extent: %v", err)
	}
}

// TestBeginWritten opens a file the session never laid out with the writer's datasets
// (plan.FileSpec.Written): they are laid out in creation order, aligned as the open says,
// so a dataset opened alone (a subset, as NOvA's dataset partitioning opens) has the
// writer's offsets; a file the session already knows keeps its own regions.
func TestBeginWritten(t *testing.T) {
	s := &Set{Layout: "test"}
	written := []plan.WrittenDataset{
		{Path: "/g/a", Dataset: &plan.DatasetSpec{Type: plan.I32, Shape: []uint64{3, 2}}}, // 24 bytes at 0
		{Path: "/g/e", Dataset: &plan.DatasetSpec{Type: plan.F64, Shape: []uint64{0, 2}}}, // empty
		{Path: "/g/b", Dataset: &plan.DatasetSpec{Type: plan.F64, Shape: []uint64{16}}},   // 128 bytes: aligned to 64
	}
	open := func(path string) *File {
		return s.Begin(&plan.Op{Kind: plan.OpenFile, Path: path, File: &plan.FileSpec{ReadOnly: true, AlignThreshold: 100, AlignLen: 64, Written: written}})
	}
	f := open("other")
	if _, err := s.Define(f, &plan.Op{Kind: plan.OpenDataset, Path: "/g/b"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pieces(f, "/g/b", transfer(plan.F64, plan.F64, []uint64{16}, slab([]uint64{2}, []uint64{3})))
	if err != nil || !reflect.DeepEqual(got, []Piece{{64 + 16, 24, 0}}) {
		t.Errorf("/g/b pieces %+v (%v), want 24 bytes at 80", got, err)
	}
	if shape, err := s.Shape(f, "/g/e"); err != nil || !reflect.DeepEqual(shape, []uint64{0, 2}) {
		t.Errorf("/g/e extent %v (%v)", shape, err)
	}
	// The session's own file: its regions, not the list's.
	mine := s.Begin(&plan.Op{Kind: plan.CreateFile, Path: "mine", File: &plan.FileSpec{}})
	create(mine, "/x", plan.I32, 4)
	if f := open("mine"); len(f.Regions) != 1 || f.Regions["/x"] == nil {
		t.Errorf("reopening the session's file: regions %v", f.Regions)
	}
}
