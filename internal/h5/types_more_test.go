//go:build cgo && linux

package h5

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestMoreTypesRoundTrip: datasets of enum, array and opaque types and a compound holding
// them at explicit offsets with padding are written, read back byte for byte and described
// as the types they were created with; reference attributes name their targets when read
// (an object by path, a region by path and bounds).
func TestMoreTypesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "more.h5")
	f := must(CreateFile(path, Access{}))
	phase := plan.EnumOf(plan.I8, plan.EnumValue{Name: "SOLID", Value: 0}, plan.EnumValue{Name: "GAS", Value: -2})
	types := map[string]plan.Type{
		"enum":   phase,
		"array":  plan.ArrayOf(plan.F64, 2, 3),
		"opaque": plan.OpaqueOf(5, "blob"),
		"mixed": plan.Struct("", 40, plan.Field("v", 16, plan.ArrayOf(plan.I16, 3)), plan.Field("p", 1, phase),
			plan.Field("o", 4, plan.OpaqueOf(3, "")), plan.Field("a", 24, plan.ArrayOf(plan.F32, 2))),
	}
	shape := []uint64{6}
	for name, typ := range types {
		d := must(CreateDataset(f, name, plan.DatasetSpec{Type: typ, Shape: shape}))
		buf := randBytes(7, shape[0]*uint64(typ.Size))
		ok(t, Write(d, wholeTransfer(typ, shape), false, buf))
		got := make([]byte, len(buf))
		ok(t, Read(d, wholeTransfer(typ, shape), false, got))
		if !bytes.Equal(got, buf) {
			t.Errorf("%s: read back differs", name)
		}
		if info := must(DatasetInfo(d)); !info.Type.Equal(typ) {
			t.Errorf("%s: described as %s, want %s", name, info.Type, typ)
		}
		ok(t, CloseDataset(d))
	}
	refs := []plan.AttributeSpec{
		{Name: "obj", Type: plan.RefOf(7, false), Value: []byte("/enum\x00\x00")},
		{Name: "reg", Type: plan.RefOf(13, true), Shape: []uint64{2}, Value: []byte("/array[1:3]\x00\x00/opaque[0:6]\x00")},
	}
	for _, a := range refs {
		ok(t, WriteAttribute(f, a))
	}
	bad := plan.AttributeSpec{Name: "bad", Type: plan.RefOf(9, true), Value: []byte("/array[3]")}
	if err := WriteAttribute(f, bad); err == nil || !strings.Contains(err.Error(), "is not START:END") {
		t.Errorf("a region reference without START:END: %v", err)
	}
	if names := must(AttributeNames(f)); len(names) != 2 {
		t.Errorf("attributes after the refused one: %v, want obj and reg alone", names)
	}
	ok(t, CloseFile(f))
	// Read back, the targets are as long as the longest.
	refs[0].Type, refs[0].Value = plan.RefOf(5, false), []byte("/enum")
	refs[1].Type, refs[1].Value = plan.RefOf(12, true), []byte("/array[1:3]\x00/opaque[0:6]")

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	defer CloseFile(f)
	for _, a := range refs {
		got := must(ReadAttribute(f, a.Name))
		if !got.Type.Equal(a.Type) || !bytes.Equal(got.Value, a.Value) {
			t.Errorf("%s: read %s %q, want %s %q", a.Name, got.Type, got.Value, a.Type, a.Value)
		}
	}
}
