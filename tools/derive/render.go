package derive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// filters builds a chunked dataset's pipeline. The binding reports deflate apart from
// the others, so shuffle (which precedes compression wherever codes set it) comes first. A
// filter descriptions cannot name is left out with a note at path.
func (b *builder) filters(i h5.Info, path string) []desc.Filter {
	var out, rest []desc.Filter
	for _, f := range i.Filters {
		cd := func(k int) (uint32, bool) {
			if k < len(f.CDValues) {
				return f.CDValues[k], true
			}
			return 0, false
		}
		switch f.ID {
		case plan.FilterShuffle:
			out = append(out, desc.Filter{Name: "shuffle"})
		case plan.FilterFletcher32:
			rest = append(rest, desc.Filter{Name: "fletcher32"})
		case plan.FilterNBit:
			rest = append(rest, desc.Filter{Name: "nbit"})
		case plan.FilterSZIP:
			s := desc.Filter{Name: "szip"}
			if mask, ok := cd(0); ok && mask&4 != 0 { // H5_SZIP_EC_OPTION_MASK
				s.Coding = desc.V("ec")
			}
			if px, ok := cd(1); ok && px != 16 {
				s.Pixels = desc.Vf("%d", px)
			}
			rest = append(rest, s)
		case plan.FilterScaleOffset:
			s := desc.Filter{Name: "scaleoffset"}
			if st, ok := cd(0); ok && st < 2 { // H5Z_SO_FLOAT_DSCALE, H5Z_SO_FLOAT_ESCALE; 2 is H5Z_SO_INT
				s.Scale = desc.V([]string{"float_dscale", "float_escale"}[st])
			}
			if sf, ok := cd(1); ok && sf != 0 {
				s.Factor = desc.Vf("%d", int32(sf))
			}
			rest = append(rest, s)
		default:
			b.d.Comment(path, fmt.Sprintf("not expressed: filter %d (its client data %v), which descriptions cannot name: left out of filters", f.ID, f.CDValues))
		}
	}
	if i.Deflate > 0 {
		out = append(out, desc.Filter{Name: "deflate", Level: desc.Vf("%d", i.Deflate)})
	}
	return append(out, rest...)
}

// typeName names a datatype in the description: an atomic name, strN, or a compound
// declared under types (named after the first dataset or attribute that uses it).
func (b *builder) typeName(t plan.Type, user string) string {
	switch {
	case t.Class == plan.String:
		return stringName(t)
	case t.Class == plan.Reference && t.Region:
		return "regref"
	case t.Class == plan.Reference:
		return "ref"
	case t.Enum != nil || t.Class == plan.Array || t.Class == plan.Opaque:
		return b.declare(t, user)
	case t.Class == plan.Compound:
		for _, n := range b.types {
			// Equal, or written alike: a compound attribute's variable-length members are
			// read as long as its longest value, a dataset's as long as a pointer.
			if n.t.Equal(t) || t.HasVarLen() && sameMembers(n.t, t) {
				return n.name
			}
		}
		name := ident(user)
		for _, n := range b.types {
			if n.name == name {
				name += "_t"
			}
		}
		b.types = append(b.types, namedType{name: name, t: t})
		if packed(t) != nil || t.Size != cSize(t) || !plain(t) { // the file's offsets, each TYPE@N; member types by name
			b.types[len(b.types)-1].decl = desc.DeclareType(name, t, func(m plan.Type) string { return b.typeName(m, name+"_"+m.Class.String()) })
		}
		return name
	}
	return t.String() // an atomic name, be after it for a big-endian number (f32be)
}

// declare declares an enum, array or opaque type under types (once per equal type), named
// after the first dataset or attribute that uses it.
func (b *builder) declare(t plan.Type, user string) string {
	for _, n := range b.types {
		if n.t.Equal(t) {
			return n.name
		}
	}
	name := ident(user) + "_t"
	for slices.ContainsFunc(b.types, func(n namedType) bool { return n.name == name }) {
		name += "_"
	}
	b.types = append(b.types, namedType{name: name, t: t})
	b.types[len(b.types)-1].decl = desc.DeclareType(name, t, func(m plan.Type) string { return b.typeName(m, name+"_base") })
	return name
}

// plain reports a compound compound() declares: members of atomic, string and (nested)
// plain compound types.
func plain(t plan.Type) bool {
	for _, m := range t.Members {
		switch {
		case m.Type.Enum != nil || m.Type.Class == plan.Array || m.Type.Class == plan.Opaque || m.Type.Class == plan.Reference:
			return false
		case m.Type.Class == plan.Compound && !plain(m.Type):
			return false
		}
	}
	return true
}

// cSize is a compound's size in C: its members' extent padded to their largest alignment.
func cSize(t plan.Type) int {
	end, a := 0, 1
	for _, m := range t.Members {
		end, a = max(end, m.Offset+m.Type.Size), max(a, m.Type.Align())
	}
	return (end + a - 1) / a * a
}

// sameMembers reports whether two compounds are written alike: the same members, names
// and type names in order (variable-length strings of any read length alike).
func sameMembers(a, b plan.Type) bool {
	if len(a.Members) != len(b.Members) {
		return false
	}
	for i, m := range a.Members {
		n := b.Members[i]
		if m.Name != n.Name || m.Type.Class != n.Type.Class {
			return false
		}
		switch m.Type.Class {
		case plan.Compound:
			if !sameMembers(m.Type, n.Type) {
				return false
			}
		case plan.String:
			if stringName(m.Type) != stringName(n.Type) {
				return false
			}
		}
	}
	return true
}

// stringName names a string type: strN, or vstr for a variable-length one (a literal value
// sizes it; generated values take vstr's length); pstrN for a NUL-padded one; a u before
// for UTF-8.
func stringName(t plan.Type) string {
	s, _ := desc.AtomicName(t)
	return s
}

// packed returns the member offsets of t when they differ from C's natural alignment.
func packed(t plan.Type) []int {
	off, bad := 0, false
	var offs []int
	for _, m := range t.Members {
		a := m.Type.Align()
		off = (off + a - 1) / a * a
		if m.Offset != off {
			bad = true
		}
		offs = append(offs, m.Offset)
		off += m.Type.Size
	}
	if bad {
		return offs
	}
	return nil
}

// compound declares a compound's members, nested compounds inline.
func compound(name string, t plan.Type) *desc.Compound {
	c := &desc.Compound{Name: name}
	for _, m := range t.Members {
		cm := desc.CompoundMember{Name: m.Name}
		switch m.Type.Class {
		case plan.Compound:
			cm.Nested = compound(m.Name, m.Type)
		case plan.String:
			cm.Type = desc.V(stringName(m.Type))
		default:
			cm.Type = desc.V(m.Type.String())
		}
		c.Members = append(c.Members, cm)
	}
	return c
}

// attrs builds attributes: small numeric and string ones with their values, the others
// with generated values; those read in outline (unread) with a stand-in of their size,
// except the dimension scales' own, left out (unread says so).
func (b *builder) attrs(as []plan.AttributeSpec, unread []Unread, owner string) []*desc.Attribute {
	var out []*desc.Attribute
	for _, a := range as {
		path := join(owner, "attributes."+a.Name)
		da := &desc.Attribute{Name: a.Name, Type: desc.V(b.typeName(a.Type, a.Name))}
		if len(a.Shape) > 0 {
			da.Shape = desc.Vs(strconv.FormatUint(plan.Product(a.Shape), 10))
		}
		if len(a.Shape) > 1 {
			b.d.NoteAt(path).Line = fmt.Sprintf("%v in the file: descriptions have 1-D attributes", a.Shape)
		}
		if v, ok := values(a, b.o.SmallValues); ok {
			da.Value = v
		} else {
			da.Generate = desc.V("seeded")
		}
		out = append(out, da)
	}
	for _, u := range unread {
		if u.Size == 0 || dimScaleAttr(u.Name) {
			continue // a link, or a dimension scale's: unread notes them
		}
		path := join(owner, "attributes."+u.Name)
		da := &desc.Attribute{Name: u.Name, Type: desc.V(b.typeName(standInType(u.Size), u.Name)), Generate: desc.V("seeded")}
		if len(u.Shape) > 0 {
			da.Shape = desc.Vs(strconv.FormatUint(plan.Product(u.Shape), 10))
		}
		what := u.What
		if len(u.Refs) > 0 {
			var to []string
			for _, r := range u.Refs {
				to = append(to, r...)
			}
			what = fmt.Sprintf("%s (object references to %s)", u.What, strings.Join(to, ", "))
		}
		b.d.Comment(path, fmt.Sprintf("not expressed: the file's datatype is %s, which descriptions cannot say yet: %s stands in (same size)", what, da.Type.Text))
		out = append(out, da)
	}
	return out
}

// dimScaleAttr reports an attribute the dimension scale calls write (H5DSset_scale,
// H5DSattach_scale): references to the scales and back.
func dimScaleAttr(name string) bool { return name == "DIMENSION_LIST" || name == "REFERENCE_LIST" }

// unread notes at path (an object's key) what was read in outline and is left out: the
// dimension scales' reference attributes, links of kinds descriptions cannot name.
func (b *builder) unread(us []Unread, path string) {
	for _, u := range us {
		switch {
		case u.Size == 0:
			b.d.Comment(path, fmt.Sprintf("not expressed: link %s, %s", u.Name, u.What))
		case u.Name == "DIMENSION_LIST" && u.Refs != nil, u.Name == "REFERENCE_LIST":
			// dims: says the first; the second is the scales' side of the same attachments
		case dimScaleAttr(u.Name):
			b.d.Comment(path, fmt.Sprintf("not expressed: attribute %s (%s, shape %v), written by H5DSattach_scale: dimension scales are not in descriptions yet", u.Name, u.What, u.Shape))
		}
	}
}

// values builds an attribute's value (a scalar or a list) when it is small: numbers,
// a string, or compounds as maps of their members' values.
func values(a plan.AttributeSpec, limit int) (desc.Value, bool) {
	n := int(plan.Product(a.Shape))
	if n > limit || n == 0 || !literal(a.Type) { // an empty array has no value to write
		return desc.Value{}, false
	}
	var out []desc.Value
	for i := 0; i < n; i++ {
		out = append(out, element(a.Type, a.Value[i*a.Type.Size:(i+1)*a.Type.Size]))
	}
	if len(a.Shape) == 0 {
		return out[0], true
	}
	return desc.Value{List: out, Set: true}, true
}

// literal reports a type whose values a description writes: numbers, strings, references'
// targets, compounds of them (an array's or opaque type's are generated).
func literal(t plan.Type) bool {
	switch t.Class {
	case plan.Array, plan.Opaque:
		return false
	case plan.Compound:
		for _, m := range t.Members {
			if !literal(m.Type) {
				return false
			}
		}
	}
	return true
}

// element builds one element: a compound as a map of its members by name (nested
// compounds as nested maps), anything else as a scalar.
func element(t plan.Type, b []byte) desc.Value {
	if t.Class != plan.Compound {
		return desc.V(scalar(t, b))
	}
	v := desc.Value{Set: true, Map: []desc.Value{}}
	for _, m := range t.Members {
		e := element(m.Type, b[m.Offset:m.Offset+m.Type.Size])
		e.Key = m.Name
		v.Map = append(v.Map, e)
	}
	return v
}

func scalar(t plan.Type, b []byte) string {
	le := binary.LittleEndian
	switch t.Class {
	case plan.Float32:
		return fmtFloat(float64(math.Float32frombits(le.Uint32(b))), 32)
	case plan.Float64:
		return fmtFloat(math.Float64frombits(le.Uint64(b)), 64)
	case plan.Int8:
		return strconv.Itoa(int(int8(b[0])))
	case plan.Uint8:
		return strconv.Itoa(int(b[0]))
	case plan.Int16:
		return strconv.Itoa(int(int16(le.Uint16(b))))
	case plan.Uint16:
		return strconv.Itoa(int(le.Uint16(b)))
	case plan.Int32:
		return strconv.Itoa(int(int32(le.Uint32(b))))
	case plan.Uint32:
		return strconv.FormatUint(uint64(le.Uint32(b)), 10)
	case plan.Int64:
		return strconv.FormatInt(int64(le.Uint64(b)), 10)
	case plan.Uint64:
		return strconv.FormatUint(le.Uint64(b), 10)
	case plan.String, plan.Reference: // a reference's plan value is its target's path
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return strings.ToValidUTF8(string(b), "?")
	}
	return "0"
}

// numeric reports an integer or floating-point type (a fill value derive keeps).
func numeric(t plan.Type) bool {
	switch t.Class {
	case plan.Float32, plan.Float64, plan.Int8, plan.Uint8, plan.Int16, plan.Uint16, plan.Int32, plan.Uint32, plan.Int64, plan.Uint64:
		return true // an enumeration's too: fillText names it
	}
	return false
}

// fillText renders a fill value read as a double in the dataset's type.
func fillText(t plan.Type, v float64) string {
	for _, e := range t.Enum { // an enumeration's by name
		if float64(e.Value) == v {
			return e.Name
		}
	}
	switch t.Class {
	case plan.Float32:
		return strconv.FormatFloat(v, 'g', -1, 32)
	case plan.Float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(math.Trunc(v), 'f', -1, 64)
}

// fmtFloat renders a float so that it reads back as a float (1.0, not 1).
func fmtFloat(v float64, bits int) string {
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// ident turns an HDF5 name into a parameter or type name.
func ident(s string) string {
	s = strings.Trim(nonIdent.ReplaceAllString(s, "_"), "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "x" + s
	}
	if !utf8.ValidString(s) {
		s = "x"
	}
	return s
}
