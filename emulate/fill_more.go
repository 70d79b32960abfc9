package emulate

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/h5proxy/h5proxy/plan"
)

// arrayFields lists the atomic fields of an array member: element i of member m carries
// variable m[i] (m[i].x for a compound element's member x), at its offset in the array.
func arrayFields(m plan.Member) []Field {
	base := *m.Type.Base
	var f []Field
	for i := range m.Type.Size / base.Size {
		for _, in := range Fields(base, "") {
			v := fmt.Sprintf("%s[%d]", m.Name, i)
			if in.Variable != "" {
				v += "." + in.Variable
			}
			f = append(f, Field{Variable: v, Offset: m.Offset + i*base.Size + in.Offset, Class: in.Class, Size: in.Size, Enum: in.Enum})
		}
	}
	return f
}

// enumValues are the values of enumeration t (nil for any other type).
func enumValues(t plan.Type) []int64 {
	if t.Enum == nil {
		return nil
	}
	v := make([]int64, len(t.Enum))
	for i, e := range t.Enum {
		v[i] = e.Value
	}
	return v
}

// encode stores the value derived from bits h as field f at b: for an enumeration one
// of its values (the bits pick which), so that every element is a member, as HDF5 needs
// to convert it to another enumeration (it writes -1 for a value no name has) and as a
// reader of the file expects; else the class's value (encode).
func (f Field) encode(b []byte, h uint64) {
	if f.Enum == nil {
		encode(f.Class, b, h)
		return
	}
	v := uint64(f.Enum[h%uint64(len(f.Enum))])
	ne := binary.NativeEndian
	switch f.Size {
	case 1:
		b[0] = byte(v)
	case 2:
		ne.PutUint16(b, uint16(v))
	case 4:
		ne.PutUint32(b, uint32(v))
	case 8:
		ne.PutUint64(b, v)
	}
}

// Same reports whether f and o are the same field: variable, place, class and values.
func (f Field) Same(o Field) bool {
	return f.Variable == o.Variable && f.Offset == o.Offset && f.Class == o.Class && f.Size == o.Size && slices.Equal(f.Enum, o.Enum)
}
