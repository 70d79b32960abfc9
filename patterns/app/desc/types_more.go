package desc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
	"go.yaml.in/yaml/v3"
)

// The declarations under types beyond a C-layout compound: members at explicit offsets
// (TYPE@N), a compound's total size (the long form {members: ..., size: N}), and enum,
// array and opaque types. Parsed, checked and written here; patterns/app lays them out.

// TypeDecl is the form of one declaration under types: a member map (a compound), or a
// long form named by its first key (members, enum, array, opaque).
const TypeDecl Kind = 100

func init() { kindNames[TypeDecl] = "type declaration" }

// OtherType is a declared type that is no compound: exactly one of Enum, Array.Set and
// Opaque.Set.
type OtherType struct {
	// Enum is an enumeration's names and values in H5Tenum_insert order; Base its integer
	// type (i32 when unset).
	Enum []EnumMember
	Base Value
	// Array is an array type's element type (a type name) and Dims its extents
	// (H5Tarray_create2).
	Array Value
	Dims  []Value
	// Opaque is an opaque type's size in bytes; Tag its tag (H5Tset_tag), unset for none.
	Opaque Value
	Tag    Value
}

// EnumMember is one name of an enumeration and its value.
type EnumMember struct {
	Name  string
	Value Value
}

// Kind names the declaration's class: compound, enum, array or opaque.
func (c *Compound) Kind() string {
	switch {
	case c.Other == nil:
		return "compound"
	case c.Other.Enum != nil:
		return "enum"
	case c.Other.Array.Set:
		return "array"
	}
	return "opaque"
}

// longForms are the long forms' keys, the first naming the form.
var longForms = [][]string{{"members", "size"}, {"enum", "base"}, {"array", "dims"}, {"opaque", "tag"}}

// IntegerTypes are the type names an enum's base may take.
var IntegerTypes = []string{"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "i8be", "u8be", "i16be", "u16be", "i32be", "u32be", "i64be", "u64be"}

// typeDeclNode is what a declaration under types holds: a member map, or one of the long
// forms' keys.
var typeDeclNode = &Node{Kind: TypeDecl,
	Help:    "a compound: its members by name in H5Tinsert order, MEMBER: TYPE (C layout: natural alignment after the member before) or MEMBER: TYPE@N (at byte offset N, as FLASH's log_list_t {int value; char name[80]} inserts name@4 before value@0), or MEMBER: {nested members} (C layout); the size is the members' extent padded to their largest alignment unless the long form gives it; or one of the long forms: {members: {...}, size: N}, {enum: {NAME: VALUE, ...}, base: i8}, {array: TYPE, dims: [N, ...]}, {opaque: N, tag: TEXT}; a compound with a member named members, enum, array or opaque takes the long form",
	Example: `types: {log_list: {name: str80@4, value: i32@0}, padded: {members: {b: i32@12, a: f64@0}, size: 24}, phase: {enum: {SOLID: 0, LIQUID: 1, GAS: 2}, base: i8}, vel3: {array: f64, dims: [3]}, blob: {opaque: 4, tag: raw}}`,
	Fields: []*Node{
		{Key: "members", Kind: Named, Help: "the long form of a compound: its members, as in the short form", Elem: &Node{Kind: TypeName, Help: "MEMBER: TYPE, TYPE@N or {nested members}"}},
		{Key: "size", Kind: Expr, Help: "the compound's total size in bytes (H5Tcreate's): at least its members' extent; the bytes no member covers are padding"},
		{Key: "enum", Kind: Named, Help: "an enumeration (H5Tenum_create, H5Tenum_insert in this order): NAME: VALUE, each value a whole number; an attribute's value names one (or gives its number); generated data takes the enumeration's values", Elem: &Node{Kind: Literal, Help: "NAME: VALUE"}},
		{Key: "base", Kind: Enum, Allowed: IntegerTypes, Default: "i32", Help: "the enumeration's integer type (be after it: stored big-endian)"},
		{Key: "array", Kind: TypeName, Help: "an array type's element type (H5Tarray_create2): any type name; a type name T[N] or T[N][M] is the same array inline (quote it inside {...})"},
		{Key: "dims", Kind: List, Elem: &Node{Kind: Expr}, Help: "the array's extents, whole numbers, slowest first"},
		{Key: "opaque", Kind: Expr, Help: "an opaque type of this many bytes (H5Tcreate(H5T_OPAQUE, N)); generated data fills its bytes"},
		{Key: "tag", Kind: Text, Help: "the opaque type's tag (H5Tset_tag); default none"},
	}}

// memberMapNode is a compound's member map (the short form, members:, nested members).
var memberMapNode = &Node{Kind: Named, Help: "members by name", Elem: &Node{Kind: TypeName, Help: "MEMBER: TYPE, TYPE@N or {nested members}"}}

// longForm returns the long form a declaration takes (its first key), or "" for a member
// map. A long form is told by what no member map holds: members: or enum: with a map,
// dims: with a list, opaque: with a number.
func longForm(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	keys, vals := pairs(n)
	has := map[string]*yaml.Node{}
	for i, k := range keys {
		has[k.Value] = vals[i]
	}
	switch {
	case has["members"] != nil && has["members"].Kind == yaml.MappingNode:
		return "members"
	case has["enum"] != nil && has["enum"].Kind == yaml.MappingNode:
		return "enum"
	case has["array"] != nil && has["dims"] != nil && has["dims"].Kind == yaml.SequenceNode:
		return "array"
	case has["opaque"] != nil && has["opaque"].Kind == yaml.ScalarNode && wholeNumber(has["opaque"].Value) >= 0:
		return "opaque"
	}
	return ""
}

// wholeNumber returns s as a non-negative integer, or -1.
func wholeNumber(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// checkTypeDecl checks one declaration under types before it is built.
func (p *parser) checkTypeDecl(n *yaml.Node, path string) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return &Error{Pos: p.pos(n), Key: path, Value: scalarText(n), Reason: "want a map of members or a long form here is " + kindName(n),
			Allowed: "{MEMBER: TYPE, ...}, {members: {...}, size: N}, {enum: {NAME: VALUE}, base: i8}, {array: TYPE, dims: [N]}, {opaque: N, tag: TEXT}"}
	}
	form := longForm(n)
	if form == "" {
		return p.check(n, memberMapNode, path)
	}
	var allowed []string
	for _, f := range longForms {
		if f[0] == form {
			allowed = f
		}
	}
	keys, vals := pairs(n)
	for i, k := range keys {
		kp := join(path, k.Value)
		if !slices.Contains(allowed, k.Value) {
			return &Error{Pos: p.pos(k), Key: kp, Reason: "unknown key in the " + form + " form", Allowed: strings.Join(allowed, ", ")}
		}
		if commented(k, vals[i]) {
			p.note(kp, k, vals[i])
		}
		if err := p.check(vals[i], typeDeclNode.Field(k.Value), kp); err != nil {
			return err
		}
	}
	return nil
}

// typeDecl builds one declaration under types.
func (p *parser) typeDecl(name string, pos Pos, n *yaml.Node, path string) (*Compound, error) {
	n = resolve(n)
	c := &Compound{Name: name, Pos: pos}
	form := longForm(n)
	x := p.mapOf(n, path)
	s := typeDeclNode
	switch form {
	case "":
		return c, p.members(c, n, path)
	case "members":
		c.Size = x.value("size", s)
		if c.Size.Set && wholeNumber(c.Size.Text) < 1 {
			return nil, errAt(c.Size, "not a size in bytes", "a whole number of bytes, at least the members' extent")
		}
		return c, p.members(c, resolve(x.vals["members"]), join(path, "members"))
	case "enum":
		o := &OtherType{Base: x.value("base", s)}
		keys, vals := pairs(resolve(x.vals["enum"]))
		for i, k := range keys {
			v := p.scalar(vals[i], join(path, "enum."+k.Value))
			if _, err := strconv.ParseInt(strings.TrimSpace(v.Text), 0, 64); err != nil {
				return nil, errAt(v, "an enumeration's value is not a whole number", "NAME: VALUE, e.g. {SOLID: 0, LIQUID: 1}")
			}
			o.Enum = append(o.Enum, EnumMember{Name: k.Value, Value: v})
		}
		if len(o.Enum) == 0 {
			return nil, &Error{Pos: pos, Key: join(path, "enum"), Reason: "an enumeration needs names", Allowed: "{enum: {NAME: VALUE, ...}}"}
		}
		c.Other = o
	case "array":
		o := &OtherType{Array: x.value("array", s), Dims: x.list("dims")}
		if len(o.Dims) == 0 {
			return nil, &Error{Pos: pos, Key: join(path, "dims"), Reason: "an array needs its extents", Allowed: "dims: [N] or [N, M, ...]"}
		}
		for _, d := range o.Dims {
			if wholeNumber(d.Text) < 1 {
				return nil, errAt(d, "not an array extent", "a whole number, at least 1")
			}
		}
		c.Other = o
	case "opaque":
		o := &OtherType{Opaque: x.value("opaque", s), Tag: x.value("tag", s)}
		if wholeNumber(o.Opaque.Text) < 1 {
			return nil, errAt(o.Opaque, "not a size in bytes", "a whole number of bytes, at least 1")
		}
		c.Other = o
	}
	return c, nil
}

// members builds a compound's member map: TYPE, TYPE@N or a nested member map.
func (p *parser) members(c *Compound, n *yaml.Node, path string) error {
	keys, vals := pairs(n)
	for i, k := range keys {
		v, mp := resolve(vals[i]), join(path, k.Value)
		if v.Kind == yaml.MappingNode {
			nested := &Compound{Name: k.Value, Pos: p.pos(k)}
			if err := p.members(nested, v, mp); err != nil {
				return err
			}
			c.Members = append(c.Members, CompoundMember{Name: k.Value, Nested: nested})
			continue
		}
		m := CompoundMember{Name: k.Value, Type: p.scalar(v, mp)}
		if at := strings.LastIndex(m.Type.Text, "@"); at >= 0 && !strings.Contains(m.Type.Text[at:], "}") {
			whole := m.Type
			m.Offset, m.Type.Text = m.Type, strings.TrimSpace(m.Type.Text[:at])
			m.Offset.Text = strings.TrimSpace(whole.Text[at+1:])
			if wholeNumber(m.Offset.Text) < 0 || m.Type.Text == "" {
				return errAt(whole, "not a member's type at an offset", "TYPE or TYPE@N, N its byte offset (e.g. str80@4)")
			}
		}
		c.Members = append(c.Members, m)
	}
	return nil
}

// typeDecl writes one declaration: the member map, or the long form it needs.
func (wr *writer) typeDecl(c *Compound, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	if o := c.Other; o != nil {
		switch c.Kind() {
		case "enum":
			e := wr.mapping(join(path, "enum")).flow()
			for _, em := range o.Enum {
				e.add(em.Name, scalar(em.Value.Text))
			}
			m.add("enum", e.node(true))
			m.value("base", o.Base)
		case "array":
			m.value("array", o.Array)
			m.list("dims", o.Dims, true)
		default:
			m.value("opaque", o.Opaque)
			m.value("tag", o.Tag)
		}
		return m.node(true)
	}
	long := c.Size.Set || slices.ContainsFunc(c.Members, func(x CompoundMember) bool {
		return slices.ContainsFunc(longForms, func(f []string) bool { return f[0] == x.Name })
	})
	if !long {
		return wr.members(c, path)
	}
	m.add("members", wr.members(c, join(path, "members")))
	m.value("size", c.Size)
	return m.node(true)
}

// members writes a member map: TYPE, TYPE@N, or nested members.
func (wr *writer) members(c *Compound, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	for _, mem := range c.Members {
		switch {
		case mem.Nested != nil:
			m.add(mem.Name, wr.members(mem.Nested, join(path, mem.Name)))
		case mem.Offset.Set:
			m.add(mem.Name, scalar(fmt.Sprintf("%s@%s", mem.Type.Text, mem.Offset.Text)))
		default:
			m.add(mem.Name, scalar(mem.Type.Text))
		}
	}
	return m.node(true)
}

// DeclareType returns the declaration under name that lays out t exactly, for writers
// that describe a file's or a trace's types (derive, capture): a compound's members in
// t's order, each TYPE@N when t's offsets are not the C layout of its members in that
// order, and its size when it is not their extent padded to their largest alignment; an
// enum, array or opaque type. typeName names a member's, element's or base's type (an
// atomic or string name, or a type the caller declares in turn).
func DeclareType(name string, t plan.Type, typeName func(plan.Type) string) *Compound {
	c := &Compound{Name: name}
	switch {
	case t.Enum != nil:
		base := t
		base.Enum = nil
		o := &OtherType{Base: V(typeName(base))}
		for _, e := range t.Enum {
			o.Enum = append(o.Enum, EnumMember{Name: e.Name, Value: Vf("%d", e.Value)})
		}
		c.Other = o
	case t.Class == plan.Array:
		o := &OtherType{Array: V(typeName(*t.Base))}
		for _, d := range t.Dims {
			o.Dims = append(o.Dims, Vf("%d", d))
		}
		c.Other = o
	case t.Class == plan.Opaque:
		c.Other = &OtherType{Opaque: Vf("%d", t.Size)}
		if t.Tag != "" {
			c.Other.Tag = V(t.Tag)
		}
	default:
		off, end, maxAlign, explicit := 0, 0, 1, false
		for _, m := range t.Members {
			a := m.Type.Align()
			if (off+a-1)/a*a != m.Offset {
				explicit = true
			}
			off = m.Offset + m.Type.Size
			end, maxAlign = max(end, off), max(maxAlign, a)
			c.Members = append(c.Members, CompoundMember{Name: m.Name, Type: V(typeName(m.Type))})
		}
		if explicit {
			for i, m := range t.Members {
				c.Members[i].Offset = Vf("%d", m.Offset)
			}
		}
		if t.Size != (end+maxAlign-1)/maxAlign*maxAlign {
			c.Size = Vf("%d", t.Size)
		}
	}
	return c
}
