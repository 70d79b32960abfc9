package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// VStrLen is the length of the values generated for a vstr dataset or attribute (vstrN
// gives N): a variable-length string's data must have some length.
const VStrLen = 16

// atomic maps the description's atomic type names to plan types: native (little-endian)
// i8 .. f64, and each with be after it big-endian in the file (f32be: H5T_IEEE_F32BE, as
// netCDF-4 stores its coordinate variables). A suffix, not a key beside type, for the
// reason string types take prefixes: a type name goes where no key can (a compound's
// member, an array's element, an enumeration's base).
var atomic = map[string]plan.Type{
	"i8": plan.I8, "u8": plan.U8, "i16": plan.I16, "u16": plan.U16, "i32": plan.I32, "u32": plan.U32,
	"i64": plan.I64, "u64": plan.U64, "f32": plan.F32, "f64": plan.F64,
}

func init() {
	for _, name := range desc.AtomicTypes {
		t := atomic[name]
		t.BigEndian = true
		atomic[name+"be"] = t
	}
}

// typeSet resolves type names: atomic, strN, and the description's compounds (laid out as
// a C compiler lays out the struct: members at their natural alignment, size padded to the
// largest alignment).
type typeSet struct {
	compounds map[string]*desc.Compound
	done      map[string]plan.Type
}

func newTypeSet(d *desc.Description) *typeSet {
	ts := &typeSet{compounds: map[string]*desc.Compound{}, done: map[string]plan.Type{}}
	for _, c := range d.Types {
		ts.compounds[c.Name] = c
	}
	return ts
}

func (ts *typeSet) allowed() string {
	names := []string{"i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, the same with be after (big-endian: i8be .. f64be), strN (N bytes), vstr or vstrN (variable-length), ustrN, uvstr, uvstrN (UTF-8), T[N] (an array of T), ref and regref (object and region references)"}
	for n := range ts.compounds {
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// lookup resolves a type name at v.
func (ts *typeSet) lookup(v desc.Value) (plan.Type, error) {
	return ts.resolve(v, nil)
}

func (ts *typeSet) resolve(v desc.Value, seen []string) (plan.Type, error) {
	name := strings.TrimSpace(v.Text)
	if t, ok := atomic[strings.ToLower(name)]; ok {
		return t, nil
	}
	if t, ok := stringNamed(name); ok {
		return t, nil
	}
	if t, ok := refNamed(name); ok {
		return t, nil
	}
	if t, ok := ts.done[name]; ok {
		return t, nil
	}
	c, ok := ts.compounds[name]
	if t, isArray, err := ts.inlineArray(v, name, seen); !ok && isArray {
		return t, err
	}
	if !ok {
		return plan.Type{}, ts.unknown(v, name, seen)
	}
	for _, s := range seen {
		if s == name {
			return plan.Type{}, &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: "the compound contains itself"}
		}
	}
	t, err := ts.compound(c, append(seen, name))
	if err != nil {
		return t, err
	}
	ts.done[name] = t
	return t, nil
}

// stringNamed resolves the string type names: strN, vstr and vstrN (ASCII), and the same
// with a u before them (ustrN, uvstr, uvstrN: UTF-8, H5T_CSET_UTF8); pstrN and upstrN are
// fixed strings padded with NULs (H5T_STR_NULLPAD, as h5py writes numpy's bytes), not
// NUL-terminated. Prefixes, not keys beside type: a type name goes where no key can (a
// compound's member, memory.type, a parameter), and u for Unicode reads as numpy's U
// dtype does.
func stringNamed(name string) (plan.Type, bool) {
	utf8 := strings.HasPrefix(name, "ustr") || strings.HasPrefix(name, "uvstr") || strings.HasPrefix(name, "upstr")
	if utf8 {
		name = name[1:]
	}
	pad := strings.HasPrefix(name, "pstr")
	if pad {
		name = name[1:]
	}
	t, ok := plan.Type{}, false
	switch {
	case name == "vstr":
		t, ok = plan.VStr(VStrLen), true
	case strings.HasPrefix(name, "vstr"):
		if n, err := strconv.Atoi(name[4:]); err == nil && n >= 1 {
			t, ok = plan.VStr(n), true
		}
	case strings.HasPrefix(name, "str"):
		if n, err := strconv.Atoi(name[3:]); err == nil && n >= 1 {
			t, ok = plan.Str(n), true
		}
	}
	t.UTF8 = utf8 && ok
	t.NullPad = pad && ok && !t.VarLen
	return t, ok && !(pad && t.VarLen)
}

func (ts *typeSet) compound(c *desc.Compound, seen []string) (plan.Type, error) {
	if c.Other != nil {
		return ts.other(c, seen)
	}
	var members []plan.Member
	off, end, maxAlign := 0, 0, 1
	for _, m := range c.Members {
		var t plan.Type
		var err error
		if m.Nested != nil {
			t, err = ts.compound(m.Nested, seen)
			t.Name = m.Name
		} else {
			t, err = ts.resolve(m.Type, seen)
		}
		if err != nil {
			return t, err
		}
		a := t.Align()
		off = (off + a - 1) / a * a
		if m.Offset.Set { // TYPE@N: where the writer inserted it
			off, _ = strconv.Atoi(m.Offset.Text)
		}
		members = append(members, plan.Field(m.Name, off, t))
		off += t.Size
		end, maxAlign = max(end, off), max(maxAlign, a)
	}
	if len(members) == 0 {
		return plan.Type{}, &desc.Error{Pos: c.Pos, Key: "types." + c.Name, Reason: "a compound needs members"}
	}
	return ts.sized(c, plan.Struct(c.Name, (end+maxAlign-1)/maxAlign*maxAlign, members...))
}

// varLenIn reports whether content holds a dataset of variable-length strings, groups
// included (its type evaluated in sc).
func (e *engine) varLenIn(c *desc.Content, sc *desc.Scope) (bool, error) {
	for _, ds := range c.Datasets {
		t, err := e.typeAt(ds.Type, sc)
		if err != nil || t.HasVarLen() {
			return t.HasVarLen(), err
		}
	}
	for _, g := range c.Groups {
		if vl, err := e.varLenIn(&g.Content, sc); vl || err != nil {
			return vl, err
		}
	}
	return false, nil
}

// numeric reports whether HDF5 converts the class to and from every other numeric class.
func numeric(c plan.Class) bool { return c != plan.String && c != plan.Compound }

// convertible returns why HDF5 cannot convert between a memory and a file type, or "".
func convertible(mem, file plan.Type) string {
	if why, done := convertibleMore(mem, file); done {
		return why
	}
	switch {
	case numeric(mem.Class) && numeric(file.Class):
		return ""
	case mem.Class == plan.String && file.Class == plan.String:
		if mem.VarLen != file.VarLen {
			return "HDF5 converts no fixed-length string to a variable-length one, nor back"
		}
		if mem.UTF8 != file.UTF8 {
			return "HDF5 converts no ASCII string to a UTF-8 one, nor back"
		}
		return ""
	case mem.Class == plan.Compound && file.Class == plan.Compound:
		shared := 0
		for _, m := range mem.Members {
			for _, f := range file.Members {
				if m.Name == f.Name {
					if why := convertible(m.Type, f.Type); why != "" {
						return fmt.Sprintf("member %s: %s", m.Name, why)
					}
					shared++
				}
			}
		}
		if shared == 0 {
			return "the compounds share no member name (HDF5 converts compound members by name)"
		}
		return ""
	}
	return fmt.Sprintf("HDF5 has no conversion between %s and %s", mem, file)
}
