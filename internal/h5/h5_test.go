//go:build cgo && linux

package h5

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// particle is the 32-byte VPIC particle of h5bench.
var particle = plan.Struct("particle", 32,
	plan.Field("x", 0, plan.F32),
	plan.Field("y", 4, plan.F32),
	plan.Field("z", 8, plan.F32),
	plan.Field("px", 12, plan.F32),
	plan.Field("py", 16, plan.F32),
	plan.Field("pz", 20, plan.F32),
	plan.Field("id_1", 24, plan.I32),
	plan.Field("id_2", 28, plan.F32),
)

// randBytes returns n deterministic bytes. Float bit patterns may be NaNs: that is fine,
// memory and file types are equal so HDF5 copies bytes without conversion.
func randBytes(seed uint64, n uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// scatter copies mem, element by element, to the selected elements of file in row-major
// order: the pairing HDF5 uses between a memory and a file selection. It is the test's
// oracle, computed from plan.Selection.Runs without HDF5.
func scatter(file []byte, shape []uint64, sel plan.Selection, size int, mem []byte) {
	var m uint64
	for _, r := range sel.Runs(shape) {
		n := r.Len * uint64(size)
		copy(file[r.Start*uint64(size):r.Start*uint64(size)+n], mem[m:m+n])
		m += n
	}
}

// gather is scatter's inverse.
func gather(file []byte, shape []uint64, sel plan.Selection, size int) []byte {
	var out []byte
	for _, r := range sel.Runs(shape) {
		out = append(out, file[r.Start*uint64(size):(r.Start+r.Len)*uint64(size)]...)
	}
	return out
}

// must returns v, panicking on err (a failed setup step ends the test binary with a trace).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// captureStderr returns what fn writes to file descriptor 2 (C's stderr included).
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	ok(t, err)
	defer r.Close()
	saved, err := syscall.Dup(2)
	ok(t, err)
	ok(t, syscall.Dup3(int(w.Fd()), 2, 0))
	fn()
	ok(t, syscall.Dup3(saved, 2, 0))
	syscall.Close(saved)
	w.Close()
	out, err := io.ReadAll(r)
	ok(t, err)
	return string(out)
}

// checkNoLeaks fails if the file has open objects or a dataspace, property list or
// datatype created since mark is still open.
func checkNoLeaks(t *testing.T, f ID, mark idMark) {
	t.Helper()
	if n := must(ObjectCount(f)); n != 0 {
		t.Errorf("ObjectCount = %d, want 0", n)
	}
	open, created := leakedSince(mark, newIDMark())
	if len(open) > 0 {
		t.Errorf("%d of %d dataspaces, property lists and datatypes created are still open: %v", len(open), created, open)
		return
	}
	if created == 0 {
		t.Errorf("leak check is vacuous: no handle created")
	}
	t.Logf("%d handles created, all closed", created)
}

func wholeTransfer(typ plan.Type, shape []uint64) *plan.Transfer {
	return &plan.Transfer{MemType: typ, MemShape: shape, FileShape: shape, Selection: plan.All(shape)}
}

// TestVersion checks, inside the process, that the HDF5 loaded is the one compiled
// against (H5get_libversion equals the headers' version), that it belongs to the build
// the Makefile's switch asked for (H5PROXY_HDF5, default 1.10), and that exactly one HDF5
// core library is loaded.
func TestVersion(t *testing.T) {
	build := os.Getenv("H5PROXY_HDF5")
	if build == "" {
		build = "1.10"
	}
	v := Version()
	if !strings.HasPrefix(v, build+".") || Build() != build {
		t.Errorf("Version() = %q, Build() = %q, want the build HDF5=%s", v, Build(), build)
	}
	if hv := HeaderVersion(); v != hv {
		t.Errorf("library %s loaded, headers %s compiled against", v, hv)
	}
	libs := LoadedLibraries()
	if len(libs) != 1 {
		t.Fatalf("HDF5 core libraries loaded: %q, want exactly one", libs)
	}
	t.Logf("HDF5 %s (build %s) from %s", v, Build(), libs[0])
}

// TestAtomicAndCompoundRoundTrip writes whole datasets of every class and reads them back,
// also after reopening the file, read-only and through the core driver.
func TestAtomicAndCompoundRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "types.h5")
	f := must(CreateFile(path, Access{}))
	g := must(CreateGroup(f, "/Timestep_0"))
	types := map[string]plan.Type{
		"f32": plan.F32, "f64": plan.F64, "i32": plan.I32, "i64": plan.I64,
		"u64": plan.U64, "u8": plan.U8, "i8": plan.I8, "u32": plan.U32, "str": plan.Str(12), "particle": particle,
	}
	shape := []uint64{17}
	want := map[string][]byte{}
	seed := uint64(1)
	for name, typ := range types {
		d := must(CreateDataset(g, name, plan.DatasetSpec{Type: typ, Shape: shape}))
		buf := randBytes(seed, shape[0]*uint64(typ.Size))
		seed++
		want[name] = buf
		ok(t, Write(d, wholeTransfer(typ, shape), false, buf))
		got := make([]byte, len(buf))
		ok(t, Read(d, wholeTransfer(typ, shape), false, got))
		if !bytes.Equal(got, buf) {
			t.Errorf("%s: read back differs", name)
		}
		info := must(DatasetInfo(d))
		wantInfo := Info{Type: typ, Shape: shape, MaxShape: shape}
		if typ.Class == plan.Compound {
			wantInfo.Type.Name = "" // names of compounds are not stored
		}
		if !reflect.DeepEqual(info, wantInfo) {
			t.Errorf("%s: DatasetInfo = %+v, want %+v", name, info, wantInfo)
		}
		if !info.Type.Equal(typ) {
			t.Errorf("%s: type %s, want %s", name, info.Type, typ)
		}
		ok(t, CloseDataset(d))
	}
	ok(t, CloseGroup(g))
	if n := must(ObjectCount(f)); n != 0 {
		t.Errorf("ObjectCount = %d before close", n)
	}
	ok(t, FlushFile(f, true))
	ok(t, FlushFile(f, false))
	ok(t, CloseFile(f))

	for _, a := range []Access{
		{FileSpec: plan.FileSpec{ReadOnly: true}},
		{FileSpec: plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{Core: true}}},
		{}, // read-write
	} {
		f := must(OpenFile(path, a))
		for name, typ := range types {
			d := must(OpenDataset(f, "/Timestep_0/"+name))
			if s := must(DatasetShape(d)); !reflect.DeepEqual(s, shape) {
				t.Errorf("DatasetShape = %v", s)
			}
			got := make([]byte, len(want[name]))
			ok(t, Read(d, wholeTransfer(typ, shape), false, got))
			if !bytes.Equal(got, want[name]) {
				t.Errorf("reopened (%+v) %s: read back differs", a, name)
			}
			ok(t, CloseDataset(d))
		}
		ok(t, CloseFile(f))
	}
}

// TestSelections writes with hyperslab unions and strides and checks every byte of the
// file against an oracle computed from plan.Selection.Runs.
func TestSelections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel.h5")
	f := must(CreateFile(path, Access{}))
	defer func() { ok(t, CloseFile(f)) }()

	cases := []struct {
		name  string
		typ   plan.Type
		shape []uint64
		sel   plan.Selection
	}{
		{"union1d", plan.I32, []uint64{20}, plan.Selection{Blocks: []plan.Hyperslab{
			plan.Block([]uint64{0}, []uint64{4}), plan.Block([]uint64{10}, []uint64{5})}}},
		{"strided", plan.U8, []uint64{20}, plan.Selection{Blocks: []plan.Hyperslab{
			{Start: []uint64{1}, Stride: []uint64{3}, Count: []uint64{5}, Block: []uint64{2}}}}},
		{"union2d", plan.F64, []uint64{6, 8}, plan.Selection{Blocks: []plan.Hyperslab{
			plan.Block([]uint64{0, 0}, []uint64{2, 3}), plan.Block([]uint64{3, 4}, []uint64{3, 4})}}},
		// Overlapping blocks: the union counts shared elements once.
		{"overlap2d", plan.I64, []uint64{5, 5}, plan.Selection{Blocks: []plan.Hyperslab{
			plan.Block([]uint64{0, 0}, []uint64{3, 3}), plan.Block([]uint64{2, 2}, []uint64{3, 3})}}},
		{"strided2d", particle, []uint64{7, 9}, plan.Selection{Blocks: []plan.Hyperslab{
			{Start: []uint64{1, 0}, Stride: []uint64{3, 4}, Count: []uint64{2, 3}, Block: []uint64{2, 1}},
			plan.Block([]uint64{0, 8}, []uint64{7, 1})}}},
		// One H5Sselect_elements: the points pair with memory in list (row-major) order.
		{"points2d", plan.I32, []uint64{4, 6}, plan.PointList([][]uint64{{0, 1}, {0, 5}, {2, 0}, {3, 3}, {3, 4}})},
		// H5S_ALL for both spaces.
		{"whole2d", plan.F32, []uint64{3, 5}, plan.WholeSpace([]uint64{3, 5})},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.sel.Validate(c.shape); err != nil {
				t.Fatal(err)
			}
			size := c.typ.Size
			d := must(CreateDataset(f, c.name, plan.DatasetSpec{Type: c.typ, Shape: c.shape}))
			defer func() { ok(t, CloseDataset(d)) }()

			// Start from known contents so that unselected elements are checked too.
			all := randBytes(uint64(100+i), plan.Product(c.shape)*uint64(size))
			ok(t, Write(d, wholeTransfer(c.typ, c.shape), false, all))

			n := c.sel.NPoints(c.shape)
			mem := randBytes(uint64(200+i), n*uint64(size))
			tr := &plan.Transfer{MemType: c.typ, MemShape: []uint64{n}, FileShape: c.shape, Selection: c.sel}
			if c.sel.Kind == plan.Whole {
				tr.MemShape = c.shape
			}
			ok(t, Write(d, tr, false, mem))

			want := append([]byte(nil), all...)
			scatter(want, c.shape, c.sel, size, mem)
			got := make([]byte, len(all))
			ok(t, Read(d, wholeTransfer(c.typ, c.shape), false, got))
			if !bytes.Equal(got, want) {
				t.Fatalf("file contents differ from the oracle")
			}
			if bytes.Equal(want, all) {
				t.Fatalf("test is vacuous: the selection changed nothing")
			}
			if c.sel.Kind == plan.Whole {
				return // the rest reads back part of the dataspace
			}

			// Read the same selection back, into a buffer larger than needed.
			back := make([]byte, len(mem)+5)
			ok(t, Read(d, tr, false, back))
			if !bytes.Equal(back[:len(mem)], mem) || !bytes.Equal(back[len(mem):], make([]byte, 5)) {
				t.Fatalf("selection read back differs")
			}
			if !bytes.Equal(gather(want, c.shape, c.sel, size), mem) {
				t.Fatalf("oracle inconsistent")
			}

			// An empty selection transfers nothing, with or without a buffer.
			none := &plan.Transfer{MemType: c.typ, FileShape: c.shape, Selection: plan.None()}
			ok(t, Write(d, none, false, nil))
			ok(t, Read(d, none, false, nil))
			ok(t, Write(d, none, true, []byte{1})) // collective on a serial file: H5P_DEFAULT
			ok(t, Read(d, wholeTransfer(c.typ, c.shape), true, got))
			if !bytes.Equal(got, want) {
				t.Fatalf("empty selection changed the file")
			}
		})
	}
}

// TestMemorySelection writes a 2-D block from the interior of a buffer with two ghost
// cells a side and reads it back into another such buffer: the file holds the interior,
// the ghosts of the read buffer stay untouched.
func TestMemorySelection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghost.h5")
	f := must(CreateFile(path, Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	shape, mem := []uint64{6, 8}, []uint64{7, 6} // file; memory: 3x2 interior + 2 ghosts a side
	d := must(CreateDataset(f, "g", plan.DatasetSpec{Type: plan.I32, Shape: shape}))
	defer func() { ok(t, CloseDataset(d)) }()
	fileSel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{1, 4}, []uint64{3, 2})}}
	memSel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{2, 2}, []uint64{3, 2})}}
	tr := &plan.Transfer{MemType: plan.I32, MemShape: mem, FileShape: shape, Selection: fileSel, MemSelection: &memSel}
	pl := plan.Plan{Ops: []plan.Op{{Kind: plan.Write, Path: "/g", Transfer: tr}}}
	ok(t, pl.Validate())
	buf := randBytes(9, plan.Product(mem)*4)
	ok(t, Write(d, tr, false, buf))

	got := make([]byte, plan.Product(shape)*4)
	ok(t, Read(d, wholeTransfer(plan.I32, shape), false, got))
	want := make([]byte, len(got))
	scatter(want, shape, fileSel, 4, gather(buf, mem, memSel, 4))
	if !bytes.Equal(got, want) {
		t.Fatalf("the file is not the buffer's interior")
	}
	back := make([]byte, len(buf))
	for i := range back {
		back[i] = 0xee
	}
	ok(t, Read(d, tr, false, back))
	if !bytes.Equal(gather(back, mem, memSel, 4), gather(buf, mem, memSel, 4)) {
		t.Fatalf("interior read back differs")
	}
	inner := gather(back, mem, memSel, 4)
	n := 0
	for _, b := range back {
		if b == 0xee {
			n++
		}
	}
	if want := (len(back) - len(inner)); n < want {
		t.Fatalf("the read touched ghost cells: %d of %d ghost bytes left", n, want)
	}
}

// TestChunkedDataset round-trips chunking, deflate, unlimited dims and fill time.
func TestChunkedDataset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chunk.h5")
	f := must(CreateFile(path, Access{}))
	spec := plan.DatasetSpec{
		Type: plan.F32, Shape: []uint64{100, 6}, MaxShape: []uint64{plan.MaxUnlimited, 6},
		Chunk: []uint64{10, 3}, Deflate: 6, FillNever: true,
	}
	d := must(CreateDataset(f, "/c", spec))
	buf := randBytes(3, 100*6*4)
	ok(t, Write(d, wholeTransfer(plan.F32, spec.Shape), false, buf))
	ok(t, CloseDataset(d))

	d2 := must(CreateDataset(f, "/plain", plan.DatasetSpec{Type: plan.U64, Shape: []uint64{3}, Chunk: []uint64{2}}))
	ok(t, CloseDataset(d2))
	// E3SM-IO's dcpl: fill value undefined, fill time never, on contiguous and chunked.
	for _, name := range []string{"/undef", "/undef_chunked"} {
		us := plan.DatasetSpec{Type: plan.I8, Shape: []uint64{4}, FillNever: true, FillUndefined: true}
		if name == "/undef_chunked" {
			us.Shape, us.MaxShape, us.Chunk = []uint64{0, 4}, []uint64{plan.MaxUnlimited, 4}, []uint64{1, 4}
		}
		ok(t, CloseDataset(must(CreateDataset(f, name, us))))
	}
	scalar := must(CreateDataset(f, "/scalar", plan.DatasetSpec{Type: plan.F64}))
	one := randBytes(4, 8)
	ok(t, Write(scalar, &plan.Transfer{MemType: plan.F64, Selection: plan.All(nil)}, false, one))
	ok(t, CloseDataset(scalar))
	ok(t, CloseFile(f))

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer func() { ok(t, CloseFile(f)) }()
	d = must(OpenDataset(f, "/c"))
	info := must(DatasetInfo(d))
	want := Info{Type: plan.F32, Shape: spec.Shape, MaxShape: spec.MaxShape, Chunk: spec.Chunk, Deflate: 6, FillNever: true}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("DatasetInfo = %+v, want %+v", info, want)
	}
	got := make([]byte, len(buf))
	ok(t, Read(d, wholeTransfer(plan.F32, spec.Shape), false, got))
	if !bytes.Equal(got, buf) {
		t.Error("chunked read back differs")
	}
	ok(t, CloseDataset(d))

	d2 = must(OpenDataset(f, "/plain"))
	info = must(DatasetInfo(d2))
	want = Info{Type: plan.U64, Shape: []uint64{3}, MaxShape: []uint64{3}, Chunk: []uint64{2}}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("DatasetInfo = %+v, want %+v", info, want)
	}
	ok(t, CloseDataset(d2))

	for _, name := range []string{"/undef", "/undef_chunked"} {
		u := must(OpenDataset(f, name))
		info = must(DatasetInfo(u))
		if !info.FillUndefined || !info.FillNever || !info.Type.Equal(plan.I8) {
			t.Errorf("%s: DatasetInfo = %+v, want i8, fill value undefined, fill time never", name, info)
		}
		ok(t, CloseDataset(u))
	}

	scalar = must(OpenDataset(f, "/scalar"))
	info = must(DatasetInfo(scalar))
	if len(info.Shape) != 0 || len(info.MaxShape) != 0 || info.Chunk != nil || !info.Type.Equal(plan.F64) {
		t.Errorf("scalar DatasetInfo = %+v", info)
	}
	got = make([]byte, 8)
	ok(t, Read(scalar, &plan.Transfer{MemType: plan.F64, Selection: plan.All(nil)}, false, got))
	if !bytes.Equal(got, one) {
		t.Error("scalar read back differs")
	}
	ok(t, CloseDataset(scalar))
}

func TestAttributes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "attr.h5")
	f := must(CreateFile(path, Access{}))
	g := must(CreateGroup(f, "/Timestep_0"))
	d := must(CreateDataset(g, "x", plan.DatasetSpec{Type: plan.F32, Shape: []uint64{4}}))
	attrs := []plan.AttributeSpec{
		{Name: "title", Type: plan.Str(8), Value: []byte("vpic\x00\x00\x00\x00")},
		{Name: "nparticles", Type: plan.I32, Shape: []uint64{1}, Value: []byte{0x40, 0x42, 0x0f, 0}},
		{Name: "origin", Type: plan.F64, Shape: []uint64{3}, Value: randBytes(9, 24)},
		{Name: "p", Type: particle, Value: randBytes(10, 32)},
	}
	for _, loc := range []ID{f, g, d} {
		for _, a := range attrs {
			ok(t, WriteAttribute(loc, a))
		}
		if err := WriteAttribute(loc, attrs[0]); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("second WriteAttribute: %v, want already exists", err)
		}
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	ok(t, CloseFile(f))

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer func() { ok(t, CloseFile(f)) }()
	g = must(OpenGroup(f, "/Timestep_0"))
	d = must(OpenDataset(g, "x"))
	for _, loc := range []ID{f, g, d} {
		for _, a := range attrs {
			got := must(ReadAttribute(loc, a.Name))
			want := a
			want.Type.Name = ""
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadAttribute(%s) = %+v, want %+v", a.Name, got, want)
			}
		}
		if _, err := ReadAttribute(loc, "missing"); err == nil {
			t.Error("ReadAttribute(missing) succeeded")
		}
		readAttributesAs(t, loc, attrs)
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	if n := must(ObjectCount(f)); n != 0 {
		t.Errorf("ObjectCount = %d", n)
	}
}

// readAttributesAs reads attrs back from loc as a program does (ReadAttributeAs): each
// verified against its value, with a memory type of its own type or its stored type; a
// wider memory type converts (nparticles as an int64); a wrong value, a missing attribute
// and a stored type longer than the reader thinks are errors naming the attribute.
func readAttributesAs(t *testing.T, loc ID, attrs []plan.AttributeSpec) {
	t.Helper()
	for _, a := range attrs {
		got := must(ReadAttributeAs(loc, a))
		if !bytes.Equal(got, a.Value) {
			t.Errorf("ReadAttributeAs(%s) = %x, want %x", a.Name, got, a.Value)
		}
		stored := a
		stored.Stored = true
		got = must(ReadAttributeAs(loc, stored))
		if !bytes.Equal(got, a.Value) {
			t.Errorf("ReadAttributeAs(%s, stored type) = %x, want %x", a.Name, got, a.Value)
		}
		unchecked := a
		unchecked.Value = nil
		if got = must(ReadAttributeAs(loc, unchecked)); !bytes.Equal(got, a.Value) {
			t.Errorf("ReadAttributeAs(%s, unverified) = %x, want %x", a.Name, got, a.Value)
		}
		bad := a
		bad.Value = append([]byte(nil), a.Value...)
		bad.Value[len(bad.Value)-1] ^= 0xff
		if _, err := ReadAttributeAs(loc, bad); err == nil || !strings.Contains(err.Error(), "@"+a.Name) || !strings.Contains(err.Error(), "the writer wrote") {
			t.Errorf("ReadAttributeAs(%s) of a different value: %v, want an error naming the attribute", a.Name, err)
		}
	}
	wide := plan.AttributeSpec{Name: "nparticles", Type: plan.I64, Shape: []uint64{1}, Value: []byte{0x40, 0x42, 0x0f, 0, 0, 0, 0, 0}}
	ok(t, func() error { _, err := ReadAttributeAs(loc, wide); return err }())
	short := plan.AttributeSpec{Name: "title", Type: plan.Str(4), Value: []byte("vpic"), Stored: true}
	if _, err := ReadAttributeAs(loc, short); err == nil || !strings.Contains(err.Error(), "@title") {
		t.Errorf("ReadAttributeAs(title) with a stored type of 8 bytes, 4 expected: %v", err)
	}
	// A variable-length memory type would read pointers into library memory as bytes.
	vlen := plan.AttributeSpec{Name: "title", Type: plan.VStr(8)}
	if _, err := ReadAttributeAs(loc, vlen); err == nil || !strings.Contains(err.Error(), "attribute title: a read takes a fixed-size type") {
		t.Errorf("ReadAttributeAs(title) with a variable-length memory type: %v, want the type refused", err)
	}
	if _, err := ReadAttributeAs(loc, plan.AttributeSpec{Name: "missing", Type: plan.I32}); err == nil || !strings.Contains(err.Error(), "H5Aopen @missing") {
		t.Errorf("ReadAttributeAs(missing): %v", err)
	}
}

// TestOpenObject opens a group and a dataset with H5Oopen (with and without collective
// metadata reads on the link access list), writes an attribute through each, closes them
// with H5Oclose and reads the attributes back; a missing path and a wrong kind of
// identifier are errors, and nothing leaks.
func TestOpenObject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "obj.h5")
	f := must(CreateFile(path, Access{}))
	ok(t, CloseGroup(must(CreateGroup(f, "/g"))))
	ok(t, CloseDataset(must(CreateDataset(f, "/g/x", plan.DatasetSpec{Type: plan.F32, Shape: []uint64{4}}))))
	mark := newIDMark()
	a := plan.AttributeSpec{Name: "unitSI", Type: plan.F64, Value: randBytes(3, 8)}
	for i, p := range []string{"/g", "/g/x"} {
		o := must(OpenObject(f, p, i == 1))
		ok(t, WriteAttribute(o, a))
		ok(t, CloseObject(o))
	}
	if _, err := OpenObject(f, "/missing", false); err == nil || !strings.Contains(err.Error(), "H5Oopen /missing") {
		t.Errorf("OpenObject(/missing): %v", err)
	}
	if err := CloseObject(f); err == nil {
		t.Error("CloseObject of a file identifier succeeded")
	}
	checkNoLeaks(t, f, mark)
	g := must(OpenGroup(f, "/g"))
	d := must(OpenDataset(f, "/g/x"))
	for _, loc := range []ID{g, d} {
		got := must(ReadAttribute(loc, a.Name))
		if !reflect.DeepEqual(got.Value, a.Value) {
			t.Errorf("attribute read back %v, want %v", got.Value, a.Value)
		}
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	ok(t, CloseFile(f))
}

func TestExists(t *testing.T) {
	f := must(CreateFile(filepath.Join(t.TempDir(), "e.h5"), Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	g := must(CreateGroup(f, "/a"))
	ok(t, CloseGroup(must(CreateGroup(f, "/a/b"))))
	ok(t, CloseDataset(must(CreateDataset(g, "b/x", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{1}}))))
	for _, c := range []struct {
		loc  ID
		path string
		want bool
	}{
		{f, "/", true}, {f, "/a", true}, {f, "/a/b/x", true}, {f, "a/b/", true}, {f, "/a//b", true},
		{f, "/nope", false}, {f, "/nope/deeper/still", false}, {f, "/a/b/y", false},
		{g, "b/x", true}, {g, "x", false}, {g, ".", true},
	} {
		if got := must(Exists(c.loc, c.path)); got != c.want {
			t.Errorf("Exists(%d, %q) = %v, want %v", c.loc, c.path, got, c.want)
		}
	}
	ok(t, CloseGroup(g))
}

// TestFileAccessSettings creates and reopens serial files with every FileSpec option.
func TestFileAccessSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fs.h5")
	spec := plan.FileSpec{
		CollMetadataOps: true, CollMetadataWrite: true, AlignThreshold: 1, AlignLen: 4096,
		MDCInitialSize: 16 << 20, MetaBlockSize: 64 << 10, FlushLocal: true,
	}
	f := must(CreateFile(path, Access{FileSpec: spec}))
	d := must(CreateDataset(f, "/x", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{10}}))
	ok(t, Write(d, wholeTransfer(plan.U8, []uint64{10}), true, randBytes(1, 10)))
	ok(t, CloseDataset(d))
	ok(t, FlushFile(f, spec.FlushLocal))
	ok(t, CloseFile(f))
	spec.ReadOnly = true
	spec.MDCInitialSize = 64 << 20 // above the default max_size: widened, not rejected
	f = must(OpenFile(path, Access{FileSpec: spec}))
	ok(t, CloseFile(f))

	// E3SM-IO's settings: libver LATEST writes the newest superblock (version 3 in HDF5
	// 1.10) where the default bounds write version 0; a bounded cache with evictions.
	latest := filepath.Join(t.TempDir(), "latest.h5")
	f = must(CreateFile(latest, Access{FileSpec: plan.FileSpec{LibverLatest: true,
		MDCInitialSize: 32 << 20, MDCMinSize: 32 << 20, MDCMaxSize: 128 << 20, MDCEvictions: true}}))
	ok(t, CloseFile(f))
	for file, want := range map[string]byte{path: 0, latest: 3} {
		head := make([]byte, 9)
		r, err := os.Open(file)
		if err == nil {
			_, err = io.ReadFull(r, head)
			r.Close()
		}
		if err != nil || string(head[:8]) != "\x89HDF\r\n\x1a\n" || head[8] != want {
			t.Errorf("%s: superblock %q (%v), want the HDF5 signature and version %d", file, head, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	if !autoPrintOff() {
		t.Fatal("automatic HDF5 error printing is on")
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-file.h5")
	var err error
	stderr := captureStderr(t, func() { _, err = OpenFile(missing, Access{}) })
	if err == nil {
		t.Fatal("OpenFile of a missing file succeeded")
	}
	if stderr != "" {
		t.Errorf("HDF5 printed to stderr: %q", stderr)
	}
	var he *Error
	if !errors.As(err, &he) || len(he.Stack) < 2 {
		t.Fatalf("error %v is not an *Error with a stack", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, missing) || !strings.Contains(msg, "unable to open file") ||
		!strings.HasPrefix(msg, "h5: H5Fopen "+missing+": ") {
		t.Errorf("error does not name the path and HDF5's message: %s", msg)
	}
	if !strings.HasPrefix(he.Stack[0], "H5Fopen(): ") {
		t.Errorf("stack does not start at the API function: %q", he.Stack)
	}
	t.Logf("missing file: %s", msg)

	path := filepath.Join(dir, "err.h5")
	f := must(CreateFile(path, Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	spec := plan.DatasetSpec{Type: plan.F32, Shape: []uint64{8}}
	d := must(CreateDataset(f, "/x", spec))

	// Warm the type cache, then count handles: error paths must not leak.
	ok(t, CloseDataset(must(CreateDataset(f, "/warm", plan.DatasetSpec{Type: particle, Shape: []uint64{1}, Chunk: []uint64{1}}))))
	ok(t, CloseDataset(must(CreateDataset(f, "/warm2", plan.DatasetSpec{Type: plan.Str(3), Shape: []uint64{1}}))))
	// and the transfer property lists, made on a library's first write.
	ok(t, Write(d, wholeTransfer(plan.F32, spec.Shape), false, make([]byte, 32)))
	mark := newIDMark()

	stderr = captureStderr(t, func() { _, err = CreateDataset(f, "/x", spec) })
	if err == nil || !errors.As(err, &he) || he.Op != "H5Dcreate2 /x" || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second CreateDataset: %v", err)
	}
	if stderr != "" {
		t.Errorf("HDF5 printed to stderr: %q", stderr)
	}
	if _, err := CreateDataset(f, "/nogroup/x", spec); err == nil {
		t.Error("CreateDataset in a missing group succeeded")
	}
	if _, err := CreateDataset(f, "/y", plan.DatasetSpec{Type: particle, Shape: []uint64{4}, MaxShape: []uint64{plan.MaxUnlimited}}); err == nil {
		t.Error("unlimited contiguous dataset succeeded")
	}
	if _, err := CreateDataset(f, "/y", plan.DatasetSpec{Type: plan.F32, Shape: []uint64{4}, Chunk: []uint64{0}, Deflate: 1, FillNever: true}); err == nil {
		t.Error("zero chunk succeeded")
	}
	if _, err := CreateDataset(f, "/y", plan.DatasetSpec{Type: plan.Type{Class: 99, Size: 4}, Shape: []uint64{4}}); err == nil {
		t.Error("unknown type class succeeded")
	}
	if _, err := CreateGroup(f, "/x"); err == nil {
		t.Error("CreateGroup over a dataset succeeded")
	}
	if _, err := OpenDataset(f, "/missing"); err == nil {
		t.Error("OpenDataset of a missing path succeeded")
	}
	if _, err := OpenGroup(f, "/x"); err == nil {
		t.Error("OpenGroup of a dataset succeeded")
	}

	whole := wholeTransfer(plan.F32, spec.Shape)
	if err := Write(d, whole, false, make([]byte, 31)); err == nil || !strings.Contains(err.Error(), "buffer has 31 bytes") {
		t.Errorf("short write buffer: %v", err)
	}
	if err := Read(d, whole, false, nil); err == nil {
		t.Error("read into nil buffer succeeded")
	}
	bad := &plan.Transfer{MemType: plan.F32, MemShape: []uint64{2},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0, 0}, []uint64{1, 2})}}}
	if err := Write(d, bad, false, make([]byte, 8)); err == nil || !strings.Contains(err.Error(), "rank") {
		t.Errorf("rank mismatch: %v", err)
	}
	outside := &plan.Transfer{MemType: plan.F32, MemShape: []uint64{4},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{6}, []uint64{4})}}}
	if err := Write(d, outside, false, make([]byte, 16)); err == nil || !errors.As(err, &he) || he.Op != "H5Dwrite /x" {
		t.Errorf("selection outside the extent: %v", err)
	}
	mismatch := &plan.Transfer{MemType: plan.F32, MemShape: []uint64{3}, Selection: plan.All(spec.Shape)}
	if err := Write(d, mismatch, false, make([]byte, 12)); err == nil {
		t.Error("memory/file point count mismatch succeeded")
	}
	if err := Write(d, nil, false, nil); err == nil {
		t.Error("nil transfer succeeded")
	}
	if err := WriteAttribute(d, plan.AttributeSpec{Name: "a", Type: plan.I32, Shape: []uint64{2}, Value: make([]byte, 4)}); err == nil {
		t.Error("short attribute value succeeded")
	}
	ok(t, WriteAttribute(d, plan.AttributeSpec{Name: "a", Type: plan.I32, Value: make([]byte, 4)}))
	if err := WriteAttribute(d, plan.AttributeSpec{Name: "a", Type: plan.I32, Value: make([]byte, 4)}); err == nil {
		t.Error("attribute written twice")
	}
	if _, err := OpenFile(path, Access{FileSpec: plan.FileSpec{Parallel: true}}); err == nil || !strings.Contains(err.Error(), "MPI") {
		t.Errorf("Parallel without MPI: %v", err)
	}
	if _, err := CreateFile(filepath.Join(dir, "missing-dir", "x.h5"), Access{}); err == nil {
		t.Error("CreateFile in a missing directory succeeded")
	}
	ok(t, CloseDataset(d))
	checkNoLeaks(t, f, mark)
}

func TestInvalidIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ids.h5")
	f := must(CreateFile(path, Access{}))
	g := must(CreateGroup(f, "/g"))
	d := must(CreateDataset(f, "/d", plan.DatasetSpec{Type: plan.I32, Shape: []uint64{2}}))
	closedG := must(CreateGroup(f, "/closed"))
	ok(t, CloseGroup(closedG))
	closedD := must(OpenDataset(f, "/d"))
	ok(t, CloseDataset(closedD))
	closedF := must(OpenFile(path, Access{}))
	ok(t, CloseFile(closedF))

	tr := wholeTransfer(plan.I32, []uint64{2})
	buf := make([]byte, 8)
	attr := plan.AttributeSpec{Name: "a", Type: plan.I32, Value: make([]byte, 4)}
	calls := map[string]func(ID) error{
		"FlushFile":   func(id ID) error { return FlushFile(id, false) },
		"CloseFile":   CloseFile,
		"ObjectCount": func(id ID) error { _, err := ObjectCount(id); return err },
		"CreateGroup": func(id ID) error { _, err := CreateGroup(id, "/n"); return err },
		"OpenGroup":   func(id ID) error { _, err := OpenGroup(id, "/g"); return err },
		"CloseGroup":  CloseGroup,
		"CreateDataset": func(id ID) error {
			_, err := CreateDataset(id, "/n", plan.DatasetSpec{Type: plan.I32, Shape: []uint64{1}})
			return err
		},
		"OpenDataset":    func(id ID) error { _, err := OpenDataset(id, "/d"); return err },
		"CloseDataset":   CloseDataset,
		"DatasetInfo":    func(id ID) error { _, err := DatasetInfo(id); return err },
		"DatasetShape":   func(id ID) error { _, err := DatasetShape(id); return err },
		"WriteAttribute": func(id ID) error { return WriteAttribute(id, attr) },
		"ReadAttribute":  func(id ID) error { _, err := ReadAttribute(id, "a"); return err },
		"Write":          func(id ID) error { return Write(id, tr, false, buf) },
		"Read":           func(id ID) error { return Read(id, tr, false, buf) },
		"Exists":         func(id ID) error { _, err := Exists(id, "/g"); return err },
	}
	// wrongKind is an open identifier of a kind the call does not accept.
	wrongKind := map[string]ID{
		"FlushFile": g, "CloseFile": d, "ObjectCount": g, "CreateGroup": d, "OpenGroup": d,
		"CloseGroup": d, "CreateDataset": d, "OpenDataset": d, "CloseDataset": g,
		"DatasetInfo": g, "DatasetShape": f, "Write": g, "Read": f, "Exists": d,
	}
	for name, call := range calls {
		// A missing wrongKind entry is 0, which is covered anyway.
		for _, id := range []ID{0, -1, 1 << 40, closedF, closedG, closedD, wrongKind[name]} {
			err := call(id)
			if !errors.Is(err, ErrInvalidID) {
				t.Errorf("%s(%d): %v, want ErrInvalidID", name, id, err)
			}
		}
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	if n := must(ObjectCount(f)); n != 0 {
		t.Errorf("ObjectCount = %d", n)
	}
	ok(t, CloseFile(f))
	if err := CloseFile(f); !errors.Is(err, ErrInvalidID) {
		t.Errorf("double CloseFile: %v", err)
	}
}

func TestObjectCount(t *testing.T) {
	f := must(CreateFile(filepath.Join(t.TempDir(), "n.h5"), Access{}))
	if n := must(ObjectCount(f)); n != 0 {
		t.Fatalf("fresh file: ObjectCount = %d", n)
	}
	g := must(CreateGroup(f, "/g"))
	d := must(CreateDataset(g, "d", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{1}}))
	if n := must(ObjectCount(f)); n != 2 {
		t.Errorf("ObjectCount = %d, want 2", n)
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	if n := must(ObjectCount(f)); n != 0 {
		t.Errorf("ObjectCount = %d after closing, want 0", n)
	}
	ok(t, CloseFile(f))
}

func TestTypeCache(t *testing.T) {
	f := must(CreateFile(filepath.Join(t.TempDir(), "tc.h5"), Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	nested := plan.Struct("outer", 48,
		plan.Field("p", 0, particle), plan.Field("tag", 32, plan.Str(8)), plan.Field("n", 40, plan.U64))
	// The transfer list of independent writes (on HDF5 1.14 a cached list of the package's
	// own, H5P_DEFAULT on 1.10) is made again before the marks: only datatypes count.
	w := must(CreateDataset(f, "/warm", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{1}}))
	defer func() { ok(t, CloseDataset(w)) }()
	for round := 0; round < 2; round++ {
		ReleaseTypeCache() // other tests may have cached types
		ok(t, Write(w, wholeTransfer(plan.U8, []uint64{1}), false, []byte{1}))
		before := newIDMark()
		name := []string{"/a", "/b"}[round]
		d := must(CreateDataset(f, name, plan.DatasetSpec{Type: nested, Shape: []uint64{3}}))
		buf := randBytes(uint64(round), 3*48)
		ok(t, Write(d, wholeTransfer(nested, []uint64{3}), false, buf))
		after := newIDMark()
		ok(t, Write(d, wholeTransfer(nested, []uint64{3}), false, buf))
		if again := newIDMark(); again[2] != after[2]+1 {
			t.Errorf("second write created %d datatypes, want 0 (cached)", again[2]-after[2]-1)
		}
		if open, _ := leakedSince(before, after); len(open) != 3 { // particle, str(8), outer
			t.Errorf("%d cached datatypes open (%v), want 3", len(open), open)
		}
		got := make([]byte, len(buf))
		ok(t, Read(d, wholeTransfer(nested, []uint64{3}), false, got))
		if !bytes.Equal(got, buf) {
			t.Error("nested compound read back differs")
		}
		info := must(DatasetInfo(d))
		if !info.Type.Equal(nested) {
			t.Errorf("nested type %s, want %s", info.Type, nested)
		}
		ok(t, CloseDataset(d))
		ReleaseTypeCache()
		if open, _ := leakedSince(before, newIDMark()); len(open) != 0 {
			t.Errorf("ReleaseTypeCache left %v open", open)
		}
	}
}

// TestNoLeaks runs every call successfully inside a window and checks that each dataspace,
// property list and datatype created in it is closed afterwards.
func TestNoLeaks(t *testing.T) {
	ReleaseTypeCache()
	mark := newIDMark()
	path := filepath.Join(t.TempDir(), "leak.h5")
	spec := plan.FileSpec{AlignLen: 512, MDCInitialSize: 4 << 20, MetaBlockSize: 4096, CollMetadataOps: true}
	f := must(CreateFile(path, Access{FileSpec: spec}))
	g := must(CreateGroup(f, "/g"))
	shape := []uint64{4, 6}
	ds := plan.DatasetSpec{Type: particle, Shape: shape, MaxShape: []uint64{plan.MaxUnlimited, 6}, Chunk: []uint64{2, 3}, Deflate: 1, FillNever: true}
	d := must(CreateDataset(g, "p", ds))
	sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0, 0}, []uint64{2, 2}), plan.Block([]uint64{1, 3}, []uint64{3, 3})}}
	n := sel.NPoints(shape)
	tr := &plan.Transfer{MemType: particle, MemShape: []uint64{n}, FileShape: shape, Selection: sel}
	buf := randBytes(5, n*32)
	ok(t, Write(d, tr, false, buf))
	ok(t, Read(d, tr, true, buf))
	none := &plan.Transfer{MemType: particle, Selection: plan.None()}
	ok(t, Write(d, none, true, nil))
	must(DatasetInfo(d))
	must(DatasetShape(d))
	ok(t, WriteAttribute(d, plan.AttributeSpec{Name: "s", Type: plan.Str(5), Value: []byte("abcd\x00")}))
	ok(t, WriteAttribute(g, plan.AttributeSpec{Name: "v", Type: plan.F64, Shape: []uint64{2}, Value: make([]byte, 16)}))
	must(ReadAttribute(d, "s"))
	must(ReadAttribute(g, "v"))
	must(Exists(f, "/g/p"))
	ok(t, FlushFile(f, true))
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	must(ObjectCount(f))
	ok(t, CloseFile(f))
	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{Core: true}}}))
	d = must(OpenDataset(f, "/g/p"))
	ok(t, Read(d, tr, false, buf))
	ok(t, CloseDataset(d))
	ok(t, CloseFile(f))
	ReleaseTypeCache()
	open, created := leakedSince(mark, newIDMark())
	if len(open) > 0 || created < 10 {
		t.Errorf("%d of %d handles created are still open: %v", len(open), created, open)
	}
}

// TestHoldHeap: glibc accepts the trim threshold (the effect, fewer page faults, is
// measured in docs/nova.md, not testable from Go).
func TestHoldHeap(t *testing.T) {
	if err := HoldHeap(256 << 20); err != nil {
		t.Fatal(err)
	}
}

// TestErrorsQuietOnFreshThreads fails a call on new OS threads: a thread-safe HDF5 keeps
// automatic error printing per thread, so turning it off once is not enough there.
func TestErrorsQuietOnFreshThreads(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-file.h5")
	stderr := captureStderr(t, func() {
		for i := 0; i < 6; i++ {
			done := make(chan error)
			go func() {
				// Exiting while locked retires the thread, so the next goroutine
				// runs on a thread HDF5 has not seen.
				runtime.LockOSThread()
				_, err := OpenFile(missing, Access{})
				done <- err
			}()
			if err := <-done; err == nil {
				t.Error("OpenFile of a missing file succeeded")
			}
		}
	})
	if stderr != "" {
		t.Errorf("HDF5 printed to stderr from a fresh thread: %q", stderr)
	}
}

// TestAllocated: a serial file's contiguous dataset is allocated late (HDF5's default
// there): no storage until its first write.
func TestAllocated(t *testing.T) {
	f := must(CreateFile(filepath.Join(t.TempDir(), "alloc.h5"), Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	spec := plan.DatasetSpec{Type: plan.F32, Shape: []uint64{8}}
	d := must(CreateDataset(f, "/x", spec))
	defer func() { ok(t, CloseDataset(d)) }()
	if got := must(Allocated(d)); got {
		t.Error("a dataset never written has storage")
	}
	ok(t, Write(d, wholeTransfer(plan.F32, spec.Shape), false, make([]byte, 32)))
	if got := must(Allocated(d)); !got {
		t.Error("a written dataset has no storage")
	}
	if _, err := Allocated(f); err == nil || !strings.Contains(err.Error(), "Allocated") {
		t.Errorf("Allocated of a file: %v, want an error naming the call", err)
	}
}
