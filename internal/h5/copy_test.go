//go:build cgo && linux

package h5

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestCopyCalls: Describe, CreateLike, CopyAttributes, WriteRows and ReadAll round-trip a
// chunked gzip dataset with an attribute into another file, each
// override reaching the new dataset's properties, and close every handle they open.
func TestCopyCalls(t *testing.T) {
	dir := t.TempDir()
	src := must(CreateFile(filepath.Join(dir, "src.h5"), Access{}))
	defer CloseFile(src)
	d := must(CreateDataset(src, "/x", plan.DatasetSpec{Type: plan.I32, Shape: []uint64{5, 2},
		MaxShape: []uint64{plan.MaxUnlimited, 2}, Chunk: []uint64{128, 2}, Deflate: 6}))
	defer CloseDataset(d)
	ok(t, WriteAttribute(d, plan.AttributeSpec{Name: "units", Type: plan.Str(3), Value: []byte("cm\x00")}))
	data := make([]byte, 40)
	for i := range 10 {
		binary.NativeEndian.PutUint32(data[4*i:], uint32(i*7))
	}
	ok(t, WriteRows(d, 0, 5, false, data))

	info := must(Describe(src, "/x", true))
	if info.Type.Desc != "i32" || info.Type.Size != 4 || !slices.Equal(info.Dims, []uint64{5, 2}) ||
		info.Layout != LayoutChunked || !slices.Equal(info.Chunk, []uint64{128, 2}) || info.Deflate != 6 ||
		len(info.Attrs) != 1 || info.Attrs[0].Name != "units" || info.Attrs[0].Type.Size != 3 {
		t.Errorf("Describe /x = %+v", info)
	}

	dst := must(CreateFile(filepath.Join(dir, "dst.h5"), Access{}))
	defer CloseFile(dst)
	mark := newIDMark()
	for _, tc := range []struct {
		name string
		o    Override
	}{
		{"keep", Override{Dims: []uint64{12, 2}, Layout: LayoutChunked, Deflate: -1, FillTime: plan.FillTimeUnset}},
		{"rechunk", Override{Dims: []uint64{12, 2}, Layout: LayoutChunked, Chunk: []uint64{4, 2}, Deflate: 1, FillTime: plan.FillTimeNever}},
		{"plain", Override{Dims: []uint64{12, 2}, Layout: LayoutContiguous, Deflate: -1, FillTime: plan.FillTimeAlloc}},
		{"empty", Override{Dims: []uint64{0, 2}, Layout: LayoutCompact, Deflate: 0, FillTime: plan.FillTimeUnset}},
		{"key", Override{Dims: []uint64{12}, Layout: LayoutChunked, Chunk: []uint64{128}, Deflate: -1, Int32: true}},
	} {
		out := must(CreateLike(dst, "/"+tc.name, d, tc.o))
		ok(t, CopyAttributes(d, out))
		rows := tc.o.Dims[0]
		buf := bytes.Repeat(data[:8], int(rows)) // 12 copies of row 0
		if tc.o.Int32 {
			buf = buf[:4*rows]
		}
		ok(t, WriteRows(out, 0, rows, false, buf))
		got := make([]byte, len(buf))
		ok(t, ReadAll(out, got))
		if !bytes.Equal(got, buf) {
			t.Errorf("%s: read back differs", tc.name)
		}
		ok(t, CloseDataset(out))
		o := must(Describe(dst, "/"+tc.name, true))
		wantDeflate := map[string]int{"keep": 6, "rechunk": 1, "key": 6}[tc.name]
		wantFill := tc.o.FillTime // the template's is HDF5's default, ifset
		if wantFill == plan.FillTimeUnset {
			wantFill = plan.FillTimeIfSet
		}
		if o.Layout != tc.o.Layout || o.Deflate != wantDeflate || o.FillTime != wantFill || !slices.Equal(o.Dims, tc.o.Dims) ||
			(tc.o.Chunk != nil && !slices.Equal(o.Chunk, tc.o.Chunk)) || (tc.o.Int32 != (o.Type.Desc == "i32" && len(o.Dims) == 1)) ||
			len(o.Attrs) != 1 || o.Attrs[0].Name != "units" {
			t.Errorf("%s: %+v", tc.name, o)
		}
		if tc.o.Layout == LayoutChunked && o.MaxDims[0] != plan.MaxUnlimited {
			t.Errorf("%s: chunked max dims %v, want an unlimited first", tc.name, o.MaxDims)
		}
	}
	checkNoLeaks(t, dst, mark)

	if err := WriteRows(d, 4, 2, false, data[:16]); err == nil || !strings.Contains(err.Error(), "beyond 5") {
		t.Errorf("WriteRows past the end: %v", err)
	}
	if err := ReadAll(d, data[:8]); err == nil || !strings.Contains(err.Error(), "buffer of 8 bytes for 40") {
		t.Errorf("ReadAll short buffer: %v", err)
	}
	if _, err := CreateLike(dst, "/bad", d, Override{Dims: []uint64{1, 2}, Layout: LayoutChunked, Deflate: 10}); err == nil {
		t.Error("CreateLike accepted deflate level 10")
	}
}
