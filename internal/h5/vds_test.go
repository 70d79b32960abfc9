//go:build cgo && linux

package h5

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestVirtualDataset maps two source files' regions (an irregular union of hyperslabs and
// a strided one) into a virtual dataset, reads it back through HDF5 from another working
// directory (relative source names resolve against the virtual file's directory), checks
// unmapped elements read as the fill value, and reads the mappings back.
func TestVirtualDataset(t *testing.T) {
	dir := t.TempDir()
	mark := newIDMark()
	shape := []uint64{6, 5}
	total := plan.Product(shape)
	selA := plan.Selection{Blocks: []plan.Hyperslab{
		plan.Block([]uint64{0, 0}, []uint64{2, 5}),
		plan.Block([]uint64{4, 1}, []uint64{1, 3}),
	}}
	selB := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{2, 0}, Stride: []uint64{1, 2}, Count: []uint64{2, 3}, Block: []uint64{1, 1}}}}
	want := make([]byte, total*4)
	for i, src := range []struct {
		name string
		sel  plan.Selection
	}{{"a.h5", selA}, {"b.h5", selB}} {
		f := must(CreateFile(filepath.Join(dir, src.name), Access{}))
		d := must(CreateDataset(f, "/v", plan.DatasetSpec{Type: plan.I32, Shape: shape}))
		mem := randBytes(uint64(i+1), src.sel.NPoints(shape)*4)
		ok(t, Write(d, &plan.Transfer{MemType: plan.I32, MemShape: []uint64{src.sel.NPoints(shape)}, FileShape: shape, Selection: src.sel}, false, mem))
		scatter(want, shape, src.sel, 4, mem)
		ok(t, CloseDataset(d))
		ok(t, CloseFile(f))
	}
	maps := []VirtualMap{
		{Virtual: selA, File: "a.h5", Dataset: "/v", SourceShape: shape, Source: selA},
		{Virtual: selB, File: "b.h5", Dataset: "/v", SourceShape: shape, Source: selB},
	}
	master := filepath.Join(dir, "master.h5")
	f := must(CreateFile(master, Access{}))
	g := must(CreateGroup(f, "/g"))
	v := must(CreateVirtual(f, "/g/v", plan.DatasetSpec{Type: plan.I32, Shape: shape}, maps))
	ok(t, CloseDataset(v))
	// A virtual dataset without mappings reads as fill values.
	e := must(CreateVirtual(f, "/g/empty", plan.DatasetSpec{Type: plan.F64, Shape: []uint64{3}}, nil))
	ok(t, CloseDataset(e))
	// A scalar virtual dataset.
	s := must(CreateVirtual(f, "/s", plan.DatasetSpec{Type: plan.I32}, []VirtualMap{{Virtual: plan.All(nil), File: "a.h5", Dataset: "/v", SourceShape: shape, Source: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{1, 2}, []uint64{1, 1})}}}}))
	ok(t, CloseDataset(s))
	// A view of a whole source through unselected dataspaces (H5Sselect_all on both).
	w := must(CreateVirtual(f, "/whole", plan.DatasetSpec{Type: plan.I32, Shape: shape}, []VirtualMap{{Virtual: plan.WholeSpace(shape), File: "a.h5", Dataset: "/v", SourceShape: shape, Source: plan.WholeSpace(shape)}}))
	ok(t, CloseDataset(w))
	ok(t, CloseGroup(g))
	ok(t, CloseFile(f))

	// Read from elsewhere: the sources are found next to the master.
	cwd := must(os.Getwd())
	ok(t, os.Chdir(t.TempDir()))
	defer os.Chdir(cwd)
	f = must(OpenFile(master, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	v = must(OpenDataset(f, "/g/v"))
	got := make([]byte, total*4)
	ok(t, Read(v, wholeTransfer(plan.I32, shape), false, got))
	if !bytes.Equal(got, want) {
		t.Errorf("virtual dataset values differ from the sources'")
	}
	w = must(OpenDataset(f, "/whole"))
	wm, _, err := VirtualMappings(w)
	ok(t, err)
	if len(wm) != 1 || wm[0].Virtual.Kind != plan.Whole || wm[0].Source.Kind != plan.Whole {
		t.Errorf("the whole mapping read back as %+v, want both selections whole (H5S_SEL_ALL)", wm)
	}
	wgot := make([]byte, total*4)
	ok(t, Read(w, wholeTransfer(plan.I32, shape), false, wgot))
	wantA := make([]byte, total*4)
	scatter(wantA, shape, selA, 4, randBytes(1, selA.NPoints(shape)*4))
	if !bytes.Equal(wgot, wantA) {
		t.Errorf("the whole view reads other values than a.h5's /v")
	}
	ok(t, CloseDataset(w))
	back, virtual, err := VirtualMappings(v)
	ok(t, err)
	if !virtual || len(back) != 2 || back[0].File != "a.h5" || back[1].Dataset != "/v" || len(back[0].SourceShape) != 2 {
		t.Fatalf("mappings read back: virtual=%v %+v", virtual, back)
	}
	for i, m := range back {
		if !reflect.DeepEqual(m.Virtual.Runs(shape), maps[i].Virtual.Runs(shape)) || !reflect.DeepEqual(m.Source.Runs(shape), maps[i].Source.Runs(shape)) {
			t.Errorf("mapping %d selects %v / %v, want %v", i, m.Virtual.Runs(shape), m.Source.Runs(shape), maps[i].Virtual.Runs(shape))
		}
	}
	info := must(DatasetInfo(v))
	if !info.Type.Equal(plan.I32) || !reflect.DeepEqual(info.Shape, shape) || info.Chunk != nil {
		t.Errorf("virtual dataset info %+v", info)
	}
	ok(t, CloseDataset(v))
	e = must(OpenDataset(f, "/g/empty"))
	fill := bytes.Repeat([]byte{0xff}, 24)
	ok(t, Read(e, wholeTransfer(plan.F64, []uint64{3}), false, fill))
	if !bytes.Equal(fill, make([]byte, 24)) {
		t.Errorf("unmapped elements read %v, want zeros", fill)
	}
	ok(t, CloseDataset(e))
	s = must(OpenDataset(f, "/s"))
	one := make([]byte, 4)
	ok(t, Read(s, wholeTransfer(plan.I32, nil), false, one))
	if !bytes.Equal(one, want[(1*5+2)*4:(1*5+3)*4]) {
		t.Errorf("scalar virtual dataset reads %v", one)
	}
	ok(t, CloseDataset(s))
	// A dataset of another layout is not virtual.
	ok(t, CloseFile(f))
	f = must(OpenFile(filepath.Join(dir, "a.h5"), Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	d := must(OpenDataset(f, "/v"))
	if m, virtual, err := VirtualMappings(d); err != nil || virtual || m != nil {
		t.Errorf("contiguous dataset: mappings %v virtual %v err %v", m, virtual, err)
	}
	ok(t, CloseDataset(d))
	checkNoLeaks(t, f, mark)
	ok(t, CloseFile(f))
}

// TestVirtualErrors: mismatched mapping sizes are refused before HDF5, bad selections
// name the mapping, and nothing leaks.
func TestVirtualErrors(t *testing.T) {
	dir := t.TempDir()
	mark := newIDMark()
	f := must(CreateFile(filepath.Join(dir, "m.h5"), Access{}))
	spec := plan.DatasetSpec{Type: plan.F32, Shape: []uint64{10}}
	_, err := CreateVirtual(f, "/v", spec, []VirtualMap{{Virtual: plan.All([]uint64{10}), File: "s.h5", Dataset: "/x", SourceShape: []uint64{4}, Source: plan.All([]uint64{4})}})
	if err == nil || !strings.Contains(err.Error(), "10 elements") || !strings.Contains(err.Error(), "mapping 0 (s.h5:/x)") {
		t.Errorf("size mismatch: %v", err)
	}
	_, err = CreateVirtual(f, "/v", spec, []VirtualMap{{Virtual: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{8}, []uint64{4})}}, File: "s.h5", Dataset: "/x", SourceShape: []uint64{4}, Source: plan.All([]uint64{4})}})
	if err == nil || !strings.Contains(err.Error(), "beyond extent 10") {
		t.Errorf("selection outside: %v", err)
	}
	_, err = CreateVirtual(f, "/no/such/group/v", spec, nil)
	var he *Error
	if !errors.As(err, &he) || len(he.Stack) == 0 {
		t.Errorf("missing group: %v, want an HDF5 error with its stack", err)
	}
	if _, err := CreateVirtual(0, "/v", spec, nil); !errors.Is(err, ErrInvalidID) {
		t.Errorf("invalid location: %v", err)
	}
	checkNoLeaks(t, f, mark)
	ok(t, CloseFile(f))
}

// TestNullDatasetAndOffset creates an anchor (NULL dataspace) with attributes, overwrites
// an attribute in place and with another shape, finds a contiguous dataset's data at its
// offset in the file, and walks the file.
func TestNullDatasetAndOffset(t *testing.T) {
	dir := t.TempDir()
	mark := newIDMark()
	path := filepath.Join(dir, "anchor.h5")
	f := must(CreateFile(path, Access{}))
	g := must(CreateGroup(f, "/grp"))
	a := must(CreateNullDataset(f, "/grp/anchor", particle))
	info := must(DatasetInfo(a))
	if !info.Type.Equal(particle) || len(info.Shape) != 0 {
		t.Errorf("anchor info %+v", info)
	}
	dims := plan.AttributeSpec{Name: "_dims", Type: plan.I64, Shape: []uint64{2}, Value: make([]byte, 16)}
	ok(t, SetAttribute(a, dims))
	dims.Value[0] = 7
	ok(t, SetAttribute(a, dims)) // same type and shape: overwritten in place
	ok(t, SetAttribute(a, plan.AttributeSpec{Name: "b", Type: plan.U8, Shape: []uint64{1}, Value: []byte{3}}))
	ok(t, SetAttribute(a, plan.AttributeSpec{Name: "b", Type: plan.I32, Shape: []uint64{2}, Value: make([]byte, 8)})) // replaced
	names := must(AttributeNames(a))
	if !reflect.DeepEqual(names, []string{"_dims", "b"}) {
		t.Errorf("attribute names %q", names)
	}
	if got := must(ReadAttribute(a, "_dims")); got.Value[0] != 7 {
		t.Errorf("_dims not overwritten: %v", got.Value)
	}
	if got := must(ReadAttribute(a, "b")); !got.Type.Equal(plan.I32) || !reflect.DeepEqual(got.Shape, []uint64{2}) {
		t.Errorf("b not replaced: %+v", got)
	}
	ok(t, CloseDataset(a))
	ok(t, WriteAttribute(f, plan.AttributeSpec{Name: "root", Type: plan.U8, Shape: []uint64{1}, Value: []byte{1}}))
	if names := must(AttributeNames(f)); !reflect.DeepEqual(names, []string{"root"}) {
		t.Errorf("root attribute names %q", names)
	}
	d := must(CreateDataset(f, "/data", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{64}}))
	if _, alloc, err := DatasetOffset(d); err != nil || alloc {
		t.Errorf("unwritten serial dataset: allocated %v err %v", alloc, err)
	}
	payload := randBytes(9, 64)
	ok(t, Write(d, wholeTransfer(plan.U8, []uint64{64}), false, payload))
	off, alloc, err := DatasetOffset(d)
	ok(t, err)
	if !alloc {
		t.Fatal("written dataset has no offset")
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	ReleaseTypeCache() // the particle type is cached, not leaked
	objs := must(Walk(f))
	want := []Object{{"/data", true, false}, {"/grp", false, false}, {"/grp/anchor", true, true}} // the anchor has attributes
	if !reflect.DeepEqual(objs, want) {
		t.Errorf("Walk = %v, want %v", objs, want)
	}
	checkNoLeaks(t, f, mark)
	ok(t, CloseFile(f))
	raw := must(os.ReadFile(path))
	if !bytes.Equal(raw[off:off+64], payload) {
		t.Errorf("data not found at offset %d", off)
	}
	if _, err := Walk(0); !errors.Is(err, ErrInvalidID) {
		t.Errorf("Walk(0): %v", err)
	}
}
