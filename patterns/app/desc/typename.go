package desc

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
)

// AtomicName is the description's name of an atomic or string type, as the engine reads it
// back (patterns/app/types.go): i8 .. f64 with be after a big-endian one (f32be); strN,
// pstrN (NUL-padded), vstr (variable-length), each with u before it in UTF-8. False for
// the types a description declares under types (compound, enum, array, opaque) and for
// references, which writers name themselves.
func AtomicName(t plan.Type) (string, bool) {
	switch t.Class {
	case plan.Float32, plan.Float64, plan.Int8, plan.Uint8, plan.Int16, plan.Uint16, plan.Int32, plan.Uint32, plan.Int64, plan.Uint64:
		return t.String(), t.Enum == nil
	case plan.String:
		s := fmt.Sprintf("str%d", t.Size)
		switch {
		case t.VarLen:
			s = "vstr"
		case t.NullPad:
			s = "p" + s
		}
		if t.UTF8 {
			s = "u" + s
		}
		return s, true
	}
	return "", false
}
