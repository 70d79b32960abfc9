package plan

import (
	"fmt"
	"strings"
)

// Class is the kind of an HDF5 datatype described as data.
type Class int

// The datatype classes a pattern can describe.
const (
	Float32  Class = iota + 1 // H5T_NATIVE_FLOAT
	Float64                   // H5T_NATIVE_DOUBLE
	Int32                     // H5T_NATIVE_INT
	Int64                     // H5T_NATIVE_LLONG
	Uint64                    // H5T_NATIVE_ULLONG
	Uint8                     // H5T_NATIVE_UCHAR
	String                    // fixed-length H5T_C_S1, NULLTERM, ASCII (or UTF-8: Type.UTF8)
	Compound                  // H5T_COMPOUND with named members at byte offsets
	Uint32                    // H5T_NATIVE_UINT (openPMD's openPMDextension)
	Int8                      // H5T_NATIVE_SCHAR (NetCDF's NC_CHAR through H5T_NATIVE_CHAR, E3SM-IO)
	Int16                     // H5T_NATIVE_SHORT (application descriptions)
	Uint16                    // H5T_NATIVE_USHORT (application descriptions)
)

var classNames = map[Class]string{
	Float32: "f32", Float64: "f64", Int32: "i32", Int64: "i64", Uint64: "u64", Uint8: "u8",
	String: "str", Compound: "compound", Uint32: "u32", Int8: "i8", Int16: "i16", Uint16: "u16",
}

// String returns the short notation used in layouts.md (f32, i32, str, compound, ...).
func (c Class) String() string {
	if s, ok := classNames[c]; ok {
		return s
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Type describes an HDF5 datatype without holding any HDF5 handle.
type Type struct {
	Class   Class
	Size    int      // bytes per element; for String the fixed length, for Compound the struct size
	Name    string   // optional name (the C struct name of a compound), for printing only
	Members []Member // Compound only, in insertion order
	// VarLen marks a String stored in the file as a variable-length string (H5T_VARIABLE,
	// NULLTERM, ASCII). Plans still lay its elements out as fixed strings of Size bytes
	// (NUL-padded: the longest string a pattern writes), so data preparation, verification
	// and the raw layouts treat it as any string; the HDF5 binding converts to and from
	// the C strings HDF5 takes. Inside a compound, the binding stages the compound as the C
	// struct HDF5 takes (a char * in place of each variable-length member, HasVarLen).
	VarLen bool
	// UTF8 marks a String whose character set is UTF-8 (H5T_CSET_UTF8), not ASCII: the
	// bytes are the same, HDF5 records the set and converts no string between the two.
	UTF8 bool
	// NullPad marks a fixed String padded with NULs to its size rather than terminated by
	// one (H5T_STR_NULLPAD, as numpy's bytes and so h5py write them): the same bytes for a
	// shorter string; HDF5 records the padding.
	NullPad bool
	// Enum, when set, makes an integer type an enumeration of these names and values
	// (H5T_ENUM over the integer class: types_more.go).
	Enum []EnumValue
	// Base and Dims are an Array's element type and extents (slowest first).
	Base *Type
	Dims []int
	// Tag is an Opaque type's tag (H5Tset_tag), "" for none.
	Tag string
	// Region makes a Reference a dataset region reference (H5R_DATASET_REGION), not an
	// object reference (H5R_OBJECT).
	Region bool
	// BigEndian stores an integer or float type (an enumeration's base included) in the
	// file big-endian (H5T_ORDER_BE, as netCDF-4 writes its coordinate variables:
	// H5T_IEEE_F32BE); unset, native little-endian. Only the file type has an order: plan
	// buffers and memory types are always native (Native), and HDF5 converts.
	BigEndian bool
}

// Member is one named field of a compound type.
type Member struct {
	Name   string
	Offset int
	Type   Type
}

// Atomic types used by the patterns.
var (
	F32 = Type{Class: Float32, Size: 4}
	F64 = Type{Class: Float64, Size: 8}
	I32 = Type{Class: Int32, Size: 4}
	I64 = Type{Class: Int64, Size: 8}
	U64 = Type{Class: Uint64, Size: 8}
	U8  = Type{Class: Uint8, Size: 1}
	U32 = Type{Class: Uint32, Size: 4}
	I8  = Type{Class: Int8, Size: 1}
	I16 = Type{Class: Int16, Size: 2}
	U16 = Type{Class: Uint16, Size: 2}
)

// Align is the type's natural alignment as a member of a C struct: its size for atomic
// types, 1 for strings (char arrays), a pointer's for variable-length strings (a char *),
// the largest of its members' for compounds.
func (t Type) Align() int {
	switch t.Class {
	case String:
		if t.VarLen {
			return PointerSize
		}
		return 1
	case Compound:
		a := 1
		for _, m := range t.Members {
			a = max(a, m.Type.Align())
		}
		return a
	case Array:
		return t.Base.Align()
	case Opaque:
		return 1
	}
	return t.Size
}

// Str returns a fixed-length string type of n bytes.
func Str(n int) Type { return Type{Class: String, Size: n} }

// VStr returns a variable-length string type whose plan buffers hold n bytes per element.
func VStr(n int) Type { return Type{Class: String, Size: n, VarLen: true} }

// Struct returns a compound type of the given total size.
func Struct(name string, size int, members ...Member) Type {
	return Type{Class: Compound, Size: size, Name: name, Members: members}
}

// Field is shorthand for a compound member.
func Field(name string, offset int, t Type) Member {
	return Member{Name: name, Offset: offset, Type: t}
}

// PointerSize is the size and alignment of a C pointer (char *) on the platforms h5proxy
// builds for (64-bit): a variable-length string member of a C struct.
const PointerSize = 8

// HasVarLen reports whether the type is or holds a variable-length string.
func (t Type) HasVarLen() bool {
	if t.VarLen {
		return true
	}
	for _, m := range t.Members {
		if m.Type.HasVarLen() {
			return true
		}
	}
	return false
}

// Validate checks sizes and that compound members fit and do not overlap.
func (t Type) Validate() error {
	if err := t.validateOrder(); err != nil {
		return err
	}
	if done, err := t.validateMore(); done || err != nil {
		return err
	}
	switch t.Class {
	case Float32, Int32, Uint32:
		if t.Size != 4 {
			return fmt.Errorf("type %s: size %d, want 4", t.Class, t.Size)
		}
	case Float64, Int64, Uint64:
		if t.Size != 8 {
			return fmt.Errorf("type %s: size %d, want 8", t.Class, t.Size)
		}
	case Uint8, Int8:
		if t.Size != 1 {
			return fmt.Errorf("type %s: size %d, want 1", t.Class, t.Size)
		}
	case Int16, Uint16:
		if t.Size != 2 {
			return fmt.Errorf("type %s: size %d, want 2", t.Class, t.Size)
		}
	case String:
		if t.Size < 1 {
			return fmt.Errorf("type %s: length %d, want >= 1", map[bool]string{false: "str", true: "vstr"}[t.VarLen], t.Size)
		}
	case Compound:
		if len(t.Members) == 0 {
			return fmt.Errorf("compound %q has no members", t.Name)
		}
		used := make([]bool, t.Size)
		for _, m := range t.Members {
			if err := m.Type.Validate(); err != nil {
				return fmt.Errorf("compound %q member %q: %w", t.Name, m.Name, err)
			}
			if m.Type.Class == Reference {
				return fmt.Errorf("compound %q member %q: references are supported as attribute elements only", t.Name, m.Name)
			}
			if m.Offset < 0 || m.Offset+m.Type.Size > t.Size {
				return fmt.Errorf("compound %q member %q at offset %d size %d exceeds struct size %d",
					t.Name, m.Name, m.Offset, m.Type.Size, t.Size)
			}
			for b := m.Offset; b < m.Offset+m.Type.Size; b++ {
				if used[b] {
					return fmt.Errorf("compound %q member %q overlaps another member", t.Name, m.Name)
				}
				used[b] = true
			}
		}
	default:
		return fmt.Errorf("unknown datatype class %d", int(t.Class))
	}
	if t.VarLen && t.Class != String {
		return fmt.Errorf("type %s: only strings are variable-length here", t.Class)
	}
	return nil
}

// Fields returns the atomic leaves of the type with their byte offsets: the members of a
// compound, or the type itself under the given name.
func (t Type) Fields(name string) []Member {
	if t.Class != Compound {
		return []Member{{Name: name, Offset: 0, Type: t}}
	}
	return t.Members
}

// String renders the type in layouts.md notation, e.g. f32, str(12), particle{x:f32@0,...}.
func (t Type) String() string {
	if s, ok := t.stringMore(); ok {
		return s
	}
	switch t.Class {
	case String:
		u := ""
		if t.UTF8 {
			u = "u"
		}
		if t.VarLen {
			return fmt.Sprintf("%svstr(%d)", u, t.Size)
		}
		if t.NullPad {
			u += "p"
		}
		return fmt.Sprintf("%sstr(%d)", u, t.Size)
	case Compound:
		parts := make([]string, len(t.Members))
		for i, m := range t.Members {
			parts[i] = fmt.Sprintf("%s:%s@%d", m.Name, m.Type, m.Offset)
		}
		return fmt.Sprintf("%s{%s}[%dB]", t.Name, strings.Join(parts, ","), t.Size)
	default:
		return t.atomName()
	}
}

// Equal reports whether two types describe the same layout (names of compounds ignored).
func (t Type) Equal(o Type) bool {
	if t.Class != o.Class || t.Size != o.Size || t.VarLen != o.VarLen || t.UTF8 != o.UTF8 || t.NullPad != o.NullPad || t.BigEndian != o.BigEndian || len(t.Members) != len(o.Members) || !t.equalMore(o) {
		return false
	}
	for i := range t.Members {
		a, b := t.Members[i], o.Members[i]
		if a.Name != b.Name || a.Offset != b.Offset || !a.Type.Equal(b.Type) {
			return false
		}
	}
	return true
}
