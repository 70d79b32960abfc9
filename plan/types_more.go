package plan

import (
	"fmt"
	"strings"
)

// The datatype classes beyond atomic, string and compound: arrays and opaque types (their
// own classes), and enumerations (an integer class with Type.Enum set, so that every
// path that moves integers moves them). Numbered apart from the iota block so that a class
// added there does not collide.
const (
	Array  Class = 40 // H5T_ARRAY of Type.Base with extents Type.Dims
	Opaque Class = 41 // H5T_OPAQUE of Type.Size bytes, tagged Type.Tag
	// Reference is an object reference (H5T_STD_REF_OBJ) or, with Type.Region, a dataset
	// region reference (H5T_STD_REF_DSETREG). As for variable-length strings, plans lay
	// its elements out as fixed strings of Size bytes: the target's path ("/fields/rho"),
	// for a region with its selection ("/table[0:2]", start:end per dimension); the HDF5
	// binding makes the references (H5Rcreate) when it writes them.
	Reference Class = 42
)

func init() {
	classNames[Array] = "array"
	classNames[Opaque] = "opaque"
	classNames[Reference] = "ref"
}

// RefOf returns an object reference type (region: a dataset region reference) whose plan
// buffers hold targets of n bytes.
func RefOf(n int, region bool) Type { return Type{Class: Reference, Size: n, Region: region} }

// EnumValue is one name of an enumeration and its value.
type EnumValue struct {
	Name  string
	Value int64
}

// ArrayOf returns the array type of extents dims of base.
func ArrayOf(base Type, dims ...int) Type {
	n := 1
	for _, d := range dims {
		n *= d
	}
	b := base
	return Type{Class: Array, Size: base.Size * n, Base: &b, Dims: dims}
}

// OpaqueOf returns an opaque type of n bytes with a tag ("" for none).
func OpaqueOf(n int, tag string) Type { return Type{Class: Opaque, Size: n, Tag: tag} }

// EnumOf returns an enumeration over integer type base.
func EnumOf(base Type, values ...EnumValue) Type {
	base.Enum = values
	return base
}

// integer reports whether c is an integer class (an enumeration's base).
func integer(c Class) bool {
	switch c {
	case Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64:
		return true
	}
	return false
}

// validateMore checks what Validate leaves to this file: an enumeration's base and names,
// an array's extents and size, an opaque type's size. ok is false when t is none of them.
func (t Type) validateMore() (ok bool, err error) {
	switch {
	case t.Enum != nil:
		if !integer(t.Class) {
			return true, fmt.Errorf("enum of %s: the base is an integer type", t.Class)
		}
		seen := map[string]bool{}
		for _, e := range t.Enum {
			if seen[e.Name] {
				return true, fmt.Errorf("enum: the name %s twice", e.Name)
			}
			seen[e.Name] = true
		}
		return false, nil // the base is checked as any integer
	case t.Class == Array:
		if t.Base == nil || len(t.Dims) == 0 {
			return true, fmt.Errorf("array without element type or extents")
		}
		if t.Base.Class == Reference {
			return true, fmt.Errorf("array of references: references are supported as attribute elements only")
		}
		if t.Base.HasVarLen() {
			return true, fmt.Errorf("array of %s: variable-length elements are not supported here", t.Base)
		}
		n := 1
		for _, d := range t.Dims {
			if d < 1 {
				return true, fmt.Errorf("array extent %d", d)
			}
			n *= d
		}
		if t.Size != n*t.Base.Size {
			return true, fmt.Errorf("array %s: size %d, want %d", t, t.Size, n*t.Base.Size)
		}
		return true, t.Base.Validate()
	case t.Class == Opaque:
		if t.Size < 1 {
			return true, fmt.Errorf("opaque of %d bytes", t.Size)
		}
		return true, nil
	case t.Class == Reference:
		if t.Size < 1 {
			return true, fmt.Errorf("reference with %d-byte targets", t.Size)
		}
		return true, nil
	}
	return false, nil
}

// stringMore renders enum, array and opaque types: enum(i8){SOLID=0,...}, f64[3],
// opaque(4,"tag"). ok is false when t is none of them.
func (t Type) stringMore() (string, bool) {
	switch {
	case t.Enum != nil:
		parts := make([]string, len(t.Enum))
		for i, e := range t.Enum {
			parts[i] = fmt.Sprintf("%s=%d", e.Name, e.Value)
		}
		return fmt.Sprintf("enum(%s){%s}", t.atomName(), strings.Join(parts, ",")), true
	case t.Class == Array:
		var b strings.Builder
		if t.Base != nil {
			b.WriteString(t.Base.String())
		}
		for _, d := range t.Dims {
			fmt.Fprintf(&b, "[%d]", d)
		}
		return b.String(), true
	case t.Class == Opaque:
		return fmt.Sprintf("opaque(%d,%q)", t.Size, t.Tag), true
	case t.Class == Reference && t.Region:
		return fmt.Sprintf("regref(%d)", t.Size), true
	case t.Class == Reference:
		return fmt.Sprintf("ref(%d)", t.Size), true
	}
	return "", false
}

// equalMore compares what Equal leaves to this file: enumerations, array elements and
// extents, opaque tags.
func (t Type) equalMore(o Type) bool {
	if len(t.Enum) != len(o.Enum) || len(t.Dims) != len(o.Dims) || t.Tag != o.Tag || t.Region != o.Region || (t.Base == nil) != (o.Base == nil) {
		return false
	}
	for i := range t.Enum {
		if t.Enum[i] != o.Enum[i] {
			return false
		}
	}
	for i := range t.Dims {
		if t.Dims[i] != o.Dims[i] {
			return false
		}
	}
	return t.Base == nil || t.Base.Equal(*o.Base)
}
