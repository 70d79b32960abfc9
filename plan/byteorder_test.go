package plan

import (
	"strings"
	"testing"
)

// TestByteOrder: a big-endian number renders with "be", differs from the native type,
// validates only on integer and float classes, and Native clears the order throughout
// (members, array elements, an enumeration's base) without touching the original.
func TestByteOrder(t *testing.T) {
	f32be := F32
	f32be.BigEndian = true
	i16be := I16
	i16be.BigEndian = true
	for _, c := range []struct {
		t    Type
		str  string
		fail string
	}{
		{f32be, "f32be", ""},
		{EnumOf(i16be, EnumValue{"A", 1}), "enum(i16be){A=1}", ""},
		{ArrayOf(f32be, 3), "f32be[3]", ""},
		{Struct("s", 8, Field("x", 0, f32be), Field("y", 4, I32)), "s{x:f32be@0,y:i32@4}[8B]", ""},
		{Type{Class: String, Size: 4, BigEndian: true}, "str(4)", "only integer and float types have a byte order"},
		{Type{Class: Opaque, Size: 4, BigEndian: true}, `opaque(4,"")`, "only integer and float types have a byte order"},
	} {
		if s := c.t.String(); s != c.str {
			t.Errorf("String() = %q, want %q", s, c.str)
		}
		err := c.t.Validate()
		if (c.fail == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%s: Validate() = %v, want %q", c.str, err, c.fail)
		}
		if c.fail != "" {
			continue
		}
		if !c.t.HasBigEndian() {
			t.Errorf("%s: HasBigEndian false", c.str)
		}
		n := c.t.Native()
		if n.HasBigEndian() || n.Equal(c.t) || n.Size != c.t.Size {
			t.Errorf("%s: Native() = %s", c.str, n)
		}
		if !c.t.HasBigEndian() {
			t.Errorf("%s: Native changed the original", c.str)
		}
	}
	if f32be.Equal(F32) || F32.Equal(f32be) {
		t.Error("f32be Equal f32")
	}
	if n := ArrayOf(f32be, 3).Native(); !n.Equal(ArrayOf(F32, 3)) {
		t.Errorf("Native of f32be[3] = %s, want f32[3]", n)
	}
	s := Struct("s", 8, Field("x", 0, F32))
	if n := s.Native(); &n.Members[0] != &s.Members[0] {
		t.Error("Native of a native compound copied its members")
	}
}
