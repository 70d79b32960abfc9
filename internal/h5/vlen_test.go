//go:build cgo && linux

package h5

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestVarLenStrings: a plan.VStr dataset and attribute are variable-length strings in the
// file (h5dump shows STRSIZE H5T_VARIABLE); the plan's fixed strings go in, shorter
// ones without their padding, and come back NUL-padded; a hyperslab reads a part; an
// attribute reads back sized to its longest value; a string longer than the plan's
// width is an error, not a silent cut.
func TestVarLenStrings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vstr.h5")
	f := must(CreateFile(path, Access{}))
	vs := plan.VStr(6)
	d := must(CreateDataset(f, "names", plan.DatasetSpec{Type: vs, Shape: []uint64{4}, Chunk: []uint64{2},
		Filters: []plan.Filter{{ID: plan.FilterDeflate, CDValues: []uint32{4}}}}))
	data := []byte("alpha\x00bravo!c\x00\x00\x00\x00\x00delta\x00")
	all := &plan.Transfer{MemType: vs, FileType: vs, MemShape: []uint64{4}, FileShape: []uint64{4},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{0}, Count: []uint64{4}}}}}
	ok(t, Write(d, all, false, data))
	ok(t, WriteAttribute(d, plan.AttributeSpec{Name: "units", Type: plan.VStr(8), Shape: []uint64{2}, Value: []byte("m/s\x00\x00\x00\x00\x00kelvin\x00\x00")}))
	ok(t, WriteAttribute(f, plan.AttributeSpec{Name: "code", Type: plan.VStr(3), Value: []byte("sod")}))
	ok(t, CloseDataset(d))
	ok(t, CloseFile(f))

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer func() { ok(t, CloseFile(f)) }()
	d = must(OpenDataset(f, "names"))
	defer func() { ok(t, CloseDataset(d)) }()
	if info := must(DatasetInfo(d)); !info.Type.VarLen || info.Type.Class != plan.String {
		t.Errorf("dataset type %v, want a variable-length string", info.Type)
	}
	got := make([]byte, len(data))
	ok(t, Read(d, all, false, got))
	if !bytes.Equal(got, data) {
		t.Errorf("read %q, want %q", got, data)
	}
	part := &plan.Transfer{MemType: vs, FileType: vs, MemShape: []uint64{2}, FileShape: []uint64{4},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{1}, Count: []uint64{2}}}}}
	got = make([]byte, 12)
	ok(t, Read(d, part, false, got))
	if want := data[6:18]; !bytes.Equal(got, want) {
		t.Errorf("hyperslab read %q, want %q", got, want)
	}
	narrow := *all
	narrow.MemType = plan.VStr(4)
	if err := Read(d, &narrow, false, make([]byte, 16)); err == nil || !strings.Contains(err.Error(), "3 of 4 variable-length strings are longer than the 4 bytes") {
		t.Errorf("narrow read: %v", err)
	}
	a := must(ReadAttribute(d, "units"))
	if !a.Type.Equal(plan.VStr(6)) || !bytes.Equal(a.Value, []byte("m/s\x00\x00\x00kelvin")) {
		t.Errorf("units: %+v %q", a.Type, a.Value)
	}
	if a := must(ReadAttribute(f, "code")); !a.Type.Equal(plan.VStr(3)) || string(a.Value) != "sod" || a.Shape != nil {
		t.Errorf("code: %+v", a)
	}
	if _, err := exec.LookPath("h5dump"); err != nil {
		return // the binding's own reads above are the check; h5dump adds the file's view
	}
	out, err := exec.Command("h5dump", "-H", path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5dump: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "STRSIZE H5T_VARIABLE;"); n != 3 {
		t.Errorf("h5dump shows %d variable-length string types, want 3:\n%s", n, out)
	}
}

// TestVarLenStringsMulti: a multi-dataset call (HDF5 1.14) writes and reads variable-length
// strings beside numbers, each dataset staged as a single transfer is; 1.10 builds refuse
// the call with ErrNoMultiDataset.
func TestVarLenStringsMulti(t *testing.T) {
	path := filepath.Join(t.TempDir(), "multi.h5")
	f := must(CreateFile(path, Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	vs := plan.VStr(4)
	s := must(CreateDataset(f, "s", plan.DatasetSpec{Type: vs, Shape: []uint64{3}}))
	x := must(CreateDataset(f, "x", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{3}}))
	defer func() { ok(t, CloseDataset(s)); ok(t, CloseDataset(x)) }()
	all := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{0}, Count: []uint64{3}}}}
	ts := []*plan.Transfer{
		{MemType: vs, FileType: vs, MemShape: []uint64{3}, FileShape: []uint64{3}, Selection: all},
		{MemType: plan.U8, FileType: plan.U8, MemShape: []uint64{3}, FileShape: []uint64{3}, Selection: all},
	}
	strs, nums := []byte("ab\x00\x00cdefg\x00\x00\x00"), []byte{1, 2, 3}
	err := TransferMulti([]ID{s, x}, ts, false, [][]byte{strs, nums}, true)
	if !has114 {
		if !errors.Is(err, ErrNoMultiDataset) {
			t.Errorf("multi-dataset write on HDF5 1.10: %v, want ErrNoMultiDataset", err)
		}
		return
	}
	ok(t, err)
	gotS, gotX := make([]byte, len(strs)), make([]byte, 3)
	ok(t, TransferMulti([]ID{s, x}, ts, false, [][]byte{gotS, gotX}, false))
	if !bytes.Equal(gotS, strs) || !bytes.Equal(gotX, nums) {
		t.Errorf("read %q %v, want %q %v", gotS, gotX, strs, nums)
	}
}

// TestReadStoredVarLenAttribute: a reader that takes a variable-length string attribute's
// stored type (ReadAttributeAs with Stored) gets no bytes back, not HDF5's pointers, and
// the strings are reclaimed; a value to verify is an error naming the attribute.
func TestReadStoredVarLenAttribute(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vstr-attr.h5")
	f := must(CreateFile(path, Access{}))
	defer func() { ok(t, CloseFile(f)) }()
	ok(t, WriteAttribute(f, plan.AttributeSpec{Name: "units", Type: plan.VStr(8), Shape: []uint64{2}, Value: []byte("m/s\x00\x00\x00\x00\x00kelvin\x00\x00")}))
	stored := plan.AttributeSpec{Name: "units", Type: plan.Str(8), Shape: []uint64{2}, Stored: true}
	for i := 0; i < 3; i++ { // the reclaim leaves nothing for the next read to trip on
		if got, err := ReadAttributeAs(f, stored); err != nil || got != nil {
			t.Fatalf("ReadAttributeAs(units, stored variable-length type) = %x, %v; want nil, nil", got, err)
		}
	}
	verify := stored
	verify.Value = []byte("m/s\x00\x00\x00\x00\x00kelvin\x00\x00")
	if _, err := ReadAttributeAs(f, verify); err == nil || !strings.Contains(err.Error(), "@units") || !strings.Contains(err.Error(), "variable-length") {
		t.Errorf("ReadAttributeAs(units) verified against fixed bytes: %v, want an error naming the attribute and its variable-length type", err)
	}
}
