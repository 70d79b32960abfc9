//go:build cgo && linux

package h5

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestVarLenStringsInCompounds: a compound with variable-length string members (one in a
// nested compound) is the C struct HDF5 takes, a char * per such member; the plan's
// elements go in (fixed strings, shorter ones without their padding) and come back
// NUL-padded, the other members unchanged; the file's type is the C struct's (h5dump's
// and DatasetInfo's view); an attribute reads back with its strings as long as its
// longest value; a string longer than the plan's member is an error.
func TestVarLenStringsInCompounds(t *testing.T) {
	inner := plan.Struct("in", 16, plan.Field("label", 0, plan.VStr(4)), plan.Field("v", 8, plan.I16))
	rec := plan.Struct("rec", 40, plan.Field("id", 0, plan.I32), plan.Field("name", 8, plan.VStr(6)),
		plan.Field("x", 16, plan.F64), plan.Field("in", 24, inner))
	elem := func(id byte, name, label string, x byte, v byte) []byte {
		e := make([]byte, 40)
		e[0], e[23], e[32] = id, x, v
		copy(e[8:14], name)
		copy(e[24:28], label)
		return e
	}
	data := append(elem(1, "alpha", "ab", 0x40, 7), elem(2, "bravo!", "cdef", 0x3f, 9)...)
	path := filepath.Join(t.TempDir(), "vc.h5")
	f := must(CreateFile(path, Access{}))
	d := must(CreateDataset(f, "recs", plan.DatasetSpec{Type: rec, Shape: []uint64{2}}))
	tr := &plan.Transfer{MemType: rec, FileType: rec, MemShape: []uint64{2}, FileShape: []uint64{2},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{0}, Count: []uint64{2}}}}}
	ok(t, Write(d, tr, false, data))
	ok(t, WriteAttribute(f, plan.AttributeSpec{Name: "meta", Type: rec, Value: elem(7, "sod", "é", 0x41, 3)}))
	ok(t, CloseDataset(d))
	ok(t, CloseFile(f))

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer func() { ok(t, CloseFile(f)) }()
	d = must(OpenDataset(f, "recs"))
	defer func() { ok(t, CloseDataset(d)) }()
	info := must(DatasetInfo(d))
	// The C struct: id@0, name (char *)@8, x@16, in@24 {label (char *)@0, v@8} of 16: 40.
	cinner := plan.Struct("", 16, plan.Field("label", 0, plan.VStr(8)), plan.Field("v", 8, plan.I16))
	cview := plan.Struct("", 40, plan.Field("id", 0, plan.I32), plan.Field("name", 8, plan.VStr(8)), plan.Field("x", 16, plan.F64), plan.Field("in", 24, cinner))
	if !info.Type.Equal(cview) {
		t.Errorf("dataset type %v, want %v", info.Type, cview)
	}
	got := make([]byte, len(data))
	ok(t, Read(d, tr, false, got))
	if !bytes.Equal(got, data) {
		t.Errorf("read %q, want %q", got, data)
	}
	narrow := *tr
	narrow.MemType = plan.Struct("rec", 40, plan.Field("id", 0, plan.I32), plan.Field("name", 8, plan.VStr(5)),
		plan.Field("x", 16, plan.F64), plan.Field("in", 24, inner))
	if err := Read(d, &narrow, false, make([]byte, 80)); err == nil || !strings.Contains(err.Error(), "1 variable-length strings are longer than the bytes the plan holds") {
		t.Errorf("narrow read: %v", err)
	}
	a := must(ReadAttribute(f, "meta"))
	// Strings as long as the longest value ("sod": 3 bytes) at a pointer's alignment, as
	// the description engine lays out a compound: in = {label@0, v@4} of 8 at 24, 32 bytes.
	wi := plan.Struct("", 8, plan.Field("label", 0, plan.VStr(3)), plan.Field("v", 4, plan.I16))
	want := plan.Struct("", 32, plan.Field("id", 0, plan.I32), plan.Field("name", 8, plan.VStr(3)), plan.Field("x", 16, plan.F64), plan.Field("in", 24, wi))
	if !a.Type.Equal(want) || a.Value[0] != 7 || string(a.Value[8:11]) != "sod" || a.Value[23] != 0x41 || string(a.Value[24:26]) != "é" || a.Value[28] != 3 {
		t.Errorf("meta: %v %q, want %v", a.Type, a.Value, want)
	}
}
