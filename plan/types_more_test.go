package plan

import (
	"strings"
	"testing"
)

// TestMoreTypes: enum, array, opaque and reference types render, compare and validate
// as HDF5 takes them: an enum over an integer with distinct names, an array of its
// extents' product of elements, no variable-length or reference elements, references
// only as attribute elements (never a compound's member).
func TestMoreTypes(t *testing.T) {
	phase := EnumOf(I8, EnumValue{"SOLID", 0}, EnumValue{"GAS", 2})
	for _, c := range []struct {
		t    Type
		str  string
		fail string
	}{
		{phase, "enum(i8){SOLID=0,GAS=2}", ""},
		{ArrayOf(F64, 2, 3), "f64[2][3]", ""},
		{OpaqueOf(4, "blob"), `opaque(4,"blob")`, ""},
		{RefOf(12, true), "regref(12)", ""},
		{RefOf(5, false), "ref(5)", ""},
		{EnumOf(F32, EnumValue{"A", 0}), "enum(f32){A=0}", "the base is an integer type"},
		{EnumOf(I32, EnumValue{"A", 0}, EnumValue{"A", 1}), "enum(i32){A=0,A=1}", "the name A twice"},
		{ArrayOf(VStr(8), 2), "vstr(8)[2]", "variable-length elements"},
		{ArrayOf(RefOf(4, false), 2), "ref(4)[2]", "attribute elements only"},
		{Struct("r", 16, Field("x", 0, RefOf(8, false))), "r{x:ref(8)@0}[16B]", "attribute elements only"},
		{Type{Class: Array, Size: 8, Base: &F64, Dims: []int{2}}, "f64[2]", "size 8, want 16"},
		{OpaqueOf(0, ""), `opaque(0,"")`, "opaque of 0 bytes"},
	} {
		if s := c.t.String(); s != c.str {
			t.Errorf("String() = %q, want %q", s, c.str)
		}
		err := c.t.Validate()
		if (c.fail == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%s: Validate() = %v, want %q", c.str, err, c.fail)
		}
		if !c.t.Equal(c.t) {
			t.Errorf("%s: not Equal to itself", c.str)
		}
	}
	for _, o := range []Type{I8, EnumOf(I8, EnumValue{"SOLID", 0}), EnumOf(I8, EnumValue{"SOLID", 0}, EnumValue{"GAS", 3})} {
		if phase.Equal(o) {
			t.Errorf("%s Equal %s", phase, o)
		}
	}
	if ArrayOf(F64, 6).Equal(ArrayOf(F64, 2, 3)) || OpaqueOf(4, "a").Equal(OpaqueOf(4, "b")) || RefOf(8, true).Equal(RefOf(8, false)) {
		t.Error("arrays of other extents, opaque types of other tags or references of other kinds compare equal")
	}
}
