package profile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// typeTree is a datatype as the profiler traces it where the flat type_class, _size,
// _sign and _members fields cannot say it (preload/profile-hdf5.c's type_tree): a
// big-endian number, an enumeration, an array or an opaque type at any depth. Present
// at H5Dcreate/H5Dopen (the record's info) and H5Acreate2/H5Awrite (the event).
type typeTree struct {
	Class   int          `json:"class"` // H5T_class_t
	Size    int          `json:"size"`
	Sign    int          `json:"sign"`  // H5T_sign_t of an integer: 0 unsigned
	Order   int          `json:"order"` // 1: big-endian (H5T_ORDER_BE)
	Pad     int          `json:"pad"`   // a string's H5T_str_t
	Cset    int          `json:"cset"`
	VLen    bool         `json:"vlen"`
	Tag     string       `json:"tag"`
	Dims    []int        `json:"dims"`
	Base    *typeTree    `json:"base"`
	Members []treeMember `json:"members"`
	Enum    []treeEnum   `json:"enum"`
}

// treeMember is one member of a traced compound.
type treeMember struct {
	Name   string    `json:"name"`
	Offset int       `json:"offset"`
	Type   *typeTree `json:"type"`
}

// treeEnum is one name of a traced enumeration and its value: [name, value].
type treeEnum struct {
	Name  string
	Value int64
}

// UnmarshalJSON reads [name, value].
func (e *treeEnum) UnmarshalJSON(b []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil || len(a) != 2 {
		return fmt.Errorf("enumeration member %s: want [name, value]", b)
	}
	if err := json.Unmarshal(a[0], &e.Name); err != nil {
		return err
	}
	return json.Unmarshal(a[1], &e.Value)
}

// HDF5's classes (H5T_class_t) the tree holds beyond integer, float, string and compound.
const (
	h5tOpaque = 5
	h5tEnum   = 8
	h5tArray  = 10
)

// integers are the plan classes of integers by size and signedness.
var integers = map[[2]int]plan.Class{
	{1, 0}: plan.Uint8, {2, 0}: plan.Uint16, {4, 0}: plan.Uint32, {8, 0}: plan.Uint64,
	{1, 1}: plan.Int8, {2, 1}: plan.Int16, {4, 1}: plan.Int32, {8, 1}: plan.Int64,
}

// planType is the type t describes, or why a description cannot say it.
func (t *typeTree) planType() (plan.Type, error) {
	if t == nil {
		return plan.Type{}, fmt.Errorf("a type the trace left out (nested too deep)")
	}
	var pt plan.Type
	switch t.Class {
	case 0: // H5T_INTEGER
		c, ok := integers[[2]int{t.Size, min(t.Sign, 1)}]
		if !ok {
			return pt, fmt.Errorf("an integer of %d bytes", t.Size)
		}
		pt = plan.Type{Class: c, Size: t.Size}
	case 1: // H5T_FLOAT
		switch t.Size {
		case 4:
			pt = plan.F32
		case 8:
			pt = plan.F64
		default:
			return pt, fmt.Errorf("a float of %d bytes", t.Size)
		}
	case 3: // H5T_STRING
		if !t.VLen && t.Pad != strNullTerm && t.Pad != strNullPad {
			return pt, fmt.Errorf("a string padded with spaces")
		}
		pt = plan.Type{Class: plan.String, Size: max(t.Size, 1), VarLen: t.VLen, UTF8: t.Cset == csetUTF8, NullPad: !t.VLen && t.Pad == strNullPad}
	case h5tOpaque:
		pt = plan.OpaqueOf(t.Size, t.Tag)
	case h5tCompound:
		pt = plan.Struct("", t.Size)
		for _, m := range t.Members {
			mt, err := m.Type.planType()
			if err != nil {
				return pt, fmt.Errorf("member %s: %w", m.Name, err)
			}
			pt.Members = append(pt.Members, plan.Field(m.Name, m.Offset, mt))
		}
	case h5tEnum:
		base, err := t.Base.planType()
		if err != nil {
			return pt, err
		}
		vals := make([]plan.EnumValue, len(t.Enum))
		for i, e := range t.Enum {
			vals[i] = plan.EnumValue{Name: e.Name, Value: e.Value}
		}
		pt = plan.EnumOf(base, vals...)
	case h5tArray:
		base, err := t.Base.planType()
		if err != nil {
			return pt, err
		}
		pt = plan.ArrayOf(base, t.Dims...)
	default:
		return pt, fmt.Errorf("datatype class %d of %d bytes", t.Class, t.Size)
	}
	if t.Class == 0 || t.Class == 1 { // an enumeration's order is its base's
		pt.BigEndian = t.Order == 1
	}
	if err := pt.Validate(); err != nil {
		return pt, err
	}
	return pt, nil
}

// treeTypeName names traced type t in the description: an atomic or string name, or a
// type declared under types (compounds, enumerations, arrays and opaque types, each once,
// named after hint, the first object of that type, their parts declared in turn).
func (c *Description) treeTypeName(hint string, t *typeTree) (string, error) {
	pt, err := t.planType()
	if err != nil {
		return "", err
	}
	return c.planTypeName(hint, pt), nil
}

// planTypeName names pt as treeTypeName does.
func (c *Description) planTypeName(hint string, pt plan.Type) string {
	if name, ok := desc.AtomicName(pt); ok {
		return name
	}
	key := "tree " + pt.String()
	if i := slices.IndexFunc(c.compounds, func(t compound) bool { return t.key == key }); i >= 0 {
		return c.compounds[i].decl.Name
	}
	name := plainWord(hint, "t")
	for slices.ContainsFunc(c.compounds, func(t compound) bool { return t.decl.Name == name }) {
		name += "_"
	}
	// Declared before its parts, so that the name is taken when they are named.
	at := len(c.compounds)
	c.compounds = append(c.compounds, compound{key: key, decl: &desc.Compound{Name: name}})
	c.compounds[at].decl = desc.DeclareType(name, pt, func(m plan.Type) string { return c.planTypeName(name+"_"+m.Class.String(), m) })
	return name
}

// treeValue decodes one element of traced memory type t: a number in its byte order, or
// an enumeration's value as its name (its number when no name has it). False for other
// types (their values are generated).
func treeValue(b []byte, t *typeTree) (string, bool) {
	num := func(b []byte, t *typeTree) (string, bool) {
		if t.Class != 0 && t.Class != 1 {
			return "", false
		}
		if t.Order == 1 {
			b = slices.Clone(b)
			slices.Reverse(b)
		}
		return elemValue(b, t.Class, t.Sign, "")
	}
	if t.Class != h5tEnum {
		return num(b, t)
	}
	if t.Base == nil || t.Base.Class != 0 {
		return "", false
	}
	v, ok := num(b, t.Base)
	for _, e := range t.Enum {
		if ok && strconv.FormatInt(e.Value, 10) == v {
			return e.Name, true
		}
	}
	return v, ok
}
