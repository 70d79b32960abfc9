package app

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// The declarations beyond a C-layout compound (desc/types_more.go): a compound's explicit
// size, enum, array and opaque types, and inline arrays T[N][M].

// sized applies a compound's long-form size: at least the members' extent, the rest
// padding; then checks that no member overlaps another.
func (ts *typeSet) sized(c *desc.Compound, t plan.Type) (plan.Type, error) {
	if c.Size.Set {
		n, _ := strconv.Atoi(strings.TrimSpace(c.Size.Text))
		end := 0
		for _, m := range t.Members {
			end = max(end, m.Offset+m.Type.Size)
		}
		if n < end {
			return t, &desc.Error{Pos: c.Size.Pos, Key: c.Size.Path, Value: c.Size.Text,
				Reason: fmt.Sprintf("compound %s's members end at byte %d", c.Name, end), Allowed: fmt.Sprintf("a size of at least %d", end)}
		}
		t.Size = n
	}
	if err := t.Validate(); err != nil {
		return t, &desc.Error{Pos: c.Pos, Key: "types." + c.Name, Reason: err.Error(), Allowed: "members at offsets that do not overlap (TYPE@N: N the byte offset)"}
	}
	return t, nil
}

// other lays out an enum, array or opaque declaration.
func (ts *typeSet) other(c *desc.Compound, seen []string) (plan.Type, error) {
	o := c.Other
	key := "types." + c.Name
	switch c.Kind() {
	case "enum":
		base := plan.I32
		if o.Base.Set {
			base = atomic[strings.ToLower(strings.TrimSpace(o.Base.Text))]
		}
		vals := make([]plan.EnumValue, len(o.Enum))
		for i, e := range o.Enum {
			v, err := strconv.ParseInt(strings.TrimSpace(e.Value.Text), 0, 64)
			if err != nil || !fits(v, base) {
				return plan.Type{}, &desc.Error{Pos: e.Value.Pos, Key: e.Value.Path, Value: e.Value.Text, Reason: "not a value of the enumeration's base " + base.String(),
					Allowed: "a whole number the base holds (base: i8 .. u64)"}
			}
			vals[i] = plan.EnumValue{Name: e.Name, Value: v}
		}
		t := plan.EnumOf(base, vals...)
		if err := t.Validate(); err != nil {
			return t, &desc.Error{Pos: c.Pos, Key: key, Reason: err.Error()}
		}
		return t, nil
	case "array":
		elem, err := ts.resolve(o.Array, seen)
		if err != nil {
			return elem, err
		}
		dims := make([]int, len(o.Dims))
		for i, d := range o.Dims {
			dims[i], _ = strconv.Atoi(strings.TrimSpace(d.Text))
		}
		return ts.array(elem, dims, desc.Value{Pos: c.Pos, Path: key, Text: c.Name})
	}
	n, _ := strconv.Atoi(strings.TrimSpace(o.Opaque.Text))
	return plan.OpaqueOf(n, o.Tag.Text), nil
}

// array makes an array type of elem, refusing what the binding cannot move.
func (ts *typeSet) array(elem plan.Type, dims []int, at desc.Value) (plan.Type, error) {
	t := plan.ArrayOf(elem, dims...)
	if err := t.Validate(); err != nil {
		return t, &desc.Error{Pos: at.Pos, Key: at.Path, Value: at.Text, Reason: err.Error(), Allowed: "an array of fixed-size elements (no vstr)"}
	}
	return t, nil
}

// fits reports whether v is a value of integer type t.
func fits(v int64, t plan.Type) bool {
	bits := uint(t.Size * 8)
	switch t.Class {
	case plan.Int8, plan.Int16, plan.Int32:
		return v >= -(1<<(bits-1)) && v < 1<<(bits-1)
	case plan.Uint8, plan.Uint16, plan.Uint32:
		return v >= 0 && v < 1<<bits
	case plan.Uint64:
		return v >= 0
	}
	return true
}

// arrayRe matches an inline array type name: T[N] or T[N][M]...
var arrayRe = regexp.MustCompile(`^(.+?)((?:\[\s*[0-9]+\s*\])+)$`)

// inlineArray resolves name as T[N][M]...; isArray is false when name is not of that form.
func (ts *typeSet) inlineArray(v desc.Value, name string, seen []string) (t plan.Type, isArray bool, err error) {
	m := arrayRe.FindStringSubmatch(name)
	if m == nil {
		return t, false, nil
	}
	ev := v
	ev.Text = strings.TrimSpace(m[1])
	elem, err := ts.resolve(ev, seen)
	if err != nil {
		return elem, true, err
	}
	var dims []int
	for _, d := range strings.Split(strings.Trim(m[2], "[]"), "][") {
		n, _ := strconv.Atoi(strings.TrimSpace(d))
		if n < 1 {
			return t, true, &desc.Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: "an array extent of 0", Allowed: "T[N] with N at least 1"}
		}
		dims = append(dims, n)
	}
	t, err = ts.array(elem, dims, v)
	return t, true, err
}

// convertibleMore answers convertible for enum, array and opaque types (done false when
// neither type is one): HDF5 converts an enumeration to another by name, an array to one
// of the same extents element by element, and no opaque type but to itself.
func convertibleMore(mem, file plan.Type) (why string, done bool) {
	more := func(t plan.Type) bool { return t.Enum != nil || t.Class == plan.Array || t.Class == plan.Opaque }
	if !more(mem) && !more(file) {
		return "", false
	}
	switch {
	case mem.Enum != nil && file.Enum != nil:
		return "", true
	case mem.Class == plan.Array && file.Class == plan.Array && fmt.Sprint(mem.Dims) == fmt.Sprint(file.Dims):
		return convertible(*mem.Base, *file.Base), true
	case mem.Equal(file):
		return "", true
	}
	return fmt.Sprintf("HDF5 has no conversion between %s and %s", mem, file), true
}

// putMore writes a generated element of an enum (the enumeration's values in turn, from
// the element index), an array (f in every element) or an opaque type (its bytes from f).
func putMore(t plan.Type, b []byte, i int, f float64) {
	switch {
	case t.Enum != nil:
		base := t
		base.Enum = nil
		putNumber(base, b, float64(t.Enum[(i+int(math.Abs(f)))%len(t.Enum)].Value))
	case t.Class == plan.Array:
		for k := range t.Size / t.Base.Size {
			putMembers(*t.Base, b[k*t.Base.Size:(k+1)*t.Base.Size], i, f)
		}
	default:
		for k := range b {
			b[k] = byte(i + k + int(f))
		}
	}
}

// encodeMore encodes a literal of an enum type: a name of the enumeration, or its value.
// Arrays and opaque types take generated values only. done is false for other types.
func encodeMore(t plan.Type, v desc.Value) (b []byte, done bool, err error) {
	switch {
	case t.Enum != nil:
		text := strings.TrimSpace(v.Text)
		names := make([]string, len(t.Enum))
		for k, e := range t.Enum {
			names[k] = e.Name
			n, perr := strconv.ParseInt(text, 0, 64)
			if e.Name == text || (perr == nil && n == e.Value) {
				base := t
				base.Enum = nil
				b = make([]byte, t.Size)
				putNumber(base, b, float64(e.Value))
				return b, true, nil
			}
		}
		return nil, true, errAt(v, "not a name or value of the enumeration %s", strings.Join(names, ", "), t)
	case t.Class == plan.Reference:
		b = make([]byte, t.Size)
		copy(b, strings.TrimSpace(v.Text))
		return b, true, nil
	case t.Class == plan.Array || t.Class == plan.Opaque:
		return nil, true, errAt(v, "a literal value of %s", "generate: seeded or index (arrays and opaque types take generated values)", t)
	}
	return nil, false, nil
}

// refNamed resolves the reference type names: ref (an object reference, H5R_OBJECT) and
// regref (a dataset region reference, H5R_DATASET_REGION). Their plan elements are the
// targets' paths, as long as the longest (attribute sets the length).
func refNamed(name string) (plan.Type, bool) {
	switch name {
	case "ref":
		return plan.RefOf(1, false), true
	case "regref":
		return plan.RefOf(1, true), true
	}
	return plan.Type{}, false
}

// pendingRef is a reference attribute waiting for its targets to be created.
type pendingRef struct {
	owner string
	a     *desc.Attribute
	spec  *plan.AttributeSpec
}

// deferRef records a reference attribute of owner in file in: references name objects,
// which H5Rcreate needs to exist, so the attribute is written at the end of the first
// write action that finds every target created, as a program writes it after them.
func (s *sim) deferRef(in *instance, owner string, a *desc.Attribute, spec *plan.AttributeSpec) {
	if s.refs == nil {
		s.refs = map[string][]pendingRef{}
	}
	s.refs[in.path] = append(s.refs[in.path], pendingRef{owner: owner, a: a, spec: spec})
}

// refAttributes writes the reference attributes of file in whose targets exist and whose
// owner is the root group or an object the action holds open (dsOpen, opened).
func (s *sim) refAttributes(in *instance, step int, dsOpen, opened []string) error {
	var wait []pendingRef
	for _, r := range s.refs[in.path] {
		ready := r.owner == "/" || slices.Contains(dsOpen, r.owner) || slices.Contains(opened, r.owner)
		for i := range plan.Product(r.spec.Shape) {
			target := string(bytes.TrimRight(r.spec.Value[int(i)*r.spec.Type.Size:int(i+1)*r.spec.Type.Size], "\x00"))
			if j := strings.IndexByte(target, '['); j >= 0 {
				target = target[:j]
			}
			if !strings.HasPrefix(target, "/") {
				return errAt(r.a.Value, "a reference's target %q is not an absolute path", "/group/dataset (ref) or /dataset[START:END,...] (regref)", target)
			}
			ready = ready && s.created[in.path][path.Clean(target)]
		}
		if !ready {
			wait = append(wait, r)
			continue
		}
		s.cur.Add(plan.Op{Kind: plan.WriteAttribute, Path: r.owner, Collective: in.parallel, Step: step, Attribute: r.spec})
	}
	if len(s.refs[in.path]) > 0 {
		s.refs[in.path] = wait
	}
	return nil
}

// unreferenced reports a reference attribute the run never wrote: a target never created,
// or an owner never open when its targets were.
func (s *sim) unreferenced() error {
	for _, fp := range slices.Sorted(maps.Keys(s.refs)) {
		for _, r := range s.refs[fp] {
			return &desc.Error{Pos: r.a.Pos, Key: r.a.Value.Path, Value: r.a.Value.Text,
				Reason:  fmt.Sprintf("reference attribute %s of %s in file %s: a target is never created in that file by a write that holds %s open", r.a.Name, r.owner, fp, r.owner),
				Allowed: "paths of groups or datasets the same file's writes create; attributes of the root group (the file's), or of a group or dataset written in the same action as the targets"}
		}
	}
	return nil
}
