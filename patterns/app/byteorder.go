package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// unknown is the error for a type name that resolves to nothing; a name that is a known
// non-numeric type with be after it (str8be) says that only numbers have a byte order.
func (ts *typeSet) unknown(v desc.Value, name string, seen []string) error {
	if base, ok := strings.CutSuffix(strings.ToLower(name), "be"); ok && base != "" {
		bv := v
		bv.Text = name[:len(base)]
		if t, err := ts.resolve(bv, seen); err == nil {
			return &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: "be (big-endian) after " + t.String() + ": only integer and float types have a byte order",
				Allowed: "i8be, u8be, i16be, u16be, i32be, u32be, i64be, u64be, f32be, f64be; a compound or array takes big-endian members or elements (x: f32be, f32be[3])"}
		}
	}
	return &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: "unknown type", Allowed: ts.allowed()}
}

// nativeMemory refuses a big-endian memory type at v: plan buffers are native, and a file
// type's byte order is the file's (HDF5 converts between them).
func nativeMemory(v desc.Value, m plan.Type) error {
	if !m.HasBigEndian() {
		return nil
	}
	return &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: "a memory type is native (little-endian); a byte order belongs to the file type, and HDF5 converts",
		Allowed: "the type without be (f32 for a f32be dataset), or no memory type at all"}
}
