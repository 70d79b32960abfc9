package plan

import (
	"testing"
)

// particle is h5bench's 32-byte compound, spelled out here independently of patterns/vpic.
var particle = Struct("particle", 32,
	Field("x", 0, F32), Field("y", 4, F32), Field("z", 8, F32),
	Field("px", 12, F32), Field("py", 16, F32), Field("pz", 20, F32),
	Field("id_1", 24, I32), Field("id_2", 28, F32))

func TestTypeValidate(t *testing.T) {
	tests := []struct {
		name string
		t    Type
		want string // substring of the error; "" means valid
	}{
		{"f32", F32, ""},
		{"f64", F64, ""},
		{"i32", I32, ""},
		{"i64", I64, ""},
		{"u64", U64, ""},
		{"u8", U8, ""},
		{"i8", I8, ""},
		{"str(1)", Str(1), ""},
		{"vstr(8)", VStr(8), ""},
		{"empty vstr", VStr(0), "type vstr: length 0, want >= 1"},
		{"vlen f32", Type{Class: Float32, Size: 4, VarLen: true}, "type f32: only strings are variable-length here"},
		{"vstr member", Struct("s", 8, Field("name", 0, VStr(8))), ""}, // the binding stages it as a char *
		{"particle", particle, ""},
		{"single member", Struct("x", 4, Field("x", 0, F32)), ""},
		{"padding allowed", Struct("p", 16, Field("a", 0, I32), Field("b", 8, F64)), ""},
		{"nested compound", Struct("outer", 12, Field("in", 0, Struct("inner", 8, Field("a", 0, F32), Field("b", 4, I32))), Field("c", 8, F32)), ""},
		{"f32 of size 8", Type{Class: Float32, Size: 8}, "type f32: size 8, want 4"},
		{"i64 of size 4", Type{Class: Int64, Size: 4}, "type i64: size 4, want 8"},
		{"u8 of size 2", Type{Class: Uint8, Size: 2}, "type u8: size 2, want 1"},
		{"i8 of size 4", Type{Class: Int8, Size: 4}, "type i8: size 4, want 1"},
		{"empty string", Str(0), "type str: length 0, want >= 1"},
		{"unknown class", Type{Class: 99, Size: 4}, "unknown datatype class 99"},
		{"zero class", Type{}, "unknown datatype class 0"},
		{"no members", Struct("empty", 4), `compound "empty" has no members`},
		{"overlapping members", Struct("bad", 8, Field("a", 0, F32), Field("b", 2, F32)),
			`compound "bad" member "b" overlaps another member`},
		{"same offset", Struct("bad", 8, Field("a", 4, F32), Field("b", 4, I32)),
			`compound "bad" member "b" overlaps another member`},
		{"member beyond size", Struct("short", 30, particle.Members...),
			`compound "short" member "id_2" at offset 28 size 4 exceeds struct size 30`},
		{"negative offset", Struct("neg", 8, Field("a", -1, F32)),
			`compound "neg" member "a" at offset -1 size 4 exceeds struct size 8`},
		{"bad member type", Struct("m", 8, Field("a", 0, Type{Class: Float64, Size: 4})),
			`compound "m" member "a": type f64: size 4, want 8`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.t.Validate()
			checkValidate(t, err, tc.want)
		})
	}
}

func TestTypeString(t *testing.T) {
	tests := []struct {
		t    Type
		want string
	}{
		{F32, "f32"},
		{F64, "f64"},
		{I32, "i32"},
		{I64, "i64"},
		{U64, "u64"},
		{U8, "u8"},
		{I8, "i8"},
		{Str(12), "str(12)"},
		{VStr(12), "vstr(12)"},
		{Struct("x", 4, Field("x", 0, F32)), "x{x:f32@0}[4B]"},
		{particle, "particle{x:f32@0,y:f32@4,z:f32@8,px:f32@12,py:f32@16,pz:f32@20,id_1:i32@24,id_2:f32@28}[32B]"},
		{Type{Class: 99}, "class(99)"},
	}
	for _, tc := range tests {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	if got := Compound.String(); got != "compound" {
		t.Errorf("Compound.String() = %q", got)
	}
	if got := String.String(); got != "str" {
		t.Errorf("String.String() = %q", got)
	}
}

func TestTypeEqual(t *testing.T) {
	renamed := particle
	renamed.Name = "other"
	reordered := Struct("particle", 32, append([]Member{particle.Members[1], particle.Members[0]}, particle.Members[2:]...)...)
	shifted := Struct("particle", 32, append(append([]Member(nil), particle.Members[:7]...), Field("id_2", 29, F32))...)
	retyped := Struct("particle", 32, append(append([]Member(nil), particle.Members[:6]...), Field("id_1", 24, F32), particle.Members[7])...)
	renamedMember := Struct("particle", 32, append(append([]Member(nil), particle.Members[:7]...), Field("id_3", 28, F32))...)
	tests := []struct {
		name string
		a, b Type
		want bool
	}{
		{"same atomic", F32, F32, true},
		{"f32 vs i32", F32, I32, false},
		{"str lengths", Str(4), Str(5), false},
		{"str equal", Str(4), Str(4), true},
		{"fixed vs variable string", Str(4), VStr(4), false},
		{"compound vs itself", particle, particle, true},
		{"compound name ignored", particle, renamed, true},
		{"member order matters", particle, reordered, false},
		{"member offset", particle, shifted, false},
		{"member type", particle, retyped, false},
		{"member name", particle, renamedMember, false},
		{"size", particle, Struct("particle", 36, particle.Members...), false},
		{"member count", particle, Struct("particle", 32, particle.Members[:7]...), false},
		{"compound vs atomic", Struct("x", 4, Field("x", 0, F32)), F32, false},
	}
	for _, tc := range tests {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.b.Equal(tc.a); got != tc.want {
			t.Errorf("%s: Equal not symmetric", tc.name)
		}
	}
}

func TestTypeFields(t *testing.T) {
	f := F32.Fields("x")
	if len(f) != 1 || f[0].Name != "x" || f[0].Offset != 0 || !f[0].Type.Equal(F32) {
		t.Errorf("F32.Fields(x) = %+v", f)
	}
	f = particle.Fields("ignored")
	if len(f) != 8 || f[6].Name != "id_1" || f[6].Offset != 24 || !f[6].Type.Equal(I32) {
		t.Errorf("particle.Fields = %+v", f)
	}
}
