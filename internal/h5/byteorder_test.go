//go:build cgo && linux

package h5

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestBigEndianOnDisk: datasets and an attribute of big-endian types (a float, an integer,
// an enumeration over one, a compound and an array holding them) are written from native
// buffers; the file holds their bytes big-endian (read raw at H5Dget_offset), reading back
// gives the native values, and the types read back are the big-endian ones.
func TestBigEndianOnDisk(t *testing.T) {
	be := func(t plan.Type) plan.Type { t.BigEndian = true; return t }
	f32be, i16be, f64be := be(plan.F32), be(plan.I16), be(plan.F64)
	phase := plan.EnumOf(i16be, plan.EnumValue{Name: "LOW", Value: 1}, plan.EnumValue{Name: "HIGH", Value: 513})
	pair := plan.Struct("", 16, plan.Field("x", 0, f64be), plan.Field("n", 8, plan.I32), plan.Field("p", 12, phase))
	type dset struct {
		name         string
		typ          plan.Type
		native, disk []byte // two elements
	}
	// HDF5 sorts an enumeration's members by their bytes when it converts (H5T__sort_value)
	// and describes them in that order after: values whose bytes sort as they are inserted
	// in either order.
	var f32n, f32d, f64n, f64d, i16n, i16d, en, ed, pn, pd []byte
	for _, v := range []float32{1.5, -2.25} {
		f32n = binary.LittleEndian.AppendUint32(f32n, math.Float32bits(v))
		f32d = binary.BigEndian.AppendUint32(f32d, math.Float32bits(v))
	}
	for _, v := range []int16{-300, 513} {
		i16n = binary.LittleEndian.AppendUint16(i16n, uint16(v))
		i16d = binary.BigEndian.AppendUint16(i16d, uint16(v))
	}
	for i := range 2 {
		en = binary.LittleEndian.AppendUint16(en, i16n2(i))
		ed = binary.BigEndian.AppendUint16(ed, i16n2(i))
	}
	for i, v := range []float64{math.Pi, -1e300} {
		f64n = binary.LittleEndian.AppendUint64(f64n, math.Float64bits(v))
		f64d = binary.BigEndian.AppendUint64(f64d, math.Float64bits(v))
		pn = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(pn, math.Float64bits(v)), uint32(7+i))
		pn = append(binary.LittleEndian.AppendUint16(pn, i16n2(i)), 0, 0)
		pd = binary.LittleEndian.AppendUint32(binary.BigEndian.AppendUint64(pd, math.Float64bits(v)), uint32(7+i))
		pd = append(binary.BigEndian.AppendUint16(pd, i16n2(i)), 0, 0)
	}
	sets := []dset{
		{"f32", f32be, f32n, f32d},
		{"i16", i16be, i16n, i16d},
		{"enum", phase, en, ed},
		{"compound", pair, pn, pd},
		{"array", plan.ArrayOf(f64be, 2), f64n, f64d}, // one element of two
	}
	path := filepath.Join(t.TempDir(), "be.h5")
	f := must(CreateFile(path, Access{}))
	offsets := map[string]uint64{}
	for _, s := range sets {
		shape := []uint64{uint64(len(s.native) / s.typ.Size)}
		d := must(CreateDataset(f, s.name, plan.DatasetSpec{Type: s.typ, Shape: shape}))
		ok(t, Write(d, wholeTransfer(s.typ, shape), false, s.native))
		got := make([]byte, len(s.native))
		ok(t, Read(d, wholeTransfer(s.typ, shape), false, got))
		if !bytes.Equal(got, s.native) {
			t.Errorf("%s: read back % x, want % x", s.name, got, s.native)
		}
		if info := must(DatasetInfo(d)); !info.Type.Equal(s.typ) {
			t.Errorf("%s: described as %s, want %s", s.name, info.Type, s.typ)
		}
		off, allocated, err := DatasetOffset(d)
		if err != nil || !allocated {
			t.Fatalf("%s: DatasetOffset = %d, %v, %v", s.name, off, allocated, err)
		}
		offsets[s.name] = off
		ok(t, CloseDataset(d))
	}
	ok(t, WriteAttribute(f, plan.AttributeSpec{Name: "scale", Type: f32be, Shape: []uint64{2}, Value: f32n}))
	ok(t, CloseFile(f))

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if got := raw[offsets[s.name]:][:len(s.disk)]; !bytes.Equal(got, s.disk) {
			t.Errorf("%s: on disk % x, want big-endian % x", s.name, got, s.disk)
		}
	}
	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer CloseFile(f)
	a := must(ReadAttribute(f, "scale"))
	if !a.Type.Equal(f32be) || !bytes.Equal(a.Value, f32n) {
		t.Errorf("attribute: read %s % x, want %s % x", a.Type, a.Value, f32be, f32n)
	}
	if !bytes.Contains(raw, f32d) {
		t.Error("the attribute's big-endian bytes are not in the file")
	}
}

// i16n2 is the enumeration value of element i of TestBigEndianOnDisk's compound.
func i16n2(i int) uint16 { return []uint16{1, 513}[i] }
