package plan

import "fmt"

// Byte order: a file type may be big-endian (Type.BigEndian); memory never is.

// numericClass reports whether c is an integer or float class: the classes with a byte
// order.
func numericClass(c Class) bool { return integer(c) || c == Float32 || c == Float64 }

// atomName is the notation of an atomic type: its class, "be" after it when big-endian
// (f32be), as descriptions name it.
func (t Type) atomName() string {
	if t.BigEndian {
		return t.Class.String() + "be"
	}
	return t.Class.String()
}

// validateOrder refuses a byte order on a type that has none (strings, compounds, arrays,
// opaque types, references: their members and elements carry their own).
func (t Type) validateOrder() error {
	if t.BigEndian && !numericClass(t.Class) {
		return fmt.Errorf("type %s: only integer and float types have a byte order", t.Class)
	}
	return nil
}

// HasBigEndian reports whether the type is, or holds as a member or element, a big-endian
// number.
func (t Type) HasBigEndian() bool {
	if t.BigEndian {
		return true
	}
	for _, m := range t.Members {
		if m.Type.HasBigEndian() {
			return true
		}
	}
	return t.Base != nil && t.Base.HasBigEndian()
}

// Native returns the type in native byte order throughout (members and elements too):
// the memory type a plan's buffers hold for file type t. t itself when it has no
// big-endian part, so that the common case allocates nothing.
func (t Type) Native() Type {
	if !t.HasBigEndian() {
		return t
	}
	t.BigEndian = false
	if t.Members != nil {
		ms := make([]Member, len(t.Members))
		for i, m := range t.Members {
			m.Type = m.Type.Native()
			ms[i] = m
		}
		t.Members = ms
	}
	if t.Base != nil {
		b := t.Base.Native()
		t.Base = &b
	}
	return t
}
